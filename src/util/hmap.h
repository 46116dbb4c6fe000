/* SPDX-License-Identifier: Apache-2.0 */
/* An open-addressing hash table of caller-owned entries. The caller hashes and compares;
 * the table stores (hash, entry pointer) pairs, so one implementation serves every
 * index in ebprof (files, processes, stacks, frames, strings). */
#ifndef EBPROF_HMAP_H
#define EBPROF_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int (*hmap_eq_fn)(const void *entry, const void *key);

struct hmap_slot {
	uint64_t hash;
	void *entry;
};

struct hmap {
	struct hmap_slot *slots;
	size_t cap; /* a power of two, or 0 */
	size_t len;
	hmap_eq_fn eq;
};

void hmap_init(struct hmap *m, hmap_eq_fn eq);
void hmap_free(struct hmap *m);
/* Frees every entry with free(), then the table: the map is empty and ready for reuse. */
void hmap_free_entries(struct hmap *m);
/* Returns the entry equal to key, or NULL. */
void *hmap_find(const struct hmap *m, uint64_t hash, const void *key);
/* Adds an entry the caller knows is absent. Returns 0 or -ENOMEM. */
int hmap_insert(struct hmap *m, uint64_t hash, void *entry);
/* Removes the entry equal to key; returns it, or NULL. */
void *hmap_remove(struct hmap *m, uint64_t hash, const void *key);
/* Called by hmap_filter for each entry: returns true after freeing an entry to remove. */
typedef bool (*hmap_drop_fn)(void *entry, void *ctx);
/* Removes every entry drop() takes. Returns how many. On ENOMEM it removes none and
 * calls drop() on none. */
size_t hmap_filter(struct hmap *m, hmap_drop_fn drop, void *ctx);

#define hmap_for_each(m, i)                   \
	for (size_t i = 0; i < (m)->cap; i++) \
		if ((m)->slots[i].entry)

uint64_t hash_bytes(const void *data, size_t len, uint64_t seed);
static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif
