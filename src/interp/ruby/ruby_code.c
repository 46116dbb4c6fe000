// SPDX-License-Identifier: Apache-2.0
/* The x86-64 decoding of libruby's exported functions (ruby_code.h). The instruction
 * format is Intel's (SDM volume 2: prefixes, REX, opcode, ModRM, SIB, displacement,
 * immediate); only the encodings GCC emits for ordinary C are known, and anything else
 * ends a scan, which then finds nothing. */
#include <errno.h>
#include <string.h>

#include "interp/ruby/ruby_code.h"

#define MAX_SCAN 4096 /* bytes of a function the matchers look at */

/* One-byte opcodes: whether a ModRM byte follows, and the immediate's size (4 stands for
 * "4, or 2 with the 0x66 prefix"; 8 for mov r64, imm64 with REX.W). */
enum { NONE = 0, M = 1 };
struct op_form {
	uint8_t modrm, imm;
	bool known;
};

static struct op_form one_byte(uint8_t op, bool rex_w)
{
	if (op < 0x40) {
		uint8_t low = op & 7;

		/* add, or, adc, sbb, and, sub, xor, cmp: r/m forms, then al/eax immediates;
		 * 0x0f is the two-byte escape, the rest of the column is invalid in 64-bit. */
		if (low < 4)
			return (struct op_form){M, 0, true};
		if (low == 4)
			return (struct op_form){NONE, 1, true};
		if (low == 5)
			return (struct op_form){NONE, 4, true};
		return (struct op_form){0};
	}
	if (op >= 0x50 && op <= 0x5f) /* push, pop */
		return (struct op_form){NONE, 0, true};
	if (op >= 0x70 && op <= 0x7f) /* jcc rel8 */
		return (struct op_form){NONE, 1, true};
	if (op >= 0x90 && op <= 0x99) /* xchg, nop, cdqe, cqo */
		return (struct op_form){NONE, 0, true};
	if (op >= 0xb0 && op <= 0xb7)
		return (struct op_form){NONE, 1, true};
	if (op >= 0xb8 && op <= 0xbf)
		return (struct op_form){NONE, rex_w ? 8 : 4, true};
	if ((op >= 0xd0 && op <= 0xd3) || (op >= 0xd8 && op <= 0xdf)) /* shifts; x87 */
		return (struct op_form){M, 0, true};
	if (op >= 0xa4 && op <= 0xaf && op != 0xa8 && op != 0xa9) /* movs, stos, ... */
		return (struct op_form){NONE, 0, true};
	switch (op) {
	case 0x63:
	case 0x84:
	case 0x85:
	case 0x86:
	case 0x87:
	case 0x88:
	case 0x89:
	case 0x8a:
	case 0x8b:
	case 0x8d:
	case 0x8f:
	case 0xfe:
	case 0xff:
		return (struct op_form){M, 0, true};
	case 0x69:
	case 0x81:
	case 0xc7:
		return (struct op_form){M, 4, true};
	case 0x6b:
	case 0x80:
	case 0x83:
	case 0xc0:
	case 0xc1:
	case 0xc6:
		return (struct op_form){M, 1, true};
	case 0x68:
	case 0xa9:
	case 0xe8:
	case 0xe9:
		return (struct op_form){NONE, 4, true};
	case 0x6a:
	case 0xa8:
	case 0xeb:
		return (struct op_form){NONE, 1, true};
	case 0xc2:
		return (struct op_form){NONE, 2, true};
	case 0xc3:
	case 0xc9:
	case 0xcc:
	case 0x9c:
	case 0x9d:
	case 0xf4:
		return (struct op_form){NONE, 0, true};
	case 0xf6:
	case 0xf7: /* test takes an immediate; the others of the group do not */
		return (struct op_form){M, 0, true};
	}
	return (struct op_form){0};
}

static struct op_form two_byte(uint8_t op)
{
	if (op >= 0x70 && op <= 0x73) /* pshufd, and the shifts by an immediate */
		return (struct op_form){M, 1, true};
	if ((op >= 0x10 && op <= 0x1f) || (op >= 0x28 && op <= 0x2f) ||
	    (op >= 0x40 && op <= 0x4f) || (op >= 0x50 && op <= 0x7f && op != 0x77) ||
	    (op >= 0x90 && op <= 0x9f) || op >= 0xd0)
		return (struct op_form){M, 0, true}; /* SSE, nop, cmov, setcc */
	if (op >= 0x80 && op <= 0x8f)		     /* jcc rel32 */
		return (struct op_form){NONE, 4, true};
	if (op >= 0xc8 && op <= 0xcf) /* bswap */
		return (struct op_form){NONE, 0, true};
	switch (op) {
	case 0x05:
	case 0x0b:
	case 0xa2:
	case 0x77:
		return (struct op_form){NONE, 0, true};
	case 0xa3:
	case 0xab:
	case 0xaf:
	case 0xb0:
	case 0xb1:
	case 0xb3:
	case 0xb6:
	case 0xb7:
	case 0xbb:
	case 0xbc:
	case 0xbd:
	case 0xbe:
	case 0xbf:
	case 0xc0:
	case 0xc1:
	case 0xc7:
		return (struct op_form){M, 0, true};
	case 0xa4:
	case 0xac:
	case 0xba:
	case 0xc2:
	case 0xc6:
		return (struct op_form){M, 1, true};
	}
	return (struct op_form){0};
}

