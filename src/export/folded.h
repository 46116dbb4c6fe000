/* SPDX-License-Identifier: Apache-2.0 */
/* Folded stacks, the text format FlameGraph's scripts read: "comm;outer;...;inner N". */
#ifndef EBPROF_FOLDED_H
#define EBPROF_FOLDED_H

#include <stdint.h>
#include <stdio.h>

#include "profile/report.h"

/* Writes one line per distinct folded stack to path (atomically: path.tmp, then rename).
 * Kernel frames end in "_[k]"; stacks whose root was cut start with "[truncated]".
 * Returns 0 or a negative errno. */
int folded__write(const struct report *r, const char *path);
/* The same lines to an open stream, in no particular order; returns 0 or -errno. */
int folded__fprint(const struct report *r, FILE *out);
/* Both write the stacks of the first event (CPU samples) with their counts. These write
 * those of event (an index into r->events) weighing each by its value vi (an index
 * into the event's values; negative: the count), for events such as allocations whose
 * stacks carry several values: one folded file per value type. */
int folded__write_value(const struct report *r, const char *path, uint32_t event, int vi);
int folded__fprint_value(const struct report *r, FILE *out, uint32_t event, int vi);

#endif
