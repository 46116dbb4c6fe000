// SPDX-License-Identifier: Apache-2.0
/* Why stacks were cut, as the summary says it (src/unwind/cut.c, export/summary.c): every
 * cause of the table has an id, what happened and a remedy, and each reaches the summary
 * in those words from its BPF count (CTR_CUT_FIRST + cause). */
#include <string.h>

#include "export/summary.h"
#include "harness.h"
#include "unwind/cut.h"

/* What the summary says of counters for a profile of one stack, cut or not, in buf. */
static const char *printed(const uint64_t *counters, bool all, bool cut, char *buf, size_t size)
{
	static const struct report_frame frame = {.name = "f", .mapping = -1};
	static const uint32_t frames[] = {0};
	struct report_stack st = {
	    .pid = 1, .count = 1, .nframes = 1, .truncated = cut, .frames = frames};
	struct report r = {.nframes = 1, .frames = &frame, .nstacks = 1, .stacks = &st};
	FILE *f = fmemopen(buf, size, "w");

	memset(buf, 0, size);
	if (!f)
		return "";
	summary__print_cut(&r, counters, all, f);
	fclose(f);
	return buf;
}

static void test_table(void)
{
	for (unsigned int c = 0; c < CUT__COUNT; c++) {
		const struct cut_cause_info *i = cut_cause__info(c);

		CHECK(i && i->id[0] && i->what[0] && i->remedy[0]);
		for (unsigned int d = 0; i && d < c; d++)
			CHECK(strcmp(cut_cause__info(d)->id, i->id) != 0);
	}
	CHECK(cut_cause__info(CUT__COUNT) == NULL);
	CHECK(strcmp(cut_cause__info(CUT_NO_ROOM)->id, "NO_ROOM") == 0);
	CHECK(strstr(cut_cause__info(CUT_NO_ROOM)->remedy, "--unwind-memory") != NULL);
}

/* Each cause BPF counts reaches the summary in its own words, with its remedy. */
static void test_every_cause_said(void)
{
	for (unsigned int c = 0; c < CUT__COUNT; c++) {
		const struct cut_cause_info *i = cut_cause__info(c);
		uint64_t ctr[CTR__COUNT] = {[CTR_SAMPLES] = 1000};
		char buf[1024], want[512];

		ctr[CTR_CUT_FIRST + c] = 42;
		snprintf(want, sizeof(want), "\n    42 %s: %s\n", i->what, i->remedy);
		CHECK(strstr(printed(ctr, false, true, buf, sizeof(buf)), want) != NULL);
	}
}

static void test_nothing_cut(void)
{
	uint64_t c[CTR__COUNT] = {0};
	char buf[256];

	c[CTR_SAMPLES] = 10;
	CHECK(printed(c, true, false, buf, sizeof(buf))[0] == '\0');
}

int main(void)
{
	RUN_TEST(test_table);
	RUN_TEST(test_every_cause_said);
	RUN_TEST(test_nothing_cut);
	HARNESS_EXIT();
}
