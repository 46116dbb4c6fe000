// SPDX-License-Identifier: Apache-2.0
/* Unit tests for util/mapguard: a read of a mapping past its file's new end, in a guarded
 * section, reads zeros and is reported to the section's owner; outside a section it is
 * SIGBUS as before, with crash__install's handler (which reports it) or without one. Each
 * case runs in a child, whose death by a signal is the evidence. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "util/crash.h"
#include "util/mapguard.h"

#define PAGES 4

static char path[] = "/tmp/test_mapguard.XXXXXX";

/* A file of PAGES pages of 'x', mapped; then truncated to one page. Returns the mapping. */
static volatile char *map_then_truncate(void)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = mkstemp(path);
	char *buf = malloc(page * PAGES), *m;

	if (fd < 0 || !buf)
		_exit(90);
	memset(buf, 'x', page * PAGES);
	if (write(fd, buf, page * PAGES) != page * PAGES)
		_exit(91);
	m = mmap(NULL, page * PAGES, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED || m[2 * page] != 'x' || ftruncate(fd, page))
		_exit(92);
	close(fd);
	unlink(path);
	free(buf);
	return m;
}

/* The guarded read: zeros past the end, the first page still the file's, the fault
 * reported to the section and counted; nested sections see it too. */
static void guarded(void)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *m = map_then_truncate();
	unsigned int outer = mapguard__begin(), inner = mapguard__begin();
	char past = m[2 * page], first = m[0];
	bool inner_saw = mapguard__end(inner), outer_saw = mapguard__end(outer);

	if (past != 0 || first != 'x')
		_exit(10);
	if (!inner_saw || !outer_saw || mapguard__faults() != 1)
		_exit(11);
	outer = mapguard__begin();
	past = m[3 * page] + m[2 * page]; /* one more page missing; the other mapped now */
	if (!mapguard__end(outer) || mapguard__faults() != 2 || past)
		_exit(12);
	outer = mapguard__begin();
	past = m[2 * page];
	if (mapguard__end(outer)) /* nothing new faulted */
		_exit(13);
	_exit(0);
}

static void unguarded(void)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *m = map_then_truncate();
	unsigned int guard = mapguard__begin();

	mapguard__end(guard); /* the handler is installed, the section over */
	_exit(m[2 * page] == 'x' ? 20 : 21);
}

/* Runs fn in a child; returns its wait status, its stderr in err (len bytes). */
static int in_child(void (*fn)(void), bool with_crash_handler, char *err, size_t len)
{
	int status = -1, pipefd[2];
	ssize_t n = 0, got;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], STDERR_FILENO);
		close(pipefd[0]);
		if (with_crash_handler)
			crash__install();
		fn();
	}
	close(pipefd[1]);
	while (pid > 0 && n < (ssize_t)len - 1 && (got = read(pipefd[0], err + n, len - 1 - n)) > 0)
		n += got;
	err[n] = '\0';
	close(pipefd[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return status;
}

static void test_guarded_read(void)
{
	char err[4096];
	int st = in_child(guarded, false, err, sizeof(err));

	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fprintf(stderr, "  status %#x\n", st);
	st = in_child(guarded, true, err, sizeof(err));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(!strstr(err, "crashed"));
}

static void test_unguarded_read_is_fatal(void)
{
	char err[4096];
	int st = in_child(unguarded, false, err, sizeof(err));

	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS);
	st = in_child(unguarded, true, err, sizeof(err));
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS);
	CHECK(strstr(err, "ebprof: crashed: SIGBUS") != NULL);
}

int main(void)
{
	RUN_TEST(test_guarded_read);
	RUN_TEST(test_unguarded_read_is_fatal);
	HARNESS_EXIT();
}
