// SPDX-License-Identifier: Apache-2.0
/* Unit tests for the caches' trust rule (util/cache_dir) and the load-cost cache read under
 * it: every directory from the cache root down must be ours and writable by nobody else,
 * a root that is a link or another user's is refused with one line naming it and the
 * reason, and nothing is made inside; the load-cost file is read only when it is a
 * regular file of ours within its bound (a FIFO, a link to /dev/zero, a directory, a file
 * of 100,000 lines each cost one line and an empty set), and its parser keeps what is
 * well-formed only, up to its bound. The ownership cases need root (chown). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "loader/load_costs.h"
#include "shell.h"
#include "stderr_capture.h"
#include "util/cache_dir.h"

#define OTHER_UID 65534 /* nobody */

static char tmp[] = "/tmp/test_cache_dir.XXXXXX";
static char said[8192];

static void path_of(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", tmp, name);
}

static bool exists(const char *name)
{
	char p[512];

	path_of(p, sizeof(p), name);
	return access(p, F_OK) == 0;
}

/* cache_dir__make_under(tmp/root, tmp/dir) with what it says captured in said[]; the
 * lines said are counted into *lines. */
static int make_under(const char *root, const char *dir, int *lines)
{
	char r[512], d[512];
	int err;

	path_of(r, sizeof(r), root);
	path_of(d, sizeof(d), dir);
	capture_begin();
	err = cache_dir__make_under(r, d);
	*lines = capture_end(said, sizeof(said));
	return err;
}

static void test_chain_made(void)
{
	struct stat st;
	char p[512];
	int lines;

	CHECK(make_under("r1", "r1/btf", &lines) == 0 && lines == 0);
	path_of(p, sizeof(p), "r1");
	CHECK(lstat(p, &st) == 0 && (st.st_mode & 07777) == 0755);
	path_of(p, sizeof(p), "r1/btf");
	CHECK(lstat(p, &st) == 0 && (st.st_mode & 07777) == 0700);
	CHECK(make_under("r1", "r1/btf", &lines) == 0 && lines == 0); /* made: checked */
	CHECK(make_under("r1", "elsewhere", &lines) == -EINVAL);
}

/* The root belongs to another user: nothing is made in it, and it is said once. */
static void test_root_of_another_user(void)
{
	char p[512];
	int lines;

	path_of(p, sizeof(p), "r2");
	CHECK(mkdir(p, 0755) == 0 && chown(p, OTHER_UID, OTHER_UID) == 0);
	CHECK(make_under("r2", "r2/debug", &lines) == -EPERM);
	CHECK(lines == 1 && strstr(said, p) && strstr(said, "is owned by uid 65534, not uid 0"));
	CHECK(!exists("r2/debug"));
	CHECK(make_under("r2", "r2/btf", &lines) == -EPERM && lines == 0); /* said once */
	CHECK(!exists("r2/btf"));
}

/* The root is a link (to a directory another user made): refused, nothing made there. */
static void test_root_is_link(void)
{
	char p[512], target[512];
	int lines;

	path_of(target, sizeof(target), "elsewhere");
	path_of(p, sizeof(p), "r3");
	CHECK(mkdir(target, 0700) == 0 && symlink(target, p) == 0);
	CHECK(make_under("r3", "r3/debug", &lines) == -EPERM);
	CHECK(lines == 1 && strstr(said, p) && strstr(said, "is a symbolic link"));
	CHECK(!exists("elsewhere/debug"));
}

/* Below a good root, a directory others may write, or a link, is refused the same. */
static void test_inner_refused(void)
{
	char p[512], target[512];
	int lines;

	path_of(p, sizeof(p), "r4/shared");
	CHECK(make_under("r4", "r4/shared", &lines) == 0);
	CHECK(chmod(p, 0777) == 0);
	CHECK(make_under("r4", "r4/shared/x", &lines) == -EPERM);
	CHECK(lines == 1 && strstr(said, "is writable by others (mode 0777)"));
	CHECK(!exists("r4/shared/x"));
	path_of(target, sizeof(target), "elsewhere2");
	path_of(p, sizeof(p), "r4/link");
	CHECK(mkdir(target, 0700) == 0 && symlink(target, p) == 0);
	CHECK(make_under("r4", "r4/link/x", &lines) == -EPERM && lines == 1);
	CHECK(!exists("elsewhere2/x"));
}

/* load_costs__read of tmp/NAME/load-costs, what it said in said[]: lines said. */
static int read_costs(const char *name, struct load_costs *c)
{
	char p[512];

	path_of(p, sizeof(p), name);
	strcat(p, "/load-costs");
	capture_begin();
	load_costs__read(c, p);
	return capture_end(said, sizeof(said));
}

/* A cache directory of our own holding load-costs made by cmd (a shell command run in
 * it); returns its name. */
static const char *costs_dir(const char *name, const char *cmd)
{
	char p[512];

	path_of(p, sizeof(p), name);
	CHECK(mkdir(p, 0700) == 0);
	CHECK(run("cd %s && %s", p, cmd) == 0);
	return name;
}

