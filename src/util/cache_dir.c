// SPDX-License-Identifier: Apache-2.0
/* Cache directories: created private, trusted only when every directory from the cache
 * root down is ours and not writable by others (cache_dir.h says why). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/cache_dir.h"
#include "util/log.h"

#define REFUSED_MAX 16 /* paths said once each; a few caches under one root in practice */

bool cache_dir__safe(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

void cache_dir__refuse(const char *path, const char *why)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static char said[REFUSED_MAX][256];
	static unsigned int n;
	bool new = true;

	pthread_mutex_lock(&lock);
	for (unsigned int i = 0; i < n && new; i++)
		new = strncmp(said[i], path, sizeof(said[i]) - 1) != 0;
	if (new &&n < REFUSED_MAX)
		snprintf(said[n++], sizeof(said[0]), "%s", path);
	pthread_mutex_unlock(&lock);
	if (new)
		pr_warn("cache %s not used: it %s", path, why);
}

/* Why st, of a directory on the chain or a file in it, is not to be trusted; NULL when
 * it is. */
static const char *distrust(const struct stat *st, bool dir, char *buf, size_t len)
{
	if (S_ISLNK(st->st_mode))
		return "is a symbolic link";
	if (dir && !S_ISDIR(st->st_mode))
		return "is not a directory";
	if (!dir && !S_ISREG(st->st_mode))
		return "is not a regular file";
	if (st->st_uid != geteuid()) {
		snprintf(buf, len, "is owned by uid %u, not uid %u", (unsigned int)st->st_uid,
			 (unsigned int)geteuid());
		return buf;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(buf, len, "is writable by %s (mode %04o)",
			 st->st_mode & S_IWOTH ? "others" : "its group",
			 (unsigned int)(st->st_mode & 07777));
		return buf;
	}
	return NULL;
}

/* Makes path (mode) unless it exists, then checks it as a directory of the chain. */
static int chain_step(const char *path, mode_t mode)
{
	char buf[96], why[160];
	const char *bad;
	struct stat st;

	if (mkdir(path, mode) && errno != EEXIST) {
		int err = errno;

		snprintf(why, sizeof(why), "cannot be made: %s", strerror(err));
		cache_dir__refuse(path, why);
		return -err;
	}
	if (lstat(path, &st)) {
		int err = errno;

		snprintf(why, sizeof(why), "cannot be read: %s", strerror(err));
		cache_dir__refuse(path, why);
		return -err;
	}
	bad = distrust(&st, true, buf, sizeof(buf));
	if (bad) {
		cache_dir__refuse(path, bad);
		return -EPERM;
	}
	return 0;
}

int cache_dir__make_under(const char *root, const char *dir)
{
	size_t rlen = strlen(root), end = rlen;
	char path[4096];
	int err;

	if (strncmp(dir, root, rlen) || (dir[rlen] && dir[rlen] != '/'))
		return -EINVAL;
	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	/* From the root down, each directory checked before anything is made in it. The
	 * root is shared by several caches (0755) unless it is the cache itself. */
	for (;;) {
		path[end] = '\0';
		err = chain_step(path, end > rlen || !dir[end] ? 0700 : 0755);
		if (err)
			return err;
		path[end] = dir[end];
		while (dir[end] == '/')
			end++;
		if (!dir[end])
			return 0;
		while (dir[end] && dir[end] != '/')
			end++;
	}
}

int cache_dir__make(const char *dir)
{
	size_t rlen = strlen(CACHE_ROOT);

	if (!strncmp(dir, CACHE_ROOT, rlen) && (!dir[rlen] || dir[rlen] == '/'))
		return cache_dir__make_under(CACHE_ROOT, dir);
	return cache_dir__make_under(dir, dir);
}

bool cache_dir__file_trusted(const char *path, const struct stat *st)
{
	const char *bad;
	char buf[96];

	bad = distrust(st, false, buf, sizeof(buf));
	if (bad)
		cache_dir__refuse(path, bad);
	return !bad;
}
