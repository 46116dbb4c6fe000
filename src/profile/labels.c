// SPDX-License-Identifier: Apache-2.0
/* Interned label sets: a set is sorted by key and compared whole, so the same labels set
 * in another order are one set. Strings live in one arena per table. */
#include "profile/labels.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int set_eq(const void *entry, const void *key)
{
	const struct label_set *a = entry, *b = key;

	if (a->n != b->n)
		return 0;
	for (uint32_t i = 0; i < a->n; i++)
		if (strcmp(a->labels[i].key, b->labels[i].key) ||
		    strcmp(a->labels[i].value, b->labels[i].value))
			return 0;
	return 1;
}

static uint64_t set_hash(const struct label_set *s)
{
	uint64_t h = s->n;

	for (uint32_t i = 0; i < s->n; i++) {
		h = hash_bytes(s->labels[i].key, strlen(s->labels[i].key), h);
		h = hash_bytes(s->labels[i].value, strlen(s->labels[i].value) + 1, h);
	}
	return h;
}

void label_sets__init(struct label_sets *ls)
{
	memset(ls, 0, sizeof(*ls));
	hmap_init(&ls->by_content, set_eq);
	arena_init(&ls->arena);
}

void label_sets__free(struct label_sets *ls)
{
	hmap_free(&ls->by_content);
	free(ls->by_id);
	arena_free(&ls->arena);
	memset(ls, 0, sizeof(*ls));
}

void label_sets__clear(struct label_sets *ls)
{
	uint64_t full = ls->full, dropped = ls->dropped;

	label_sets__free(ls);
	label_sets__init(ls);
	ls->full = full;
	ls->dropped = dropped;
}

static char *copy_cut(struct arena *a, const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *p = arena_alloc(a, n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

/* Inserts l into the sorted probe set unless its key is there already. */
static void probe_add(struct label_set *probe, const struct label *l)
{
	uint32_t i = probe->n;
	int c = 1;

	while (i > 0 && (c = strncmp(probe->labels[i - 1].key, l->key, LABEL_KEY_MAX)) > 0)
		i--;
	if (i > 0 && c == 0)
		return;
	memmove(&probe->labels[i + 1], &probe->labels[i], (probe->n - i) * sizeof(*l));
	probe->labels[i] = *l;
	probe->n++;
}

static int add_set(struct label_sets *ls, struct label_set *probe, uint64_t h)
{
	struct label_set *s = arena_alloc(&ls->arena, sizeof(*s) + probe->n * sizeof(struct label));

	if (!s)
		return -ENOMEM;
	s->n = probe->n;
	for (uint32_t i = 0; i < probe->n; i++) {
		s->labels[i].key = copy_cut(&ls->arena, probe->labels[i].key, LABEL_KEY_MAX);
		s->labels[i].value = copy_cut(&ls->arena, probe->labels[i].value, LABEL_VALUE_MAX);
		if (!s->labels[i].key || !s->labels[i].value)
			return -ENOMEM;
	}
	if (ls->count == ls->cap) {
		uint32_t cap = ls->cap ? ls->cap * 2 : 64;
		struct label_set **v = realloc(ls->by_id, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ls->by_id = v;
		ls->cap = cap;
	}
	if (hmap_insert(&ls->by_content, h, s))
		return -ENOMEM;
	s->id = ++ls->count;
	ls->by_id[s->id - 1] = s;
	return (int)s->id;
}

uint32_t label_sets__intern(struct label_sets *ls, const struct label *labels, uint32_t n)
{
	struct {
		struct label_set s;
		struct label l[LABELS_MAX];
	} probe = {0};
	struct label_set *found;
	char keys[LABELS_MAX][LABEL_KEY_MAX + 1], values[LABELS_MAX][LABEL_VALUE_MAX + 1];
	uint64_t h;
	int id;

	for (uint32_t i = 0; i < n; i++) {
		struct label l = {keys[probe.s.n], values[probe.s.n]};

		if (probe.s.n == LABELS_MAX) {
			ls->dropped += n - i;
			break;
		}
		/* Cut before comparing, so the probe equals what is stored. */
		snprintf(keys[probe.s.n], sizeof(keys[0]), "%s", labels[i].key);
		snprintf(values[probe.s.n], sizeof(values[0]), "%s", labels[i].value);
		probe_add(&probe.s, &l);
	}
	if (!probe.s.n)
		return 0;
	h = set_hash(&probe.s);
	found = hmap_find(&ls->by_content, h, &probe.s);
	if (found)
		return found->id;
	if (ls->count >= LABEL_SETS_MAX) {
		ls->full++;
		return 0;
	}
	id = add_set(ls, &probe.s, h);
	return id > 0 ? (uint32_t)id : 0;
}

const struct label_set *label_sets__get(const struct label_sets *ls, uint32_t id)
{
	return id && id <= ls->count ? ls->by_id[id - 1] : NULL;
}