/* Each bad load-costs: one line naming the file and what it is, an empty set (the alarm
 * kills a read that blocks or never ends: not a speed bound, as the refusals take no
 * time and the old reader took for ever or minutes). */
static void expect_refused(const char *name, const char *cmd, const char *reason)
{
	struct load_costs c;
	int lines;

	alarm(120);
	lines = read_costs(costs_dir(name, cmd), &c);
	alarm(0);
	CHECK(lines == 1 && strstr(said, "load-costs") && strstr(said, reason));
	CHECK(c.n == 0);
	load_costs__free(&c);
}

static void test_costs_refused(void)
{
	expect_refused("fifo", "mkfifo load-costs", "is a FIFO, not a regular file");
	expect_refused("zero", "ln -s /dev/zero load-costs", "is a symbolic link");
	expect_refused("dir", "mkdir load-costs", "is a directory");
	expect_refused("huge", "seq 100000 | sed 's/^/prog/; s/$/ 7/' > load-costs",
		       "is larger than 65536 bytes");
	expect_refused("open", "echo 'a 1' > load-costs && chmod 666 load-costs",
		       "is writable by others (mode 0666)");
}

/* The file of 100,000 lines is written back small: what this run knows, not the junk. */
static void test_costs_rewritten(void)
{
	struct load_costs c;
	struct stat st;
	char p[512];

	read_costs("huge", &c);
	CHECK(load_costs__set(&c, "sample_bpf/on_cpu_sample", 335) == 0);
	path_of(p, sizeof(p), "huge/load-costs");
	CHECK(load_costs__write(&c, p) == 0);
	load_costs__free(&c);
	CHECK(stat(p, &st) == 0 && st.st_size < 100);
	CHECK(read_costs("huge", &c) == 0 && c.n == 1);
	CHECK(load_costs__get(&c, "sample_bpf/on_cpu_sample") == 335);
	load_costs__free(&c);
}

static void test_costs_of_another_user(void)
{
	struct load_costs c;

	costs_dir("theirs", "echo 'a 1' > load-costs && chown 65534 load-costs");
	CHECK(read_costs("theirs", &c) == 1 && strstr(said, "is owned by uid 65534"));
	CHECK(c.n == 0);
	load_costs__free(&c);
}

static void test_costs_parse(void)
{
	static const char text[] = "a/p 12\n"
				   "a/p 13\n"			/* the last one counts */
				   "b/q 18446744073709551615\n" /* UINT64_MAX */
				   "c/r 18446744073709551616\n" /* overflows: skipped */
				   "d/s -5\n"
				   " 7\n"
				   "e\tt 3\n"
				   "f/u 4 5\n"
				   "g/v 9"; /* no newline at the end */
	struct load_costs c = {0};
	char name[32], *many;
	size_t len = 0;

	CHECK(load_costs__parse(&c, text, sizeof(text) - 1) == 0);
	CHECK(c.n == 3);
	CHECK(load_costs__get(&c, "a/p") == 13);
	CHECK(load_costs__get(&c, "b/q") == UINT64_MAX);
	CHECK(load_costs__get(&c, "g/v") == 9);
	load_costs__free(&c);
	/* Names past the bound are not kept, and a long name is not one. */
	many = malloc(LOAD_COSTS_MAX * 2 * 16);
	for (int i = 0; many && i < LOAD_COSTS_MAX * 2; i++)
		len += sprintf(many + len, "n%d 1\n", i);
	CHECK(many && load_costs__parse(&c, many, len) == 0 && c.n == LOAD_COSTS_MAX);
	snprintf(name, sizeof(name), "n%d", LOAD_COSTS_MAX - 1);
	CHECK(load_costs__get(&c, name) == 1);
	CHECK(load_costs__set(&c, "new", 1) == -ENOSPC);
	load_costs__free(&c);
	free(many);
	memset(said, 'x', LOAD_COST_NAME_MAX + 1);
	said[LOAD_COST_NAME_MAX + 1] = '\0';
	CHECK(load_costs__set(&c, said, 1) == -EINVAL);
	load_costs__free(&c);
}

int main(void)
{
	if (!mkdtemp(tmp)) {
		printf("FAIL test_cache_dir: mkdtemp\n");
		return 1;
	}
	RUN_TEST(test_chain_made);
	if (geteuid() == 0)
		RUN_TEST(test_root_of_another_user);
	else
		SKIP_TEST(test_root_of_another_user, "chown needs root");
	RUN_TEST(test_root_is_link);
	RUN_TEST(test_inner_refused);
	RUN_TEST(test_costs_refused);
	RUN_TEST(test_costs_rewritten);
	if (geteuid() == 0)
		RUN_TEST(test_costs_of_another_user);
	else
		SKIP_TEST(test_costs_of_another_user, "chown needs root");
	RUN_TEST(test_costs_parse);
	run("rm -rf %s", tmp);
	HARNESS_EXIT();
}
