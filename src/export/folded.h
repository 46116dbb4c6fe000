/* SPDX-License-Identifier: Apache-2.0 */
/* Folded stacks, the text format FlameGraph's scripts read: "comm;outer;...;inner N". */
#ifndef EBPROF_FOLDED_H
#define EBPROF_FOLDED_H

#include <stdio.h>

#include "profile/report.h"

/* Writes one line per distinct folded stack to path (atomically: path.tmp, then rename).
 * Kernel frames end in "_[k]"; stacks whose root was cut start with "[truncated]".
 * Returns 0 or a negative errno. */
int folded__write(const struct report *r, const char *path);
/* The same lines to an open stream, in no particular order; returns 0 or -errno. */
int folded__fprint(const struct report *r, FILE *out);

#endif
