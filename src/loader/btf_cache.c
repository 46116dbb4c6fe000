// SPDX-License-Identifier: Apache-2.0
/* The minimal-BTF cache. Files are named by kernel id and object hash, so neither a new
 * kernel nor a new ebprof reuses a stale one; they are trusted only when we (root) own
 * them and nobody else may write them, because libbpf relocates our programs by them. */
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "loader/btf_cache.h"
#include "loader/min_btf.h"
#include "loader/objects.h"
#include "util/cache_dir.h"
#include "util/log.h"

#define KERNEL_BTF "/sys/kernel/btf/vmlinux"

/* Whether the file at path, in a directory cache_dir__make accepted, may be used: when
 * it is there and not ours alone, it is said once and made again over it. */
static bool trusted(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && cache_dir__file_trusted(path, &st);
}

/* Another ebprof build's file is left alone while it may be in use: libbpf opens the
 * file once per object while that ebprof loads, and unlinking it there fails the load. */
#define STALE_SECONDS (10 * 60)

/* Deletes the files other ebprof builds made for this kernel and have not used for a
 * while: only one is used at a time. */
static void remove_older(const char *dir, const char *kernel_id, const char *keep)
{
	size_t len = strlen(kernel_id);
	time_t now = time(NULL);
	char path[4096];
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, kernel_id, len) || e->d_name[len] != '-')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (strcmp(path, keep) && !stat(path, &st) && now - st.st_atime > STALE_SECONDS &&
		    now - st.st_mtime > STALE_SECONDS)
			unlink(path);
	}
	if (d)
		closedir(d);
}

int btf_cache__get(const char *dir, const struct bpf_images *imgs, char *path, size_t len)
{
	char id[256];
	int err;

	err = min_btf__kernel_id(id, sizeof(id));
	if (err)
		return err;
	if (snprintf(path, len, "%s/%s-%016" PRIx64 ".btf", dir, id, bpf_images__hash(imgs)) >=
	    (int)len)
		return -ENAMETOOLONG;
	/* Every directory from the cache root down is checked before a file is read (a
	 * refusal is said there): libbpf relocates our programs by what it reads. */
	err = cache_dir__make(dir);
	if (err)
		return err;
	/* Touched on every use, so no other build takes it for stale while we load. */
	if (trusted(path)) {
		utimensat(AT_FDCWD, path, NULL, 0);
		return 0;
	}
	err = min_btf__generate(KERNEL_BTF, imgs->elf, imgs->size, imgs->n, path);
	if (err)
		pr_debug("cannot cut a minimal BTF from %s: %s", KERNEL_BTF, strerror(-err));
	else
		remove_older(dir, id, path);
	return err;
}

void btf_cache__discard(const char *path)
{
	if (path && unlink(path) == 0)
		pr_debug("discarded %s", path);
}
