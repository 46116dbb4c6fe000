// SPDX-License-Identifier: Apache-2.0
/* The load-cost cache: a small text file, one "name cost" line per program, read back
 * only from a trusted cache and only so much of it. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/load_costs.h"
#include "util/atomic_file.h"
#include "util/cache_dir.h"
#include "util/safe_file.h"

/* The directory of path, into dir (len bytes): "." for a bare name. */
static int dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return snprintf(dir, len, ".") < (int)len ? 0 : -ENAMETOOLONG;
	if (slash == path)
		slash++; /* "/x": the root */
	return snprintf(dir, len, "%.*s", (int)(slash - path), path) < (int)len ? 0 : -ENAMETOOLONG;
}

/* Opens path if its cache may be read; says why not once. */
static int open_trusted(const char *path)
{
	char dir[4096], why[SAFE_FILE_WHY];
	struct stat st;
	int fd;

	if (dir_of(path, dir, sizeof(dir)) || cache_dir__make(dir))
		return -EPERM;
	fd = safe_file__open(path, 0, LOAD_COSTS_BYTES, &st, why);
	if (fd == -ENOENT)
		return fd;
	if (fd < 0) {
		cache_dir__refuse(path, why);
		return fd;
	}
	if (!cache_dir__file_trusted(path, &st)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

void load_costs__read(struct load_costs *c, const char *path)
{
	char *text, why[SAFE_FILE_WHY];
	size_t len;
	int fd;

	memset(c, 0, sizeof(*c));
	fd = path ? open_trusted(path) : -ENOENT;
	if (fd < 0)
		return;
	if (safe_file__read_fd(fd, LOAD_COSTS_BYTES, &text, &len, why))
		cache_dir__refuse(path, why);
	else if (load_costs__parse(c, text, len))
		load_costs__free(c);
	close(fd);
	free(text);
}

/* Parses one line [p, end) into name and cost; false when it is not such a line. */
static bool parse_line(const char *p, const char *end, char *name, uint64_t *cost)
{
	const char *sp = memchr(p, ' ', end - p);
	uint64_t v = 0;

	if (!sp || sp == p || sp - p > LOAD_COST_NAME_MAX || sp + 1 == end)
		return false;
	for (const char *q = p; q < sp; q++)
		if (*q <= ' ' || *q > '~')
			return false;
	for (const char *q = sp + 1; q < end; q++) {
		if (*q < '0' || *q > '9' || __builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(*q - '0'), &v))
			return false;
	}
	memcpy(name, p, sp - p);
	name[sp - p] = '\0';
	*cost = v;
	return true;
}

int load_costs__parse(struct load_costs *c, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;
	char name[LOAD_COST_NAME_MAX + 1];
	uint64_t cost;
	int err;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if (!parse_line(p, nl, name, &cost))
			continue;
		err = load_costs__set(c, name, cost);
		if (err && err != -ENOSPC)
			return err;
	}
	return 0;
}

void load_costs__free(struct load_costs *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].name);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static struct load_cost *find(const struct load_costs *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++) {
		if (strcmp(c->v[i].name, name) == 0)
			return &c->v[i];
	}
	return NULL;
}

uint64_t load_costs__get(const struct load_costs *c, const char *name)
{
	const struct load_cost *e = find(c, name);

	return e ? e->cost : 0;
}

int load_costs__set(struct load_costs *c, const char *name, uint64_t cost)
{
	struct load_cost *e = find(c, name);
	char *copy;

	if (e) {
		e->cost = cost;
		return 0;
	}
	if (c->n >= LOAD_COSTS_MAX)
		return -ENOSPC;
	if (strlen(name) > LOAD_COST_NAME_MAX)
		return -EINVAL;
	/* Grown at powers of two: a file of LOAD_COSTS_MAX names costs 10 reallocs. */
	if ((c->n & (c->n - 1)) == 0) {
		e = reallocarray(c->v, c->n ? c->n * 2 : 1, sizeof(*e));
		if (!e)
			return -ENOMEM;
		c->v = e;
	}
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	c->v[c->n++] = (struct load_cost){copy, cost};
	return 0;
}

int load_costs__write(const struct load_costs *c, const char *path)
{
	char dir[4096];
	struct atomic_file af;
	FILE *f;
	int err;

	err = dir_of(path, dir, sizeof(dir));
	err = err ?: cache_dir__make(dir);
	err = err ?: atomic_file__open(&af, path);
	if (err)
		return err;
	f = atomic_file__stream(&af);
	for (size_t i = 0; f && i < c->n; i++)
		fprintf(f, "%s %" PRIu64 "\n", c->v[i].name, c->v[i].cost);
	return atomic_file__finish(&af, f ? 0 : -errno);
}
