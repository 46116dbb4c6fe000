// SPDX-License-Identifier: Apache-2.0
/* Compact unwind rows: the form of bpf/unwind.h that the BPF walker expands again
 * (unw_read_row); what fits is checked field by field, so a row never changes meaning. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/compact.h"

#define CFA_MAX (1 << 18) /* cfa_off / 8: 19 bits, signed */

/* An 8-byte multiple of off in [-128, 127] * 8. */
static bool fp_fits(int32_t off)
{
	return off % 8 == 0 && off / 8 >= -128 && off / 8 <= 127;
}

bool unwind_row__compact(const struct unwind_row *r, struct unwind_row_compact *out)
{
	int32_t fp = 0, cfa = 0;
	bool rules = r->cfa_kind <= UNW_CFA_PLT;

	/* A return address still in the link register (arm64) has no bit here. */
	if (r->cfa_kind > UNW_CFA_NONE || r->fp_rule > UNW_FP_UNDEF || r->ra_rule != UNW_RA_AT_CFA)
		return false;
	/* SIGNAL, END and NONE rows use nothing but their kind. */
	if (rules) {
		if (r->ra_off != UNW_COMPACT_RA_OFF || r->cfa_off % 8 ||
		    r->cfa_off / 8 < -CFA_MAX || r->cfa_off / 8 >= CFA_MAX)
			return false;
		cfa = r->cfa_off / 8;
		if (r->cfa_kind == UNW_CFA_PLT) {
			if (r->fp_off < -128 || r->fp_off > 127)
				return false;
			fp = r->fp_off;
		} else if (r->fp_rule == UNW_FP_AT_CFA) {
			if (!fp_fits(r->fp_off))
				return false;
			fp = r->fp_off / 8;
		}
	}
	out->pc = r->pc;
	out->info = (uint32_t)r->cfa_kind | (uint32_t)(rules ? r->fp_rule : 0) << 3 |
		    ((uint32_t)fp & 0xff) << UNW_COMPACT_FP_SHIFT |
		    ((uint32_t)cfa & ((1u << 19) - 1)) << UNW_COMPACT_CFA_SHIFT;
	return true;
}

int unwind_rows__compact(struct unwind_row *rows, uint32_t n)
{
	struct unwind_row_compact *c = (struct unwind_row_compact *)rows, one;

	_Static_assert(2 * sizeof(*c) == sizeof(*rows), "two compact rows to a pool row");
	/* Every row is checked before any is overwritten: a misfit leaves the table whole. */
	for (uint32_t i = 0; i < n; i++)
		if (!unwind_row__compact(&rows[i], &one))
			return -ERANGE;
	/* c[i] takes bytes [8i, 8i + 8) of the array, rows[i] is read from [16i, 16i + 16):
	 * row i is read whole before c[i] is written, and no later row lies below 16i. */
	for (uint32_t i = 0; i < n; i++) {
		unwind_row__compact(&rows[i], &one);
		c[i] = one;
	}
	if (n % 2)
		memset(&c[n], 0, sizeof(c[n]));
	return 0;
}
