// SPDX-License-Identifier: Apache-2.0
/* Unit test of the Perl layouts (src/interp/perl/perl_layout.c): every member the BPF
 * walker reads lies inside what it reads at once, versions without a layout have none,
 * and — with PERL_LAYOUT_EXPECT=FILE PERL_LAYOUT_VERSION=5.NN, as tests/kernel/perl.sh
 * runs it with what tests/workloads/perl/layout.c printed from that Perl's headers — the
 * table says exactly what the headers say. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "interp/perl/perl_layout.h"

static void test_members_within_reads(void)
{
	static const unsigned int versions[] = {32, 36, 40};

	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		const struct pl_layout *l = pl_layout__for(5, versions[i]);
		const struct pl_offsets *o;

		CHECK(l != NULL);
		if (!l)
			continue;
		o = &l->bpf;
		CHECK(o->cx_size >= PL_CX_READ);
		CHECK(o->cx_oldcop + 8 <= PL_CX_READ && o->cx_retop + 8 <= PL_CX_READ);
		CHECK(o->cx_sub_cv + 8 <= PL_CX_READ && o->cx_eval_cv + 8 <= PL_CX_READ);
		CHECK(o->cx_eval_env + 8 <= PL_CX_READ);
		CHECK(o->si_cxstack + 8 <= PL_SI_READ && o->si_cxix + 4 <= PL_SI_READ);
		CHECK(o->si_type + 4 <= PL_SI_READ && o->si_type % 4 == 0);
		CHECK(o->si_prev % 8 == 0 && o->si_cxstack % 8 == 0 && o->si_cxix % 4 == 0);
		CHECK(o->cx_oldcop % 8 == 0 && o->cx_retop % 8 == 0 && o->cx_sub_cv % 8 == 0);
		CHECK(o->cx_eval_cv % 8 == 0 && o->cx_eval_env % 8 == 0);
		CHECK(l->op_nextstate && l->op_dbstate && l->op_nextstate < 0x200);
	}
	CHECK(pl_layout__for(5, 34) == NULL && pl_layout__for(5, 38) == NULL);
	CHECK(pl_layout__for(7, 0) == NULL);
}

/* The table against a version's headers, when the kernel test gives them. */
static void test_table_matches_headers(void)
{
	const char *file = getenv("PERL_LAYOUT_EXPECT"), *ver = getenv("PERL_LAYOUT_VERSION");
	char want[8192], got[8192];
	const struct pl_layout *l;
	unsigned int major, minor;
	size_t n;
	FILE *f, *mem;

	if (!file || !ver)
		SKIP("PERL_LAYOUT_EXPECT and PERL_LAYOUT_VERSION unset (tests/kernel/perl.sh sets "
		     "them)");
	CHECK(sscanf(ver, "%u.%u", &major, &minor) == 2);
	l = pl_layout__for(major, minor);
	CHECK(l != NULL);
	f = fopen(file, "r");
	CHECK(f != NULL);
	if (!l || !f) {
		if (f)
			fclose(f);
		return;
	}
	n = fread(want, 1, sizeof(want) - 1, f);
	want[n] = '\0';
	fclose(f);
	mem = fmemopen(got, sizeof(got), "w");
	CHECK(mem != NULL);
	if (!mem)
		return;
	pl_layout__print(l, mem);
	fclose(mem);
	if (strcmp(got, want))
		fprintf(stderr, "  ebprof's table:\n%s  the headers:\n%s", got, want);
	CHECK(strcmp(got, want) == 0);
}

int main(void)
{
	RUN_TEST(test_members_within_reads);
	RUN_TEST(test_table_matches_headers);
	HARNESS_EXIT();
}
