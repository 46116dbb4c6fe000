// SPDX-License-Identifier: Apache-2.0
/* Stack aggregation: a hash table from the whole stack (identity and frames) to its
 * sample count. Only a new distinct stack allocates; a repeat costs a hash and a compare. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

static size_t stack_bytes(const struct stack *s)
{
	return offsetof(struct stack, frames) + s->nframes * sizeof(struct frame);
}

/* Everything after count identifies the stack. */
static const void *stack_id(const struct stack *s)
{
	return &s->pid;
}

static size_t stack_id_len(const struct stack *s)
{
	return stack_bytes(s) - offsetof(struct stack, pid);
}

static int stack_eq(const void *entry, const void *key)
{
	const struct stack *a = entry, *b = key;

	return a->nframes == b->nframes && memcmp(stack_id(a), stack_id(b), stack_id_len(a)) == 0;
}

void profile__init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
	hmap_init(&p->stacks, stack_eq);
}

void profile__free(struct profile *p)
{
	hmap_for_each(&p->stacks, i) free(p->stacks.slots[i].entry);
	hmap_free(&p->stacks);
}

int profile__add(struct profile *p, const struct stack *key, uint64_t count)
{
	uint64_t h = hash_bytes(stack_id(key), stack_id_len(key), 0);
	struct stack *s = hmap_find(&p->stacks, h, key);

	p->samples += count;
	if (s) {
		s->count += count;
		return 0;
	}
	s = malloc(stack_bytes(key));
	if (!s)
		goto nomem;
	memcpy(s, key, stack_bytes(key));
	s->count = count;
	if (hmap_insert(&p->stacks, h, s)) {
		free(s);
		goto nomem;
	}
	return 0;
nomem:
	p->dropped += count;
	return -ENOMEM;
}
