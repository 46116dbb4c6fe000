// SPDX-License-Identifier: Apache-2.0
/* The window of `ebprof top`: self and total per function (a recursive function counted
 * once per stack), rows by function or by process, CPU samples only, the oldest slice
 * leaving a full window, the filter, both orders and the width a line is cut to. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/top_view.h"
#include "harness.h"

static const struct report_mapping maps[] = {
    {.limit = UINT64_MAX, .path = "/usr/bin/demo", .build_id = ""},
    {.limit = UINT64_MAX, .path = "[kernel.kallsyms]", .build_id = "", .kernel = true},
};

static const struct report_frame frames[] = {
    {.name = "main", .mapping = 0, .kind = FRAME_NATIVE},
    {.name = "work", .mapping = 0, .kind = FRAME_NATIVE},
    {.name = "leaf", .mapping = 0, .kind = FRAME_NATIVE},
    {.name = "rec", .mapping = 0, .kind = FRAME_NATIVE},
    {.name = "do_syscall_64", .mapping = 1, .kind = FRAME_KERNEL},
};

/* Leaf first, as reports keep them. */
static const uint32_t chain[] = {2, 1, 0};
static const uint32_t recursion[] = {3, 3, 3, 0};
static const uint32_t syscall[] = {4, 1, 0};

static const struct report_stack stacks[] = {
    {.pid = 1, .comm = "demo", .count = 6, .nframes = 3, .frames = chain},
    {.pid = 1, .comm = "demo", .count = 2, .nframes = 4, .frames = recursion},
    {.pid = 2, .comm = "other", .count = 3, .nframes = 3, .frames = chain},
    {.pid = 2, .comm = "other", .count = 1, .nframes = 3, .frames = syscall},
    /* Another event's (a probe's): not CPU time, not shown. */
    {.pid = 1, .comm = "demo", .count = 100, .nframes = 3, .frames = chain, .event = 1},
};

static const struct report_event events[] = {{.name = "cpu", .nvalues = 1},
					     {.name = "probe", .nvalues = 1}};

static struct report make_report(void)
{
	struct report r = {
	    .period_ns = 10000000,
	    .duration_ns = 1000000000,
	    .nevents = 2,
	    .events = events,
	    .nmappings = 2,
	    .mappings = maps,
	    .nframes = 5,
	    .frames = frames,
	    .nstacks = 5,
	    .stacks = stacks,
	};

	report__fill_kinds(&r, NULL);
	return r;
}

/* The view printed as q asks, into a string (freed by the caller). */
static char *print(const struct top_view *v, struct top_query q)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	top_view__print(v, &q, m);
	fclose(m);
	return buf;
}

/* The row of text whose process and function columns are proc and fn: its self and
 * total samples' share and its self samples; 0 when there is none. */
static int row(const char *text, const char *proc, const char *fn, double *self, double *total,
	       unsigned *n)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char kind[16], p[64], f[64];

		if (sscanf(l, "%lf%% %lf%% %u %15s %63s %63s", self, total, n, kind, p, f) == 6 &&
		    !strcmp(p, proc) && !strcmp(f, fn))
			return 1;
	}
	return 0;
}

static void test_by_function(void)
{
	struct report r = make_report();
	struct top_view *v = top_view__new(2);
	struct top_totals t;
	double self, total;
	unsigned n;
	char *text;

	CHECK(v && top_view__add(v, &r) == 0);
	top_view__totals(v, &t);
	CHECK(t.samples == 12 && t.processes == 2 && t.slices == 1);
	text = print(v, (struct top_query){.sort = TOP_SORT_SELF, .rows = 10});
	CHECK(text && !strncmp(text, "   SELF", 7));
	/* leaf: 6 + 3 of 12, in two processes. */
	CHECK(row(text, "(several)", "leaf", &self, &total, &n) && n == 9 && self == 75.0);
	/* rec: three frames of one stack, its 2 samples counted once. */
	CHECK(row(text, "demo[1]", "rec", &self, &total, &n) && n == 2 && total > 16.6 &&
	      total < 16.8);
	CHECK(row(text, "(several)", "main", &self, &total, &n) && n == 0 && total == 100.0);
	/* The first row is the most self time: leaf's. */
	CHECK(strstr(text, "\n") &&
	      strstr(strchr(text, '\n') + 1, "leaf") < strstr(strchr(text, '\n') + 1, "\n"));
	free(text);
	top_view__free(v);
}

static void test_by_process(void)
{
	struct report r = make_report();
	struct top_view *v = top_view__new(1);
	double self, total;
	unsigned n;
	char *text;

	CHECK(v && top_view__add(v, &r) == 0);
	text = print(v, (struct top_query){.group = TOP_BY_PROCESS, .rows = 20});
	CHECK(row(text, "demo[1]", "leaf", &self, &total, &n) && n == 6);
	CHECK(row(text, "other[2]", "leaf", &self, &total, &n) && n == 3);
	CHECK(row(text, "other[2]", "do_syscall_64", &self, &total, &n) && n == 1);
	CHECK(strstr(text, "do_syscall_64 [kernel.kallsyms]") != NULL);
	free(text);
	top_view__free(v);
}

static void test_window_slides(void)
{
	struct report r = make_report();
	struct top_view *v = top_view__new(2);
	struct top_totals t;

	CHECK(v);
	for (int i = 0; i < 3; i++)
		CHECK(top_view__add(v, &r) == 0);
	top_view__totals(v, &t);
	CHECK(t.slices == 2 && t.samples == 24 && t.duration_ns == 2000000000ULL);
	top_view__free(v);
}

static void test_filter_sort_width(void)
{
	struct report r = make_report();
	struct top_view *v = top_view__new(1);
	char *text, *second;

	CHECK(v && top_view__add(v, &r) == 0);
	text = print(v, (struct top_query){.filter = "LEA", .rows = 10});
	/* The heading and leaf's row: no other function holds "lea" in any case. */
	CHECK(text && strstr(text, "leaf") && !strstr(text, "main") && !strstr(text, "rec"));
	free(text);
	text = print(v, (struct top_query){.sort = TOP_SORT_TOTAL, .rows = 1});
	second = text ? strchr(text, '\n') + 1 : NULL;
	CHECK(second && strstr(second, "main") && !strchr(strchr(second, '\n') + 1, '\n'));
	free(text);
	text = print(v, (struct top_query){.rows = 3, .width = 30});
	for (const char *l = text; l && *l; l = strchr(l, '\n') + 1)
		CHECK(strchr(l, '\n') - l <= 30);
	free(text);
	top_view__free(v);
}

int main(void)
{
	RUN_TEST(test_by_function);
	RUN_TEST(test_by_process);
	RUN_TEST(test_window_slides);
	RUN_TEST(test_filter_sort_width);
	HARNESS_EXIT();
}
