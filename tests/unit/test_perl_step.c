// SPDX-License-Identifier: Apache-2.0
/* Unit test of the Perl walker's step (src/interp/perl/perl_step.h, compiled here as host
 * C) on context stacks built in a fake process memory as Perl 5.36 lays them out: which
 * frames it finds and how it splits them into one group per runops activation — subs
 * called from C, sort's block and sub, MULTICALL between calls, S_docatch's nested loop,
 * call_sv with G_EVAL, eval_sv, a context being pushed, a full record, a bad pointer. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "interp/perl/perl_layout.h"

#define MEM_BASE 0x10000ull
#define MEM_SIZE (64u << 10)

static unsigned char mem[MEM_SIZE];
static uint64_t mem_top;
static uint64_t counters[PL_CTR__COUNT];

static int fake_read(void *dst, uint32_t size, uint64_t addr)
{
	if (addr < MEM_BASE || addr - MEM_BASE > MEM_SIZE || MEM_SIZE - (addr - MEM_BASE) < size) {
		memset(dst, 0, size); /* as bpf_probe_read_user leaves it */
		return -1;
	}
	memcpy(dst, mem + (addr - MEM_BASE), size);
	return 0;
}

#define PL_READ_USER(dst, size, addr) fake_read(dst, size, addr)
#define PL_COUNT(id) (counters[id]++)
#include "interp/perl/perl_step.h"

static const struct pl_offsets *off;
static struct sample_record rec;

static uint64_t alloc(uint32_t size)
{
	uint64_t a = MEM_BASE + mem_top;

	mem_top += (size + 15) & ~15u;
	return a;
}

static void put(uint64_t addr, const void *v, size_t n)
{
	memcpy(mem + (addr - MEM_BASE), v, n);
}

static void put64(uint64_t addr, uint64_t v)
{
	put(addr, &v, 8);
}

/* Names for what frames carry: CVs and COPs are small allocations whose address is
 * mapped back to a name. */
static uint64_t cvs[8], cops[8];
static const char *cv_names[8] = {"A", "B", "W", "blk", "ev", "xs", "C", "D"};

static const char *cv_name(uint64_t cv)
{
	if (!cv)
		return "main";
	for (int i = 0; i < 8; i++)
		if (cvs[i] == cv)
			return cv_names[i];
	return "?";
}

static int cop_num(uint64_t cop)
{
	for (int i = 0; i < 8; i++)
		if (cops[i] == cop)
			return i;
	return -1;
}

struct env {
	uint64_t p, d, c;
};

/* A fresh memory: CVs (the xs one an XSUB), COPs and the three JMPENVs of the tests:
 * p (the main program's, je_mustcatch set as a call from C without G_EVAL sets it),
 * d (S_docatch's or call_sv's own, clear, its je_prev p). */
static struct env reset(void)
{
	uint64_t body;
	uint32_t flags = PL_CVf_ISXSUB;
	struct env e;
	uint8_t yes = 1, no = 0;

	memset(mem, 0, sizeof(mem));
	memset(counters, 0, sizeof(counters));
	memset(&rec, 0, sizeof(rec));
	mem_top = 0;
	for (int i = 0; i < 8; i++) {
		cvs[i] = alloc(24);
		cops[i] = alloc(56);
		body = alloc(96);
		put64(cvs[i], body);
		if (i == 5)
			put(body + off->cv_flags, &flags, 4);
	}
	e.p = alloc(224);
	e.d = alloc(224);
	e.c = alloc(224);
	put(e.p + off->env_catch, &yes, 1);
	put(e.d + off->env_catch, &no, 1);
	put(e.c + off->env_catch, &no, 1);
	put64(e.d + off->env_prev, e.p);
	put64(e.c + off->env_prev, e.p);
	return e;
}

/* A stack info of type (PERLSI_*: 1 main, 3 sort, 10 multicall). */
static uint64_t new_si_of(uint64_t prev, int32_t ix, int ncx, int32_t type)
{
	uint64_t si = alloc(56), cx = alloc(ncx * off->cx_size);

	put64(si + off->si_cxstack, cx);
	put64(si + off->si_prev, prev);
	/* A cached newer stack info the walk must not follow. */
	put64(si + 24, 0xdead0);
	put(si + off->si_cxix, &ix, 4);
	put(si + off->si_type, &type, 4);
	return si;
}

static uint64_t new_si(uint64_t prev, int32_t ix, int ncx)
{
	return new_si_of(prev, ix, ncx, prev ? 10 : 1);
}

