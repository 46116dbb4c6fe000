// SPDX-License-Identifier: Apache-2.0
/* The BPF unwinder's per-frame rules (bpf/unwind_step.h), compiled as host C with the
 * helpers replaced: user memory is a simulated stack, the row pool an array. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "unwind.h"
#include "unwind/compact.h"
#include "unwind/row_index.h"

static uint8_t stack_mem[4096];
static const uint64_t stack_base = 0x7ffd00000000ULL;
static struct unwind_row pool[4096];
static uint32_t pool_len;
static int reads;

static int sim_read(void *dst, uint32_t size, uint64_t addr)
{
	reads++;
	if (addr < stack_base || addr + size > stack_base + sizeof(stack_mem))
		return -1;
	memcpy(dst, stack_mem + (addr - stack_base), size);
	return 0;
}

static const struct unwind_row *sim_row(uint32_t idx)
{
	return idx < pool_len ? &pool[idx] : NULL;
}

#define UNW_READ_USER(dst, size, addr) sim_read(dst, size, addr)
#define UNW_ROW(idx) sim_row(idx)
#define UNW_LOOP(n, fn, ctx)                       \
	do {                                       \
		for (__u32 i_ = 0; i_ < (n); i_++) \
			if (fn(i_, ctx))           \
				break;             \
	} while (0)
/* The search without bpf_loop reads mappings by address. */
#define UNW_READ_MAPPING(dst, proc, i) \
	(memcpy((dst), &((const struct unw_proc *)(uintptr_t)(proc))->m[i], sizeof(*(dst))), 0)
#include "unwind_step.h"

static void put(uint64_t addr, uint64_t v)
{
	memcpy(stack_mem + (addr - stack_base), &v, 8);
}

static struct unwind_row row(uint32_t pc, uint8_t kind, int32_t cfa_off, uint8_t fp_rule,
			     int16_t fp_off)
{
	return (struct unwind_row){.pc = pc,
				   .cfa_off = cfa_off,
				   .fp_off = fp_off,
				   .ra_off = -8,
				   .cfa_kind = kind,
				   .fp_rule = fp_rule};
}

static void test_sp_rule(void)
{
	uint64_t sp = stack_base + 0x100;
	struct unwind_row r = row(0, UNW_CFA_SP, 24, UNW_FP_AT_CFA, -16);
	struct unw_regs regs = {.pc = 0x401234, .sp = sp, .fp = 1, .pc_exact = 1};

	put(sp + 24 - 8, 0x401500);    /* return address */
	put(sp + 24 - 16, 0x7ffd1234); /* saved rbp */
	CHECK(unw_apply_row(&r, &regs) == UNW_STEP_NEXT);
	CHECK(regs.pc == 0x401500 && regs.sp == sp + 24 && regs.fp == 0x7ffd1234);
	CHECK(regs.pc_exact == 0);
	CHECK(unw_lookup_pc(&regs) == 0x4014ff);
}

static void test_fp_rule_and_same(void)
{
	uint64_t fp = stack_base + 0x200;
	struct unwind_row r = row(0, UNW_CFA_FP, 16, UNW_FP_AT_CFA, -16);
	struct unw_regs regs = {.pc = 0x10, .sp = stack_base + 0x180, .fp = fp, .pc_exact = 1};

	put(fp + 8, 0xabc);
	put(fp, stack_base + 0x300);
	CHECK(unw_apply_row(&r, &regs) == UNW_STEP_NEXT);
	CHECK(regs.pc == 0xabc && regs.sp == fp + 16 && regs.fp == stack_base + 0x300);

	r = row(0, UNW_CFA_SP, 8, UNW_FP_SAME, 0);
	regs = (struct unw_regs){.pc = 0x20, .sp = stack_base + 0x400, .fp = 42};
	put(stack_base + 0x400, 0xdef);
	CHECK(unw_apply_row(&r, &regs) == UNW_STEP_NEXT);
	CHECK(regs.pc == 0xdef && regs.fp == 42 && regs.sp == stack_base + 0x408);
}

