// SPDX-License-Identifier: Apache-2.0
/* Unit test of the guess at a command's files (unwind/warm.c): execvp's PATH search, and
 * for a dynamically linked program the executable, ld.so and libc, keyed as this
 * process's own maps name them; a script and a missing command give an empty list. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "unwind/warm.h"

static void test_resolve(void)
{
	char out[256];

	CHECK(warm__resolve("sh", "/nonexistent::/bin", out, sizeof(out)) == 0);
	CHECK(!strcmp(out, "/bin/sh"));
	CHECK(warm__resolve("./x", "/bin", out, sizeof(out)) == 0 && !strcmp(out, "./x"));
	CHECK(warm__resolve("no-such-command-here", "/bin:/usr/bin", out, sizeof(out)) == -ENOENT);
	CHECK(warm__resolve("", "/bin", out, sizeof(out)) == -ENOENT);
	CHECK(warm__resolve("sh", "/bin", out, 4) == -ENOENT); /* "/bin/sh" does not fit */
	CHECK(warm__resolve("/bin/sh", NULL, out, 4) == -ENAMETOOLONG);
}

static bool has(const struct warm_list *l, const char *base)
{
	for (size_t i = 0; i < l->n; i++) {
		const char *b = strrchr(l->f[i].path, '/');

		if (b && !strncmp(b + 1, base, strlen(base)))
			return true;
	}
	return false;
}

static void test_find(void)
{
	struct warm_list l;
	struct stat st;
	char script[] = "/tmp/ebprof-warm-XXXXXX";
	int fd;

	/* The test binary itself: dynamically linked against the same libc as this process. */
	CHECK(warm__find("/proc/self/exe", &l) == 0);
	CHECK(l.n >= 3);
	CHECK(strstr(l.f[0].path, "test_warm") != NULL); /* the executable first */
	CHECK(has(&l, "test_warm"));
	CHECK(has(&l, "libc.so"));
	CHECK(has(&l, "ld-linux"));
	CHECK(stat(l.f[0].path, &st) == 0 && st.st_ino == l.f[0].ino);
	for (size_t i = 0; i < l.n; i++)
		for (size_t j = i + 1; j < l.n; j++)
			CHECK(l.f[i].ino != l.f[j].ino || l.f[i].dev != l.f[j].dev);
	warm__free(&l);
	CHECK(l.n == 0);

	fd = mkstemp(script);
	CHECK(fd >= 0);
	CHECK(write(fd, "#!/bin/sh\ntrue\n", 15) == 15);
	close(fd);
	chmod(script, 0755);
	CHECK(warm__find(script, &l) == 0 && l.n == 0);
	unlink(script);
	CHECK(warm__find("no-such-command-here", &l) == 0 && l.n == 0);
}

int main(void)
{
	RUN_TEST(test_resolve);
	RUN_TEST(test_find);
	HARNESS_EXIT();
}