static void cx(uint64_t si, int ix, uint8_t type, int oldcop, uint64_t retop, uint64_t cv,
	       uint64_t env)
{
	uint64_t base = 0, at;

	fake_read(&base, 8, si + off->si_cxstack);
	at = base + (uint64_t)ix * off->cx_size;
	put(at, &type, 1);
	put64(at + off->cx_oldcop, oldcop >= 0 ? cops[oldcop] : 0);
	put64(at + off->cx_retop, retop);
	if ((type & PL_CXTYPEMASK) == PL_CXt_EVAL) {
		put64(at + off->cx_eval_cv, cv);
		put64(at + off->cx_eval_env, env);
	} else {
		put64(at + off->cx_sub_cv, cv);
	}
}

static uint64_t interp(uint64_t si, int curcop, uint64_t op, uint64_t top_env)
{
	uint64_t i = alloc(1024);

	put64(i + off->op, op);
	put64(i + off->curcop, cops[curcop]);
	put64(i + off->curstackinfo, si);
	put64(i + off->top_env, top_env);
	return i;
}

/* Walks from interpreter at for acts activations; the groups as "B@2 | - | A@1 main@0"
 * (a frame is CV@statement, "-" an empty group). */
static const char *walk(uint64_t at, int acts)
{
	static char out[512];
	struct pl_proc proc = {.off = *off};
	struct pl_cursor cur;
	struct pl_walk w = {.r = &rec, .p = &proc, .c = &cur};
	size_t n = 0;

	out[0] = '\0';
	if (!pl_begin(&w, at, (uint8_t)acts))
		return "(none)";
	for (int i = 0; i < PL_MAX_STEPS && !pl_step(&w); i++)
		;
	for (unsigned int k = 0; k < rec.ustack_len && n < sizeof(out) - 32; k++) {
		const struct user_frame *f = &rec.ustack[k];

		if (!f->file_id)
			continue; /* native frames a test put first */
		if (f->pad & UF_GROUP_EMPTY)
			n += snprintf(out + n, sizeof(out) - n, "-");
		else
			n += snprintf(out + n, sizeof(out) - n, "%s@%d",
				      cv_name(pl_frame_cv(f->addr)),
				      cop_num(pl_frame_cop(f->addr, f->pad)));
		n += snprintf(out + n, sizeof(out) - n, (f->pad & UF_GROUP_END) ? " | " : " ");
	}
	return out;
}

static int same(const char *got, const char *want)
{
	if (!strcmp(got, want))
		return 1;
	fprintf(stderr, "  got  '%s'\n  want '%s'\n", got, want);
	return 0;
}

#define R 0x4242ull  /* a retop: the op after a call made by Perl code */
#define OP 0x5151ull /* PL_op while a loop runs */

/* Perl calls Perl: one activation, the main program at the bottom. */
static void test_chain_in_one_activation(void)
{
	struct env e = reset();
	uint64_t si = new_si(0, 1, 4);

	cx(si, 0, PL_CXt_SUB, 0, R, cvs[0], 0);
	cx(si, 1, PL_CXt_SUB, 1, R, cvs[1], 0);
	CHECK(same(walk(interp(si, 2, OP, e.p), 1), "B@2 A@1 main@0 | "));
}

/* A sub called from C (retop NULL) is the first frame of its activation. */
static void test_sub_called_from_c(void)
{
	struct env e = reset();
	uint64_t si = new_si(0, 1, 4);

	cx(si, 0, PL_CXt_SUB, 0, R, cvs[0], 0);
	cx(si, 1, PL_CXt_SUB, 1, 0, cvs[1], 0);
	CHECK(same(walk(interp(si, 2, OP, e.p), 2), "B@2 | A@1 main@0 | "));
}

/* sort { W() } in A: the block (named after A) and W run on sort's own stack info, whose
 * end continues with the outer one. */
static void test_sort_block_then_outer(void)
{
	struct env e = reset();
	uint64_t main_si = new_si(0, 0, 4), sort_si = new_si_of(main_si, 1, 4, PL_SI_SORT);

	cx(main_si, 0, PL_CXt_SUB, 0, R, cvs[0], 0);
	cx(sort_si, 0, PL_CXt_NULL, 1, 0, 0, 0);
	cx(sort_si, 1, PL_CXt_SUB, 2, R, cvs[2], 0);
	CHECK(same(walk(interp(sort_si, 3, OP, e.p), 2), "W@3 A@2 | A@1 main@0 | "));
}

