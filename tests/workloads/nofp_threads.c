// SPDX-License-Identifier: Apache-2.0
// cflags: -O2 -g -fomit-frame-pointer -pthread
/* Threads without frame pointers: each runs thread_main -> thread_work -> thread_leaf,
 * started by libc's start_thread; the stacks must reach thread start.
 * Usage: nofp_threads SECONDS */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;
static double end_time;

__attribute__((noinline)) void thread_leaf(void)
{
	for (int i = 0; i < 100000; i++)
		sink += i * 3;
}

__attribute__((noinline)) void thread_work(void)
{
	struct timespec ts;

	do {
		thread_leaf();
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end_time);
}

__attribute__((noinline)) void *thread_main(void *arg)
{
	thread_work();
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[3];
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end_time = ts.tv_sec + ts.tv_nsec / 1e9 + (argc > 1 ? atof(argv[1]) : 2);
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, thread_main, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}
