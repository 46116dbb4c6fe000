// SPDX-License-Identifier: Apache-2.0
/* Unit test of hmap_filter: after removing every other entry of a table whose keys
 * collide on purpose (long probe runs), every kept key is still found and no removed
 * one is. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "util/hmap.h"

#define N 1000

static int key_eq(const void *entry, const void *key)
{
	return *(const uint32_t *)entry == *(const uint32_t *)key;
}

/* Few distinct hashes: runs of dozens of entries share a home slot. */
static uint64_t weak_hash(uint32_t k)
{
	return k % 37;
}

static bool drop_odd(void *entry, void *ctx)
{
	uint32_t *k = entry;

	if (!(*k & 1))
		return false;
	(*(size_t *)ctx)++;
	free(k);
	return true;
}

static void test_filter(void)
{
	struct hmap m;
	size_t freed = 0;

	hmap_init(&m, key_eq);
	for (uint32_t i = 0; i < N; i++) {
		uint32_t *k = malloc(sizeof(*k));

		*k = i;
		CHECK(hmap_insert(&m, weak_hash(i), k) == 0);
	}
	CHECK(hmap_filter(&m, drop_odd, &freed) == N / 2);
	CHECK(freed == N / 2 && m.len == N / 2);
	for (uint32_t i = 0; i < N; i++) {
		uint32_t *k = hmap_find(&m, weak_hash(i), &i);

		CHECK(i & 1 ? k == NULL : k && *k == i);
	}
	hmap_for_each(&m, i) free(m.slots[i].entry);
	hmap_free(&m);
}

int main(void)
{
	RUN_TEST(test_filter);
	HARNESS_EXIT();
}
