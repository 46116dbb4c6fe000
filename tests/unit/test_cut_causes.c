// SPDX-License-Identifier: Apache-2.0
/* Why stacks were cut, as the summary says it (src/unwind/cut.c): every cause of the table
 * has an id, what happened and a remedy; the summary gives one line per dominant cause
 * (a tenth of the cut samples or more) with its remedy and sums the rest, and -v lists
 * every cause. */
#include <string.h>

#include "harness.h"
#include "unwind/cut.h"

/* What cut_causes__print writes for counters, in buf. */
static const char *printed(const uint64_t *counters, bool all, char *buf, size_t size)
{
	FILE *f = fmemopen(buf, size, "w");

	memset(buf, 0, size);
	if (!f)
		return "";
	cut_causes__print(counters, all, f);
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

static void test_dominant_causes(void)
{
	uint64_t c[CTR__COUNT] = {0};
	char buf[4096];
	const char *out;

	c[CTR_SAMPLES] = 1200;
	c[CTR_FILTERED] = 200;
	c[CTR_CUT_FIRST + CUT_NEW_FILE] = 80;
	c[CTR_CUT_FIRST + CUT_NO_ROOM] = 12;
	c[CTR_CUT_FIRST + CUT_STACK] = 5;
	c[CTR_CUT_FIRST + CUT_DEPTH] = 3;
	out = printed(c, false, buf, sizeof(buf));
	CHECK(strstr(out, "cut stacks: 100 of 1000 samples (10.0 %)") != NULL);
	CHECK(strstr(out, "\n    80 in files met before their unwind tables were built: ") != NULL);
	CHECK(strstr(out, "\n    12 in files whose unwind tables did not fit the unwind memory: "
			  "raise --unwind-memory\n") != NULL);
	CHECK(strstr(out, "\n    8 for 2 other causes (-v lists them)\n") != NULL);
	CHECK(strstr(out, "deeper than") == NULL);
	/* -v: every cause, nothing summed. */
	out = printed(c, true, buf, sizeof(buf));
	CHECK(strstr(out, "\n    5 where the stack could not be read") != NULL);
	CHECK(strstr(out, "\n    3 deeper than") != NULL);
	CHECK(strstr(out, "other cause") == NULL);
}

static void test_nothing_cut(void)
{
	uint64_t c[CTR__COUNT] = {0};
	char buf[256];

	c[CTR_SAMPLES] = 10;
	CHECK(printed(c, true, buf, sizeof(buf))[0] == '\0');
}

int main(void)
{
	RUN_TEST(test_table);
	RUN_TEST(test_dominant_causes);
	RUN_TEST(test_nothing_cut);
	HARNESS_EXIT();
}