/* Between two comparisons (PL_op NULL) sort's block runs nothing: no group of its own. */
static void test_sort_between_calls(void)
{
	struct env e = reset();
	uint64_t main_si = new_si(0, 0, 4), sort_si = new_si_of(main_si, 0, 4, PL_SI_SORT);

	cx(main_si, 0, PL_CXt_SUB, 0, R, cvs[0], 0);
	cx(sort_si, 0, PL_CXt_NULL, 1, 0, 0, 0);
	CHECK(same(walk(interp(sort_si, 5, 0, e.p), 1), "A@1 main@0 | "));
}

/* List::Util's MULTICALL: the block's activation while it runs, none between calls. */
static void test_multicall(void)
{
	struct env e = reset();
	uint64_t main_si = new_si(0, 0, 4), mc_si = new_si(main_si, 0, 4);

	cx(main_si, 0, PL_CXt_SUB, 0, R, cvs[0], 0);
	cx(mc_si, 0, PL_CXt_SUB | PL_CXp_MULTICALL, 1, 0, cvs[3], 0);
	CHECK(same(walk(interp(mc_si, 2, OP, e.p), 2), "blk@2 | A@1 main@0 | "));
	memset(&rec, 0, sizeof(rec));
	CHECK(same(walk(interp(mc_si, 2, 0, e.p), 1), "A@1 main@0 | "));
}

/* An XS sort sub has a context but runs in no loop. */
static void test_xs_sort_sub(void)
{
	struct env e = reset();
	uint64_t main_si = new_si(0, 0, 4), sort_si = new_si(main_si, 0, 4);

	cx(main_si, 0, PL_CXt_SUB, 0, R, cvs[0], 0);
	cx(sort_si, 0, PL_CXt_SUB | PL_CXp_MULTICALL, 1, 0, cvs[5], 0);
	CHECK(same(walk(interp(sort_si, 1, OP, e.p), 1), "A@1 main@0 | "));
}

/* B called from C without G_EVAL enters an eval: S_docatch runs the rest in a nested
 * loop. While the eval is on the contexts, and after it is gone (the JMPENV chain still
 * holds docatch's), the outer loop of the pair gets an empty group. */
static void test_docatch(void)
{
	struct env e = reset();
	uint64_t si = new_si(0, 2, 4);

	cx(si, 0, PL_CXt_SUB, 0, R, cvs[0], 0);
	cx(si, 1, PL_CXt_SUB, 1, 0, cvs[1], 0);
	cx(si, 2, PL_CXt_EVAL | PL_CXp_EVALBLOCK, 2, R, 0, e.d);
	CHECK(same(walk(interp(si, 3, OP, e.d), 3), "B@3 | - | A@1 main@0 | "));
	si = new_si(0, 1, 4);
	cx(si, 0, PL_CXt_SUB, 0, R, cvs[0], 0);
	cx(si, 1, PL_CXt_SUB, 1, 0, cvs[1], 0);
	memset(&rec, 0, sizeof(rec));
	CHECK(same(walk(interp(si, 3, OP, e.d), 3), "B@3 | - | A@1 main@0 | "));
	/* No eval entered: the JMPENV in effect is the caller's, je_mustcatch set. */
	memset(&rec, 0, sizeof(rec));
	CHECK(same(walk(interp(si, 3, OP, e.p), 2), "B@3 | A@1 main@0 | "));
}

/* call_sv() with G_EVAL: an eval block from C, then the sub; its own JMPENV (clear) is
 * no docatch's. eval_sv(): an eval '' from C, its JMPENV pushed before it. */
static void test_call_sv_with_eval_and_eval_sv(void)
{
	struct env e = reset();
	uint64_t si = new_si(0, 2, 4);

	cx(si, 0, PL_CXt_SUB, 0, R, cvs[0], 0);
	cx(si, 1, PL_CXt_EVAL | PL_CXp_EVALBLOCK, 1, 0, 0, e.p);
	cx(si, 2, PL_CXt_SUB, 1, 0, cvs[1], 0);
	CHECK(same(walk(interp(si, 2, OP, e.c), 2), "B@2 | A@1 main@0 | "));
	si = new_si(0, 1, 4);
	cx(si, 0, PL_CXt_SUB, 0, R, cvs[0], 0);
	cx(si, 1, PL_CXt_EVAL | 0x20, 1, 0, cvs[4], e.c);
	memset(&rec, 0, sizeof(rec));
	CHECK(same(walk(interp(si, 2, OP, e.c), 2), "ev@2 | A@1 main@0 | "));
}

