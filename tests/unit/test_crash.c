// SPDX-License-Identifier: Apache-2.0
/* Unit tests of the crash reporter, each in a child process whose stderr is read back:
 * a fault on the main thread, a stack overflow on the main thread and on a thread from
 * crash__thread_create (even one that inherits every signal blocked) are reported and
 * still kill with their signal; a thread from a
 * plain pthread_create that overflows dies unreported (why every thread needs its own
 * alternate stack). */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "util/crash.h"

static volatile int depth_limit = 1 << 30;
static int *volatile bad_address = (int *)16;

/* Deep enough to overflow any stack; the volatile limit keeps it finite for the
 * compiler, the padding keeps each frame on the stack. */
static int __attribute__((noinline)) recurse(int n)
{
	volatile char pad[1024];

	pad[n % 1024] = (char)n;
	if (n >= depth_limit)
		return pad[0];
	return recurse(n + 1) + pad[n % 1024];
}

static void *overflow_thread(void *arg)
{
	recurse(0);
	return arg;
}

enum how { FAULT, MAIN_OVERFLOW, THREAD_OVERFLOW, BLOCKED_THREAD_OVERFLOW, PLAIN_THREAD_OVERFLOW };

static void crash(enum how how)
{
	struct rlimit small = {1 << 20, 1 << 20}, no_core = {0, 0};
	sigset_t all;
	pthread_t t;

	setrlimit(RLIMIT_CORE, &no_core);
	crash__install();
	switch (how) {
	case FAULT:
		*bad_address = 1;
		break;
	case MAIN_OVERFLOW:
		setrlimit(RLIMIT_STACK, &small);
		recurse(0);
		break;
	case THREAD_OVERFLOW:
		if (crash__thread_create(&t, overflow_thread, NULL) == 0)
			pthread_join(t, NULL);
		break;
	case BLOCKED_THREAD_OVERFLOW:
		/* As the OTLP sender starts: every signal blocked in the thread it inherits. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, NULL);
		if (crash__thread_create(&t, overflow_thread, NULL) == 0)
			pthread_join(t, NULL);
		break;
	case PLAIN_THREAD_OVERFLOW:
		if (pthread_create(&t, NULL, overflow_thread, NULL) == 0)
			pthread_join(t, NULL);
		break;
	}
	_exit(0);
}

/* Runs crash(how) in a child; returns its wait status, its stderr in out. */
static int run(enum how how, char *out, size_t cap)
{
	int fd[2], status = 0;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	out[0] = '\0';
	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], STDERR_FILENO);
		crash(how);
	}
	close(fd[1]);
	while (len + 1 < cap && (n = read(fd[0], out + len, cap - 1 - len)) > 0)
		len += n;
	out[len] = '\0';
	close(fd[0]);
	waitpid(pid, &status, 0);
	return status;
}

static int killed_by(int status, int sig)
{
	return WIFSIGNALED(status) && WTERMSIG(status) == sig;
}

static void test_fault_reported(void)
{
	char out[8192];
	int st = run(FAULT, out, sizeof(out));

	CHECK(killed_by(st, SIGSEGV));
	CHECK(strstr(out, "ebprof: crashed: SIGSEGV at address 0x10 ") != NULL);
	/* The backtrace goes through this test's crash(). */
	CHECK(strstr(out, "test_crash(") != NULL);
}

static void test_main_overflow_reported(void)
{
	char out[8192];
	int st = run(MAIN_OVERFLOW, out, sizeof(out));

	CHECK(killed_by(st, SIGSEGV));
	CHECK(strstr(out, "ebprof: crashed: SIGSEGV") != NULL);
}

static void test_thread_overflow_reported(void)
{
	char out[8192];
	int st = run(THREAD_OVERFLOW, out, sizeof(out));

	CHECK(killed_by(st, SIGSEGV));
	CHECK(strstr(out, "ebprof: crashed: SIGSEGV") != NULL);
}

static void test_blocked_thread_overflow_reported(void)
{
	char out[8192];
	int st = run(BLOCKED_THREAD_OVERFLOW, out, sizeof(out));

	CHECK(killed_by(st, SIGSEGV));
	CHECK(strstr(out, "ebprof: crashed: SIGSEGV") != NULL);
}

static void test_plain_thread_overflow_silent(void)
{
	char out[8192];
	int st = run(PLAIN_THREAD_OVERFLOW, out, sizeof(out));

	CHECK(killed_by(st, SIGSEGV));
	CHECK(strstr(out, "crashed") == NULL);
}

int main(void)
{
	RUN_TEST(test_fault_reported);
	RUN_TEST(test_main_overflow_reported);
	RUN_TEST(test_thread_overflow_reported);
	RUN_TEST(test_blocked_thread_overflow_reported);
	RUN_TEST(test_plain_thread_overflow_silent);
	HARNESS_EXIT();
}
