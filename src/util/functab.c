// SPDX-License-Identifier: Apache-2.0
/* Interned (function, file) names: every runtime that names its own frames (an
 * interpreter, a JIT) keeps one, so a frame is an id until a report needs its text. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/functab.h"

static int entry_eq(const void *e, const void *k)
{
	const struct functab_entry *a = e, *b = k;

	return !strcmp(a->func, b->func) && !strcmp(a->file, b->file);
}

int functab__init(struct functab *t, uint32_t max)
{
	*t = (struct functab){.n = 1, .cap = 64, .max = max};
	hmap_init(&t->by_name, entry_eq);
	t->v = calloc(t->cap, sizeof(*t->v));
	return t->v ? 0 : -ENOMEM;
}

void functab__free(struct functab *t)
{
	hmap_free(&t->by_name);
	for (uint32_t i = 1; i < t->n; i++) {
		free(t->v[i]->func);
		free(t->v[i]->file);
		free(t->v[i]);
	}
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}

static int grow(struct functab *t)
{
	uint32_t cap = t->cap * 2;
	struct functab_entry **v;

	if (t->n < t->cap)
		return 0;
	v = realloc(t->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	t->v = v;
	t->cap = cap;
	return 0;
}

uint32_t functab__intern(struct functab *t, const char *func, const char *file)
{
	struct functab_entry key = {.func = (char *)func, .file = (char *)file}, *e;
	uint64_t h = hash_bytes(file, strlen(file), hash_bytes(func, strlen(func), 0));

	e = hmap_find(&t->by_name, h, &key);
	if (e)
		return e->id;
	if (!t->v || (t->max && t->n >= t->max) || grow(t))
		return 0;
	e = calloc(1, sizeof(*e));
	if (!e)
		return 0;
	e->func = strdup(func);
	e->file = strdup(file);
	e->id = t->n;
	if (!e->func || !e->file || hmap_insert(&t->by_name, h, e)) {
		free(e->func);
		free(e->file);
		free(e);
		return 0;
	}
	t->v[t->n++] = e;
	return e->id;
}

const struct functab_entry *functab__get(const struct functab *t, uint32_t id)
{
	return id && id < t->n ? t->v[id] : NULL;
}
