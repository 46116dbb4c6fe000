// SPDX-License-Identifier: Apache-2.0
/* Unit test of giving the pages of read-only file mappings back (util/resident.c), which
 * the agent does after start-up: a read-only mapping's resident pages leave (counted by
 * pagemap), its contents read back the same; a writable private mapping's changed pages
 * stay, changes intact. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "harness.h"
#include "util/resident.h"

#define PAGES 64

/* A file of PAGES pages beside this binary (a disk's file system: tmpfs pages only leave
 * for swap), each page filled with its number, on disk; its fd, or -1. */
static int page_file(char *path, size_t size, long page)
{
	static char buf[65536];
	int fd;

	if (readlink("/proc/self/exe", path, size - 16) <= 0)
		return -1;
	strcpy(strrchr(path, '/') + 1, "resident.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	for (int i = 0; i < PAGES; i++) {
		memset(buf, 'a' + i % 26, (size_t)page);
		if (write(fd, buf, (size_t)page) != page)
			goto fail;
	}
	if (!fsync(fd)) /* dirty pages are never reclaimed by MADV_PAGEOUT */
		return fd;
fail:
	close(fd);
	unlink(path);
	return -1;
}

static long touch(const volatile char *p, long page)
{
	long sum = 0;

	for (int i = 0; i < PAGES; i++)
		sum += p[i * page];
	return sum;
}

static void test_page_out(void)
{
	long page = sysconf(_SC_PAGESIZE), sum, left;
	char ro_path[4096], rw_path[4096];
	int ro = page_file(ro_path, sizeof(ro_path), page);
	int rw = page_file(rw_path, sizeof(rw_path), page);
	struct stat st_ro, st_rw;
	struct statfs fs;
	char *a = MAP_FAILED, *b = MAP_FAILED;

	CHECK(ro >= 0 && rw >= 0);
	if (ro < 0 || rw < 0)
		goto out;
	if (!fstatfs(ro, &fs) && fs.f_type == TMPFS_MAGIC) {
		harness_skipped = "the test's folder is on tmpfs";
		goto out;
	}
	fstat(ro, &st_ro);
	fstat(rw, &st_rw);
	a = mmap(NULL, PAGES * page, PROT_READ, MAP_PRIVATE, ro, 0);
	b = mmap(NULL, PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE, rw, 0);
	CHECK(a != MAP_FAILED && b != MAP_FAILED);
	if (a == MAP_FAILED || b == MAP_FAILED)
		goto out;
	sum = touch(a, page);
	for (int i = 0; i < PAGES; i++)
		b[i * page] = 'Z'; /* the process's own data now, in a private copy */
	CHECK(resident__file_pages(st_ro.st_dev, st_ro.st_ino, NULL, NULL) == PAGES);
	left = resident__page_out_files();
	if (left == -EINVAL) {
		harness_skipped = "MADV_PAGEOUT: a kernel before 5.4";
		goto out;
	}
	CHECK(left >= PAGES / 2);
	/* The kernel may keep a page it finds busy: most leave. */
	CHECK(resident__file_pages(st_ro.st_dev, st_ro.st_ino, NULL, NULL) < PAGES / 2);
	CHECK(touch(a, page) == sum);
	for (int i = 0; i < PAGES; i++)
		CHECK(b[i * page] == 'Z' && b[i * page + 1] == 'a' + i % 26);
out:
	if (a != MAP_FAILED)
		munmap(a, PAGES * page);
	if (b != MAP_FAILED)
		munmap(b, PAGES * page);
	if (ro >= 0) {
		close(ro);
		unlink(ro_path);
	}
	if (rw >= 0) {
		close(rw);
		unlink(rw_path);
	}
}

int main(void)
{
	RUN_TEST(test_page_out);
	HARNESS_EXIT();
}
