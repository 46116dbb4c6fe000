// SPDX-License-Identifier: Apache-2.0
/* The end-of-run summary: values in their units, the top functions, and the causes of
 * cut stacks: said only when at least 1 % of the samples lack their root (any with -v),
 * one line per cause BPF counted for at least 1 % of the samples taken, largest first,
 * each with its remedy, the rest summed (each on its line with -v). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebprof_shared.h"
#include "export/summary.h"
#include "harness.h"

static const struct report_frame frames[] = {
    {.name = "leaf", .addr = 0x10, .mapping = -1, .kind = FRAME_NATIVE},
    {.name = "main", .addr = 0x20, .mapping = -1, .kind = FRAME_NATIVE},
};
static const uint32_t whole[] = {0, 1}, cut[] = {0};

/* n samples of which `truncated` lack their root. */
static struct report report_of(struct report_stack st[2], uint64_t n, uint64_t truncated)
{
	st[0] = (struct report_stack){.pid = 1,
				      .tid = 1,
				      .comm = "app",
				      .count = n - truncated,
				      .nframes = 2,
				      .frames = whole};
	st[1] = (struct report_stack){.pid = 1,
				      .tid = 1,
				      .comm = "app",
				      .count = truncated,
				      .nframes = 1,
				      .truncated = true,
				      .frames = cut};
	return (struct report){.nframes = 2, .frames = frames, .nstacks = 2, .stacks = st};
}

/* What f printed, NUL-terminated (caller frees). */
static char *printed(void (*fn)(FILE *, void *), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fn(f, arg);
	fclose(f);
	return buf;
}

struct cut_args {
	const struct report *r;
	const uint64_t *counters;
	bool all;
};

static void print_cut(FILE *f, void *arg)
{
	struct cut_args *a = arg;

	summary__print_cut(a->r, a->counters, a->all, f);
}

/* 39 % cut: the share, then the causes BPF counted of >= 1 %, largest first, each with
 * its remedy, and the rest summed. */
static void test_dominant_causes_largest_first(void)
{
	struct report_stack st[2];
	struct report r = report_of(st, 1927, 746);
	uint64_t c[CTR__COUNT] = {0};
	struct cut_args a = {&r, c, false};
	char *out, *cfi, *file;

	c[CTR_SAMPLES] = 1927;
	c[CTR_CUT_FIRST + CUT_NO_CFI] = 141;
	c[CTR_CUT_FIRST + CUT_NEW_FILE] = 600;
	c[CTR_CUT_FIRST + CUT_NO_ROW] = 5; /* under 1 %: summed */
	out = printed(print_cut, &a);
	CHECK(out != NULL);
	if (!out)
		return;
	fprintf(stderr, "%s", out);
	CHECK(strstr(out, "746 of 1927 samples (39 %)") != NULL);
	cfi = strstr(out, "\n    141 in code with neither unwind tables nor frame pointers");
	file = strstr(out, "\n    600 in files met before their unwind tables were built: ");
	CHECK(cfi && file && file < cfi);
	CHECK(cfi && strstr(cfi, ": build it with"));
	CHECK(strstr(out, "\n    5 for 1 other cause (-v lists them)\n") != NULL);
	CHECK(!strstr(out, "hand-written assembly"));
	free(out);
}

/* -v: every counted cause on its own line, nothing summed. */
static void test_verbose_lists_every_cause(void)
{
	struct report_stack st[2];
	struct report r = report_of(st, 1000, 100);
	uint64_t c[CTR__COUNT] = {0};
	struct cut_args a = {&r, c, true};
	char *out;

	c[CTR_SAMPLES] = 1000;
	c[CTR_CUT_FIRST + CUT_NEW_FILE] = 95;
	c[CTR_CUT_FIRST + CUT_DEPTH] = 3;
	c[CTR_CUT_FIRST + CUT_STACK] = 2;
	out = printed(print_cut, &a);
	CHECK(out && strstr(out, "\n    3 deeper than"));
	CHECK(out && strstr(out, "\n    2 where the stack could not be read"));
	CHECK(out && !strstr(out, "other cause"));
	free(out);
}

/* Under 1 % cut: nothing said, unless -v asks. */
static void test_quiet_when_stacks_are_whole(void)
{
	struct report_stack st[2];
	struct report r = report_of(st, 1000, 9); /* 0.9 % */
	uint64_t c[CTR__COUNT] = {[CTR_SAMPLES] = 1000, [CTR_CUT_FIRST + CUT_NO_CFI] = 9};
	struct cut_args a = {&r, c, false};
	char *out = printed(print_cut, &a);

	CHECK(out && out[0] == '\0');
	free(out);
	a.all = true;
	out = printed(print_cut, &a);
	CHECK(out && strstr(out, "9 of 1000 samples") && strstr(out, "\n    9 in code with"));
	free(out);
}

/* The causes are the per-sample counts only: the unwinder's other counters (-v prints
 * them) explain nothing here. */
static void test_cut_without_a_counted_cause(void)
{
	struct report_stack st[2];
	struct report r = report_of(st, 100, 50);
	uint64_t c[CTR__COUNT] = {
	    [CTR_SAMPLES] = 100, [CTR_BAD_FRAME] = 50, [CTR_UNKNOWN_PID] = 50};
	struct cut_args a = {&r, c, false};
	char *out = printed(print_cut, &a);

	CHECK(out && strstr(out, "50 of 100 samples (50 %)") && strstr(out, "-v"));
	CHECK(out && !strstr(out, "\n    50 "));
	free(out);
}

static void test_units(void)
{
	char b[32];

	CHECK(!strcmp(summary__format(b, sizeof(b), 1222218242, "bytes"), "1.14 GiB"));
	CHECK(!strcmp(summary__format(b, sizeof(b), 1000, "bytes"), "1000 bytes"));
	CHECK(!strcmp(summary__format(b, sizeof(b), 1536, "bytes"), "1.50 KiB"));
	CHECK(!strcmp(summary__format(b, sizeof(b), 3200000000ULL, "nanoseconds"), "3.200 s"));
	CHECK(!strcmp(summary__format(b, sizeof(b), 2001, "count"), "2001"));
}

static void print_top(FILE *f, void *arg)
{
	summary__print_top(arg, 10, f);
}

static void test_top_without_samples_prints_nothing(void)
{
	struct report empty = {0};
	char *out = printed(print_top, &empty);

	CHECK(out && out[0] == '\0');
	free(out);
}

int main(void)
{
	RUN_TEST(test_dominant_causes_largest_first);
	RUN_TEST(test_verbose_lists_every_cause);
	RUN_TEST(test_quiet_when_stacks_are_whole);
	RUN_TEST(test_cut_without_a_counted_cause);
	RUN_TEST(test_units);
	RUN_TEST(test_top_without_samples_prints_nothing);
	HARNESS_EXIT();
}