static void test_plt_rule(void)
{
	uint64_t sp = stack_base + 0x500;
	struct unwind_row r = row(0, UNW_CFA_PLT, 8, UNW_FP_SAME, 11);
	struct unw_regs regs = {.pc = 0x1020 + 5, .sp = sp, .pc_exact = 1};

	put(sp, 0x111);	    /* (pc & 15) = 5 < 11: CFA = sp + 8 */
	put(sp + 8, 0x222); /* (pc & 15) = 12 >= 11: CFA = sp + 16 */
	CHECK(unw_apply_row(&r, &regs) == UNW_STEP_NEXT && regs.pc == 0x111);
	regs = (struct unw_regs){.pc = 0x1020 + 12, .sp = sp, .pc_exact = 1};
	CHECK(unw_apply_row(&r, &regs) == UNW_STEP_NEXT && regs.pc == 0x222);
	CHECK(regs.sp == sp + 16);
}

static void test_signal_frame(void)
{
	uint64_t sp = stack_base + 0x600;
	struct unwind_row r = row(0, UNW_CFA_SIGNAL, 0, UNW_FP_SAME, 0);
	struct unw_regs regs = {.pc = 0x7f0000001000, .sp = sp};

	put(sp + 40 + 80, 0x1111);  /* rbp */
	put(sp + 40 + 120, 0x2222); /* rsp */
	put(sp + 40 + 128, 0x3333); /* rip */
	CHECK(unw_apply_row(&r, &regs) == UNW_STEP_NEXT);
	CHECK(regs.fp == 0x1111 && regs.sp == 0x2222 && regs.pc == 0x3333);
	CHECK(regs.pc_exact == 1); /* the interrupted instruction, not a call site */
}

static void test_end_and_faults(void)
{
	struct unwind_row end = row(0, UNW_CFA_END, 0, UNW_FP_SAME, 0);
	struct unwind_row none = row(0, UNW_CFA_NONE, 0, UNW_FP_SAME, 0);
	struct unwind_row sp8 = row(0, UNW_CFA_SP, 8, UNW_FP_SAME, 0);
	struct unwind_row down = row(0, UNW_CFA_SP, -8, UNW_FP_SAME, 0);
	struct unw_regs regs = {.pc = 1, .sp = stack_base + 0x700};

	CHECK(unw_apply_row(&end, &regs) == UNW_STEP_END);
	CHECK(unw_apply_row(&none, &regs) == UNW_STEP_NO_ROW);
	put(stack_base + 0x700, 0);
	CHECK(unw_apply_row(&sp8, &regs) == UNW_STEP_END); /* return address 0 */
	put(stack_base + 0x6f0, 0x99);
	CHECK(unw_apply_row(&down, &regs) == UNW_STEP_BAD_FRAME);
	regs.sp = 0x1000; /* unmapped */
	CHECK(unw_apply_row(&sp8, &regs) == UNW_STEP_READ_FAULT);
}

static void test_find_row(void)
{
	pool_len = 0;
	struct unw_table t = {.first = 1, .count = 10};

	pool[pool_len++] = row(0, UNW_CFA_NONE, 0, 0, 0); /* another table's row */
	for (uint32_t pc = 0x1000; pc < 0x1000 + 10 * 0x10; pc += 0x10)
		pool[pool_len++] = row(pc, UNW_CFA_SP, pc - 0x1000 + 8, 0, 0);
	CHECK(unw_find_row(&t, 0, 10, 0xfff) == -1);
	CHECK(unw_find_row(&t, 0, 10, 0x1000) == 0);
	CHECK(unw_find_row(&t, 0, 10, 0x100f) == 0);
	CHECK(unw_find_row(&t, 0, 10, 0x1010) == 1);
	CHECK(unw_find_row(&t, 0, 10, 0x1095) == 9);
	{
		struct unw_search us;

		CHECK(unw_find_row_unrolled(&us, &t, 0, 10, 0x1095) == 9);
		CHECK(unw_find_row_unrolled(&us, &t, 0, 10, 0x1010) == 1);
		CHECK(unw_find_row_unrolled(&us, &t, 0, 10, 0xfff) == -1);
	}
	CHECK(unw_find_row(&t, 0, 10, 0xffffffff) == 9);
	CHECK(unw_find_row(&t, 0, 0, 0x1000) == -1);
	t.first = 5;
	CHECK(unw_find_row(&t, 0, 100, 0x1050) == -1); /* a row past the pool ends the search */
}