/* A little-endian signed value of n bytes (1, 2, 4 or 8) at p. */
static int64_t le_signed(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	if (n < 8 && (v >> (8 * n - 1)) & 1)
		v |= ~0ULL << (8 * n);
	return (int64_t)v;
}

/* ModRM, SIB and displacement at code[*i]. 0, or -EINVAL when truncated. */
static int decode_modrm(const uint8_t *code, size_t len, size_t *i, uint8_t rex,
			struct rb_insn *out)
{
	uint8_t modrm, base = 0;
	unsigned int disp = 0;

	if (*i >= len)
		return -EINVAL;
	modrm = code[(*i)++];
	out->has_modrm = true;
	out->mod = modrm >> 6;
	out->reg = ((modrm >> 3) & 7) | ((rex & 4) << 1);
	out->rm = (modrm & 7) | ((rex & 1) << 3);
	if (out->mod != 3 && (modrm & 7) == 4) { /* a SIB byte */
		if (*i >= len)
			return -EINVAL;
		base = code[(*i)++] & 7;
	}
	if (out->mod == 1)
		disp = 1;
	else if (out->mod == 2 ||
		 (out->mod == 0 && ((modrm & 7) == 5 || ((modrm & 7) == 4 && base == 5))))
		disp = 4;
	out->rip = out->mod == 0 && (modrm & 7) == 5;
	if (*i + disp > len)
		return -EINVAL;
	out->disp = disp ? le_signed(code + *i, disp) : 0;
	*i += disp;
	return 0;
}

/* Prefixes and REX at code[*i]: sets *p66 and *rex. */
static void decode_prefixes(const uint8_t *code, size_t len, size_t *i, bool *p66, uint8_t *rex)
{
	static const uint8_t legacy[] = {0x66, 0x67, 0xf2, 0xf3, 0x2e, 0x3e,
					 0x26, 0x64, 0x65, 0x36, 0xf0};

	while (*i < len && *i < 14 && memchr(legacy, code[*i], sizeof(legacy))) {
		if (code[*i] == 0x66)
			*p66 = true;
		(*i)++;
	}
	if (*i < len && (code[*i] & 0xf0) == 0x40)
		*rex = code[(*i)++];
}

int rb_insn__decode(const uint8_t *code, size_t len, uint64_t vaddr, struct rb_insn *out)
{
	struct op_form f;
	unsigned int imm;
	bool p66 = false;
	uint8_t rex = 0;
	size_t i = 0;

	memset(out, 0, sizeof(*out));
	decode_prefixes(code, len, &i, &p66, &rex);
	if (i >= len)
		return -EINVAL;
	out->rex_w = rex & 8;
	out->op = code[i++];
	if (out->op == 0x0f) {
		if (i >= len)
			return -EINVAL;
		out->two_byte = true;
		out->op = code[i++];
		f = two_byte(out->op);
		/* 0F 38 xx and 0F 3A xx (SSSE3, SSE4: the latter with an imm8) */
		if (out->op == 0x38 || out->op == 0x3a) {
			if (i >= len)
				return -EINVAL;
			f = (struct op_form){M, out->op == 0x3a, true};
			out->op = code[i++];
		}
	} else {
		f = one_byte(out->op, out->rex_w);
	}
	if (!f.known || (f.modrm && decode_modrm(code, len, &i, rex, out)))
		return -EINVAL;
	imm = f.imm;
	if (!out->two_byte && (out->op == 0xf6 || out->op == 0xf7) && (out->reg & 7) < 2)
		imm = out->op == 0xf6 ? 1 : 4;
	if (imm == 4 && p66 && !out->two_byte && out->op != 0xe8 && out->op != 0xe9)
		imm = 2;
	if (i + imm > len || i + imm > 15)
		return -EINVAL;
	out->imm = imm ? le_signed(code + i, imm) : 0;
	i += imm;
	out->len = (uint8_t)i;
	if (out->rip)
		out->target = vaddr + i + (uint64_t)out->disp;
	else if (!out->has_modrm && (out->op == 0xe8 || out->op == 0xe9 || out->op == 0xeb ||
				     (out->two_byte && out->op >= 0x80 && out->op <= 0x8f)))
		out->target = vaddr + i + (uint64_t)out->imm;
	return 0;
}

