/* SPDX-License-Identifier: Apache-2.0 */
/* The table `ebprof top` shows: the functions with the most self and total time over a
 * sliding window, each with its process and frame kind. The window is a ring of slices,
 * one per refresh, each counted from that refresh's report and kept without it (names
 * copied), so the view answers any sort, grouping or filter over the last N slices
 * without holding N reports. */
#ifndef EBPROF_TOP_VIEW_H
#define EBPROF_TOP_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/report.h"

enum top_sort {
	TOP_SORT_SELF,	/* samples whose innermost frame is the function */
	TOP_SORT_TOTAL, /* samples with the function anywhere in their stack */
};

enum top_group {
	TOP_BY_FUNCTION, /* one row per function, whichever processes ran it */
	TOP_BY_PROCESS,	 /* one row per function and process */
};

/* What a view shows: its order, grouping, filter and size. */
struct top_query {
	enum top_sort sort;
	enum top_group group;
	const char *filter; /* only functions whose name holds it (any case); NULL or "": all */
	unsigned rows;	    /* at most this many rows */
	unsigned width;	    /* columns of a line (0: no limit) */
};

/* What the window holds in all. */
struct top_totals {
	uint64_t samples;     /* CPU samples in the window */
	uint64_t duration_ns; /* time the window's slices cover */
	uint32_t processes;   /* distinct processes with samples (pid 0 excluded) */
	unsigned slices;
};

struct top_view;

/* A view over the last nslices slices (at least 1). NULL on ENOMEM. */
struct top_view *top_view__new(unsigned nslices);
void top_view__free(struct top_view *v);
/* Adds a slice: the CPU samples of r (its first event), which may then be freed; the
 * oldest slice leaves when the window is full. Returns 0 or -ENOMEM (the view is as
 * it was). */
int top_view__add(struct top_view *v, const struct report *r);
void top_view__totals(const struct top_view *v, struct top_totals *out);
/* Prints the rows q asks for, with a heading line, one line each. Returns the rows
 * printed, or -ENOMEM. */
int top_view__print(const struct top_view *v, const struct top_query *q, FILE *out);

#endif