/* The row of vpc through the table's page index, as the BPF search finds it. */
static long indexed_find(const struct unw_table *t, uint32_t vpc, int unrolled)
{
	struct unw_search us;
	uint32_t lo, hi;

	unw_row_window(t, vpc, &lo, &hi);
	CHECK(lo <= hi && hi <= t->count);
	if (unrolled)
		return unw_find_row_unrolled(&us, t, lo, hi, vpc);
	return unw_find_row(t, lo, hi, vpc);
}

/* Rows with gaps of several KiB, pages with many rows, a row on a page's first byte: the
 * index narrows each search to the rows the whole-table search would have found. */
static void test_page_index(void)
{
	static struct unwind_row rows[2000];
	struct row_index ix;
	struct unw_table t = {.first = 3};
	uint32_t pc = 0x40000 + 0x123, n = 0;
	int narrowed = 0;

	while (n < 2000) {
		rows[n] = row(pc, UNW_CFA_SP, 8, 0, 0);
		n++;
		pc += n % 97 == 0 ? 0x2345 : n % 5 == 0 ? 0x40 - (pc & 0x3f) : 0x11;
		if (n % 300 == 0)
			pc = (pc + 0x1000) & ~0x3ffu; /* a row on a page's start */
	}
	CHECK(row_index__build(rows, n, &ix) == 0);
	CHECK(ix.pages > 0 && ix.nrows * 16 <= n);
	CHECK(t.first + n + ix.nrows <= sizeof(pool) / sizeof(pool[0]));
	memset(pool, 0, sizeof(pool));
	memcpy(&pool[t.first], rows, n * sizeof(rows[0]));
	memcpy(&pool[t.first + n], ix.rows, ix.nrows * sizeof(rows[0]));
	pool_len = t.first + n + ix.nrows;
	t.count = n;
	t.pages = ix.pages;
	t.base = ix.base;
	t.index = t.first + n;
	for (uint32_t vpc = 0x3f000; vpc < pc + 0x3000; vpc += 7) {
		long want = unw_find_row(&t, 0, n, vpc);
		uint32_t lo, hi;

		CHECK(indexed_find(&t, vpc, 0) == want);
		CHECK(indexed_find(&t, vpc, 1) == want);
		unw_row_window(&t, vpc, &lo, &hi);
		narrowed += hi - lo <= 64;
	}
	for (uint32_t i = 0; i < n; i++) { /* every row's own first byte */
		CHECK(indexed_find(&t, rows[i].pc, 0) == i ||
		      rows[i + 1 < n ? i + 1 : i].pc == rows[i].pc);
	}
	CHECK(narrowed > 0);
	/* An index entry that makes no sense (past the rows) falls back to the whole table. */
	((uint32_t *)&pool[t.first + n])[3] = n + 5; /* page 1's end */
	CHECK(indexed_find(&t, (ix.base + 1) << UNW_INDEX_SHIFT, 0) ==
	      unw_find_row(&t, 0, n, (ix.base + 1) << UNW_INDEX_SHIFT));
	row_index__free(&ix);
	/* Small tables, and rows out of order, get no index. */
	CHECK(row_index__build(rows, 10, &ix) == 0 && ix.pages == 0 && !ix.rows);
	rows[5].pc = 1;
	CHECK(row_index__build(rows, n, &ix) == 0 && ix.pages == 0 && !ix.rows);
}

/* Every kind of row survives the compact form, as BPF expands it (unw_read_row); rows
 * the form cannot hold are refused, and a table of compact rows searches the same. */
