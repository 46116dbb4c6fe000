// SPDX-License-Identifier: Apache-2.0
/* libFuzzer harness for the load-cost cache's parser: each input is a file's text, parsed
 * as load_costs__read parses what it read; the set must stay within its bounds, hold only
 * names a line can carry, and read back the same from the text load_costs__write would
 * write of it. Built by run_load_costs.sh. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/load_costs.h"

/* The text load_costs__write writes for c, malloc'd. */
static char *format(const struct load_costs *c, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		abort();
	for (size_t i = 0; i < c->n; i++)
		fprintf(f, "%s %" PRIu64 "\n", c->v[i].name, c->v[i].cost);
	fclose(f);
	return text;
}

static void check_names(const struct load_costs *c)
{
	if (c->n > LOAD_COSTS_MAX)
		abort();
	for (size_t i = 0; i < c->n; i++) {
		size_t n = strlen(c->v[i].name);

		if (!n || n > LOAD_COST_NAME_MAX)
			abort();
		for (size_t k = 0; k < n; k++)
			if (c->v[i].name[k] <= ' ' || c->v[i].name[k] > '~')
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct load_costs c = {0}, back = {0};
	size_t len;
	char *text;

	if (load_costs__parse(&c, (const char *)data, size)) {
		load_costs__free(&c);
		return 0;
	}
	check_names(&c);
	text = format(&c, &len);
	if (load_costs__parse(&back, text, len) || back.n != c.n)
		abort();
	for (size_t i = 0; i < c.n; i++)
		if (load_costs__get(&back, c.v[i].name) != c.v[i].cost)
			abort();
	free(text);
	load_costs__free(&back);
	load_costs__free(&c);
	return 0;
}
