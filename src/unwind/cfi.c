// SPDX-License-Identifier: Apache-2.0
/* Unwind table compiler: reads DWARF CFI (.eh_frame, .debug_frame) with its own bounded
 * interpreter that tracks only what the BPF unwinder follows (CFA, return address, frame
 * pointer) and streams sorted, merged rows. Every length, offset and operand is checked. */
#include "unwind/cfi.h"

#include <dwarf.h>
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "elf/elf_file.h"
#include "util/cancel.h"

/* The DWARF registers the rows are made of, as the architecture numbers them. */
#define REG_FP ARCH_DWARF_FP
#define REG_SP ARCH_DWARF_SP

#define ADDR_SIZE 8	   /* ELFCLASS64: DW_EH_PE_absptr */
#define STATE_STACK_MAX 16 /* DW_CFA_remember_state nesting; GCC and clang use 1 or 2 */
#define EXEC_SEGS_MAX 16   /* executable PT_LOADs looked at (real files have 1 or 2) */
#define MAX_SECTIONS 3	   /* .eh_frame, .debug_frame, the debug file's .debug_frame */
#define ROWS_INITIAL 4096

/* An FDE that ran into something we cannot follow: NONE from its current location. */
#define ERR_FDE_STOP (-EINVAL)
/* UNWIND_TABLE_MAX_ROWS reached: the table ends here. */
#define ERR_TABLE_FULL (-ENOSPC)
/* The stop flag is polled once per this many CFI entries (collecting) or FDEs (rows):
 * libLLVM's 98 k FDEs give about 400 polls in each of the three passes (CIEs, FDEs,
 * rows), each a load, and a stop waits for at most 256 FDEs' rows (well under a
 * millisecond on an idle CPU). A power of two: the test is a mask. */
#define CANCEL_EVERY 256

enum rule_how {
	RULE_UNSPEC = 0, /* no rule yet: same value for FP, unusable for RA */
	RULE_UNDEF,
	RULE_SAME,
	RULE_OFFSET, /* saved at CFA + off */
	RULE_OTHER,  /* register, expression, val_*: nothing the unwinder can follow */
};

/* The CFA rule as libgcc (and readelf) keep it: an expression does not erase the register
 * rule, DW_CFA_def_cfa_register returns to it and DW_CFA_def_cfa_offset changes its offset
 * without leaving an expression (hand-written assembly relies on both). */
enum cfa_how {
	CFA_UNSET = 0,
	CFA_REG,  /* reg + off */
	CFA_EXPR, /* an expression: expr says what we recognised in it */
};

enum cfa_expr {
	EXPR_OTHER = 0, /* anything we cannot follow */
	EXPR_REG,	/* bregN off alone: expr_reg + expr_off */
	EXPR_PLT,	/* the PLT expression (ARCH_HAS_PLT_CFA_EXPR): SP + expr_off, + 8 when
			 * (pc & 15) >= thr */
};

struct reg_rule {
	int64_t off;
	uint8_t how;
};

struct cfa_rule {
	int64_t off; /* the register rule; INT64_MAX: an offset that does not fit */
	uint64_t reg;
	int64_t expr_off;
	uint64_t expr_reg;
	uint8_t how;
	uint8_t expr;
	uint8_t thr;
};

struct frame_state {
	struct cfa_rule cfa;
	struct reg_rule ra, fp;
};

struct cfi_section {
	const uint8_t *data;
	size_t size;
	uint64_t vaddr;	    /* sh_addr: the base of pc-relative pointers */
	uint32_t cie_first; /* this section's CIEs: cies[cie_first .. cie_end), by offset */
	uint32_t cie_end;
	uint8_t src; /* enum unwind_source */
	bool eh;     /* .eh_frame rules: CIE id 0, CIE pointers relative to themselves */
};

struct cie {
	struct frame_state init; /* after the initial instructions */
	uint64_t off;		 /* of the entry in its section */
	uint64_t code_align;
	uint64_t ra_reg;
	int64_t data_align;
	uint8_t sec; /* index in builder.secs */
	uint8_t fde_enc;
	uint8_t addr_size;
	uint8_t seg_size;
	bool aug_z;
	bool signal;
	bool bad;
};

/* An FDE chosen for the table. Sections are < 4 GiB (UNWIND_SECTION_MAX). */
struct fde_ref {
	uint32_t begin, end;
	uint32_t off; /* of the entry in its CIE's section */
	uint32_t cie; /* index in builder.cies; PLT_CIE: the .plt's rows (add_plt) */
};

#define PLT_CIE UINT32_MAX

struct exec_seg {
	uint64_t lo, hi;
};

struct builder {
	struct unwind_table *t;
	struct unwind_table_stats *st;
	uint32_t cap;	  /* of t->rows */
	uint32_t full_pc; /* where UNWIND_TABLE_MAX_ROWS stopped the table */
	struct cfi_section secs[MAX_SECTIONS];
	unsigned nsecs;
	struct cie *cies;
	uint32_t ncies, cies_cap;
	struct fde_ref *fdes; /* accepted: sorted by begin, disjoint */
	uint32_t nfdes;
	struct fde_ref *cand; /* the current section's candidates */
	uint32_t ncand, cand_cap;
	struct exec_seg segs[EXEC_SEGS_MAX];
	unsigned nsegs;
	const bool *cancel; /* the caller's stop flag, or NULL */
};

/* Whether the caller asked the build to stop, polled at the n-th entry or FDE. */
static bool cancelled_at(const struct builder *b, uint32_t n)
{
	return !(n & (CANCEL_EVERY - 1)) && cancel__requested(b->cancel);
}

/* ---- Bounded little-endian reader ---- */

struct cursor {
	const uint8_t *p, *end;
	bool bad; /* set by any read past end; reads then return 0 */
};

static bool cur_need(struct cursor *c, size_t n)
{
	if ((size_t)(c->end - c->p) >= n)
		return true;
	c->bad = true;
	c->p = c->end;
	return false;
}

