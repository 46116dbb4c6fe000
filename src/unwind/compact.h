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
/* Compacts the n rows in place: rows[0 .. (n + 1) / 2) become the pool rows (the last
 * half zero when n is odd), what follows is left over. In place because a large file's
 * table is the agent's largest transient (16 bytes a row, 8 more for a compact copy).
 * Returns 0, or -ERANGE when a row does not fit (rows untouched: the table stays in
 * full rows). */
int unwind_rows__compact(struct unwind_row *rows, uint32_t n);

#endif
