// SPDX-License-Identifier: Apache-2.0
/* Unit test of proc_table__prune, what keeps a days-long agent's descriptors bounded:
 * a child running its own copy of an executable is described (its files opened); once
 * it has exited, pruning forgets it and closes the copy, while files this process
 * still maps (libc) stay open. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "proc/proc.h"

static struct file_entry *find_file(struct file_table *f, const char *suffix)
{
	size_t n = strlen(suffix);

	for (uint32_t id = 1; id <= f->count; id++) {
		struct file_entry *e = file_table__get(f, id);
		size_t len = e && e->path ? strlen(e->path) : 0;

		if (len >= n && !strcmp(e->path + len - n, suffix))
			return e;
	}
	return NULL;
}

static void test_prune(void)
{
	char exe[] = "/tmp/ebprof-prune-XXXXXX";
	struct proc_prune_stats st = {0};
	struct proc_mapping *maps = NULL;
	struct file_table files;
	struct proc_table procs;
	struct file_entry *mine, *libc;
	char cmd[256];
	pid_t child;
	int fd = mkstemp(exe);

	CHECK(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "cp /bin/sleep %s && chmod +x %s", exe, exe);
	CHECK(system(cmd) == 0);
	child = fork();
	if (child == 0) {
		execl(exe, exe, "30", (char *)NULL);
		_exit(127);
	}
	usleep(300000);
	file_table__init(&files);
	proc_table__init(&procs, &files);
	CHECK(proc_table__snapshot(&procs, child, 1, &maps) > 0);
	free(maps);
	CHECK(proc_table__snapshot(&procs, getpid(), 1, &maps) > 0);
	free(maps);
	mine = find_file(&files, exe + 4); /* "/ebprof-prune-..." */
	libc = find_file(&files, "libc.so.6");
	CHECK(mine && mine->fd >= 0);
	CHECK(libc && libc->fd >= 0);

	/* Alive: nothing to let go. */
	proc_table__prune(&procs, &st);
	CHECK(st.procs == 0 && st.files == 0);
	CHECK(mine && mine->fd >= 0);

	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	/* The first prune after the exit forgets the process and keeps its files one
	 * interval more (a program run again maps them again); the next lets them go. */
	proc_table__prune(&procs, &st);
	CHECK(st.procs == 1);
	CHECK(st.files == 0);
	CHECK(mine && mine->fd >= 0);
	proc_table__prune(&procs, &st);
	CHECK(st.files >= 1);
	CHECK(mine && mine->fd < 0 && !mine->syms);
	CHECK(libc && libc->fd >= 0); /* still mapped by this process */

	proc_table__free(&procs);
	file_table__free(&files);
	unlink(exe);
}

int main(void)
{
	RUN_TEST(test_prune);
	HARNESS_EXIT();
}
