// SPDX-License-Identifier: Apache-2.0
/* The page index of a compiled unwind table: for the table's i-th KiB of code, the number
 * of rows that start at or before it and at or before the next (see bpf/unwind.h and
 * unw_row_window). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/row_index.h"

/* Below this many rows a search over the whole table is as short as over one page. */
#define ROW_INDEX_MIN_ROWS 64

static int sorted(const struct unwind_row *rows, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++)
		if (rows[i].pc < rows[i - 1].pc)
			return 0;
	return 1;
}

int row_index__build(const struct unwind_row *rows, uint32_t n, struct row_index *ix)
{
	uint32_t *pair, pages, j = 0;
	uint64_t nrows;

	memset(ix, 0, sizeof(*ix));
	if (n < ROW_INDEX_MIN_ROWS || !sorted(rows, n))
		return 0;
	ix->base = rows[0].pc >> UNW_INDEX_SHIFT;
	pages = (rows[n - 1].pc >> UNW_INDEX_SHIFT) - ix->base + 1;
	nrows = ((uint64_t)pages + UNW_INDEX_PER_ROW - 1) / UNW_INDEX_PER_ROW;
	if (nrows * 16 > n)
		return 0;
	ix->rows = calloc(nrows, sizeof(*ix->rows));
	if (!ix->rows)
		return -ENOMEM;
	pair = (uint32_t *)ix->rows;
	for (uint32_t i = 0; i <= pages; i++) {
		uint64_t start = (uint64_t)(ix->base + i) << UNW_INDEX_SHIFT;

		while (j < n && rows[j].pc <= start)
			j++;
		/* The count at page i's start ends page i - 1's pair and starts page i's. */
		if (i > 0)
			pair[2 * (i - 1) + 1] = j;
		if (i < pages)
			pair[2 * i] = j;
	}
	ix->nrows = (uint32_t)nrows;
	ix->pages = pages;
	return 0;
}

void row_index__free(struct row_index *ix)
{
	free(ix->rows);
	memset(ix, 0, sizeof(*ix));
}
