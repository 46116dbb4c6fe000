// SPDX-License-Identifier: Apache-2.0
/* Unwind rows for Go code, from the pclntab's SP tables: Go emits no .eh_frame for its own
 * functions (and -s -w drops .debug_frame), and frame pointers alone lose the caller of
 * every frameless leaf and every function sampled in its prologue. */
#include "unwind/gorows.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbol/gopclntab.h"
#include "util/cancel.h"

#define GO_FP_SLOT (-16) /* the caller's frame pointer, saved below the return address */
#define IN_GO 1		 /* row.pad while merging: the row lies inside a Go function */

struct rows {
	struct unwind_row *v;
	uint32_t n, cap;
	const bool *cancel; /* the caller's stop flag, or NULL */
};

static int rows_push(struct rows *r, const struct unwind_row *row)
{
	struct unwind_row *v;
	uint32_t cap;

	if (r->n && r->v[r->n - 1].pc >= row->pc) { /* a range of 0 bytes, or sigreturn's -1 */
		r->v[r->n - 1] = *row;
		return 0;
	}
	if (r->n == r->cap) {
		if (r->cap >= UNWIND_TABLE_MAX_ROWS)
			return -E2BIG;
		cap = r->cap ? r->cap * 2 : 1024;
		v = realloc(r->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n++] = *row;
	return 0;
}

/* One range -> one row. Compiled Go code saves the caller's FP just below the return
 * address as soon as it has a frame; assembly may push other things there. */
static int add_range(void *ctx, const struct go_sp_range *g)
{
	struct unwind_row row = {
	    .pc = (uint32_t)g->pc, .cfa_kind = UNW_CFA_NONE, .ra_off = -8, .pad = IN_GO};
	struct rows *r = ctx;
	int err;

	/* Polled at every range: each costs reads of the file (pread, several per
	 * function), beside which one load is noise, and a stop waits for one range. */
	if (cancel__requested(r->cancel))
		return -ECANCELED;
	if (g->pc > UINT32_MAX || g->end > UINT32_MAX)
		return 0; /* rows address files below 4 GiB */
	if (g->flags & GO_FUNC_TOPFRAME) {
		row.cfa_kind = UNW_CFA_END;
	} else if (g->flags & GO_FUNC_SIGRETURN) {
		/* Reached as a return address, looked up one byte before the function. */
		row.cfa_kind = UNW_CFA_SIGNAL;
		row.pc = g->pc ? (uint32_t)g->pc - 1 : 0;
	} else if (!(g->flags & GO_FUNC_SPWRITE) && g->sp >= 0 && g->sp < INT32_MAX - 8) {
		row.cfa_kind = UNW_CFA_SP;
		row.cfa_off = g->sp + 8;
		if (!g->sp)
			row.fp_rule = UNW_FP_SAME;
		else if (g->flags & GO_FUNC_ASM)
			row.fp_rule = UNW_FP_UNDEF;
		else
			row.fp_rule = UNW_FP_AT_CFA;
		row.fp_off = row.fp_rule == UNW_FP_AT_CFA ? GO_FP_SLOT : 0;
	}
	err = rows_push(r, &row);
	if (err)
		return err;
	row = (struct unwind_row){.pc = (uint32_t)g->end, .cfa_kind = UNW_CFA_NONE};
	return rows_push(r, &row); /* replaced by the next range when it starts there */
}

/* Merges the CFI rows and the Go rows (both sorted, each valid to the next row): Go's
 * inside Go functions, which only the Go linker's .debug_frame describes, and that
 * without what the pclntab says of stack switches and outermost frames; CFI elsewhere
 * (cgo's C code). Unwinding a Go binary thus does not depend on whether it was stripped. */
static int merge(const struct unwind_table *t, const struct rows *g, struct rows *out)
{
	static const struct unwind_row none = {.cfa_kind = UNW_CFA_NONE};
	const struct unwind_row *c = &none, *o = &none;
	uint32_t i = 0, j = 0;
	int err;

	while (i < t->nrows || j < g->n) {
		uint32_t pc = j == g->n || (i < t->nrows && t->rows[i].pc <= g->v[j].pc)
				  ? t->rows[i].pc
				  : g->v[j].pc;
		struct unwind_row row;

		while (i < t->nrows && t->rows[i].pc == pc)
			c = &t->rows[i++];
		while (j < g->n && g->v[j].pc == pc)
			o = &g->v[j++];
		row = o->pad == IN_GO || c->cfa_kind == UNW_CFA_NONE ? *o : *c;
		row.pc = pc;
		row.pad = 0;
		if (out->n && unwind_row__same_rule(&out->v[out->n - 1], &row))
			continue;
		err = rows_push(out, &row);
		if (err)
			return err;
	}
	return 0;
}

int unwind_table__add_go(struct unwind_table *t, int fd, const bool *cancel, uint32_t *ngo)
{
	struct rows g = {.cancel = cancel}, out = {0};
	struct go_table *go = go_table__open(fd);
	int err;

	*ngo = 0;
	if (!go)
		return errno == ENOENT ? 0 : -errno;
	err = go_table__each_sp(go, add_range, &g);
	go_table__free(go);
	if (!err && g.n)
		err = merge(t, &g, &out);
	if (!err && g.n) {
		free(t->rows);
		t->rows = out.v;
		t->nrows = out.n;
		out.v = NULL;
		*ngo = g.n;
	}
	free(g.v);
	free(out.v);
	return err == -E2BIG ? 0 : err; /* too many rows: keep the CFI alone */
}
