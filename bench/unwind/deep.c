// SPDX-License-Identifier: Apache-2.0
/* Workload of controlled stack depth for bench/unwind.sh: main recurses until the leaf's
 * user stack is FRAMES frames deep (_start, __libc_start_main, __libc_start_call_main and
 * main, then descend() FRAMES - 5 times, then spin()), and spins there for SECONDS. With
 * PROCS > 1 it forks first, so that every CPU can run one copy of the same stack.
 * Build: cc -O2 -fomit-frame-pointer -fno-optimize-sibling-calls deep.c -o deep
 * Usage: deep FRAMES SECONDS [PROCS] */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define FRAMES_OUTSIDE 5 /* _start, __libc_start_main, __libc_start_call_main, main, spin */
#define MAX_FRAMES 100000
#define MAX_PROCS 256

static volatile sig_atomic_t stop;
static volatile unsigned long sink;

static void on_alarm(int sig)
{
	(void)sig;
	stop = 1;
}

/* The leaf: all the time is spent here, in user mode, with no call below it. noipa (no
 * inlining, cloning or interprocedural shortcuts) keeps it a frame of its own. */
__attribute__((noipa)) static unsigned long spin(void)
{
	while (!stop)
		sink = sink * 2862933555777941757ul + 3037000493ul;
	return sink;
}

/* One frame per level. The work after the call keeps it from being a tail call (and the
 * build adds -fno-optimize-sibling-calls), so the compiler can neither reuse the frame
 * nor turn the recursion into a loop. */
/* descend(n) puts n + 1 frames on the stack: itself at n, n - 1, ..., 0. */
__attribute__((noipa)) static unsigned long descend(unsigned int n)
{
	unsigned long r;

	if (!n)
		return spin();
	r = descend(n - 1);
	__asm__ volatile("" : "+r"(r)); /* opaque: the addition below stays after the call */
	return r + n;
}

static int parse(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || end == s || *end || *out < lo || *out > hi ? -1 : 0;
}

/* Forks procs - 1 copies; returns how many were started (the caller is the last). */
static unsigned long start_copies(unsigned long procs)
{
	unsigned long i;

	for (i = 0; i + 1 < procs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("deep: fork");
			break;
		}
		if (!pid)
			return 0; /* a copy: forks nothing more */
	}
	return i;
}

int main(int argc, char **argv)
{
	unsigned long frames, secs, procs = 1, copies;
	struct sigaction sa;

	if (argc < 3 || argc > 4 || parse(argv[1], FRAMES_OUTSIDE + 1, MAX_FRAMES, &frames) ||
	    parse(argv[2], 1, 86400, &secs) ||
	    (argc == 4 && parse(argv[3], 1, MAX_PROCS, &procs))) {
		fprintf(stderr,
			"usage: deep FRAMES SECONDS [PROCS]   (FRAMES >= %d)\n"
			"  e.g. deep 64 10 2: two processes whose leaf is 64 user frames deep\n",
			FRAMES_OUTSIDE + 1);
		return 2;
	}
	copies = start_copies(procs);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	alarm((unsigned int)secs); /* alarms are not inherited: every copy sets its own */
	descend((unsigned int)(frames - FRAMES_OUTSIDE - 1));
	while (copies--)
		wait(NULL);
	return 0;
}
