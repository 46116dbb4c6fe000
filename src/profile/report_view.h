/* SPDX-License-Identifier: Apache-2.0 */
/* One event's part of a report, and the one number a stack weighs in formats that have
 * room for one (folded stacks, the flame graph, the summary): every exporter writes a
 * profile per event by reading a view instead of the whole report. */
#ifndef EBPROF_REPORT_VIEW_H
#define EBPROF_REPORT_VIEW_H

#include <stdint.h>

#include "profile/report.h"

/* The event's last value (samples of the CPU clock, hits of a probe, nanoseconds off
 * the CPU, bytes allocated), or the count when the report declares no values. */
static inline uint64_t report_stack_weight(const struct report *r, const struct report_stack *s)
{
	uint32_t n;

	if (!s->values || s->event >= r->nevents)
		return s->count;
	n = r->events[s->event].nvalues;
	return n && n <= REPORT_MAX_VALUES ? s->values[n - 1] : s->count;
}

#define REPORT_ROOTS_MAX 2
#define REPORT_ROOT_LEN 64

/* The names of stack s's root under mode, outermost first, into roots; how many. */
unsigned int report_stack_roots(const struct report_stack *s, enum report_root mode,
				char roots[REPORT_ROOTS_MAX][REPORT_ROOT_LEN]);

struct report_view {
	struct report r; /* events[0] is the event; stacks point into r's source */
	struct report_stack *stacks;
};

/* Fills v with the stacks of event e of r (renumbered as event 0), sharing r's frames,
 * mappings and strings: r must outlive v. Returns 0, -EINVAL when r has no event e, or
 * -ENOMEM. */
int report_view__init(struct report_view *v, const struct report *r, uint32_t e);
void report_view__free(struct report_view *v);

#endif
