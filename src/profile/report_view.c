// SPDX-License-Identifier: Apache-2.0
/* A report narrowed to one event: a copy of the stack headers of that event, with
 * everything else shared, so an exporter written for one profile writes each event. */
#include <errno.h>
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

void report_view__free(struct report_view *v)
{
	free(v->stacks);
	v->stacks = NULL;
}
