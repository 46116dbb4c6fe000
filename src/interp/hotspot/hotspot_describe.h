/* SPDX-License-Identifier: Apache-2.0 */
/* A JVM process described for the HotSpot walker (struct hs_proc, hotspot_proc.h):
 * its code cache, code heaps and their segment maps, the interpreter and the call stub,
 * read from the process with the build's layout. */
#ifndef EBPROF_HOTSPOT_DESCRIBE_H
#define EBPROF_HOTSPOT_DESCRIBE_H

#include "interp/hotspot/hotspot_proc.h"
#include "interp/hotspot/hotspot_layout.h"

/* Fills p. Returns 0, -EAGAIN when the JVM has not set up its code cache or interpreter
 * yet (describe it again later; p->code_low/high are filled when the code cache's bounds
 * are known already), or -EINVAL / a read's -errno. */
int hs_proc__read(const struct hs_mem *mem, const struct hs_layout *l, struct hs_proc *p);

#endif
