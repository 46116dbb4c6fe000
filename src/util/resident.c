// SPDX-License-Identifier: Apache-2.0
/* Resident pages of this process's mappings of one file, from /proc/self/maps (which
 * mappings, at which file offsets) and /proc/self/pagemap (bit 63: page present); and
 * the pages of its read-only file mappings given back to the kernel. */
#include "util/resident.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define PAGEMAP_PRESENT (1ull << 63)
#define PAGEMAP_CHUNK 512 /* entries read at once: 4 KiB of pagemap */

/* Counts the present pages of [start, end), mapped from file offset off. */
static long range_pages(int pm, uint64_t start, uint64_t end, uint64_t off, long page,
			resident_page_fn fn, void *arg)
{
	uint64_t ent[PAGEMAP_CHUNK];
	uint64_t first = start / page, n = (end - start) / page, k, i;
	long count = 0;
	ssize_t got;

	for (k = 0; k < n; k += PAGEMAP_CHUNK) {
		size_t want = n - k < PAGEMAP_CHUNK ? n - k : PAGEMAP_CHUNK;

		got = pread(pm, ent, want * sizeof(*ent), (off_t)((first + k) * sizeof(*ent)));
		if (got < 0)
			return -errno;
		for (i = 0; i < (uint64_t)got / sizeof(*ent); i++) {
			if (!(ent[i] & PAGEMAP_PRESENT))
				continue;
			count++;
			if (fn)
				fn(off + (k + i) * page, arg);
		}
	}
	return count;
}

/* Calls fn on each line of /proc/self/maps, with /proc/self/pagemap open as pm; returns
 * the sum of what it returned, or the first -errno. */
typedef long (*mapping_fn)(const char *line, int pm, long page, void *arg);

static long each_mapping(mapping_fn fn, void *arg)
{
	long page = sysconf(_SC_PAGESIZE), total = 0, n;
	char line[4096];
	FILE *maps;
	int pm;

	if (page <= 0)
		return -EINVAL;
	maps = fopen("/proc/self/maps", "re");
	if (!maps)
		return -errno;
	pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (pm < 0) {
		total = -errno;
		goto cleanup;
	}
	while (fgets(line, sizeof(line), maps)) {
		n = fn(line, pm, page, arg);
		if (n < 0) {
			total = n;
			break;
		}
		total += n;
	}
	close(pm);
cleanup:
	fclose(maps);
	return total;
}

struct file_pages {
	dev_t dev;
	ino_t ino;
	resident_page_fn fn;
	void *arg;
};

static long file_mapping_pages(const char *line, int pm, long page, void *arg)
{
	const struct file_pages *f = arg;
	unsigned long long start, end, off, inode;
	unsigned int major, minor;

	if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu", &start, &end, &off, &major, &minor,
		   &inode) != 6 ||
	    inode != f->ino || makedev(major, minor) != f->dev)
		return 0;
	return range_pages(pm, start, end, off, page, f->fn, f->arg);
}

long resident__file_pages(dev_t dev, ino_t ino, resident_page_fn fn, void *arg)
{
	struct file_pages f = {dev, ino, fn, arg};

	return each_mapping(file_mapping_pages, &f);
}

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21 /* Linux 5.4 */
#endif

/* Pages out one mapping if it is a read-only one of a file ("start-end perms offset dev
 * inode   /path"; never a writable one: its pages may be the process's own data);
 * returns the pages that left, or -errno. */
static long page_out(const char *line, int pm, long page, void *arg)
{
	unsigned long long start, end;
	char perm[8];
	int path = 0;
	long before, after;

	(void)arg;
	if (sscanf(line, "%llx-%llx %7s %*x %*x:%*x %*u %n", &start, &end, perm, &path) != 3 ||
	    !path || line[path] != '/' || strchr(perm, 'w'))
		return 0;
	before = range_pages(pm, start, end, 0, page, NULL, NULL);
	if (before <= 0)
		return before;
	/* Another thread may have unmapped it since maps was read: ENOMEM, nothing to do. */
	if (madvise((void *)(uintptr_t)start, end - start, MADV_PAGEOUT))
		return errno == ENOMEM ? 0 : -errno;
	after = range_pages(pm, start, end, 0, page, NULL, NULL);
	if (after < 0)
		return after;
	return before > after ? before - after : 0;
}

long resident__page_out_files(void)
{
	return each_mapping(page_out, NULL);
}
