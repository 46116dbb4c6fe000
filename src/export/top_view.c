// SPDX-License-Identifier: Apache-2.0
/* The sliding window of `ebprof top` (top_view.h): each slice counts, per function and
 * process, the samples it was the innermost frame of (self) and those it was in at all
 * (total, once per stack however often recursion repeats it). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export/top_view.h"
#include "profile/report_view.h"
#include "util/hmap.h"

struct top_row {
	char *function;
	char *module;
	char *comm;
	const char *kind; /* a frame kind's row name: static */
	uint32_t pid;
	uint64_t self, total;
	uint64_t mark; /* the last stack that counted it in total */
};

struct slice {
	struct top_row **rows;
	size_t n, cap;
	uint64_t samples;
	uint64_t duration_ns;
};

struct top_view {
	struct slice *ring; /* cap slices; the oldest at head */
	unsigned cap, len, head;
};

/* A row's identity: in a slice the process is always part of it; in a merged view only
 * when grouped by process (pid 0 otherwise). */
struct row_key {
	const char *function;
	const char *module;
	uint32_t pid;
};

static uint64_t key_hash(const struct row_key *k)
{
	return hash_bytes(k->function, strlen(k->function), k->pid) ^
	       hash_bytes(k->module, strlen(k->module), 0x9e3779b97f4a7c15ULL);
}

static int row_eq(const void *entry, const void *key)
{
	const struct top_row *r = entry;
	const struct row_key *k = key;

	return r->pid == k->pid && !strcmp(r->function, k->function) &&
	       !strcmp(r->module, k->module);
}

static void row_free(struct top_row *r)
{
	if (!r)
		return;
	free(r->function);
	free(r->module);
	free(r->comm);
	free(r);
}

static void slice_clear(struct slice *s)
{
	for (size_t i = 0; i < s->n; i++)
		row_free(s->rows[i]);
	free(s->rows);
	*s = (struct slice){0};
}

struct top_view *top_view__new(unsigned nslices)
{
	struct top_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->cap = nslices ? nslices : 1;
	v->ring = calloc(v->cap, sizeof(*v->ring));
	if (!v->ring) {
		free(v);
		return NULL;
	}
	return v;
}