/* eval {} is no frame; eval '' is one, in the same activation when Perl entered it. */
static void test_evals_from_perl(void)
{
	struct env e = reset();
	uint64_t si = new_si(0, 2, 4);

	cx(si, 0, PL_CXt_EVAL | 0x20, 0, R, cvs[4], e.p);
	cx(si, 1, PL_CXt_EVAL | PL_CXp_EVALBLOCK, 1, R, 0, e.p);
	cx(si, 2, PL_CXt_SUB, 2, R, cvs[0], 0);
	CHECK(same(walk(interp(si, 3, OP, e.p), 1), "A@3 ev@2 main@0 | "));
}

/* The innermost sub whose caller's statement is the current one is being pushed (its
 * retop and cv may be an older context's): skipped, its caller at that statement. A
 * context whose type is not written yet (0) is no sort block, unless it is the first of
 * a sort's stack info. */
static void test_context_being_pushed(void)
{
	struct env e = reset();
	uint64_t si = new_si(0, 2, 4);

	cx(si, 0, PL_CXt_SUB, 0, R, cvs[0], 0);
	cx(si, 1, PL_CXt_SUB, 1, R, cvs[1], 0);
	cx(si, 2, PL_CXt_SUB, 2, 0, cvs[6], 0);
	CHECK(same(walk(interp(si, 2, OP, e.p), 1), "B@2 A@1 main@0 | "));
	cx(si, 2, PL_CXt_NULL, 5, 0, 0, 0);
	memset(&rec, 0, sizeof(rec));
	CHECK(same(walk(interp(si, 2, OP, e.p), 1), "B@2 A@1 main@0 | "));
	si = new_si_of(new_si(0, -1, 1), 0, 2, 10);
	cx(si, 0, PL_CXt_NULL, 5, 0, 0, 0);
	memset(&rec, 0, sizeof(rec));
	CHECK(same(walk(interp(si, 2, OP, e.p), 1), "main@2 | "));
}

/* A full record ends the group begun, writes nothing past it, and stops. */
static void test_full_record(void)
{
	struct env e = reset();
	uint64_t si = new_si(0, 1, 4);

	cx(si, 0, PL_CXt_SUB, 0, R, cvs[0], 0);
	cx(si, 1, PL_CXt_SUB, 1, R, cvs[1], 0);
	rec.ustack_len = UNW_MAX_FRAMES - 2;
	CHECK(same(walk(interp(si, 2, OP, e.p), 1), "B@2 A@1 | "));
	CHECK(rec.ustack_len == UNW_MAX_FRAMES);
}

/* Unreadable contexts stop the walk (counted) with the frames found in their group; a
 * misaligned CV is sent as 0 (counted); no interpreter, no walk. */
static void test_bad_memory(void)
{
	struct env e = reset();
	uint64_t si = new_si(0, 3, 2);
	uint64_t bad = 0x7ff000;

	cx(si, 0, PL_CXt_SUB, 0, R, cvs[0] + 4, 0);
	cx(si, 1, PL_CXt_SUB, 1, R, cvs[1], 0);
	put64(si + off->si_cxstack, bad);
	CHECK(same(walk(interp(si, 2, OP, e.p), 1), ""));
	CHECK(counters[PL_CTR_READ_FAULT] == 1);
	si = new_si(0, 1, 2);
	cx(si, 0, PL_CXt_SUB, 0, R, cvs[0] + 4, 0);
	cx(si, 1, PL_CXt_SUB, 1, R, cvs[1], 0);
	memset(&rec, 0, sizeof(rec));
	CHECK(same(walk(interp(si, 2, OP, e.p), 1), "B@2 main@1 main@0 | "));
	CHECK(counters[PL_CTR_BAD_POINTER] == 1);
	CHECK(same(walk(0, 1), "(none)"));
}

int main(void)
{
	off = &pl_layout__for(5, 36)->bpf;
	RUN_TEST(test_chain_in_one_activation);
	RUN_TEST(test_sub_called_from_c);
	RUN_TEST(test_sort_block_then_outer);
	RUN_TEST(test_sort_between_calls);
	RUN_TEST(test_multicall);
	RUN_TEST(test_xs_sort_sub);
	RUN_TEST(test_docatch);
	RUN_TEST(test_call_sv_with_eval_and_eval_sv);
	RUN_TEST(test_evals_from_perl);
	RUN_TEST(test_context_being_pushed);
	RUN_TEST(test_full_record);
	RUN_TEST(test_bad_memory);
	HARNESS_EXIT();
}
