// SPDX-License-Identifier: Apache-2.0
/* The named frames of one file, kept between reports: the lines of an address range (a
 * DWARF answer's span: one line-table row in one inline scope) are a few (name id, line)
 * pairs, the names interned in a functab, so a function inlined at a thousand places
 * costs its text once. The ranges, which do not overlap, are kept sorted by address in an
 * array of pointers: a lookup is a binary search. Entries are malloc'd one by one, not
 * from an arena: most files have a few dozen frames, and an arena's first chunk (64 KiB)
 * would be most of it. Nothing is freed before the whole cache. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbol/linecache.h"
#include "util/functab.h"

struct cached_line {
	uint32_t name; /* functab id of (function, source file) */
	uint32_t line;
};

struct line_entry {
	uint64_t lo, hi; /* the addresses [lo, hi) these lines are the answer of */
	uint32_t n;
	struct cached_line lines[];
};

struct line_cache {
	struct line_entry **v; /* sorted by lo; the ranges do not overlap */
	size_t nr, cap;
	struct functab names;
	size_t entry_bytes; /* the entries, with malloc's word of overhead each */
	size_t name_bytes;  /* the names' strings and records, which functab does not count */
};

/* The number of entries that start at or below addr. */
static size_t entries_upto(const struct line_cache *c, uint64_t addr)
{
	size_t lo = 0, hi = c->nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->v[mid]->lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct line_entry *entry_of(const struct line_cache *c, uint64_t addr)
{
	size_t i = entries_upto(c, addr);

	return i && addr < c->v[i - 1]->hi ? c->v[i - 1] : NULL;
}

struct line_cache *line_cache__new(void)
{
	struct line_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (functab__init(&c->names, 0)) {
		free(c);
		return NULL;
	}
	return c;
}

void line_cache__free(struct line_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr; i++)
		free(c->v[i]);
	free(c->v);
	functab__free(&c->names);
	free(c);
}

int line_cache__get(const struct line_cache *c, uint64_t addr, struct dwarf_line *out, int max)
{
	const struct line_entry *e = entry_of(c, addr);

	if (!e)
		return -ENOENT;
	if (e->n > (uint32_t)(max > 0 ? max : 0))
		return -ENOSPC;
	for (uint32_t i = 0; i < e->n; i++) {
		const struct functab_entry *name = functab__get(&c->names, e->lines[i].name);

		out[i] = (struct dwarf_line){name->func, name->file, e->lines[i].line};
	}
	return (int)e->n;
}

/* The id of (function, file), interned when new; 0 on ENOMEM. */
static uint32_t intern(struct line_cache *c, const struct dwarf_line *l)
{
	uint32_t before = c->names.n, id = functab__intern(&c->names, l->function, l->file);

	if (id && c->names.n > before)
		c->name_bytes +=
		    sizeof(struct functab_entry) + strlen(l->function) + strlen(l->file) + 2;
	return id;
}

/* Makes room for entry i in c's array. */
static int entries_insert(struct line_cache *c, size_t i, struct line_entry *e)
{
	struct line_entry **p;

	if (c->nr == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;

		p = reallocarray(c->v, cap, sizeof(*p));
		if (!p)
			return -ENOMEM;
		c->v = p;
		c->cap = cap;
	}
	memmove(&c->v[i + 1], &c->v[i], (c->nr - i) * sizeof(c->v[0]));
	c->v[i] = e;
	c->nr++;
	return 0;
}

int line_cache__put(struct line_cache *c, uint64_t addr, uint64_t lo, uint64_t hi,
		    const struct dwarf_line *lines, int n)
{
	size_t i = entries_upto(c, addr), size;
	struct line_entry *e;
	int err = 0;

	if (n < 0 || n > DWARF_LINES_MAX || addr < lo || addr >= hi)
		return -EINVAL;
	if (i && addr < c->v[i - 1]->hi)
		return -EEXIST;
	/* Cut to the gap around addr: the neighbours were there first. */
	if (i && c->v[i - 1]->hi > lo)
		lo = c->v[i - 1]->hi;
	if (i < c->nr && c->v[i]->lo < hi)
		hi = c->v[i]->lo;
	size = sizeof(*e) + (size_t)n * sizeof(e->lines[0]);
	e = malloc(size);
	if (!e)
		return -ENOMEM;
	e->lo = lo;
	e->hi = hi;
	e->n = (uint32_t)n;
	for (int k = 0; k < n && err == 0; k++) {
		e->lines[k] = (struct cached_line){intern(c, &lines[k]), lines[k].line};
		if (!e->lines[k].name)
			err = -ENOMEM;
	}
	if (!err)
		err = entries_insert(c, i, e);
	if (err) {
		free(e);
		return err;
	}
	c->entry_bytes += size + sizeof(size_t);
	return 0;
}

size_t line_cache__memory(const struct line_cache *c)
{
	return sizeof(*c) + c->entry_bytes + c->cap * sizeof(c->v[0]) +
	       c->names.by_name.cap * sizeof(struct hmap_slot) +
	       c->names.cap * sizeof(c->names.v[0]) + c->name_bytes;
}

size_t line_cache__frames(const struct line_cache *c)
{
	return c->nr;
}

size_t line_cache__names(const struct line_cache *c)
{
	return c->names.n - 1; /* id 0 is never given */
}
