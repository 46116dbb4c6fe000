/* SPDX-License-Identifier: Apache-2.0 */
/* The human summary printed after a recording: processes seen and the functions with the
 * most self time. */
#ifndef EBPROF_SUMMARY_H
#define EBPROF_SUMMARY_H

#include <stdio.h>

#include "profile/report.h"

/* Number of distinct processes (pid 0, the idle task, excluded) with samples. */
size_t summary__processes(const struct report *r);
/* Prints the top n leaf functions by sample count. Returns 0 or -ENOMEM. */
int summary__print_top(const struct report *r, size_t n, FILE *out);

#endif
