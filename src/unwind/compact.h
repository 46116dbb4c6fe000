/* SPDX-License-Identifier: Apache-2.0 */
/* Compact unwind rows (bpf/unwind.h, struct unwind_row_compact): a table whose every row
 * fits 8 bytes goes into the pool in that form, two rows to a pool row, half the memory
 * of the full rows. */
#ifndef EBPROF_COMPACT_H
#define EBPROF_COMPACT_H

#include <stdbool.h>
#include <stdint.h>

#include "unwind.h"

/* The compact form of r into *out; false when r does not fit it. */
bool unwind_row__compact(const struct unwind_row *r, struct unwind_row_compact *out);
/* The n rows compacted into a new array of (n + 1) / 2 pool rows (the last half zero when
 * n is odd), in *out for the caller to free. Returns 0, -ERANGE when a row does not fit
 * (the table stays in full rows), or -ENOMEM. */
int unwind_rows__compact(const struct unwind_row *rows, uint32_t n, struct unwind_row **out);

#endif
