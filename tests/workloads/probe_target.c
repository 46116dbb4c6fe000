// SPDX-License-Identifier: Apache-2.0
// cflags: -O2 -g -fomit-frame-pointer
/* A known number of calls for the probe tests: WARMUPS (1) warm-up calls main ->
 * probe_leaf spread over DELAY ms, then main -> probe_outer -> probe_leaf CALLS times,
 * then FORKS forks (for a
 * sched_process_fork tracepoint), and one USDT probe hit per call (ebprof:tick) when
 * <sys/sdt.h> is there. Built without frame pointers, so the stacks come from the CFI
 * unwinder, whose tables of this binary and its libraries `record -- CMD` builds before
 * it runs; the warm-up call shows what a process's first event gets, and the warm-ups
 * keep the counted calls clear of what a file's first sight costs on an overlay root:
 * each file of the stack one notice, which a walk reaches only once the files below it
 * are known, so one warm-up for each, apart.
 * Usage: probe_target CALLS FORKS [DELAY_MS [WARMUPS]] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#if __has_include(<sys/sdt.h>)
#include <sys/sdt.h>
#else
#define DTRACE_PROBE1(p, n, a) ((void)(a))
#endif

volatile unsigned long sink;

__attribute__((noinline)) void probe_leaf(unsigned long i)
{
	sink += i * 7;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void probe_outer(unsigned long i)
{
	probe_leaf(i);
	DTRACE_PROBE1(ebprof, tick, i);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	unsigned long calls = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
	unsigned long forks = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	unsigned long delay = argc > 3 ? strtoul(argv[3], NULL, 0) : 0;
	unsigned long warmups = argc > 4 ? strtoul(argv[4], NULL, 0) : 1;

	for (unsigned long i = 0; i < warmups; i++) {
		probe_leaf(0);
		usleep(delay * 1000 / warmups);
	}

	for (unsigned long i = 0; i < calls; i++)
		probe_outer(i);
	for (unsigned long i = 0; i < forks; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	printf("%lu\n", sink);
	return 0;
}
