// SPDX-License-Identifier: Apache-2.0
/* Cache directories: created private, trusted only when ours and not writable by others
 * (cache_dir.h says why). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/cache_dir.h"

bool cache_dir__safe(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

int cache_dir__make(const char *dir)
{
	char parent[4096], *s;
	struct stat st;

	if (snprintf(parent, sizeof(parent), "%s", dir) >= (int)sizeof(parent))
		return -ENAMETOOLONG;
	s = strrchr(parent, '/');
	if (s && s != parent) {
		*s = '\0';
		mkdir(parent, 0755);
	}
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st))
		return -errno;
	return S_ISDIR(st.st_mode) && cache_dir__safe(&st) ? 0 : -EPERM;
}
