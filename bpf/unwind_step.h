/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* One step of native unwinding: find the mapping of a pc, the row that covers it, and
 * apply the row's rules to get the caller's registers. Pure logic, so the BPF program
 * and the host unit tests compile the same code; the includer supplies the accesses:
 *   UNW_READ_USER(dst, size, addr)  0 when size bytes at user addr were read into dst
 *   UNW_ROW(idx)                    const struct unwind_row * of pool row idx, or NULL
 *   UNW_LOOP(n, fn, ctx)            calls fn(i, ctx) for i < n until it returns 1
 *   UNW_READ_MAPPING(dst, proc, i)  0 when mapping i of the unw_proc at address proc
 *                                   was copied into dst (the search without bpf_loop) */
#ifndef EBPROF_UNWIND_STEP_H
#define EBPROF_UNWIND_STEP_H

#include "arch/arch.h"
#include "unwind.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
/* As libbpf's bpf_helpers.h has it: the compiler must treat var as changed here. */
#ifndef barrier_var
#define barrier_var(var) asm volatile("" : "=r"(var) : "0"(var))
#endif

/* UNW_LOOP as a loop the compiler unrolls: for kernels without bpf_loop (before 5.17). */
#ifdef __bpf__
#define UNW_PRAGMA_UNROLL _Pragma("unroll")
#else
#define UNW_PRAGMA_UNROLL
#endif
#define UNW_UNROLLED(n, fn, ctx)                                     \
	do {                                                         \
		UNW_PRAGMA_UNROLL for (__u32 _i = 0; _i < (n); _i++) \
		{                                                    \
			if (fn(_i, ctx))                             \
				break;                               \
		}                                                    \
	} while (0)

/* The address to look up: a return address points after its call, which may be the
 * first byte of the next function, so look one byte back. */
static __always_inline __u64 unw_lookup_pc(const struct unw_regs *r)
{
	return r->pc_exact ? r->pc : r->pc - 1;
}

struct unw_search {
	const struct unw_proc *proc; /* mapping search */
	__u64 key;
	__u32 base; /* row search: pool index of the table's first row */
	__u32 lo, hi;
	__s32 found;   /* index found, -1 if none */
	__u32 compact; /* row search: 1 when two rows share a pool row (UNW_TABLE_COMPACT) */
};

/* One halving of the mapping search. A callback, so the verifier checks it once: as an
 * unrolled loop, its index feeds pointer arithmetic, which keeps every path apart. */
static long unw_mapping_step(__u32 i, void *arg)
{
	struct unw_search *s = arg;
	__u32 mid = (s->lo + s->hi) / 2;
	const struct unw_mapping *m = &s->proc->m[mid & (UNW_MAX_MAPPINGS - 1)];

	if (s->lo >= s->hi)
		return 1;
	if (s->key < m->start) {
		s->hi = mid;
	} else if (s->key >= m->end) {
		s->lo = mid + 1;
	} else {
		s->found = mid & (UNW_MAX_MAPPINGS - 1);
		return 1;
	}
	return 0;
}

/* Returns the mapping of p covering pc, or NULL. */
static __always_inline const struct unw_mapping *unw_find_mapping(const struct unw_proc *p,
								  __u64 pc)
{
	struct unw_search s = {
	    .proc = p,
	    .key = pc,
	    .hi = p->n < UNW_MAX_MAPPINGS ? p->n : UNW_MAX_MAPPINGS,
	    .found = -1,
	};
	const struct unw_mapping *m = 0;

	UNW_LOOP(UNW_MAPPING_STEPS + 1, unw_mapping_step, &s);
	if (s.found >= 0)
		m = &p->m[s.found & (UNW_MAX_MAPPINGS - 1)];
	/* Callers test m itself for NULL. Without the barrier clang tests s.found's sign
	 * again instead, and 6.1's verifier, which has lost that sign from its bounds,
	 * follows the NULL path into m->table ("R6 invalid mem access 'scalar'"). */
	barrier_var(m);
	return m;
}

/* The pool row holding row i of a table whose rows start at pool row base (compact: 1
 * for two rows to a pool row), and in *half where in it the row starts, in 32-bit
 * words: a row's pc is its first word in both forms. NULL when it cannot be read. */