static void test_compact_rows(void)
{
	static const struct unwind_row fit[] = {
	    {.pc = 0x1000, .cfa_kind = UNW_CFA_SP, .cfa_off = 8, .ra_off = -8},
	    {.pc = 0x1004,
	     .cfa_kind = UNW_CFA_SP,
	     .cfa_off = 280592,
	     .fp_rule = UNW_FP_AT_CFA,
	     .fp_off = -16,
	     .ra_off = -8},
	    {.pc = 0x1010,
	     .cfa_kind = UNW_CFA_FP,
	     .cfa_off = 16,
	     .fp_rule = UNW_FP_AT_CFA,
	     .fp_off = -1024,
	     .ra_off = -8},
	    {.pc = 0x1020, .cfa_kind = UNW_CFA_PLT, .cfa_off = 8, .fp_off = 11, .ra_off = -8},
	    {.pc = 0x1030,
	     .cfa_kind = UNW_CFA_SP,
	     .cfa_off = -64,
	     .fp_rule = UNW_FP_UNDEF,
	     .ra_off = -8},
	    {.pc = 0x1040, .cfa_kind = UNW_CFA_SIGNAL},
	    {.pc = 0x1050, .cfa_kind = UNW_CFA_END},
	    {.pc = 0x1060, .cfa_kind = UNW_CFA_NONE},
	    {.pc = 0xfffffff0,
	     .cfa_kind = UNW_CFA_SP,
	     .cfa_off = 8,
	     .fp_rule = UNW_FP_SAME,
	     .ra_off = -8},
	};
	static const struct unwind_row misfit[] = {
	    {.cfa_kind = UNW_CFA_SP, .cfa_off = 12, .ra_off = -8},	/* not 8-aligned */
	    {.cfa_kind = UNW_CFA_SP, .cfa_off = 8 << 18, .ra_off = -8}, /* too far */
	    {.cfa_kind = UNW_CFA_SP, .cfa_off = 8, .ra_off = -16},	/* another ra slot */
	    {.cfa_kind = UNW_CFA_SP,
	     .cfa_off = 8,
	     .fp_rule = UNW_FP_AT_CFA,
	     .fp_off = -20,
	     .ra_off = -8},
	    {.cfa_kind = UNW_CFA_SP,
	     .cfa_off = 8,
	     .fp_rule = UNW_FP_AT_CFA,
	     .fp_off = 1024,
	     .ra_off = -8},
	    {.cfa_kind = 9},
	    {.cfa_kind = UNW_CFA_SP, .cfa_off = 0, .ra_off = -8, .ra_rule = UNW_RA_LR}, /* in x30 */
	};
	uint32_t n = sizeof(fit) / sizeof(fit[0]);
	struct unw_table t = {.first = 2, .count = n, .flags = UNW_TABLE_COMPACT};
	struct unwind_row packed[sizeof(fit) / sizeof(fit[0])], got;
	struct unwind_row mixed[6];
	struct unwind_row_compact c;

	memset(&got, 0xa5, sizeof(got)); /* every field of got must be unw_read_row's */

	for (size_t i = 0; i < sizeof(misfit) / sizeof(misfit[0]); i++)
		CHECK(!unwind_row__compact(&misfit[i], &c));
	/* A misfit anywhere leaves every row as it was, those before it included. */
	memcpy(mixed, fit, 5 * sizeof(mixed[0]));
	mixed[5] = misfit[0];
	memcpy(packed, mixed, sizeof(mixed));
	CHECK(unwind_rows__compact(packed, 6) == -ERANGE && !memcmp(packed, mixed, sizeof(mixed)));
	memcpy(packed, fit, sizeof(fit));
	CHECK(unwind_rows__compact(packed, n) == 0);
	memset(pool, 0, sizeof(pool));
	memcpy(&pool[t.first], packed, (n + 1) / 2 * sizeof(pool[0]));
	pool_len = t.first + (n + 1) / 2;
	for (uint32_t i = 0; i < n; i++) {
		struct unwind_row want = fit[i];

		CHECK(unw_read_row(&t, i, &got) == 0);
		if (want.cfa_kind > UNW_CFA_PLT) /* only the kind counts there */
			want = (struct unwind_row){
			    .pc = want.pc, .cfa_kind = want.cfa_kind, .ra_off = -8};
		else if (want.fp_rule != UNW_FP_AT_CFA && want.cfa_kind != UNW_CFA_PLT)
			want.fp_off = 0;
		CHECK(memcmp(&got, &want, sizeof(got)) == 0);
		CHECK(unw_find_row(&t, 0, n, fit[i].pc) == i);
		CHECK(unw_find_row(&t, 0, n, fit[i].pc + 1) == i);
	}
	CHECK(unw_find_row(&t, 0, n, 0xfff) == -1);
	CHECK(unw_read_row(&t, 2 * (uint32_t)(sizeof(pool) / sizeof(pool[0])), &got) == -1);
}

