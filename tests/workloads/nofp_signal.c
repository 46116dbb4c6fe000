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

/* The handler's work, also timed once outside it. */
#define SPIN()                                              \
	do {                                                \
		for (unsigned long i = 0; i < 2000000; i++) \
			sink += i ^ (sink >> 3);            \
	} while (0)

__attribute__((noinline)) void handler_leaf(void)
{
	SPIN();
}

__attribute__((noinline)) void in_handler(int sig)
{
	handler_leaf();
	sink += sig;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The CPU time of one handler's work, in microseconds. */
__attribute__((noinline)) long spin_cost_us(void)
{
	double t = cpu_now();

	SPIN();
	return (long)((cpu_now() - t) * 1e6);
}

/* The timer fires every twice the handler's cost (at least 2 ms of CPU time), so the
 * handler takes about half of it and interrupted_work the rest on a machine of any
 * speed; with a fixed period shorter than the handler (an emulated guest) the signal
 * would always be pending and the program never get past its first instruction. */
__attribute__((noinline)) void interrupted_work(double end)
{
	long us = 2 * spin_cost_us();
	struct itimerval it;
	struct timespec ts;

	if (us < 2000)
		us = 2000;
	it.it_interval.tv_sec = it.it_value.tv_sec = us / 1000000;
	it.it_interval.tv_usec = it.it_value.tv_usec = us % 1000000;
	setitimer(ITIMER_PROF, &it, NULL);
	do {
		for (int i = 0; i < 100000; i++)
			sink += i;
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
	/* Not during exit: a handler run from exit's own code is no chain through main, and
	 * in an emulated guest exit is slow enough to take a few dozen samples. */
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_PROF, &it, NULL);
	signal(SIGPROF, SIG_IGN);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	struct timespec ts;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = in_handler;
	sigaction(SIGPROF, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	interrupted_work(ts.tv_sec + ts.tv_nsec / 1e9 + (argc > 1 ? atof(argv[1]) : 2));
	return 0;
}
