/* SPDX-License-Identifier: Apache-2.0 */
/* The human summary printed after a recording: the functions with the most self time,
 * why stacks were cut short, values in their units, processes seen. */
#ifndef EBPROF_SUMMARY_H
#define EBPROF_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile/report.h"

/* Number of distinct processes (pid 0, the idle task, excluded) with samples. */
size_t summary__processes(const struct report *r);
/* Prints the top n leaf functions by sample count (nothing without samples). Returns 0
 * or -ENOMEM. */
int summary__print_top(const struct report *r, size_t n, FILE *out);
/* When at least 1 % of r's weight (one event's view) comes from stacks that lost their
 * root, prints how much, then why, from the counts BPF keeps of each cut CPU sample by
 * cause (counters: the sampler's CTR__COUNT, CTR_CUT_FIRST + enum cut_cause): one line
 * per cause of at least 1 % of the samples taken, largest first, with what to do about
 * it, and one summing the rest. With all (-v): said from the first cut stack, every
 * counted cause on its own line. Prints nothing otherwise. */
void summary__print_cut(const struct report *r, const uint64_t *counters, bool all, FILE *out);
/* Writes v in its unit for a person: "1234" for a count, "1.14 GiB" for bytes, "2.500 s"
 * for nanoseconds. Returns buf. */
const char *summary__format(char *buf, size_t len, uint64_t v, const char *unit);

#endif