void top_view__free(struct top_view *v)
{
	if (!v)
		return;
	for (unsigned i = 0; i < v->cap; i++)
		slice_clear(&v->ring[i]);
	free(v->ring);
	free(v);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Where a frame's code lives, as the summary names it: its file's base name, a
 * runtime's source file when it has no mapping, "" when neither is known. */
static const char *frame_module(const struct report *r, const struct report_frame *f)
{
	if (f->mapping >= 0 && (size_t)f->mapping < r->nmappings)
		return base_name(r->mappings[f->mapping].path);
	if (f->nlines && f->lines[f->nlines - 1].file[0])
		return base_name(f->lines[f->nlines - 1].file);
	return "";
}

/* The slice's row of k, made when new. NULL on ENOMEM. */
static struct top_row *slice_row(struct slice *s, struct hmap *index, const struct row_key *k,
				 const char *comm, const char *kind)
{
	uint64_t h = key_hash(k);
	struct top_row *r = hmap_find(index, h, k);

	if (r)
		return r;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct top_row **rows = reallocarray(s->rows, cap, sizeof(*rows));

		if (!rows)
			return NULL;
		s->rows = rows;
		s->cap = cap;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->function = strdup(k->function);
	r->module = strdup(k->module);
	r->comm = strdup(comm);
	r->kind = kind;
	r->pid = k->pid;
	if (!r->function || !r->module || !r->comm || hmap_insert(index, h, r)) {
		row_free(r);
		return NULL;
	}
	s->rows[s->n++] = r;
	return r;
}

/* Counts stack st (weight w, stack number mark) into s. */
static int count_stack(struct slice *s, struct hmap *index, const struct report *r,
		       const struct report_stack *st, uint64_t w, uint64_t mark)
{
	const char *comm = st->comm ? st->comm : "";

	for (uint32_t j = 0; j < st->nframes; j++) {
		const struct report_frame *f = &r->frames[st->frames[j]];
		struct row_key k = {f->name, frame_module(r, f), st->pid};
		struct top_row *row = slice_row(s, index, &k, comm, report_kind(r, f->kind)->name);

		if (!row)
			return -ENOMEM;
		if (j == 0)
			row->self += w;
		if (row->mark != mark) {
			row->mark = mark;
			row->total += w;
		}
	}
	return 0;
}

int top_view__add(struct top_view *v, const struct report *r)
{
	struct slice s = {.duration_ns = r->duration_ns};
	struct hmap index;
	int err = 0;

	hmap_init(&index, row_eq);
	for (size_t i = 0; i < r->nstacks && !err; i++) {
		const struct report_stack *st = &r->stacks[i];
		uint64_t w;

		if (st->event != 0)
			continue;
		w = report_stack_weight(r, st);
		s.samples += w;
		err = count_stack(&s, &index, r, st, w, i + 1);
	}
	hmap_free(&index);
	if (err) {
		slice_clear(&s);
		return err;
	}
	if (v->len == v->cap) {
		slice_clear(&v->ring[v->head]);
		v->ring[v->head] = s;
		v->head = (v->head + 1) % v->cap;
	} else {
		v->ring[(v->head + v->len++) % v->cap] = s;
	}
	return 0;
}

static int pid_eq(const void *entry, const void *key)
{
	return *(const uint32_t *)entry == *(const uint32_t *)key;
}

void top_view__totals(const struct top_view *v, struct top_totals *out)
{
	struct hmap pids;

	*out = (struct top_totals){.slices = v->len};
	hmap_init(&pids, pid_eq);
	for (unsigned i = 0; i < v->len; i++) {
		const struct slice *s = &v->ring[(v->head + i) % v->cap];

		out->samples += s->samples;
		out->duration_ns += s->duration_ns;
		for (size_t j = 0; j < s->n; j++) {
			uint32_t *pid = &s->rows[j]->pid;

			/* Without room to count them the figure is low, nothing worse. */
			if (*pid && !hmap_find(&pids, hash_u64(*pid), pid))
				hmap_insert(&pids, hash_u64(*pid), pid);
		}
	}
	out->processes = (uint32_t)pids.len;
	hmap_free(&pids);
}

/* A row of the merged view: the slices' rows of one key summed. */
struct merged {
	struct top_row row; /* strings point into a slice's row */
	bool several;	    /* by function: more than one process ran it */
};

struct merge {
	struct hmap index;
	struct merged *v;
	size_t n, cap;
};

static int merge_row(struct merge *m, const struct top_row *r, enum top_group g)
{
	struct row_key k = {r->function, r->module, g == TOP_BY_PROCESS ? r->pid : 0};
	uint64_t h = key_hash(&k);
	struct merged *e = hmap_find(&m->index, h, &k);

	if (!e) {
		if (m->n == m->cap)
			return -ENOSPC; /* sized for every row: cannot happen */
		e = &m->v[m->n++];
		*e = (struct merged){.row = *r};
		e->row.pid = k.pid;
		e->row.self = e->row.total = 0;
		/* The real process for the one-process case: pid is the key's. */
		e->row.mark = r->pid;
		if (hmap_insert(&m->index, h, e))
			return -ENOMEM;
	} else if (e->row.mark != r->pid) {
		e->several = true;
	}
	e->row.self += r->self;
	e->row.total += r->total;
	return 0;
}

/* qsort_r's order: the chosen column, then the other, then the name and process. */
static int by_column(const void *a, const void *b, void *sort)
{
	const struct top_row *x = &((const struct merged *)a)->row,
			     *y = &((const struct merged *)b)->row;
	bool self = *(const enum top_sort *)sort == TOP_SORT_SELF;
	uint64_t xa = self ? x->self : x->total, ya = self ? y->self : y->total,
		 xb = self ? x->total : x->self, yb = self ? y->total : y->self;
	int c;

	if (xa != ya)
		return xa < ya ? 1 : -1;
	if (xb != yb)
		return xb < yb ? 1 : -1;
	c = strcmp(x->function, y->function);
	return c ? c : (x->pid > y->pid) - (x->pid < y->pid);
}

static bool wanted(const struct top_row *r, const char *filter)
{
	return !filter || !filter[0] || strcasestr(r->function, filter);
}

/* Prints s cut to width columns (0: whole), counting UTF-8 characters, then a newline. */
static void put_line(FILE *out, const char *s, unsigned width)
{
	size_t end = 0;
	unsigned cols = 0;

	for (; s[end] && (!width || cols < width || (s[end] & 0xc0) == 0x80); end++)
		cols += (s[end] & 0xc0) != 0x80;
	fprintf(out, "%.*s\n", (int)end, s);
}

static void print_row(FILE *out, const struct merged *e, uint64_t samples, unsigned width)
{
	const struct top_row *r = &e->row;
	char proc[64], line[1024];
	double d = samples ? (double)samples : 1.0;

	if (e->several)
		snprintf(proc, sizeof(proc), "(several)");
	else if (e->row.mark)
		snprintf(proc, sizeof(proc), "%.40s[%llu]", r->comm,
			 (unsigned long long)e->row.mark);
	else
		snprintf(proc, sizeof(proc), "%.40s", r->comm[0] ? r->comm : "[idle]");
	/* "[kernel.kallsyms]" and "[vdso]" are bracketed already. */
	snprintf(line, sizeof(line), "%6.1f%% %6.1f%% %8llu  %-8.8s  %-22.22s  %s%s%s%s",
		 100.0 * r->self / d, 100.0 * r->total / d, (unsigned long long)r->self, r->kind,
		 proc, r->function,
		 !r->module[0]	       ? ""
		 : r->module[0] == '[' ? " "
				       : " [",
		 r->module, r->module[0] && r->module[0] != '[' ? "]" : "");
	put_line(out, line, width);
}

int top_view__print(const struct top_view *v, const struct top_query *q, FILE *out)
{
	struct merge m = {0};
	struct top_totals t;
	size_t rows = 0;
	int err = 0;

	top_view__totals(v, &t);
	for (unsigned i = 0; i < v->len; i++)
		rows += v->ring[(v->head + i) % v->cap].n;
	hmap_init(&m.index, row_eq);
	m.cap = rows;
	m.v = calloc(rows + 1, sizeof(*m.v));
	if (!m.v) {
		err = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < v->len && !err; i++) {
		const struct slice *s = &v->ring[(v->head + i) % v->cap];

		for (size_t j = 0; j < s->n && !err; j++)
			if (wanted(s->rows[j], q->filter))
				err = merge_row(&m, s->rows[j], q->group);
	}
	if (err)
		goto out;
	qsort_r(m.v, m.n, sizeof(*m.v), by_column, (void *)&q->sort);
	put_line(out, "   SELF   TOTAL  SAMPLES  KIND      PROCESS                 FUNCTION [FILE]",
		 q->width);
	for (size_t i = 0; i < m.n && i < q->rows; i++)
		print_row(out, &m.v[i], t.samples, q->width);
	err = (int)(m.n < q->rows ? m.n : q->rows);
out:
	hmap_free(&m.index);
	free(m.v);
	return err;
}
