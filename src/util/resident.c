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

long resident__file_pages(dev_t dev, ino_t ino, resident_page_fn fn, void *arg)
{
	unsigned long long start, end, off, inode;
	unsigned int major, minor;
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
		if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu", &start, &end, &off, &major,
			   &minor, &inode) != 6 ||
		    inode != ino || makedev(major, minor) != dev)
			continue;
		n = range_pages(pm, start, end, off, page, fn, arg);
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

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21 /* Linux 5.4 */
#endif

/* Pages out one read-only file mapping; returns the pages that left, or -errno. */
static long page_out(int pm, uint64_t start, uint64_t end, long page)
{
	long before = range_pages(pm, start, end, 0, page, NULL, NULL), after;

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
	unsigned long long start, end;
	long page = sysconf(_SC_PAGESIZE), total = 0, n;
	char line[4096], perm[8];
	int path = 0;
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
		path = 0;
		/* "start-end perms offset dev inode   /path": files only, never a writable
		 * mapping (its pages may be the process's own data). */
		if (sscanf(line, "%llx-%llx %7s %*x %*x:%*x %*u %n", &start, &end, perm, &path) !=
			3 ||
		    !path || line[path] != '/' || strchr(perm, 'w'))
			continue;
		n = page_out(pm, start, end, page);
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
