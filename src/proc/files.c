// SPDX-License-Identifier: Apache-2.0
/* Executable-file registry: ids, paths and descriptors of every file a sample landed in.
 * Descriptors are taken while the process is alive, so later reads need no process. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/files.h"
#include "util/log.h"
#include "util/safe_file.h"

struct file_key {
	uint64_t dev;
	uint64_t ino;
};

static int file_eq(const void *entry, const void *key)
{
	const struct file_entry *f = entry;
	const struct file_key *k = key;

	return f->dev == k->dev && f->ino == k->ino;
}

void file_table__init(struct file_table *t)
{
	memset(t, 0, sizeof(*t));
	hmap_init(&t->by_key, file_eq);
}

static void drop_syms(struct file_entry *f)
{
	if (f->syms && f->syms_free)
		f->syms_free(f->syms);
	f->syms = NULL;
	if (f->dwarf && f->dwarf_free)
		f->dwarf_free(f->dwarf);
	f->dwarf = NULL;
	if (f->go && f->go_free)
		f->go_free(f->go);
	f->go = NULL;
	if (f->lines && f->lines_free)
		f->lines_free(f->lines);
	f->lines = NULL;
}

void file_entry__release(struct file_entry *f)
{
	if (f->fd >= 0)
		close(f->fd);
	drop_syms(f);
	f->fd = -1;
	f->go_err = 0;
	f->syms_err = 0;
	f->dwarf_err = 0;
	f->debug_state = 0;
	f->open_err = 0;
}

void file_table__free(struct file_table *t)
{
	for (uint32_t i = 0; i < t->count; i++) {
		struct file_entry *f = t->by_id[i];

		if (f->fd >= 0)
			close(f->fd);
		drop_syms(f);
		free(f->path);
		free(f);
	}
	free(t->by_id);
	hmap_free(&t->by_key);
	memset(t, 0, sizeof(*t));
}

static int file_table__append(struct file_table *t, struct file_entry *f)
{
	if (t->count == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 64;
		struct file_entry **v = realloc(t->by_id, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->by_id = v;
		t->cap = cap;
	}
	t->by_id[t->count++] = f;
	f->id = t->count;
	return 0;
}

struct file_entry *file_table__find(const struct file_table *t, uint64_t dev, uint64_t ino)
{
	struct file_key key = {dev, ino};

	return hmap_find(&t->by_key, hash_bytes(&key, sizeof(key), 0), &key);
}

struct file_entry *file_table__intern(struct file_table *t, uint64_t dev, uint64_t ino,
				      const char *path)
{
	struct file_key key = {dev, ino};
	uint64_t h = hash_bytes(&key, sizeof(key), 0);
	struct file_entry *f = hmap_find(&t->by_key, h, &key);

	if (f)
		return f;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->dev = dev;
	f->ino = ino;
	f->fd = -1;
	f->path = strdup(path);
	if (!f->path || file_table__append(t, f))
		goto fail;
	if (hmap_insert(&t->by_key, h, f)) {
		t->count--;
		goto fail;
	}
	return f;
fail:
	free(f->path);
	free(f);
	return NULL;
}

struct file_entry *file_table__get(const struct file_table *t, uint32_t id)
{
	if (id == 0 || id > t->count)
		return NULL;
	return t->by_id[id - 1];
}

int file_entry__open(struct file_entry *f, pid_t pid, uint64_t start, uint64_t end)
{
	char p[4096 + 64], why[SAFE_FILE_WHY];
	int fd;

	if (f->fd >= 0)
		return 0;
	if (f->open_err)
		return -f->open_err;
	/* Both are links (map_files' to the very file mapped): followed, but what they lead
	 * to must be a regular file, opened without blocking. The process's root is another
	 * user's: a FIFO at the path would block open() for ever. */
	snprintf(p, sizeof(p), "/proc/%d/map_files/%lx-%lx", pid, (unsigned long)start,
		 (unsigned long)end);
	fd = safe_file__open(p, SAFE_FILE_FOLLOW, 0, NULL, NULL);
	if (fd < 0 && f->path[0] == '/') {
		snprintf(p, sizeof(p), "/proc/%d/root%s", pid, f->path);
		fd = safe_file__open(p, SAFE_FILE_FOLLOW, 0, NULL, why);
		if (fd == -EINVAL)
			pr_warn("%s %s: its frames are not named", p, why);
	}
	if (fd < 0) {
		/* The process may be gone already; a later sample from another may succeed. */
		if (fd != -ENOENT && fd != -ESRCH)
			f->open_err = -fd;
		return fd;
	}
	f->fd = fd;
	return 0;
}
