/* SPDX-License-Identifier: Apache-2.0 */
/* Flame graph exporter: one self-contained HTML page (inline styles, script and data, no
 * network) that a person opens offline to explore a report by zooming and searching. */
#ifndef EBPROF_FLAMEGRAPH_H
#define EBPROF_FLAMEGRAPH_H

#include "profile/report.h"

/* Writes the report's stacks, merged into one tree ("all", then the process name, then
 * frames from the outermost in), as an interactive HTML flame graph at path. The file is
 * written to path.tmp and renamed, so path is either untouched or complete; no .tmp is
 * left behind on failure. title may be NULL for a default. Kernel frames are coloured
 * apart from user ones; stacks whose root was cut hang under a "[truncated]" frame.
 * Returns 0 or a negative errno (-EINVAL for a frame index outside the report). */
int flamegraph__write(const struct report *r, const char *path, const char *title);

#endif
