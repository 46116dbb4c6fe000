// SPDX-License-Identifier: Apache-2.0
/* Chunked bump allocation: chunks of at least 64 KiB, larger requests get their own. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"

#define CHUNK_SIZE (64 * 1024)

struct arena_chunk {
	struct arena_chunk *next;
	size_t size;
	char data[];
};

void arena_init(struct arena *a)
{
	memset(a, 0, sizeof(*a));
}

void arena_free(struct arena *a)
{
	struct arena_chunk *c = a->head, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	memset(a, 0, sizeof(*a));
}

void *arena_alloc(struct arena *a, size_t len)
{
	struct arena_chunk *c;
	size_t size;

	len = (len + 7) & ~(size_t)7;
	if (a->head && a->head->size - a->used >= len) {
		void *p = a->head->data + a->used;

		a->used += len;
		return p;
	}
	size = len > CHUNK_SIZE ? len : CHUNK_SIZE;
	c = malloc(sizeof(*c) + size);
	if (!c)
		return NULL;
	c->size = size;
	c->next = a->head;
	a->head = c;
	a->used = len;
	a->total += size;
	return c->data;
}

char *arena_strdup(struct arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena_alloc(a, n);

	if (p)
		memcpy(p, s, n);
	return p;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	p = arena_alloc(a, n + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, n + 1, fmt, ap);
	va_end(ap);
	return p;
}
