// SPDX-License-Identifier: Apache-2.0
/* The named frames of one file, kept between reports: an offset's lines are a few (name
 * id, line) pairs, the names interned in a functab, so a function inlined at a thousand
 * offsets costs its text once. Entries are malloc'd one by one, not from an arena: most
 * files have a few dozen frames, and an arena's first chunk (64 KiB) would be most of it.
 * Nothing is freed before the whole cache. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbol/linecache.h"
#include "util/functab.h"
#include "util/hmap.h"

struct cached_line {
	uint32_t name; /* functab id of (function, source file) */
	uint32_t line;
};

struct line_entry {
	uint64_t off;
	uint32_t n;
	struct cached_line lines[];
};

struct line_cache {
	struct hmap by_off; /* struct line_entry by file offset */
	struct functab names;
	size_t entry_bytes; /* the entries, with malloc's word of overhead each */
	size_t name_bytes;  /* the names' strings and records, which functab does not count */
};

static int entry_eq(const void *entry, const void *key)
{
	return ((const struct line_entry *)entry)->off == *(const uint64_t *)key;
}

struct line_cache *line_cache__new(void)
{
	struct line_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	hmap_init(&c->by_off, entry_eq);
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
	hmap_for_each(&c->by_off, i)
	{
		free(c->by_off.slots[i].entry);
	}
	hmap_free(&c->by_off);
	functab__free(&c->names);
	free(c);
}

int line_cache__get(const struct line_cache *c, uint64_t off, struct dwarf_line *out, int max)
{
	const struct line_entry *e = hmap_find(&c->by_off, hash_u64(off), &off);

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

int line_cache__put(struct line_cache *c, uint64_t off, const struct dwarf_line *lines, int n)
{
	uint64_t h = hash_u64(off);
	struct line_entry *e;
	size_t size;
	int err = 0;

	if (n < 0 || n > DWARF_LINES_MAX)
		return -EINVAL;
	if (hmap_find(&c->by_off, h, &off))
		return -EEXIST;
	size = sizeof(*e) + (size_t)n * sizeof(e->lines[0]);
	e = malloc(size);
	if (!e)
		return -ENOMEM;
	e->off = off;
	e->n = (uint32_t)n;
	for (int i = 0; i < n && err == 0; i++) {
		e->lines[i] = (struct cached_line){intern(c, &lines[i]), lines[i].line};
		if (!e->lines[i].name)
			err = -ENOMEM;
	}
	if (!err)
		err = hmap_insert(&c->by_off, h, e);
	if (err) {
		free(e);
		return err;
	}
	c->entry_bytes += size + sizeof(size_t);
	return 0;
}

size_t line_cache__memory(const struct line_cache *c)
{
	return sizeof(*c) + c->entry_bytes + c->by_off.cap * sizeof(struct hmap_slot) +
	       c->names.by_name.cap * sizeof(struct hmap_slot) +
	       c->names.cap * sizeof(c->names.v[0]) + c->name_bytes;
}

size_t line_cache__frames(const struct line_cache *c)
{
	return c->by_off.len;
}

size_t line_cache__names(const struct line_cache *c)
{
	return c->names.n - 1; /* id 0 is never given */
}
