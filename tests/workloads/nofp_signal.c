// SPDX-License-Identifier: Apache-2.0
// cflags: -O2 -g -fomit-frame-pointer
/* A leaf inside a signal handler: main -> interrupted_work, and a SIGPROF handler
 * (in_handler -> handler_leaf) that runs on top of it, so a sample there must continue
 * through the kernel's signal frame (__restore_rt) into interrupted_work and main.
 * Usage: nofp_signal SECONDS */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void handler_leaf(void)
{
	for (unsigned long i = 0; i < 2000000; i++)
		sink += i ^ (sink >> 3);
}

__attribute__((noinline)) void in_handler(int sig)
{
	handler_leaf();
	sink += sig;
}

__attribute__((noinline)) void interrupted_work(double end)
{
	struct timespec ts;

	do {
		for (int i = 0; i < 100000; i++)
			sink += i;
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
}

int main(int argc, char **argv)
{
	struct itimerval it = {{0, 2000}, {0, 2000}}; /* every 2 ms of CPU time */
	struct sigaction sa;
	struct timespec ts;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = in_handler;
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	interrupted_work(ts.tv_sec + ts.tv_nsec / 1e9 + (argc > 1 ? atof(argv[1]) : 2));
	return 0;
}
