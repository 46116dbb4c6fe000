// SPDX-License-Identifier: Apache-2.0
/* The load-cost cache: a small text file, one "name cost" line per program. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loader/load_costs.h"
#include "util/atomic_file.h"

void load_costs__read(struct load_costs *c, const char *path)
{
	char line[512], name[256];
	uint64_t cost;
	FILE *f;

	memset(c, 0, sizeof(*c));
	f = path ? fopen(path, "re") : NULL;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %" SCNu64, name, &cost) == 2)
			load_costs__set(c, name, cost);
	}
	fclose(f);
}

void load_costs__free(struct load_costs *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].name);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

uint64_t load_costs__get(const struct load_costs *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++) {
		if (strcmp(c->v[i].name, name) == 0)
			return c->v[i].cost;
	}
	return 0;
}

int load_costs__set(struct load_costs *c, const char *name, uint64_t cost)
{
	struct load_cost *v;

	for (size_t i = 0; i < c->n; i++) {
		if (strcmp(c->v[i].name, name) == 0) {
			c->v[i].cost = cost;
			return 0;
		}
	}
	v = realloc(c->v, (c->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->v = v;
	v[c->n].name = strdup(name);
	if (!v[c->n].name)
		return -ENOMEM;
	v[c->n++].cost = cost;
	return 0;
}

static void make_parent(const char *path)
{
	char dir[4096], *s;

	snprintf(dir, sizeof(dir), "%s", path);
	s = strrchr(dir, '/');
	if (!s || s == dir)
		return;
	*s = '\0';
	mkdir(dir, 0755);
}

int load_costs__write(const struct load_costs *c, const char *path)
{
	struct atomic_file af;
	FILE *f;
	int err;

	make_parent(path);
	err = atomic_file__open(&af, path);
	if (err)
		return err;
	f = atomic_file__stream(&af);
	for (size_t i = 0; f && i < c->n; i++)
		fprintf(f, "%s %" PRIu64 "\n", c->v[i].name, c->v[i].cost);
	return atomic_file__finish(&af, f ? 0 : -errno);
}
