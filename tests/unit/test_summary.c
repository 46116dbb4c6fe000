// SPDX-License-Identifier: Apache-2.0
/* The end-of-run summary: values in their units, the top functions, and the causes of
 * cut stacks: said only when at least 1 % of the samples lack their root, one line per
 * cause of at least 1 % of the samples taken, largest first, each with its remedy. */
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
	const uint64_t *causes;
	uint64_t taken;
};

static void print_cut(FILE *f, void *arg)
{
	struct cut_args *a = arg;

	summary__print_cut(a->r, a->causes, a->taken, f);
}

static void test_causes_from_counters(void)
{
	uint64_t ctr[CTR__COUNT] = {0}, causes[CAUSE__COUNT];

	ctr[CTR_BAD_FRAME] = 7;
	ctr[CTR_UNKNOWN_PID] = 11;
	ctr[CTR_TAIL_CALLS_OUT] = 3;
	summary__causes_from_counters(ctr, causes);
	CHECK(causes[CAUSE_BAD_FRAME] == 7);
	CHECK(causes[CAUSE_UNDESCRIBED] == 11);
	CHECK(causes[CAUSE_HANDOVERS] == 3);
	CHECK(causes[CAUSE_READ_FAULT] == 0);
}

/* 39 % cut: the share, then the causes of >= 1 %, largest first, each with a remedy. */
static void test_dominant_causes_largest_first(void)
{
	struct report_stack st[2];
	struct report r = report_of(st, 1927, 746);
	uint64_t causes[CAUSE__COUNT] = {0};
	struct cut_args a = {&r, causes, 1927};
	char *out, *bad, *undescribed;

	causes[CAUSE_BAD_FRAME] = 728;
	causes[CAUSE_UNDESCRIBED] = 1000;
	causes[CAUSE_READ_FAULT] = 5; /* under 1 %: not said */
	out = printed(print_cut, &a);
	CHECK(out != NULL);
	if (!out)
		return;
	fprintf(stderr, "%s", out);
	CHECK(strstr(out, "746 of 1927 samples (39 %)") != NULL);
	bad = strstr(out, "728 stacks cut at a caller");
	undescribed = strstr(out, "1000 samples of processes ebprof had not described yet");
	CHECK(bad && undescribed && undescribed < bad);
	CHECK(bad && strstr(bad, ": code with neither unwind tables nor frame pointers"));
	CHECK(!strstr(out, "could not be read"));
	free(out);
}

static void test_quiet_when_stacks_are_whole(void)
{
	struct report_stack st[2];
	struct report r = report_of(st, 1000, 9); /* 0.9 % */
	uint64_t causes[CAUSE__COUNT] = {[CAUSE_BAD_FRAME] = 500};
	struct cut_args a = {&r, causes, 1000};
	char *out = printed(print_cut, &a);

	CHECK(out && out[0] == '\0');
	free(out);
}

static void test_cut_without_a_counted_cause(void)
{
	struct report_stack st[2];
	struct report r = report_of(st, 100, 50);
	uint64_t causes[CAUSE__COUNT] = {0};
	struct cut_args a = {&r, causes, 100};
	char *out = printed(print_cut, &a);

	CHECK(out && strstr(out, "50 of 100 samples (50 %)") && strstr(out, "-v"));
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
	RUN_TEST(test_causes_from_counters);
	RUN_TEST(test_dominant_causes_largest_first);
	RUN_TEST(test_quiet_when_stacks_are_whole);
	RUN_TEST(test_cut_without_a_counted_cause);
	RUN_TEST(test_units);
	RUN_TEST(test_top_without_samples_prints_nothing);
	HARNESS_EXIT();
}