static uint64_t cur_fixed(struct cursor *c, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	if (!cur_need(c, n))
		return 0;
	for (i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

/* Reads a LEB128 number's bits; *shift and *last say where it ended, for the sign. */
static uint64_t cur_leb(struct cursor *c, unsigned *shift, uint8_t *last)
{
	uint64_t v = 0;
	uint8_t b;

	*shift = 0;
	do {
		if (c->p >= c->end) {
			c->bad = true;
			*last = 0;
			return 0;
		}
		b = *c->p++;
		if (*shift < 64) {
			v |= (uint64_t)(b & 0x7f) << *shift;
			*shift += 7;
		}
	} while (b & 0x80);
	*last = b;
	return v;
}

static uint64_t cur_uleb(struct cursor *c)
{
	unsigned shift;
	uint8_t last;

	return cur_leb(c, &shift, &last);
}

static int64_t cur_sleb(struct cursor *c)
{
	unsigned shift;
	uint8_t last;
	uint64_t v = cur_leb(c, &shift, &last);

	if (shift < 64 && (last & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* Skips a ULEB128-sized block; returns its start, NULL if it does not fit. */
static const uint8_t *cur_block(struct cursor *c, uint64_t *len)
{
	const uint8_t *p;

	*len = cur_uleb(c);
	if (c->bad || !cur_need(c, *len))
		return NULL;
	p = c->p;
	c->p += *len;
	return p;
}

static size_t cur_off(const struct cursor *c, const struct cfi_section *s)
{
	return c->p - s->data;
}

/* ---- Encoded pointers (LSB "DWARF Exception Header Encoding") ---- */

static bool read_value(struct cursor *c, uint8_t fmt, uint8_t addr_size, uint64_t *v)
{
	switch (fmt) {
	case DW_EH_PE_absptr:
		*v = cur_fixed(c, addr_size);
		break;
	case DW_EH_PE_signed:
		*v = cur_fixed(c, addr_size);
		if (addr_size == 4)
			*v = (uint64_t)(int64_t)(int32_t)*v;
		break;
	case DW_EH_PE_uleb128:
		*v = cur_uleb(c);
		break;
	case DW_EH_PE_sleb128:
		*v = (uint64_t)cur_sleb(c);
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		*v = cur_fixed(c, 2);
		if (fmt == DW_EH_PE_sdata2)
			*v = (uint64_t)(int64_t)(int16_t)*v;
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		*v = cur_fixed(c, 4);
		if (fmt == DW_EH_PE_sdata4)
			*v = (uint64_t)(int64_t)(int32_t)*v;
		break;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		*v = cur_fixed(c, 8);
		break;
	default:
		return false;
	}
	return !c->bad;
}

/* An address: absolute or relative to its own location; text-, data-, function-relative,
 * aligned and indirect pointers never describe an FDE's code in the files we read. */
static bool read_address(struct cursor *c, const struct cfi_section *s, uint8_t enc,
			 uint8_t addr_size, uint64_t *v)
{
	uint64_t here = s->vaddr + cur_off(c, s);

	if (enc == DW_EH_PE_omit || (enc & DW_EH_PE_indirect))
		return false;
	if (!read_value(c, enc & 0x0f, addr_size, v))
		return false;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		return true;
	case DW_EH_PE_pcrel:
		*v += here;
		return true;
	default:
		return false;
	}
}

/* ---- Rule translation and row output ---- */

static bool fits_s16(int64_t v)
{
	return v >= INT16_MIN && v <= INT16_MAX;
}

static bool fits_s32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

static void fp_fill(struct unwind_table_stats *st, const struct reg_rule *fp, bool plt,
		    struct unwind_row *r)
{
	if (fp->how == RULE_UNSPEC || fp->how == RULE_SAME) {
		r->fp_rule = UNW_FP_SAME;
	} else if (fp->how == RULE_OFFSET && !plt && fits_s16(fp->off)) {
		r->fp_rule = UNW_FP_AT_CFA;
		r->fp_off = fp->off;
	} else {
		r->fp_rule = UNW_FP_UNDEF;
		if (fp->how != RULE_UNDEF)
			st->rows_fp_undef++;
	}
}

/* The CFA as SP or FP + offset (plt: the PLT expression); false for anything else. */
static bool cfa_resolve(const struct cfa_rule *cfa, uint64_t *reg, int64_t *off, bool *plt)
{
	*plt = cfa->how == CFA_EXPR && cfa->expr == EXPR_PLT;
	if (cfa->how == CFA_REG) {
		*reg = cfa->reg;
		*off = cfa->off;
	} else if (cfa->how == CFA_EXPR && cfa->expr != EXPR_OTHER) {
		*reg = cfa->expr_reg;
		*off = cfa->expr_off;
	} else {
		return false;
	}
	return (*reg == REG_SP || *reg == REG_FP) && fits_s32(*off);
}

/* Whether the return address is still in the link register: its column has no rule
 * (as at a function's entry) or keeps its value. Only where calls leave it there. */
static bool ra_in_lr(const struct reg_rule *ra)
{
	return ARCH_HAS_LINK_REGISTER && (ra->how == RULE_UNSPEC || ra->how == RULE_SAME);
}

/* The row a DWARF state gives at pc; counts what it had to give up on. */
static void state_row(struct unwind_table_stats *st, const struct cie *cie,
		      const struct frame_state *s, uint64_t pc, struct unwind_row *r)
{
	uint64_t reg;
	int64_t off;
	bool plt;

	memset(r, 0, sizeof(*r));
	r->pc = (uint32_t)pc;
	r->cfa_kind = UNW_CFA_NONE;
	if (cie->signal) {
		r->cfa_kind = UNW_CFA_SIGNAL;
	} else if (s->ra.how == RULE_UNDEF) {
		r->cfa_kind = UNW_CFA_END;
		st->rows_end++;
	} else if (!cfa_resolve(&s->cfa, &reg, &off, &plt)) {
		st->rows_cfa_unsupported++;
	} else if (!ra_in_lr(&s->ra) && (s->ra.how != RULE_OFFSET || !fits_s16(s->ra.off))) {
		st->rows_ra_unsupported++;
	} else {
		r->cfa_kind = plt ? UNW_CFA_PLT : reg == REG_SP ? UNW_CFA_SP : UNW_CFA_FP;
		r->cfa_off = off;
		if (ra_in_lr(&s->ra))
			r->ra_rule = UNW_RA_LR;
		else
			r->ra_off = s->ra.off;
		fp_fill(st, &s->fp, plt, r);
		if (plt) {
			r->fp_off = s->cfa.thr;
			st->rows_plt++;
		}
	}
}

static int rows_grow(struct builder *b)
{
	uint32_t cap = b->cap ? b->cap * 2 : ROWS_INITIAL;
	struct unwind_row *rows;

	if (cap > UNWIND_TABLE_MAX_ROWS)
		cap = UNWIND_TABLE_MAX_ROWS;
	rows = realloc(b->t->rows, (size_t)cap * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	b->t->rows = rows;
	b->cap = cap;
	return 0;
}

/* Appends r, merging: a row at the same pc as the last one replaces it (an FDE starting
 * where the previous one's closing NONE is), a row equal to the last one is dropped.
 * One slot stays free for the NONE that closes a table cut at UNWIND_TABLE_MAX_ROWS. */
static int row_push(struct builder *b, const struct unwind_row *r, bool last_slot)
{
	struct unwind_table *t = b->t;

	b->st->rows_before_merge++;
	if (t->nrows && r->pc < t->rows[t->nrows - 1].pc)
		return 0; /* impossible: FDEs are sorted and disjoint */
	if (t->nrows && r->pc == t->rows[t->nrows - 1].pc)
		t->nrows--;
	if (t->nrows && unwind_row__same_rule(&t->rows[t->nrows - 1], r))
		return 0;
	if (t->nrows + 1 >= UNWIND_TABLE_MAX_ROWS && !last_slot) {
		b->full_pc = r->pc;
		return ERR_TABLE_FULL;
	}
	if (t->nrows == b->cap && rows_grow(b))
		return -ENOMEM;
	t->rows[t->nrows++] = *r;
	return 0;
}

static int row_none(struct builder *b, uint64_t pc, bool last_slot)
{
	struct unwind_row r = {.pc = (uint32_t)pc, .cfa_kind = UNW_CFA_NONE};

	return row_push(b, &r, last_slot);
}

/* ---- The CFA program interpreter ---- */

struct interp {
	struct builder *b;
	const struct cie *cie;	       /* the FDE's CIE, or the CIE being read */
	bool in_cie;		       /* running a CIE's initial instructions */
	const struct cfi_section *sec; /* for DW_CFA_set_loc's pc-relative operand */
	uint64_t loc, end;
	uint32_t rows;
	unsigned depth;
	struct frame_state st;
	struct frame_state stack[STATE_STACK_MAX];
};

static int emit_state(struct interp *in, uint64_t pc)
{
	struct unwind_row r;

	if (in->rows++ >= UNWIND_FDE_MAX_ROWS)
		return ERR_FDE_STOP;
	state_row(in->b->st, in->cie, &in->st, pc, &r);
	return row_push(in->b, &r, false);
}

/* Moves to loc, emitting the row of [old loc, loc). Returns 1 once past the FDE's end. */
static int advance_to(struct interp *in, uint64_t loc)
{
	int err;

	if (in->in_cie || loc < in->loc)
		return ERR_FDE_STOP; /* in a CIE, or backwards */
	if (loc == in->loc)
		return 0;
	err = emit_state(in, in->loc);
	if (err)
		return err;
	in->loc = loc;
	return loc >= in->end;
}

static int advance(struct interp *in, uint64_t delta)
{
	uint64_t d, loc;

	if (__builtin_mul_overflow(delta, in->cie->code_align, &d) ||
	    __builtin_add_overflow(in->loc, d, &loc))
		loc = UINT64_MAX;
	return advance_to(in, loc);
}

static struct reg_rule *reg_slot(struct interp *in, uint64_t reg)
{
	if (reg == in->cie->ra_reg)
		return &in->st.ra;
	if (reg == REG_FP)
		return &in->st.fp;
	return NULL;
}

static void set_rule(struct interp *in, uint64_t reg, uint8_t how)
{
	struct reg_rule *r = reg_slot(in, reg);

	if (r) {
		r->how = how;
		r->off = 0;
	}
}

/* Register saved at CFA + n * data_align (valid: n was representable). */
static void set_offset(struct interp *in, uint64_t reg, int64_t n, bool valid)
{
	struct reg_rule *r = reg_slot(in, reg);
	int64_t off;

	if (!r)
		return;
	if (!valid || __builtin_mul_overflow(n, in->cie->data_align, &off)) {
		r->how = RULE_OTHER;
		return;
	}
	r->how = RULE_OFFSET;
	r->off = off;
}

static void restore_rule(struct interp *in, uint64_t reg)
{
	struct reg_rule *r = reg_slot(in, reg);

	if (!r)
		return;
	if (in->in_cie)
		*r = (struct reg_rule){0};
	else
		*r = r == &in->st.ra ? in->cie->init.ra : in->cie->init.fp;
}

/* bregN off alone is EXPR_REG; the linkers' PLT expression (x86-64:
 * "breg7 off; breg16 0; lit15; and; litT; ge; lit3; shl; plus") is EXPR_PLT. */
static void cfa_expression(struct cfa_rule *cfa, const uint8_t *p, uint64_t len)
{
	static const uint8_t head[] = {DW_OP_breg0 + ARCH_DWARF_PC, 0, DW_OP_lit15, DW_OP_and};
	static const uint8_t tail[] = {DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus};
	struct cursor c = {p, p + len, false};
	uint8_t op = cur_fixed(&c, 1);

	cfa->how = CFA_EXPR;
	cfa->expr = EXPR_OTHER;
	if (op >= DW_OP_breg0 && op <= DW_OP_breg31)
		cfa->expr_reg = op - DW_OP_breg0;
	else if (op == DW_OP_bregx)
		cfa->expr_reg = cur_uleb(&c);
	else
		return;
	cfa->expr_off = cur_sleb(&c);
	if (c.bad)
		return;
	if (c.p == c.end) {
		cfa->expr = EXPR_REG;
		return;
	}
	if (!ARCH_HAS_PLT_CFA_EXPR || cfa->expr_reg != REG_SP || c.end - c.p != 9 ||
	    memcmp(c.p, head, sizeof(head)) || c.p[4] < DW_OP_lit0 || c.p[4] > DW_OP_lit31 ||
	    memcmp(c.p + 5, tail, sizeof(tail)))
		return;
	cfa->expr = EXPR_PLT;
	cfa->thr = c.p[4] - DW_OP_lit0;
}

static int op_loc(struct interp *in, struct cursor *c, uint8_t op)
{
	uint64_t loc;

	switch (op) {
	case DW_CFA_set_loc:
		if (!read_address(c, in->sec, in->cie->fde_enc, in->cie->addr_size, &loc))
			return ERR_FDE_STOP;
		return advance_to(in, loc);
	case DW_CFA_advance_loc1:
		return advance(in, cur_fixed(c, 1));
	case DW_CFA_advance_loc2:
		return advance(in, cur_fixed(c, 2));
	case DW_CFA_advance_loc4:
		return advance(in, cur_fixed(c, 4));
	case DW_CFA_MIPS_advance_loc8:
		return advance(in, cur_fixed(c, 8));
	}
	return -ENOENT;
}

static int op_state(struct interp *in, uint8_t op)
{
	switch (op) {
	case DW_CFA_remember_state:
		if (in->depth >= STATE_STACK_MAX)
			return ERR_FDE_STOP;
		in->stack[in->depth++] = in->st;
		return 0;
	case DW_CFA_restore_state:
		if (!in->depth)
			return ERR_FDE_STOP;
		in->st = in->stack[--in->depth];
		return 0;
	case DW_CFA_nop:
	case DW_CFA_GNU_window_save: /* SPARC / AArch64 only: no operands */
		return 0;
	}
	return -ENOENT;
}

static int op_reg(struct interp *in, struct cursor *c, uint8_t op)
{
	uint64_t reg, u, len;
	int64_t s;

	switch (op) {
	case DW_CFA_offset_extended:
	case DW_CFA_GNU_negative_offset_extended:
		reg = cur_uleb(c);
		u = cur_uleb(c);
		s = (int64_t)(u & INT64_MAX);
		s = op == DW_CFA_offset_extended ? s : -s;
		set_offset(in, reg, s, u <= INT64_MAX);
		return 0;
	case DW_CFA_offset_extended_sf:
		reg = cur_uleb(c);
		set_offset(in, reg, cur_sleb(c), true);
		return 0;
	case DW_CFA_restore_extended:
		restore_rule(in, cur_uleb(c));
		return 0;
	case DW_CFA_undefined:
	case DW_CFA_same_value:
		reg = cur_uleb(c);
		set_rule(in, reg, op == DW_CFA_undefined ? RULE_UNDEF : RULE_SAME);
		return 0;
	case DW_CFA_register:
	case DW_CFA_val_offset:
	case DW_CFA_val_offset_sf:
		reg = cur_uleb(c);
		cur_uleb(c); /* the same bytes for the SLEB128 of val_offset_sf */
		set_rule(in, reg, RULE_OTHER);
		return 0;
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		reg = cur_uleb(c);
		if (!cur_block(c, &len))
			return ERR_FDE_STOP;
		set_rule(in, reg, RULE_OTHER);
		return 0;
	}
	return -ENOENT;
}

/* n (times data_align when factored) as a CFA offset; INT64_MAX when it does not fit. */
static int64_t cfa_offset(const struct interp *in, int64_t n, bool valid, bool factored)
{
	int64_t off = n;

	if (!valid || (factored && __builtin_mul_overflow(n, in->cie->data_align, &off)))
		return INT64_MAX;
	return off;
}

static int op_cfa(struct interp *in, struct cursor *c, uint8_t op)
{
	const uint8_t *p;
	uint64_t u, len;

	switch (op) {
	case DW_CFA_def_cfa:
	case DW_CFA_def_cfa_sf:
		in->st.cfa.reg = cur_uleb(c);
		if (op == DW_CFA_def_cfa_sf) {
			in->st.cfa.off = cfa_offset(in, cur_sleb(c), true, true);
		} else {
			u = cur_uleb(c);
			in->st.cfa.off =
			    cfa_offset(in, (int64_t)(u & INT64_MAX), u <= INT64_MAX, false);
		}
		in->st.cfa.how = CFA_REG;
		return 0;
	case DW_CFA_def_cfa_register:
		in->st.cfa.reg = cur_uleb(c);
		in->st.cfa.how = CFA_REG;
		return 0;
	case DW_CFA_def_cfa_offset: /* the rule stays what it was, as in libgcc */
		u = cur_uleb(c);
		in->st.cfa.off = cfa_offset(in, (int64_t)(u & INT64_MAX), u <= INT64_MAX, false);
		return 0;
	case DW_CFA_def_cfa_offset_sf:
		in->st.cfa.off = cfa_offset(in, cur_sleb(c), true, true);
		return 0;
	case DW_CFA_def_cfa_expression:
		p = cur_block(c, &len);
		if (!p)
			return ERR_FDE_STOP;
		cfa_expression(&in->st.cfa, p, len);
		return 0;
	}
	return -ENOENT;
}

static int op_extended(struct interp *in, struct cursor *c, uint8_t op)
{
	int err = op_loc(in, c, op);

	if (err == -ENOENT)
		err = op_state(in, op);
	if (err == -ENOENT)
		err = op_reg(in, c, op);
	if (err == -ENOENT)
		err = op_cfa(in, c, op);
	if (err == -ENOENT && op == DW_CFA_GNU_args_size) {
		cur_uleb(c);
		err = 0;
	}
	return err == -ENOENT ? ERR_FDE_STOP : err;
}

/* Runs the program in c. Returns 0 at its end, 1 once the location passed the FDE's end,
 * ERR_FDE_STOP on what we cannot follow, or row_push's error. */
static int run_program(struct interp *in, struct cursor *c)
{
	uint64_t u;
	uint8_t op;
	int err;

	while (c->p < c->end) {
		op = *c->p++;
		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			err = advance(in, op & 0x3f);
			break;
		case DW_CFA_offset:
			u = cur_uleb(c);
			set_offset(in, op & 0x3f, (int64_t)(u & INT64_MAX), u <= INT64_MAX);
			err = 0;
			break;
		case DW_CFA_restore:
			restore_rule(in, op & 0x3f);
			err = 0;
			break;
		default:
			err = op_extended(in, c, op);
		}
		if (!err && c->bad)
			err = ERR_FDE_STOP;
		if (err)
			return err;
	}
	return 0;
}

/* ---- Entries, CIEs and FDEs ---- */

enum entry_kind {
	ENTRY_ZERO, /* a zero length: terminator or padding, skipped */
	ENTRY_CIE,
	ENTRY_FDE,
};

struct cfi_entry {
	size_t off;    /* of the length field */
	size_t id_off; /* of the CIE id or CIE pointer */
	size_t body;   /* after it */
	size_t end;    /* where the next entry starts */
	uint64_t id;
	uint8_t kind;
};

/* Reads the header of the entry at off. Returns 1, 0 at the section's end, -EINVAL when
 * the header is malformed (nothing after it can be located). */
static int entry_read(const struct cfi_section *s, size_t off, struct cfi_entry *e)
{
	struct cursor c = {s->data + off, s->data + s->size, false};
	unsigned osize = 4;
	uint64_t len;

	if (off >= s->size || s->size - off < 4)
		return 0; /* trailing padding */
	e->off = off;
	len = cur_fixed(&c, 4);
	if (len == 0xffffffff) {
		len = cur_fixed(&c, 8);
		osize = 8;
	}
	if (c.bad || len > (uint64_t)(c.end - c.p) || (len && len < osize))
		return -EINVAL;
	e->kind = ENTRY_ZERO;
	e->end = cur_off(&c, s) + len;
	if (!len)
		return 1;
	e->id_off = cur_off(&c, s);
	e->id = cur_fixed(&c, osize);
	e->body = cur_off(&c, s);
	if (s->eh)
		e->kind = e->id == 0 ? ENTRY_CIE : ENTRY_FDE;
	else
		e->kind = e->id == (osize == 4 ? 0xffffffffu : UINT64_MAX) ? ENTRY_CIE : ENTRY_FDE;
	return 1;
}

/* The data of a 'z' augmentation: which letters we know, and the FDE pointer encoding. */
static int cie_augmentation(struct cie *cie, const char *aug, struct cursor *c)
{
	struct cursor a;
	const uint8_t *p;
	uint64_t len, v;
	uint8_t enc;

	cie->fde_enc = DW_EH_PE_absptr;
	if (!*aug)
		return 0;
	if (*aug != 'z')
		return -ENOTSUP; /* unknown augmentation: the instructions cannot be found */
	cie->aug_z = true;
	p = cur_block(c, &len);
	if (!p)
		return -EINVAL;
	a = (struct cursor){p, p + len, false};
	for (aug++; *aug; aug++) {
		if (*aug == 'R') {
			cie->fde_enc = cur_fixed(&a, 1);
		} else if (*aug == 'L') {
			cur_fixed(&a, 1);
		} else if (*aug == 'P') {
			enc = cur_fixed(&a, 1);
			if (!read_value(&a, enc & 0x0f, cie->addr_size, &v))
				return -EINVAL;
		} else if (*aug == 'S') {
			cie->signal = true;
		} else if (*aug != 'B' && *aug != 'G') {
			return -ENOTSUP; /* its data's size is unknown: 'R' may follow */
		}
	}
	return a.bad ? -EINVAL : 0;
}

/* Parses a CIE up to its initial instructions, which c is left on. */
static int cie_header(const struct cfi_section *s, const struct cfi_entry *e, struct cie *cie,
		      struct cursor *c)
{
	const char *aug;
	uint8_t version;

	*c = (struct cursor){s->data + e->body, s->data + e->end, false};
	version = cur_fixed(c, 1);
	if (version != 1 && version != 3 && version != 4)
		return -ENOTSUP;
	aug = (const char *)c->p;
	if (!memchr(c->p, 0, c->end - c->p))
		return -EINVAL;
	c->p += strlen(aug) + 1;
	cie->addr_size = ADDR_SIZE;
	if (version == 4) {
		cie->addr_size = cur_fixed(c, 1);
		cie->seg_size = cur_fixed(c, 1);
		if ((cie->addr_size != 4 && cie->addr_size != 8) || cie->seg_size > 8)
			return -ENOTSUP;
	}
	if (aug[0] == 'e' && aug[1] == 'h') { /* GCC 2: a pointer to exception data */
		cur_fixed(c, cie->addr_size);
		aug += 2;
	}
	cie->code_align = cur_uleb(c);
	cie->data_align = cur_sleb(c);
	cie->ra_reg = version == 1 ? cur_fixed(c, 1) : cur_uleb(c);
	if (c->bad)
		return -EINVAL;
	return cie_augmentation(cie, aug, c);
}

/* Fills cie from the entry e of section sec; a CIE we cannot use is marked bad. */
static void cie_parse(struct builder *b, unsigned sec, const struct cfi_entry *e, struct cie *cie)
{
	struct interp in;
	struct cursor c;
	int err;

	memset(cie, 0, sizeof(*cie));
	cie->off = e->off;
	cie->sec = sec;
	err = cie_header(&b->secs[sec], e, cie, &c);
	if (!err) {
		memset(&in, 0, offsetof(struct interp, stack));
		in.b = b;
		in.cie = cie;
		in.in_cie = true;
		in.sec = &b->secs[sec];
		err = run_program(&in, &c);
		cie->init = in.st;
	}
	cie->bad = err != 0;
}

struct fde_hdr {
	uint64_t begin, end;
	const uint8_t *insns, *insns_end;
};

static int fde_parse(const struct builder *b, const struct cie *cie, const struct cfi_entry *e,
		     struct fde_hdr *h)
{
	const struct cfi_section *s = &b->secs[cie->sec];
	struct cursor c = {s->data + e->body, s->data + e->end, false};
	uint64_t range, len;

	if (cie->bad)
		return -EINVAL;
	cur_fixed(&c, cie->seg_size);
	if (!read_address(&c, s, cie->fde_enc, cie->addr_size, &h->begin) ||
	    !read_value(&c, cie->fde_enc & 0x0f, cie->addr_size, &range))
		return -EINVAL;
	if (cie->aug_z && !cur_block(&c, &len))
		return -EINVAL;
	if (__builtin_add_overflow(h->begin, range, &h->end))
		h->end = UINT64_MAX;
	h->insns = c.p;
	h->insns_end = c.end;
	return 0;
}

/* The index of the CIE the FDE e points at, -1 if there is none there. */
static int64_t cie_find(const struct builder *b, const struct cfi_section *s,
			const struct cfi_entry *e)
{
	uint32_t lo = s->cie_first, hi = s->cie_end, mid;
	uint64_t off = e->id;

	if (s->eh) { /* relative to the CIE pointer itself, backwards */
		if (e->id > e->id_off)
			return -1;
		off = e->id_off - e->id;
	}
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (b->cies[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->cie_end && b->cies[lo].off == off ? (int64_t)lo : -1;
}

/* ---- Choosing FDEs ---- */

/* Whether [begin, end) is code the unwinder can meet: inside an executable segment and
 * below 4 GiB. Address 0 is where linkers put FDEs of discarded functions. */
static bool fde_in_text(const struct builder *b, uint64_t begin, uint64_t end)
{
	unsigned i;

	if (!begin || end <= begin || end > UINT32_MAX)
		return false;
	for (i = 0; i < b->nsegs; i++)
		if (begin >= b->segs[i].lo && end <= b->segs[i].hi)
			return true;
	return false;
}

static int grow(void **v, uint32_t *cap, uint32_t n, size_t size)
{
	uint32_t c;
	void *p;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 256;
	p = realloc(*v, (size_t)c * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

static int collect_cies(struct builder *b, unsigned sec)
{
	struct cfi_section *s = &b->secs[sec];
	struct cfi_entry e;
	size_t off = 0;
	uint32_t n = 0;

	s->cie_first = b->ncies;
	while (entry_read(s, off, &e) == 1) {
		if (cancelled_at(b, n++))
			return -ECANCELED;
		off = e.end;
		if (e.kind != ENTRY_CIE)
			continue;
		b->st->cies++;
		if (b->ncies >= UNWIND_MAX_CIES) {
			b->st->cies_bad++;
			continue;
		}
		if (grow((void **)&b->cies, &b->cies_cap, b->ncies, sizeof(*b->cies)))
			return -ENOMEM;
		cie_parse(b, sec, &e, &b->cies[b->ncies]);
		b->st->cies_bad += b->cies[b->ncies].bad;
		b->ncies++;
	}
	s->cie_end = b->ncies;
	return 0;
}

static int fde_candidate(struct builder *b, const struct cfi_section *s, const struct cfi_entry *e)
{
	struct fde_hdr h;
	int64_t cie;

	b->st->fdes++;
	cie = cie_find(b, s, e);
	if (cie < 0 || fde_parse(b, &b->cies[cie], e, &h)) {
		b->st->fdes_bad++;
		return 0;
	}
	if (!fde_in_text(b, h.begin, h.end)) {
		b->st->fdes_outside++;
		return 0;
	}
	if (b->nfdes + b->ncand >= UNWIND_TABLE_MAX_FDES) {
		b->st->truncated = 1;
		return 0;
	}
	if (grow((void **)&b->cand, &b->cand_cap, b->ncand, sizeof(*b->cand)))
		return -ENOMEM;
	b->cand[b->ncand++] = (struct fde_ref){h.begin, h.end, e->off, cie};
	return 0;
}

static int collect_fdes(struct builder *b, unsigned sec)
{
	const struct cfi_section *s = &b->secs[sec];
	struct cfi_entry e;
	size_t off = 0;
	uint32_t n = 0;
	int r;

	b->ncand = 0;
	while ((r = entry_read(s, off, &e)) == 1) {
		if (cancelled_at(b, n++))
			return -ECANCELED;
		off = e.end;
		if (e.kind == ENTRY_FDE && fde_candidate(b, s, &e))
			return -ENOMEM;
	}
	if (r < 0)
		b->st->fdes_bad++; /* a broken length: the rest of the section is lost */
	return 0;
}

static int fde_cmp(const void *pa, const void *pb)
{
	const struct fde_ref *a = pa, *b = pb;

	if (a->begin != b->begin)
		return a->begin < b->begin ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

/* Merges the kept candidates into the accepted FDEs (both sorted and disjoint). */
static int merge_accepted(struct builder *b)
{
	uint32_t i = 0, j = 0, n = 0;
	struct fde_ref *v;

	if (!b->ncand)
		return 0;
	if (!b->nfdes) { /* the first source: take the array, no copy */
		free(b->fdes);
		b->fdes = b->cand;
		b->nfdes = b->ncand;
		b->cand = NULL;
		b->ncand = b->cand_cap = 0;
		return 0;
	}
	v = malloc((size_t)(b->nfdes + b->ncand) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	while (i < b->nfdes || j < b->ncand) {
		if (j == b->ncand || (i < b->nfdes && b->fdes[i].begin < b->cand[j].begin))
			v[n++] = b->fdes[i++];
		else
			v[n++] = b->cand[j++];
	}
	free(b->fdes);
	b->fdes = v;
	b->nfdes = n;
	return 0;
}

/* Keeps the candidates that overlap neither an accepted FDE (an earlier source) nor a
 * kept candidate starting before them. */
static int resolve(struct builder *b, uint8_t src)
{
	uint32_t i, j = 0, n = 0;
	uint64_t last_end = 0;
	const struct fde_ref *f;

	if (b->ncand > 1) /* qsort wants a non-NULL base even for 0 elements */
		qsort(b->cand, b->ncand, sizeof(*b->cand), fde_cmp);
	for (i = 0; i < b->ncand; i++) {
		f = &b->cand[i];
		while (j < b->nfdes && b->fdes[j].end <= f->begin)
			j++;
		if (f->begin < last_end || (j < b->nfdes && b->fdes[j].begin < f->end)) {
			b->st->fdes_overlap++;
			continue;
		}
		last_end = f->end;
		b->cand[n++] = *f;
	}
	b->ncand = n;
	if (n)
		b->st->sources |= src;
	return merge_accepted(b);
}

/* ---- Rows ---- */

/* The .plt of an architecture whose linkers give it no CFI (ARCH_HAS_PLT_CFA_EXPR 0): one
 * row, CFA = SP with the return address in the link register, as every stub leaves them,
 * then NONE. An FDE covering any of it wins. */
static int plt_rows(struct builder *b, const struct fde_ref *f)
{
	struct unwind_row r = {
	    .pc = f->begin, .cfa_kind = UNW_CFA_SP, .fp_rule = UNW_FP_SAME, .ra_rule = UNW_RA_LR};
	int err = row_push(b, &r, false);

	if (!err)
		err = row_none(b, f->end, false);
	b->st->rows_plt += err == 0;
	return err;
}

/* Adds the .plt of e as an FDE of its own (cie PLT_CIE) where no FDE covers it. */
static int add_plt(struct builder *b, const struct elf_file *e)
{
	struct elf_section sec;

	if (ARCH_HAS_PLT_CFA_EXPR || !ARCH_HAS_LINK_REGISTER || elf_file__section(e, ".plt", &sec))
		return 0;
	if (!sec.size || sec.addr > UINT32_MAX || sec.size > UINT32_MAX - sec.addr ||
	    !fde_in_text(b, sec.addr, sec.addr + sec.size))
		return 0;
	if (grow((void **)&b->cand, &b->cand_cap, 0, sizeof(*b->cand)))
		return -ENOMEM;
	b->cand[0] =
	    (struct fde_ref){(uint32_t)sec.addr, (uint32_t)(sec.addr + sec.size), 0, PLT_CIE};
	b->ncand = 1;
	return resolve(b, 0);
}

/* Interprets one FDE: its rows, NONE from where we had to stop, NONE at its end. */
static int fde_rows(struct builder *b, const struct fde_ref *f)
{
	const struct cie *cie;
	struct interp in;
	struct cfi_entry e;
	struct fde_hdr h;
	struct cursor c;
	int err;

	if (f->cie == PLT_CIE)
		return plt_rows(b, f);
	cie = &b->cies[f->cie];

	if (entry_read(&b->secs[cie->sec], f->off, &e) != 1 || fde_parse(b, cie, &e, &h))
		return 0; /* cannot happen: it parsed when collected */
	memset(&in, 0, offsetof(struct interp, stack)); /* the state stack needs no zeroing */
	in.b = b;
	in.cie = cie;
	in.sec = &b->secs[cie->sec];
	in.loc = h.begin;
	in.end = h.end;
	in.st = cie->init;
	c = (struct cursor){h.insns, h.insns_end, false};
	err = run_program(&in, &c);
	if (!err)
		err = emit_state(&in, in.loc);
	if (err == ERR_FDE_STOP) {
		b->st->fdes_truncated++;
		err = row_none(b, in.loc, false);
	}
	if (err >= 0)
		err = row_none(b, h.end, false);
	b->st->fdes_used += err == 0;
	b->st->fdes_signal += err == 0 && cie->signal;
	return err;
}

static int emit_all(struct builder *b)
{
	uint32_t i;
	int err;

	for (i = 0; i < b->nfdes; i++) {
		if (cancelled_at(b, i))
			return -ECANCELED;
		err = fde_rows(b, &b->fdes[i]);
		if (err == ERR_TABLE_FULL) {
			b->st->truncated = 1;
			return row_none(b, b->full_pc, true);
		}
		if (err)
			return err;
	}
	return 0;
}

/* Gives back the unused capacity (a failed shrink keeps the larger block). */
static void rows_shrink(struct unwind_table *t)
{
	struct unwind_row *rows;

	if (!t->nrows) {
		free(t->rows);
		t->rows = NULL;
		return;
	}
	rows = realloc(t->rows, (size_t)t->nrows * sizeof(*rows));
	if (rows)
		t->rows = rows;
}

/* ---- ELF ---- */

/* The files we unwind: 64-bit little-endian executables and shared objects of the
 * architecture we run on. */
static int check_header(const struct elf_file *e)
{
	uint16_t type = elf_file__type(e);

	if (!elf_file__is_64le(e) || elf_file__machine(e) != ARCH_ELF_MACHINE ||
	    (type != ET_EXEC && type != ET_DYN))
		return -ENOTSUP;
	return 0;
}

static void read_segments(struct builder *b, const struct elf_file *e)
{
	const struct elf_segment *segs;
	size_t n, i;

	segs = elf_file__segments(e, &n);
	for (i = 0; i < n && b->nsegs < EXEC_SEGS_MAX; i++) {
		if (!(segs[i].flags & PF_X) || !segs[i].memsz)
			continue;
		b->segs[b->nsegs].lo = segs[i].vaddr;
		if (__builtin_add_overflow(segs[i].vaddr, segs[i].memsz, &b->segs[b->nsegs].hi))
			b->segs[b->nsegs].hi = UINT64_MAX;
		b->nsegs++;
	}
}

/* Adds the section called name (or its GNU-compressed twin alt) as a CFI source. */
static void add_section(struct builder *b, const struct elf_file *e, const char *name,
			const char *alt, uint8_t src)
{
	struct cfi_section *s = &b->secs[b->nsecs];
	struct elf_section sec;
	const void *data;
	size_t size;
	int err;

	if (b->nsecs >= MAX_SECTIONS)
		return;
	if (elf_file__section(e, name, &sec) && (!alt || elf_file__section(e, alt, &sec)))
		return;
	err = elf_file__section_data(e, &sec, UNWIND_SECTION_MAX, &data, &size);
	if (err) {
		b->st->sections_skipped += err != -ENOENT;
		return;
	}
	*s = (struct cfi_section){.data = data, .size = size, .vaddr = sec.addr};
	s->src = src;
	s->eh = src == UNWIND_SRC_EH_FRAME;
	b->nsecs++;
}

/* Adds the debug file's .debug_frame unless its build id differs from e's. */
static int add_debug(struct builder *b, const struct elf_file *e, const struct elf_file *dbg)
{
	const uint8_t *a, *d;
	size_t na, nd;
	int err;

	err = check_header(dbg);
	if (err)
		return err;
	na = elf_file__build_id(e, &a);
	nd = elf_file__build_id(dbg, &d);
	if (na && nd && (na != nd || memcmp(a, d, na)))
		return -EINVAL;
	add_section(b, dbg, ".debug_frame", ".zdebug_frame", UNWIND_SRC_DEBUG_FILE);
	return 0;
}

static int collect(struct builder *b)
{
	unsigned i;
	int err;

	for (i = 0; i < b->nsecs; i++) {
		err = collect_cies(b, i);
		if (!err)
			err = collect_fdes(b, i);
		if (!err)
			err = resolve(b, b->secs[i].src);
		if (err)
			return err;
	}
	return 0;
}

/* ---- API ---- */

int unwind_table__build_elf(const struct elf_file *e, const struct elf_file *debug,
			    const bool *cancel, struct unwind_table *t)
{
	struct builder b = {.t = t, .st = &t->stats, .cancel = cancel};
	int err;

	memset(t, 0, sizeof(*t));
	err = check_header(e);
	if (err)
		return err;
	read_segments(&b, e);
	add_section(&b, e, ".eh_frame", NULL, UNWIND_SRC_EH_FRAME);
	add_section(&b, e, ".debug_frame", ".zdebug_frame", UNWIND_SRC_DEBUG_FRAME);
	if (debug)
		t->stats.debug_file_err = add_debug(&b, e, debug);
	err = collect(&b);
	if (!err)
		err = add_plt(&b, e);
	if (!err)
		err = emit_all(&b);
	if (!err)
		rows_shrink(t);
	free(b.cand);
	free(b.fdes);
	free(b.cies);
	if (err) {
		free(t->rows);
		t->rows = NULL;
		t->nrows = 0;
	}
	return err;
}

int unwind_table__build(int fd, int debug_fd, struct unwind_table *t)
{
	struct elf_file *e, *dbg = NULL;
	int err, debug_err = 0;

	memset(t, 0, sizeof(*t));
	e = elf_file__open(fd);
	if (!e)
		return -errno;
	if (debug_fd >= 0 && !(dbg = elf_file__open(debug_fd)))
		debug_err = -errno;
	err = unwind_table__build_elf(e, dbg, NULL, t);
	if (debug_err)
		t->stats.debug_file_err = debug_err;
	elf_file__free(dbg);
	elf_file__free(e);
	return err;
}

void unwind_table__free(struct unwind_table *t)
{
	if (!t)
		return;
	free(t->rows);
	t->rows = NULL;
	t->nrows = 0;
}

const struct unwind_row *unwind_table__find(const struct unwind_table *t, uint64_t pc)
{
	uint32_t lo = 0, hi, mid;

	if (!t || !t->nrows || pc < t->rows[0].pc)
		return NULL;
	if (pc > UINT32_MAX)
		return &t->rows[t->nrows - 1];
	hi = t->nrows;
	while (hi - lo > 1) { /* rows[lo].pc <= pc < rows[hi].pc */
		mid = lo + (hi - lo) / 2;
		if (t->rows[mid].pc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return &t->rows[lo];
}

static void fp_str(const struct unwind_row *r, char *buf, size_t len)
{
	if (r->fp_rule == UNW_FP_AT_CFA)
		snprintf(buf, len, "c%+d", r->fp_off);
	else
		snprintf(buf, len, "%s", r->fp_rule == UNW_FP_SAME ? "s" : "u");
}

static void ra_str(const struct unwind_row *r, char *buf, size_t len)
{
	if (r->ra_rule == UNW_RA_LR)
		snprintf(buf, len, "lr");
	else
		snprintf(buf, len, "c%+d", r->ra_off);
}

static void dump_row(const struct unwind_row *r, FILE *out)
{
	static const char *const special[] = {
	    [UNW_CFA_SIGNAL] = "signal", [UNW_CFA_END] = "end", [UNW_CFA_NONE] = "none"};
	char fp[16], ra[16];

	fp_str(r, fp, sizeof(fp));
	ra_str(r, ra, sizeof(ra));
	switch (r->cfa_kind) {
	case UNW_CFA_SP:
	case UNW_CFA_FP:
		fprintf(out, "%08x %s%+d ra=%s fp=%s\n", r->pc,
			r->cfa_kind == UNW_CFA_SP ? "sp" : "fp", r->cfa_off, ra, fp);
		break;
	case UNW_CFA_PLT:
		fprintf(out, "%08x plt sp%+d >=%d ra=c%+d fp=%s\n", r->pc, r->cfa_off, r->fp_off,
			r->ra_off, r->fp_rule == UNW_FP_SAME ? "s" : "u");
		break;
	case UNW_CFA_SIGNAL:
	case UNW_CFA_END:
	case UNW_CFA_NONE:
		fprintf(out, "%08x %s\n", r->pc, special[r->cfa_kind]);
		break;
	default:
		fprintf(out, "%08x kind%u\n", r->pc, r->cfa_kind);
	}
}

int unwind_table__dump(const struct unwind_table *t, FILE *out)
{
	uint32_t i;

	for (i = 0; i < t->nrows; i++)
		dump_row(&t->rows[i], out);
	return ferror(out) ? -EIO : 0;
}
