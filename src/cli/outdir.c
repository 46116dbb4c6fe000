// SPDX-License-Identifier: Apache-2.0
/* The output directory of `record`: prepared before, tidied after. The list of files a
 * recording wrote is the only thing the next one removes by, and a name in it counts
 * only if it is a plain file name of the directory (no '/', no leading '.'), so a list
 * someone edited cannot reach outside it. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/outdir.h"
#include "util/atomic_file.h"
#include "util/log.h"

#define NAME_MAX_LEN 255

static int make_dirs(const char *dir)
{
	char path[4096], *p;

	if (snprintf(path, sizeof(path), "%s/", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			int err = -errno;

			pr_err("cannot create output directory %s: %s", path, strerror(errno));
			return err;
		}
		*p = '/';
	}
	return 0;
}

int outdir__prepare(struct outdir *od, const char *dir)
{
	char path[4096];
	int fd, err;

	*od = (struct outdir){.dir = dir};
	err = make_dirs(dir);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/.ebprof-write-test-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		err = -errno;
		pr_err("cannot write into output directory %s: %s", dir, strerror(errno));
		return err;
	}
	close(fd);
	unlink(path);
	return 0;
}

int outdir__wrote(struct outdir *od, const char *name)
{
	char **v, *copy;

	if (od->n == od->cap) {
		size_t cap = od->cap ? od->cap * 2 : 16;

		v = reallocarray(od->names, cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		od->names = v;
		od->cap = cap;
	}
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	od->names[od->n++] = copy;
	return 0;
}

static bool plain_name(const char *s)
{
	return s[0] && s[0] != '.' && !strchr(s, '/') && strlen(s) <= NAME_MAX_LEN;
}

static bool written_now(const struct outdir *od, const char *name)
{
	for (size_t i = 0; i < od->n; i++)
		if (strcmp(od->names[i], name) == 0)
			return true;
	return false;
}

/* Removes what the previous list names and this recording did not write. */
static int remove_stale(const struct outdir *od)
{
	char path[4096], line[NAME_MAX_LEN + 2];
	int removed = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", od->dir, OUTDIR_LIST);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!plain_name(line) || written_now(od, line))
			continue;
		snprintf(path, sizeof(path), "%s/%s", od->dir, line);
		if (unlink(path) == 0)
			removed++;
		else if (errno != ENOENT)
			pr_warn("cannot remove %s, left by an earlier recording: %s", path,
				strerror(errno));
	}
	fclose(f);
	return removed;
}

int outdir__finish(struct outdir *od)
{
	struct atomic_file af;
	char path[4096];
	int removed = remove_stale(od), err;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", od->dir, OUTDIR_LIST);
	err = atomic_file__open(&af, path);
	if (err)
		goto out;
	f = atomic_file__stream(&af);
	for (size_t i = 0; f && i < od->n; i++)
		fprintf(f, "%s\n", od->names[i]);
	err = atomic_file__finish(&af, f ? 0 : -errno);
out:
	if (err)
		pr_warn("cannot list this recording's files in %s: %s", path, strerror(-err));
	if (removed)
		pr_debug("removed %d files of an earlier recording from %s", removed, od->dir);
	return err ? err : removed;
}

void outdir__free(struct outdir *od)
{
	for (size_t i = 0; i < od->n; i++)
		free(od->names[i]);
	free(od->names);
	od->names = NULL;
	od->n = od->cap = 0;
}
