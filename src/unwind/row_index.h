/* SPDX-License-Identifier: Apache-2.0 */
/* The page index of a compiled unwind table (bpf/unwind.h, struct unw_table): where each
 * KiB of code starts among the table's rows, so the BPF search probes a few rows. */
#ifndef EBPROF_ROW_INDEX_H
#define EBPROF_ROW_INDEX_H

#include <stdint.h>

#include "unwind.h"

struct row_index {
	struct unwind_row *rows; /* the pairs, UNW_INDEX_PER_ROW per pool row */
	uint32_t nrows;		 /* pool rows they take */
	uint32_t pages;		 /* unw_table.pages, 0: no index */
	uint32_t base;		 /* unw_table.base */
};

/* Builds the index of the n rows (sorted by pc) into ix, which the caller frees with
 * row_index__free. A small table, rows out of order, or code so sparse that the index
 * would add more than 1/16 to the rows get none (ix->pages 0): the search then spans
 * the table, as it always did. Returns 0 or -ENOMEM. */
int row_index__build(const struct unwind_row *rows, uint32_t n, struct row_index *ix);
void row_index__free(struct row_index *ix);

#endif