/* Walks c's instructions: calls fn on each until it returns nonzero (its value is
 * returned) or the code (or MAX_SCAN bytes) ends or cannot be decoded (0). */
static int scan(const struct rb_code *c, int (*fn)(const struct rb_insn *, void *), void *arg)
{
	size_t len = c->len < MAX_SCAN ? c->len : MAX_SCAN;
	struct rb_insn in;
	int r;

	for (size_t off = 0; off < len; off += in.len) {
		if (rb_insn__decode(c->bytes + off, len - off, c->vaddr + off, &in))
			return 0;
		r = fn(&in, arg);
		if (r)
			return r;
	}
	return 0;
}

static bool is_call(const struct rb_insn *in)
{
	return !in->two_byte && (in->op == 0xe8 || (in->op == 0xff && (in->reg & 7) == 2));
}

static bool load_from(const struct rb_insn *in)
{
	return !in->two_byte && in->op == 0x8b && in->has_modrm && in->mod != 3 && !in->rip;
}

struct tls_match {
	uint64_t got;
	int32_t off;
	int step;
};

/* lea rdi, [rip + x] (the 0x66 padding of the TLS sequences is a prefix), a call, then
 * the load from the address it returns: mov r, [rax + d], d being the variable's offset
 * in local-dynamic code (0 in general-dynamic code, where the tls_index holds it). */
static int tls_insn(const struct rb_insn *in, void *arg)
{
	struct tls_match *m = arg;

	if (m->step == 0 && !in->two_byte && in->op == 0x8d && in->rip && in->reg == 7 &&
	    in->rex_w) {
		m->got = in->target;
		m->step++;
	} else if (m->step == 1) {
		if (!is_call(in))
			return -1;
		m->step++;
	} else if (m->step == 2) {
		if (!load_from(in) || in->rm != 0)
			return -1;
		m->off = (int32_t)in->disp;
		return 1;
	}
	return 0;
}

int rb_code__tls_index(const struct rb_code *c, uint64_t *got, int32_t *off)
{
	struct tls_match m = {0};

	if (scan(c, tls_insn, &m) != 1 || m.off < 0 || m.off > (1 << 20))
		return -ENOENT;
	*got = m.got;
	*off = m.off;
	return 0;
}

/* rb_during_gc's steps, in order: the pointer's load (mov or lea, rip-relative), its
 * dereference (mov r, [r]), the objspace member (mov r, [r + d]), the flags byte (movzx r,
 * byte [r + d]), then the bit (shr, or none for bit 0 and the and that follows). */
struct gc_match {
	struct rb_gc_code *out;
	int step;
};

static int gc_insn(const struct rb_insn *in, void *arg)
{
	struct gc_match *m = arg;

	switch (m->step) {
	case 0:
		if (!in->two_byte && (in->op == 0x8b || in->op == 0x8d) && in->rip) {
			m->out->vm_ptr = in->target;
			m->out->via_got = in->op == 0x8b;
			m->step++;
		}
		return 0;
	case 1: /* mov r, [r] */
		if (!load_from(in) || in->disp)
			return -1;
		m->step++;
		return 0;
	case 2: /* test and je may come first (3.3 checks the VM) */
		if (!load_from(in))
			return 0;
		m->out->objspace = (uint32_t)in->disp;
		m->step++;
		return 0;
	case 3:
		if (!in->two_byte || in->op != 0xb6 || in->mod == 3 || in->rip)
			return -1;
		m->out->flags = (uint32_t)in->disp;
		m->step++;
		return 0;
	}
	/* shr r8, imm8 (C0 /5); an and first means bit 0 */
	if (!in->two_byte && in->op == 0xc0 && (in->reg & 7) == 5) {
		m->out->bit = (uint8_t)in->imm;
		return 1;
	}
	if (!in->two_byte && (in->op == 0x83 || in->op == 0x24 || in->op == 0x25))
		return 1;
	return -1;
}

int rb_code__during_gc(const struct rb_code *c, struct rb_gc_code *out)
{
	struct gc_match m = {.out = out};

	memset(out, 0, sizeof(*out));
	if (scan(c, gc_insn, &m) != 1 || out->objspace > 0x10000 || out->flags > 0x1000 ||
	    out->bit > 7)
		return -ENOENT;
	return 0;
}

struct sym_match {
	uint64_t symbols;
	uint32_t last_op;
};