static __always_inline const struct unwind_row *unw_row_at(__u32 base, __u32 compact, __u32 i,
							   __u32 *half)
{
	compact &= 1;
	*half = (i & compact) * 2;
	return UNW_ROW(base + (i >> compact));
}

/* One halving of the row search: lo ends at the first row past key. */
static long unw_row_step(__u32 i, void *arg)
{
	struct unw_search *s = arg;
	__u32 mid = (s->lo + s->hi) / 2, half;
	const struct unwind_row *row;

	if (s->lo >= s->hi)
		return 1;
	row = unw_row_at(s->base, s->compact, mid, &half);
	if (!row) {
		s->lo = 0;
		return 1;
	}
	/* The mask restates for the verifier that the word lies in the row. */
	if (((const __u32 *)row)[half & 2] <= s->key)
		s->lo = mid + 1;
	else
		s->hi = mid;
	return 0;
}

/* Row i of table t as a full row in *out (a compact one expanded). 0, or -1 when it
 * cannot be read. */
static __always_inline int unw_read_row(const struct unw_table *t, __u32 i, struct unwind_row *out)
{
	__u32 half, info;
	const struct unwind_row *row = unw_row_at(t->first, t->flags & UNW_TABLE_COMPACT, i, &half);

	if (!row)
		return -1;
	if (!(t->flags & UNW_TABLE_COMPACT)) {
		*out = *row;
		return 0;
	}
	info = ((const __u32 *)row)[(half & 2) + 1];
	out->pc = ((const __u32 *)row)[half & 2];
	out->cfa_kind = info & 7;
	out->fp_rule = (info >> 3) & 3;
	out->fp_off = (__s16)(__s8)(info >> UNW_COMPACT_FP_SHIFT);
	if (out->cfa_kind != UNW_CFA_PLT)
		out->fp_off *= 8;
	out->cfa_off = ((__s32)info >> UNW_COMPACT_CFA_SHIFT) * 8;
	out->ra_off = UNW_COMPACT_RA_OFF;
	out->ra_rule = UNW_RA_AT_CFA;
	out->pad = 0;
	return 0;
}

/* The bounds of page i of table t's page index (bpf/unwind.h) into *a and *b; -1 when
 * its pool row is missing. One pool row holds whole pairs: one lookup. */
static __always_inline int unw_index_pair(const struct unw_table *t, __u32 i, __u32 *a, __u32 *b)
{
	const struct unwind_row *row = UNW_ROW(t->index + i / UNW_INDEX_PER_ROW);
	const __u32 *pair;

	if (!row)
		return -1;
	/* The mask keeps the read inside the row for the verifier. */
	pair = (const __u32 *)row + (i & (UNW_INDEX_PER_ROW - 1)) * 2;
	*a = pair[0];
	*b = pair[1];
	return 0;
}

/* Where in t the row for vpc is: rows [*lo, *hi) of the table hold it or, with *lo = *hi,
 * row *lo - 1 is it (none when 0). Rows before *lo have pc <= vpc, rows from *hi on have
 * pc > vpc: the search's own invariant, so it finds the same row as over the whole table.
 * Without an index, outside the pages it covers, or when an entry cannot be read or
 * makes no sense: the whole table. Few branches: each one multiplies the paths the
 * verifier walks through the frame (13.5 k verified instructions before the index). */
static __always_inline void unw_row_window(const struct unw_table *t, __u32 vpc, __u32 *lo,
					   __u32 *hi)
{
	/* Below the first page it wraps past the last. */
	__u32 page = (vpc >> UNW_INDEX_SHIFT) - t->base, a, b;

	*lo = 0;
	*hi = t->count;
	if (page >= t->pages || unw_index_pair(t, page, &a, &b))
		return;
	if (a > b || b > t->count)
		return;
	*lo = a;
	*hi = b;
}

/* Returns the index in table t of its last row with row.pc <= vpc, or -1 when vpc lies
 * before the table, searching rows [lo, hi) of it (unw_row_window). A table holds at
 * most 2^UNW_ROW_STEPS rows. */
