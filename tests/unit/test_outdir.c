// SPDX-License-Identifier: Apache-2.0
/* record's output directory: a second recording into it removes the files the first
 * wrote and it did not (a probe's, say), keeps its own and everything it never wrote,
 * and a hostile list cannot make it remove anything outside the directory. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/outdir.h"
#include "harness.h"

static char root[64];

static void touch(const char *dir, const char *name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
}

static bool exists(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* One recording: writes names[] (NULL-terminated) into dir. */
static int record(const char *dir, const char *const *names)
{
	struct outdir od;
	int removed;

	CHECK(outdir__prepare(&od, dir) == 0);
	for (; *names; names++) {
		touch(dir, *names);
		CHECK(outdir__wrote(&od, *names) == 0);
	}
	removed = outdir__finish(&od);
	outdir__free(&od);
	return removed;
}

static void test_rerun_removes_what_it_did_not_write(void)
{
	char dir[128];
	const char *first[] = {"profile.pb.gz", "stacks.folded", "profile.uprobe-f.pb.gz",
			       "stacks.uprobe-f.folded", NULL};
	const char *second[] = {"profile.pb.gz", "stacks.folded", NULL};

	snprintf(dir, sizeof(dir), "%s/out/nested", root);
	CHECK(record(dir, first) == 0); /* made the directories; nothing to remove */
	touch(dir, "notes.txt");	/* the user's */
	CHECK(record(dir, second) == 2);
	CHECK(exists(dir, "profile.pb.gz"));
	CHECK(exists(dir, "stacks.folded"));
	CHECK(!exists(dir, "profile.uprobe-f.pb.gz"));
	CHECK(!exists(dir, "stacks.uprobe-f.folded"));
	CHECK(exists(dir, "notes.txt"));
	CHECK(exists(dir, OUTDIR_LIST));
	CHECK(record(dir, second) == 0);
}

static void test_hostile_list_stays_inside(void)
{
	char dir[128], victim[128], path[256];
	const char *none[] = {NULL};
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/hostile", root);
	snprintf(victim, sizeof(victim), "%s/victim", root);
	CHECK(mkdir(dir, 0755) == 0);
	touch(root, "victim");
	touch(dir, ".hidden");
	snprintf(path, sizeof(path), "%s/%s", dir, OUTDIR_LIST);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "../victim\n%s\n.hidden\n\n%s\n", victim, OUTDIR_LIST);
	fclose(f);
	CHECK(record(dir, none) == 0);
	CHECK(exists(root, "victim"));
	CHECK(exists(dir, ".hidden"));
}

static void test_unwritable_directory_refused(void)
{
	struct outdir od;
	char dir[128];

	snprintf(dir, sizeof(dir), "%s/victim/sub", root); /* victim is a file */
	CHECK(outdir__prepare(&od, dir) < 0);
	outdir__free(&od);
}

int main(void)
{
	char cmd[128];

	snprintf(root, sizeof(root), "/tmp/ebprof-outdir.XXXXXX");
	if (!mkdtemp(root))
		return 1;
	RUN_TEST(test_rerun_removes_what_it_did_not_write);
	RUN_TEST(test_hostile_list_stays_inside);
	RUN_TEST(test_unwritable_directory_refused);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		return 1;
	HARNESS_EXIT();
}
