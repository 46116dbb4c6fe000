// SPDX-License-Identifier: Apache-2.0
/* Stack aggregation: a hash table from the whole stack (event, identity and frames) to
 * its summed values. Only a new distinct stack allocates; a repeat costs a hash and a
 * compare (and, when times are kept, one slot in a doubling array). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

static size_t stack_bytes(const struct stack *s)
{
	return offsetof(struct stack, frames) + s->nframes * sizeof(struct frame);
}

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
	label_sets__init(&p->labels);
}

void profile__clear(struct profile *p)
{
	hmap_for_each(&p->stacks, i)
	{
		struct stack *s = p->stacks.slots[i].entry;

		free(s->times);
		free(s);
	}
	hmap_free(&p->stacks);
	hmap_init(&p->stacks, stack_eq);
	p->samples = 0;
	p->dropped = 0;
	label_sets__clear(&p->labels); /* no stack names a set any more */
}

void profile__free(struct profile *p)
{
	profile__clear(p);
	hmap_free(&p->stacks);
	label_sets__free(&p->labels);
}

int profile__add_event(struct profile *p, const struct report_event *e)
{
	if (p->nevents >= PROFILE_MAX_EVENTS)
		return -ENOSPC;
	p->events[p->nevents] = *e;
	return (int)p->nevents++;
}

static int add_time(struct stack *s, uint64_t t)
{
	if (s->ntimes == s->times_cap) {
		uint32_t cap = s->times_cap ? s->times_cap * 2 : 4;
		uint64_t *v = realloc(s->times, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->times = v;
		s->times_cap = cap;
	}
	s->times[s->ntimes++] = t;
	return 0;
}

static void add_values(const struct profile *p, struct stack *s, const uint64_t *values)
{
	uint32_t n = s->event < p->nevents ? p->events[s->event].nvalues : 1;

	s->count++;
	for (uint32_t i = 0; i < n && i < REPORT_MAX_VALUES; i++)
		s->values[i] += values[i];
}

int profile__add(struct profile *p, const struct stack *key, const uint64_t *values,
		 uint64_t time_unix_ns)
{
	uint64_t h = hash_bytes(stack_id(key), stack_id_len(key), 0);
	struct stack *s = hmap_find(&p->stacks, h, key);

	if (!s) {
		s = malloc(stack_bytes(key));
		if (!s)
			goto nomem;
		memcpy(s, key, stack_bytes(key));
		memset(s, 0, offsetof(struct stack, pid));
		if (hmap_insert(&p->stacks, h, s)) {
			free(s);
			goto nomem;
		}
	}
	if (p->keep_times && add_time(s, time_unix_ns))
		goto nomem;
	add_values(p, s, values);
	p->samples++;
	return 0;
nomem:
	p->dropped++;
	return -ENOMEM;
}
