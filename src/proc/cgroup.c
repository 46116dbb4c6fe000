// SPDX-License-Identifier: Apache-2.0
/* Control groups v2 for the --cgroup / --container filter: the mount, ids, the walk
 * below a group and container ids resolved to groups (see cgroup.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "proc/cgroup.h"
#include "proc/procinfo.h"
#include "util/log.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

int cgroup__mount_in(const char *mountinfo, char *out, size_t len)
{
	const char *line = mountinfo;

	/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER" */
	while (line && *line) {
		const char *end = strchr(line, '\n'), *dash;
		char mnt[PATH_MAX], fstype[64];
		char *copy;
		int n;

		n = end ? (int)(end - line) : (int)strlen(line);
		copy = strndup(line, n);
		if (!copy)
			return -ENOMEM;
		dash = strstr(copy, " - ");
		if (dash && sscanf(dash, " - %63s", fstype) == 1 && !strcmp(fstype, "cgroup2") &&
		    sscanf(copy, "%*s %*s %*s %*s %4095s", mnt) == 1 &&
		    (size_t)snprintf(out, len, "%s", mnt) < len) {
			free(copy);
			return 0;
		}
		free(copy);
		line = end ? end + 1 : NULL;
	}
	return -ENOENT;
}

int cgroup__mount(char *out, size_t len)
{
	char *text = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	ssize_t n;
	int err;

	if (!f)
		return -errno;
	n = getdelim(&text, &cap, '\0', f);
	fclose(f);
	err = n > 0 ? cgroup__mount_in(text, out, len) : -ENOENT;
	free(text);
	return err;
}

static int is_cgroup2_dir(const char *path)
{
	struct statfs fs;
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (statfs(path, &fs))
		return -errno;
	return fs.f_type == CGROUP2_SUPER_MAGIC ? 0 : -ENOTDIR;
}

int cgroup__resolve(const char *mount, const char *spec, char *out, size_t len)
{
	const char *rel = spec;

	if (is_cgroup2_dir(spec) == 0) {
		if ((size_t)snprintf(out, len, "%s", spec) >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	while (*rel == '/')
		rel++;
	if ((size_t)snprintf(out, len, "%s/%s", mount, rel) >= len)
		return -ENAMETOOLONG;
	if (is_cgroup2_dir(out) == 0)
		return 0;
	/* Not a group either way: is it a directory of another file system (cgroup v1)? */
	return access(spec, F_OK) == 0 ? -ENOTDIR : -ENOENT;
}

int cgroup__id(const char *dir, uint64_t *id)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = {.fh.handle_bytes = sizeof(uint64_t)};
	struct stat st;
	int mount_id;

	/* Since 5.5 a group's inode number is its id; the handle says so on every kernel
	 * (kernfs's handle is the 64-bit id), stat is the fallback. */
	if (name_to_handle_at(AT_FDCWD, dir, &h.fh, &mount_id, 0) == 0 &&
	    h.fh.handle_bytes == sizeof(uint64_t)) {
		memcpy(id, h.fh.f_handle, sizeof(*id));
		return 0;
	}
	if (stat(dir, &st))
		return -errno;
	*id = st.st_ino;
	return 0;
}

struct walk {
	int (*fn)(const char *dir, uint64_t id, void *ctx);
	void *ctx;
	unsigned int seen;
};

static int walk_dir(struct walk *w, const char *dir, int depth)
{
	struct dirent *de;
	uint64_t id;
	DIR *d;
	int ret;

	if (cgroup__id(dir, &id))
		return 0; /* removed meanwhile */
	if (++w->seen > CGROUP_MAX_GROUPS)
		return -E2BIG;
	ret = w->fn(dir, id, w->ctx);
	if (ret || depth >= CGROUP_MAX_DEPTH)
		return ret;
	d = opendir(dir);
	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		char sub[PATH_MAX];

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name) >= sizeof(sub))
			continue;
		ret = walk_dir(w, sub, depth + 1);
	}
	closedir(d);
	return ret;
}

int cgroup__walk(const char *dir, int (*fn)(const char *dir, uint64_t id, void *ctx), void *ctx)
{
	struct walk w = {.fn = fn, .ctx = ctx};

	return walk_dir(&w, dir, 0);
}

int cgroup__procs(const char *dir, uint32_t **pids, size_t *n, size_t *cap)
{
	char path[PATH_MAX];
	unsigned int pid;
	FILE *f;
	int err = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (!err && fscanf(f, "%u", &pid) == 1) {
		if (*n == *cap) {
			size_t c = *cap ? *cap * 2 : 64;
			uint32_t *p = realloc(*pids, c * sizeof(*p));

			if (!p) {
				err = -ENOMEM;
				break;
			}
			*pids = p;
			*cap = c;
		}
		(*pids)[(*n)++] = pid;
	}
	fclose(f);
	return err;
}

struct find {
	const char *prefix;
	size_t plen;
	bool whole; /* a machine's name: the whole id, not a prefix */
	char *out;
	size_t len;
	char top[PATH_MAX]; /* the last match: groups below it are the same container's */
	int matches;
};

static int find_one(const char *dir, uint64_t id, void *ctx)
{
	const char *name = strrchr(dir, '/');
	struct find *f = ctx;
	size_t used;
	char cid[65];

	(void)id;
	name = name ? name + 1 : dir;
	if (proc_info__container_id(name, cid) || strncmp(cid, f->prefix, f->plen) ||
	    (f->whole && cid[f->plen]))
		return 0;
	used = strlen(f->top);
	if (f->matches && !strncmp(dir, f->top, used) && dir[used] == '/' &&
	    strstr(dir + used, cid))
		return 0;
	snprintf(f->top, sizeof(f->top), "%s", dir);
	if (f->matches++ == 0) {
		snprintf(f->out, f->len, "%s", dir);
		return 0;
	}
	used = strlen(f->out);
	snprintf(f->out + used, f->len - used, "\n%s", dir);
	return 1; /* two are enough to say it is ambiguous */
}

int cgroup__find_container(const char *mount, const char *prefix, char *out, size_t len)
{
	struct find f = {.prefix = prefix, .plen = strlen(prefix), .out = out, .len = len};
	int err;

	/* 4 to 64 lower-case hex digits are an id's first; another name a systemd machine
	 * could have (systemd-nspawn, machinectl) is that machine's, whole. */
	if (f.plen < 4 || f.plen > 64 || strspn(prefix, "0123456789abcdef") != f.plen)
		f.whole = true;
	if (f.whole && (!f.plen || f.plen > 64 ||
			strspn(prefix, "0123456789abcdefghijklmnopqrstuvwxyz"
				       "ABCDEFGHIJKLMNOPQRSTUVWXYZ._-") != f.plen))
		return -EINVAL;
	err = cgroup__walk(mount, find_one, &f);
	if (err < 0 && err != -E2BIG)
		return err;
	if (f.matches == 0)
		return -ENOENT;
	return f.matches > 1 ? -EEXIST : 0;
}