static void test_find_mapping(void)
{
	static struct unw_proc p;
	struct unw_copy_search cs;

	memset(&p, 0, sizeof(p));
	for (uint32_t i = 0; i < UNW_MAX_MAPPINGS; i++)
		p.m[i] = (struct unw_mapping){.start = 0x10000 * (i + 1),
					      .end = 0x10000 * (i + 1) + 0x8000,
					      .file_id = i + 1};
	p.n = UNW_MAX_MAPPINGS;
	for (uint32_t i = 0; i < UNW_MAX_MAPPINGS; i++) {
		const struct unw_mapping *m = unw_find_mapping(&p, 0x10000 * (i + 1) + 0x10);

		CHECK(m && m->file_id == i + 1);
		CHECK(!unw_find_mapping(&p, 0x10000 * (i + 1) + 0x9000)); /* in a gap */
	}
	CHECK(!unw_find_mapping(&p, 0x100));
	/* The copying search (kernels without bpf_loop) finds the same mappings. */
	for (uint32_t i = 0; i < UNW_MAX_MAPPINGS; i++) {
		const struct unw_mapping *m =
		    unw_copy_mapping(&cs, (uintptr_t)&p, p.n, 0x10000 * (i + 1) + 0x10);

		CHECK(m && m->file_id == i + 1);
		CHECK(!unw_copy_mapping(&cs, (uintptr_t)&p, p.n, 0x10000 * (i + 1) + 0x9000));
	}
	CHECK(!unw_copy_mapping(&cs, (uintptr_t)&p, p.n, 0x100));
	p.n = 1000; /* a corrupt count must stay inside the array */
	CHECK(unw_find_mapping(&p, 0x20010) != NULL);
	CHECK(unw_copy_mapping(&cs, (uintptr_t)&p, p.n, 0x20010) != NULL);
}

static void test_fp_step(void)
{
	uint64_t fp = stack_base + 0x800;
	struct unw_regs regs = {.pc = 5, .sp = stack_base + 0x7f0, .fp = fp};

	put(fp, stack_base + 0x900);
	put(fp + 8, 0x4444);
	CHECK(unw_fp_step(&regs, 0) == UNW_STEP_NEXT);
	CHECK(regs.pc == 0x4444 && regs.fp == stack_base + 0x900 && regs.sp == fp + 16);
	regs.fp = 0;
	CHECK(unw_fp_step(&regs, 0) == UNW_STEP_END);
	CHECK(unw_fp_step(&regs, 1) == UNW_STEP_BAD_FRAME); /* a leaf's 0 fp proves nothing */
	regs = (struct unw_regs){.sp = stack_base + 0x900, .fp = stack_base + 0x800};
	CHECK(unw_fp_step(&regs, 0) == UNW_STEP_BAD_FRAME); /* fp below sp: not a frame */
}

int main(void)
{
	RUN_TEST(test_sp_rule);
	RUN_TEST(test_fp_rule_and_same);
	RUN_TEST(test_plt_rule);
	RUN_TEST(test_signal_frame);
	RUN_TEST(test_end_and_faults);
	RUN_TEST(test_find_row);
	RUN_TEST(test_page_index);
	RUN_TEST(test_compact_rows);
	RUN_TEST(test_find_mapping);
	RUN_TEST(test_fp_step);
	HARNESS_EXIT();
}
