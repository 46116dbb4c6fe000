// SPDX-License-Identifier: Apache-2.0
/* Open addressing with linear probing and backward-shift deletion (no tombstones), kept
 * at most 70 % full. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/hmap.h"

void hmap_init(struct hmap *m, hmap_eq_fn eq)
{
	memset(m, 0, sizeof(*m));
	m->eq = eq;
}

void hmap_free(struct hmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->len = 0;
}

void hmap_free_entries(struct hmap *m)
{
	hmap_for_each(m, i) free(m->slots[i].entry);
	hmap_free(m);
}

void *hmap_find(const struct hmap *m, uint64_t hash, const void *key)
{
	size_t mask = m->cap - 1, i;

	if (!m->cap)
		return NULL;
	for (i = hash & mask; m->slots[i].entry; i = (i + 1) & mask) {
		if (m->slots[i].hash == hash && m->eq(m->slots[i].entry, key))
			return m->slots[i].entry;
	}
	return NULL;
}

static void place(struct hmap_slot *slots, size_t cap, uint64_t hash, void *entry)
{
	size_t i = hash & (cap - 1);

	while (slots[i].entry)
		i = (i + 1) & (cap - 1);
	slots[i].hash = hash;
	slots[i].entry = entry;
}

static int grow(struct hmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 16;
	struct hmap_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		if (m->slots[i].entry)
			place(slots, cap, m->slots[i].hash, m->slots[i].entry);
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int hmap_insert(struct hmap *m, uint64_t hash, void *entry)
{
	int err;

	if ((m->len + 1) * 10 > m->cap * 7) {
		err = grow(m);
		if (err)
			return err;
	}
	place(m->slots, m->cap, hash, entry);
	m->len++;
	return 0;
}

void *hmap_remove(struct hmap *m, uint64_t hash, const void *key)
{
	size_t mask = m->cap - 1, i, j;
	void *found;

	if (!m->cap)
		return NULL;
	for (i = hash & mask; m->slots[i].entry; i = (i + 1) & mask) {
		if (m->slots[i].hash == hash && m->eq(m->slots[i].entry, key))
			break;
	}
	found = m->slots[i].entry;
	if (!found)
		return NULL;
	/* Shift later members of the probe run back so lookups never stop early. */
	for (j = (i + 1) & mask; m->slots[j].entry; j = (j + 1) & mask) {
		size_t home = m->slots[j].hash & mask;

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].entry = NULL;
	m->len--;
	return found;
}

size_t hmap_filter(struct hmap *m, hmap_drop_fn drop, void *ctx)
{
	struct hmap_slot *slots;
	size_t dropped = 0;

	if (!m->len)
		return 0;
	slots = calloc(m->cap, sizeof(*slots));
	if (!slots)
		return 0; /* nothing removed; the caller tries again next time */
	/* Rebuilding from the stored hashes keeps every probe run intact. */
	for (size_t i = 0; i < m->cap; i++) {
		void *e = m->slots[i].entry;

		if (!e)
			continue;
		if (drop(e, ctx)) {
			dropped++;
			continue;
		}
		place(slots, m->cap, m->slots[i].hash, e);
	}
	free(m->slots);
	m->slots = slots;
	m->len -= dropped;
	return dropped;
}

uint64_t hash_bytes(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = seed ^ 0xcbf29ce484222325ULL;

	/* FNV-1a over 8-byte words, finished with a mixer: fast and good enough here. */
	while (len >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		h = (h ^ w) * 0x100000001b3ULL;
		p += 8;
		len -= 8;
	}
	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return hash_u64(h);
}
