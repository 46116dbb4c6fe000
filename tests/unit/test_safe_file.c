// SPDX-License-Identifier: Apache-2.0
/* Unit tests for util/safe_file: a FIFO opens at once and is refused, a link to /dev/zero
 * is refused followed or not, so are a directory and a file past the bound; a regular file
 * is read whole, a /proc file (which says 0 bytes) up to the bound; each refusal has one
 * reason that names what was there. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "shell.h"
#include "util/safe_file.h"

static char dir[] = "/tmp/test_safe_file.XXXXXX";

static void path_of(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", dir, name);
}

static void write_file(const char *name, size_t bytes)
{
	char p[256];
	FILE *f;

	path_of(p, sizeof(p), name);
	f = fopen(p, "w");
	for (size_t i = 0; f && i < bytes; i++)
		fputc('a' + i % 26, f);
	if (f)
		fclose(f);
}

/* Opens name in dir; returns the result and the reason in why. */
static int try_open(const char *name, unsigned int flags, uint64_t max, char *why)
{
	char p[256];
	int fd;

	path_of(p, sizeof(p), name);
	why[0] = '\0';
	fd = safe_file__open(p, flags, max, NULL, why);
	if (fd >= 0)
		close(fd);
	return fd < 0 ? fd : 0;
}

static void test_regular_read(void)
{
	char p[256], why[SAFE_FILE_WHY], *text;
	size_t len;

	write_file("ten", 10);
	path_of(p, sizeof(p), "ten");
	CHECK(safe_file__read(p, 0, 10, &text, &len, why) == 0);
	CHECK(len == 10 && text && text[10] == '\0' && !memcmp(text, "abcdefghij", 10));
	free(text);
	CHECK(safe_file__read(p, 0, 9, &text, &len, why) == -EFBIG);
	CHECK(!text && strstr(why, "larger than 9 bytes"));
	write_file("big", 100000); /* grows its buffer a few times */
	path_of(p, sizeof(p), "big");
	CHECK(safe_file__read(p, 0, 100000, &text, &len, why) == 0 && len == 100000);
	free(text);
}

/* Opening a FIFO without O_NONBLOCK would wait for a writer for ever: the alarm ends the
 * test with SIGALRM if it does. Not a speed bound: the open returns at once or never. */
static void test_fifo(void)
{
	char p[256], why[SAFE_FILE_WHY];

	path_of(p, sizeof(p), "fifo");
	CHECK(mkfifo(p, 0600) == 0);
	alarm(120);
	CHECK(try_open("fifo", 0, 0, why) == -EINVAL);
	CHECK(try_open("fifo", SAFE_FILE_FOLLOW, 0, why) == -EINVAL);
	alarm(0);
	CHECK(strstr(why, "is a FIFO, not a regular file") != NULL);
}

static void test_link_to_dev_zero(void)
{
	char p[256], why[SAFE_FILE_WHY];

	path_of(p, sizeof(p), "zero");
	CHECK(symlink("/dev/zero", p) == 0);
	CHECK(try_open("zero", 0, 0, why) == -ELOOP);
	CHECK(strstr(why, "is a symbolic link (not followed)") != NULL);
	CHECK(try_open("zero", SAFE_FILE_FOLLOW, 0, why) == -EINVAL);
	CHECK(strstr(why, "is a character device") != NULL);
	/* Followed to a regular file, a link is what it leads to. */
	write_file("target", 3);
	path_of(p, sizeof(p), "link");
	CHECK(symlink("target", p) == 0);
	CHECK(try_open("link", SAFE_FILE_FOLLOW, 3, why) == 0);
	CHECK(try_open("link", 0, 3, why) == -ELOOP);
}

static void test_directory(void)
{
	char p[256], why[SAFE_FILE_WHY];

	path_of(p, sizeof(p), "sub");
	CHECK(mkdir(p, 0700) == 0);
	CHECK(try_open("sub", 0, 0, why) == -EINVAL);
	CHECK(strstr(why, "is a directory") != NULL);
}

static void test_oversized(void)
{
	char why[SAFE_FILE_WHY];

	write_file("over", 4097);
	CHECK(try_open("over", 0, 4096, why) == -EFBIG);
	CHECK(strstr(why, "is larger than 4096 bytes") != NULL);
	CHECK(try_open("over", 0, 4097, why) == 0);
	CHECK(try_open("missing", 0, 0, why) == -ENOENT);
	CHECK(strstr(why, strerror(ENOENT)) != NULL);
}

/* /proc files say 0 bytes: the bound is on what is read. */
static void test_proc_file(void)
{
	char why[SAFE_FILE_WHY], *text;
	size_t len;

	CHECK(safe_file__read("/proc/self/status", 0, 1 << 16, &text, &len, why) == 0);
	CHECK(text && strstr(text, "Tgid:") != NULL);
	free(text);
	CHECK(safe_file__read("/proc/self/status", 0, 16, &text, &len, why) == -EFBIG);
	CHECK(safe_file__open_proc("/proc/self/nonexistent") == -ENOENT);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("FAIL test_safe_file: mkdtemp\n");
		return 1;
	}
	RUN_TEST(test_regular_read);
	RUN_TEST(test_fifo);
	RUN_TEST(test_link_to_dev_zero);
	RUN_TEST(test_directory);
	RUN_TEST(test_oversized);
	RUN_TEST(test_proc_file);
	run("rm -rf %s", dir);
	HARNESS_EXIT();
}
