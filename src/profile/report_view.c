// SPDX-License-Identifier: Apache-2.0
/* A report narrowed to one event: a copy of the stack headers of that event, with
 * everything else shared, so an exporter written for one profile writes each event. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/report_view.h"

int report_view__init(struct report_view *v, const struct report *r, uint32_t e)
{
	size_t n = 0;

	memset(v, 0, sizeof(*v));
	if (e >= r->nevents)
		return -EINVAL;
	v->stacks = calloc(r->nstacks ? r->nstacks : 1, sizeof(*v->stacks));
	if (!v->stacks)
		return -ENOMEM;
	for (size_t i = 0; i < r->nstacks; i++) {
		if (r->stacks[i].event != e)
			continue;
		v->stacks[n] = r->stacks[i];
		v->stacks[n++].event = 0;
	}
	v->r = *r;
	v->r.events = &r->events[e];
	v->r.nevents = 1;
	v->r.stacks = v->stacks;
	v->r.nstacks = n;
	return 0;
}

/* The value of label key of s, or NULL (labels are sorted by key). */
static const char *label_value(const struct report_stack *s, const char *key)
{
	for (uint32_t i = 0; i < s->nlabels; i++)
		if (strcmp(s->labels[i].key, key) == 0)
			return s->labels[i].value;
	return NULL;
}

unsigned int report_stack_roots(const struct report_stack *s, enum report_root mode,
				char roots[REPORT_ROOTS_MAX][REPORT_ROOT_LEN])
{
	const char *comm = s->comm && s->comm[0] ? s->comm : "[unknown]", *id;
	unsigned int n = 0;

	if (mode == REPORT_ROOT_CONTAINER) {
		id = label_value(s, "container.id");
		/* 12 digits, as docker ps and crictl ps show an id. */
		snprintf(roots[n++], REPORT_ROOT_LEN, "%.12s", id ? id : "host");
	}
	if (mode == REPORT_ROOT_PID)
		snprintf(roots[n++], REPORT_ROOT_LEN, "%s-%u", comm, s->pid);
	else
		snprintf(roots[n++], REPORT_ROOT_LEN, "%s", comm);
	return n;
}

void report_view__free(struct report_view *v)
{
	free(v->stacks);
	v->stacks = NULL;
}