static __always_inline long unw_find_row(const struct unw_table *t, __u32 lo, __u32 hi, __u32 vpc)
{
	struct unw_search s = {.key = vpc,
			       .base = t->first,
			       .lo = lo,
			       .hi = hi,
			       .compact = t->flags & UNW_TABLE_COMPACT};

	UNW_LOOP(UNW_ROW_STEPS + 1, unw_row_step, &s);
	return s.lo ? (long)(s.lo - 1) : -1;
}

/* The searches for kernels without bpf_loop (before 5.17) are unrolled, and keep their
 * state in s, which the BPF caller puts in map memory: the verifier tracks no bounds of
 * map memory, so it decides no branch on lo and hi, marks neither precise, and prunes
 * each step's paths (on the stack the bounds decide some branches, and the precise
 * bounds keep thousands of paths apart). The row search as unw_find_row. */
static __always_inline long unw_find_row_unrolled(struct unw_search *s, const struct unw_table *t,
						  __u32 lo, __u32 hi, __u32 vpc)
{
	s->key = vpc;
	s->base = t->first;
	s->compact = t->flags & UNW_TABLE_COMPACT;
	s->lo = lo;
	s->hi = hi;
	UNW_UNROLLED(UNW_ROW_STEPS + 1, unw_row_step, s);
	return s->lo ? (long)(s->lo - 1) : -1;
}

/* The mapping search: indexing the mapping array makes the index precise (it feeds
 * pointer arithmetic), so each probed mapping is copied into s->cur instead, by
 * UNW_READ_MAPPING(dst, proc, idx) from proc, the unw_proc's address as a number. */
struct unw_copy_search {
	__u64 proc;
	__u64 key;
	__u32 lo, hi;
	__s32 found;
	struct unw_mapping cur;
};

static __always_inline long unw_mapping_copy_step(__u32 i, void *arg)
{
	struct unw_copy_search *s = arg;
	__u32 mid = (s->lo + s->hi) / 2;

	if (s->lo >= s->hi)
		return 1;
	if (UNW_READ_MAPPING(&s->cur, s->proc, mid & (UNW_MAX_MAPPINGS - 1))) {
		s->hi = 0;
		return 1;
	}
	if (s->key < s->cur.start) {
		s->hi = mid;
	} else if (s->key >= s->cur.end) {
		s->lo = mid + 1;
	} else {
		s->found = 1;
		return 1;
	}
	return 0;
}

/* Returns the copy (s->cur) of the mapping of the n mappings of proc covering pc, or
 * NULL when none does. */
static __always_inline const struct unw_mapping *unw_copy_mapping(struct unw_copy_search *s,
								  __u64 proc, __u32 n, __u64 pc)
{
	s->proc = proc;
	s->key = pc;
	s->lo = 0;
	s->hi = n < UNW_MAX_MAPPINGS ? n : UNW_MAX_MAPPINGS;
	s->found = 0;
	UNW_UNROLLED(UNW_MAPPING_STEPS + 1, unw_mapping_copy_step, s);
	return s->found ? &s->cur : 0;
}

/* The interrupted registers from the kernel's signal frame at sp. */
static __always_inline int unw_signal_step(struct unw_regs *r)
{
	__u64 fp, sp, pc, lr = 0, bcp;

	if (UNW_READ_USER(&fp, 8, r->sp + ARCH_SIGCTX_FP) ||
	    UNW_READ_USER(&sp, 8, r->sp + ARCH_SIGCTX_SP) ||
	    UNW_READ_USER(&pc, 8, r->sp + ARCH_SIGCTX_PC) ||
	    UNW_READ_USER(&bcp, 8, r->sp + ARCH_SIGCTX_BCP))
		return UNW_STEP_READ_FAULT;
#ifdef ARCH_SIGCTX_LR
	if (UNW_READ_USER(&lr, 8, r->sp + ARCH_SIGCTX_LR))
		return UNW_STEP_READ_FAULT;
	lr = ARCH_RA_STRIP(lr);
#endif
	r->fp = fp;
	r->sp = sp;
	r->pc = pc;
	r->lr = lr;
	r->bcp = bcp;
	r->pc_exact = 1; /* the interrupted instruction itself */
	return UNW_STEP_NEXT;
}

