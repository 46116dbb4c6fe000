/* SPDX-License-Identifier: Apache-2.0 */
/* The human summary printed after a recording: the functions with the most self time,
 * why stacks were cut short, values in their units, processes seen. */
#ifndef EBPROF_SUMMARY_H
#define EBPROF_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "profile/report.h"

/* Why stacks came out cut short, one count per cause. summary__causes_from_counters
 * fills what the BPF counters say; a verb may add counts it has from elsewhere. A new
 * cause is a value here and a row of the table in summary.c: its words, its remedy and
 * the counter it comes from. */
enum stack_cause {
	CAUSE_UNDESCRIBED, /* processes not described yet: frame pointers only */
	CAUSE_NO_TABLE,	   /* frames in files whose table was not built yet */
	CAUSE_BAD_FRAME,   /* an impossible caller */
	CAUSE_READ_FAULT,  /* an unreadable stack */
	CAUSE_HANDOVERS,   /* deeper than the walker chain's hand-overs */
	CAUSE_RUNTIME_CUT, /* runtime frames that did not fit the record */
	CAUSE__COUNT,
};

/* Number of distinct processes (pid 0, the idle task, excluded) with samples. */
size_t summary__processes(const struct report *r);
/* Prints the top n leaf functions by sample count (nothing without samples). Returns 0
 * or -ENOMEM. */
int summary__print_top(const struct report *r, size_t n, FILE *out);
/* Sets causes[] from the BPF counters (CTR__COUNT of them, ebprof_shared.h). */
void summary__causes_from_counters(const uint64_t *counters, uint64_t causes[CAUSE__COUNT]);
/* When at least 1 % of r's weight (one event's view) comes from stacks that lost their
 * root, prints how much, then one line per cause that counted at least 1 % of the
 * `taken` samples, largest first, with what to do about it. Prints nothing otherwise. */
void summary__print_cut(const struct report *r, const uint64_t causes[CAUSE__COUNT], uint64_t taken,
			FILE *out);
/* Writes v in its unit for a person: "1234" for a count, "1.14 GiB" for bytes, "2.500 s"
 * for nanoseconds. Returns buf. */
const char *summary__format(char *buf, size_t len, uint64_t v, const char *unit);

#endif