/* cmp r64, imm (the ID against tLAST_OP_ID), cmp r32, [rip + x] (its serial against
 * last_id) */
static int sym_insn(const struct rb_insn *in, void *arg)
{
	struct sym_match *m = arg;

	if (!in->two_byte && (in->op == 0x81 || in->op == 0x83) && (in->reg & 7) == 7 &&
	    in->mod == 3 && in->rex_w && in->imm > 0 && !m->last_op)
		m->last_op = (uint32_t)in->imm;
	if (!in->two_byte && (in->op == 0x39 || in->op == 0x3b) && in->rip && !in->rex_w) {
		m->symbols = in->target;
		return 1;
	}
	return 0;
}

int rb_code__symbols(const struct rb_code *c, const struct rb_code *next, uint64_t *symbols,
		     uint32_t *last_op_id)
{
	struct sym_match m = {0};

	if (scan(c, sym_insn, &m) != 1 && (!next || scan(next, sym_insn, &m) != 1))
		return -ENOENT;
	*symbols = m.symbols;
	*last_op_id = m.last_op;
	return 0;
}

static int jump_insn(const struct rb_insn *in, void *arg)
{
	if (in->two_byte || (in->op != 0xe9 && in->op != 0xeb))
		return 0;
	*(uint64_t *)arg = in->target;
	return 1;
}

int rb_code__first_jump(const struct rb_code *c, uint64_t *target)
{
	return scan(c, jump_insn, target) == 1 ? 0 : -ENOENT;
}

struct tail_match {
	uint64_t start, end, target;
};

static int tail_insn(const struct rb_insn *in, void *arg)
{
	struct tail_match *m = arg;

	if (in->two_byte || in->op != 0xe9 || (in->target >= m->start && in->target < m->end))
		return 0;
	m->target = in->target;
	return 1;
}

int rb_code__tail_call(const struct rb_code *c, uint64_t end, uint64_t *target)
{
	struct tail_match m = {.start = c->vaddr, .end = end};

	if (scan(c, tail_insn, &m) != 1)
		return -ENOENT;
	*target = m.target;
	return 0;
}

struct calls_match {
	uint64_t *targets;
	size_t n, max;
};

static int call_insn(const struct rb_insn *in, void *arg)
{
	struct calls_match *m = arg;

	if (in->two_byte || in->op != 0xe8)
		return 0;
	m->targets[m->n++] = in->target;
	return m->n == m->max;
}

size_t rb_code__calls(const struct rb_code *c, uint64_t *targets, size_t max)
{
	struct calls_match m = {.targets = targets, .max = max};

	if (max)
		scan(c, call_insn, &m);
	return m.n;
}

/* .eh_frame_hdr: version 1, the encodings of eh_frame_ptr, fde_count and the table, then
 * the table of (initial location, FDE) pairs, sorted. Only what every linker writes is
 * read: the count as udata4, the table as datarel sdata4 (from the header's start). */
#define EH_PE_UDATA4 0x03
#define EH_PE_SDATA4 0x0b
#define EH_PE_DATAREL 0x30
#define EH_PE_OMIT 0xff

static int fde_table(const uint8_t *hdr, size_t len, const uint8_t **table, uint32_t *count)
{
	size_t at = 4;

	if (len < 4 || hdr[0] != 1 || hdr[3] != (EH_PE_DATAREL | EH_PE_SDATA4) ||
	    (hdr[2] & 0x0f) != EH_PE_UDATA4)
		return -EINVAL;
	if (hdr[1] != EH_PE_OMIT)
		at += 4; /* eh_frame_ptr: every encoding linkers use is 4 bytes */
	if (at + 4 > len)
		return -EINVAL;
	memcpy(count, hdr + at, 4);
	at += 4;
	if (*count > (len - at) / 8)
		return -EINVAL;
	*table = hdr + at;
	return 0;
}

int rb_fde__bounds(const uint8_t *hdr, size_t len, uint64_t hdr_vaddr, uint64_t vaddr,
		   uint64_t *start, uint64_t *end)
{
	const uint8_t *t;
	uint32_t n, lo = 0, hi;
	int err = fde_table(hdr, len, &t, &n);

	if (err)
		return err;
	/* The last entry whose initial location is at or before vaddr. */
	hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (hdr_vaddr + (uint64_t)le_signed(t + 8 * (size_t)mid, 4) <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || lo >= n)
		return -ENOENT;
	*start = hdr_vaddr + (uint64_t)le_signed(t + 8 * (size_t)(lo - 1), 4);
	*end = hdr_vaddr + (uint64_t)le_signed(t + 8 * (size_t)lo, 4);
	return *end > *start ? 0 : -ENOENT;
}
