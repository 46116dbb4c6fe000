/* SPDX-License-Identifier: Apache-2.0 */
/* A bump allocator for strings and small records that live as long as their owner
 * (a report, a symbol table): one free releases them all. */
#ifndef EBPROF_ARENA_H
#define EBPROF_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head;
	size_t used;  /* bytes used in head */
	size_t total; /* bytes allocated in all chunks */
};

void arena_init(struct arena *a);
void arena_free(struct arena *a);
/* Returns len bytes aligned to 8, or NULL on ENOMEM. */
void *arena_alloc(struct arena *a, size_t len);
char *arena_strdup(struct arena *a, const char *s);
char *arena_printf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