/* The return address of row's frame into *ra: in the link register, whose value only
 * the innermost frame and one a signal interrupted know (lr 0: the rule is impossible
 * here, a bad frame), or saved at cfa + ra_off. Signature bits stripped. */
static __always_inline int unw_return_address(const struct unwind_row *row,
					      const struct unw_regs *r, __u64 cfa, __u64 *ra)
{
	if (row->ra_rule == UNW_RA_LR) {
		if (!r->lr)
			return UNW_STEP_BAD_FRAME;
		*ra = r->lr;
		return UNW_STEP_NEXT;
	}
	if (UNW_READ_USER(ra, 8, cfa + (__s64)row->ra_off))
		return UNW_STEP_READ_FAULT;
	*ra = ARCH_RA_STRIP(*ra);
	return UNW_STEP_NEXT;
}

static __always_inline __u64 unw_cfa(const struct unwind_row *row, const struct unw_regs *r)
{
	__u64 cfa = (row->cfa_kind == UNW_CFA_FP ? r->fp : r->sp) + (__s64)row->cfa_off;

	if (row->cfa_kind == UNW_CFA_PLT && (r->pc & 15) >= (__u64)row->fp_off)
		cfa += 8;
	return cfa;
}

/* Applies row (found for r's pc) and leaves the caller's registers in r. */
static __always_inline int unw_apply_row(const struct unwind_row *row, struct unw_regs *r)
{
	__u64 cfa, ra = 0, fp = r->fp;
	int err;

	switch (row->cfa_kind) {
	case UNW_CFA_END:
		return UNW_STEP_END;
	case UNW_CFA_SIGNAL:
		return unw_signal_step(r);
	case UNW_CFA_SP:
	case UNW_CFA_FP:
	case UNW_CFA_PLT:
		break;
	default:
		return UNW_STEP_NO_ROW;
	}
	cfa = unw_cfa(row, r);
	err = unw_return_address(row, r, cfa, &ra);
	if (err)
		return err;
	if (row->fp_rule == UNW_FP_AT_CFA && UNW_READ_USER(&fp, 8, cfa + (__s64)row->fp_off))
		return UNW_STEP_READ_FAULT;
	/* A frame whose return address is in the link register may have no frame at all
	 * (CFA = SP): only a stack pointer that went down is impossible there. */
	if (cfa < r->sp || (cfa == r->sp && row->ra_rule != UNW_RA_LR))
		return UNW_STEP_BAD_FRAME;
	if (!ra)
		return UNW_STEP_END;
	r->fp = row->fp_rule == UNW_FP_UNDEF ? 0 : fp;
	r->sp = cfa;
	r->pc = ra;
	r->lr = 0;
	r->pc_exact = 0;
	return UNW_STEP_NEXT;
}

/* Frame-pointer step, for code without CFI (JIT code) and tables not built yet:
 * [fp] holds the caller's fp and [fp + ARCH_FP_RA_OFF] the return address. A chain that ends in a
 * zero fp (as _start leaves it) is complete; one that points anywhere else is code
 * without frame pointers, and the stack is cut there. */
static __always_inline int unw_fp_step(struct unw_regs *r, int innermost)
{
	__u64 frame[2];

	/* Code without frame pointers often still holds the 0 _start left in rbp: at the
	 * innermost frame a zero fp says nothing about where the stack ends. */
	if (!r->fp)
		return innermost ? UNW_STEP_BAD_FRAME : UNW_STEP_END;
	if (r->fp < r->sp || (r->fp & 7))
		return UNW_STEP_BAD_FRAME;
	if (UNW_READ_USER(frame, sizeof(frame), r->fp))
		return UNW_STEP_READ_FAULT;
	frame[1] = ARCH_RA_STRIP(frame[1]);
	if (!frame[1])
		return UNW_STEP_END;
	r->sp = r->fp + ARCH_FP_FRAME;
	r->fp = frame[0];
	r->pc = frame[1];
	r->lr = 0;
	r->pc_exact = 0;
	return UNW_STEP_NEXT;
}

#endif
