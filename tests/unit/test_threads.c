// SPDX-License-Identifier: Apache-2.0
/* Unit tests for proc/threads against this process's own threads: one named "blocked"
 * waits in read() on a pipe and must read as sleeping in read on that descriptor, with
 * a kernel stack when /proc lets us read it; the list holds it and the main thread; the
 * main thread runs; a thread or process that is gone reads as -ESRCH; the generated
 * syscall table names read and knows nothing of a negative or huge number. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness.h"
#include "proc/threads.h"

static int fds[2];
static volatile pid_t blocked_tid;

static void *blocked(void *arg)
{
	char c;

	pthread_setname_np(pthread_self(), "blocked");
	blocked_tid = (pid_t)syscall(SYS_gettid);
	return read(fds[0], &c, 1) == 1 ? NULL : arg;
}

/* Waits until the thread is asleep in its read: /proc shows 'S' and a syscall. */
static int wait_asleep(struct thread_info *t)
{
	for (int i = 0; i < 2000; i++) {
		if (!thread_info__read((uint32_t)getpid(), (uint32_t)blocked_tid, t) &&
		    t->state == 'S' && t->syscall == SYS_read)
			return 0;
		thread_info__free(t);
		usleep(1000);
	}
	return -1;
}

static void test_blocked_thread(void)
{
	struct thread_info t = {0};
	uint32_t *tids = NULL;
	pthread_t th;
	int n;

	CHECK(pipe(fds) == 0);
	CHECK(pthread_create(&th, NULL, blocked, NULL) == 0);
	while (!blocked_tid)
		usleep(100);
	CHECK(wait_asleep(&t) == 0);
	CHECK(strcmp(t.name, "blocked") == 0);
	CHECK(t.arg0 == (uint64_t)fds[0]);
	CHECK(strcmp(thread_state_name(t.state), "sleeping") == 0);
	/* Root reads kernel stacks; others get EACCES, said once by the caller. */
	CHECK(t.nkstack > 0 || t.kstack_err == EACCES || t.kstack_err == ENOENT);
	if (t.nkstack)
		CHECK(strchr(t.kstack[0], '+') == NULL && strchr(t.kstack[0], ' ') == NULL);
	thread_info__free(&t);
	n = threads__list((uint32_t)getpid(), &tids);
	CHECK(n == 2);
	CHECK(n == 2 && tids[0] == (uint32_t)getpid() && tids[1] == (uint32_t)blocked_tid);
	free(tids);
	CHECK(write(fds[1], "x", 1) == 1);
	pthread_join(th, NULL);
	CHECK(thread_info__read((uint32_t)getpid(), (uint32_t)blocked_tid, &t) == -ESRCH);
	close(fds[0]);
	close(fds[1]);
}

static void test_running_and_gone(void)
{
	struct thread_info t;
	uint32_t *tids;

	CHECK(thread_info__read((uint32_t)getpid(), (uint32_t)getpid(), &t) == 0);
	/* The reader reads its own file: it runs, in that read. */
	CHECK(t.state == 'R' && t.syscall == SYS_read);
	thread_info__free(&t);
	CHECK(threads__list(0x7fffffff, &tids) == -ESRCH);
}

static void test_syscall_names(void)
{
	CHECK(syscall_name(SYS_read) && strcmp(syscall_name(SYS_read), "read") == 0);
	CHECK(syscall_name(SYS_futex) && strcmp(syscall_name(SYS_futex), "futex") == 0);
	CHECK(syscall_name(-1) == NULL);
	CHECK(syscall_name(1L << 20) == NULL);
	CHECK(strcmp(thread_state_name('D'), "disk sleep") == 0);
	CHECK(strcmp(thread_state_name('?'), "unknown") == 0);
}

int main(void)
{
	RUN_TEST(test_blocked_thread);
	RUN_TEST(test_running_and_gone);
	RUN_TEST(test_syscall_names);
	HARNESS_EXIT();
}
