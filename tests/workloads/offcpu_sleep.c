// SPDX-License-Identifier: Apache-2.0
// cflags: -O2 -g -fomit-frame-pointer -pthread
// ldflags: -pthread
/* Known off-CPU time: one thread sleeps in nanosleep (sleeper_wait) and another blocks
 * in read() on a pipe (reader_wait) that main writes to after each interval, ROUNDS
 * times MS milliseconds each, so each waits about ROUNDS x MS ms in one known place.
 * The threads start after DELAY ms: ebprof describes a new process asynchronously.
 * Usage: offcpu_sleep ROUNDS MS [DELAY_MS] */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static unsigned long rounds, ms;
static int pipe_fds[2];

__attribute__((noinline)) void sleeper_wait(void)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
	__asm__ volatile("" ::: "memory");
}

static void *sleeper_main(void *arg)
{
	for (unsigned long i = 0; i < rounds; i++)
		sleeper_wait();
	return arg;
}

__attribute__((noinline)) void reader_wait(void)
{
	char c;

	if (read(pipe_fds[0], &c, 1) != 1)
		abort();
	__asm__ volatile("" ::: "memory");
}

static void *reader_main(void *arg)
{
	for (unsigned long i = 0; i < rounds; i++)
		reader_wait();
	return arg;
}

int main(int argc, char **argv)
{
	struct timespec ts;
	pthread_t sleeper, reader;

	rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 10;
	ms = argc > 2 ? strtoul(argv[2], NULL, 0) : 100;
	usleep((argc > 3 ? strtoul(argv[3], NULL, 0) : 0) * 1000);
	ts = (struct timespec){.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};
	if (pipe(pipe_fds))
		return 1;
	pthread_create(&sleeper, NULL, sleeper_main, NULL);
	pthread_create(&reader, NULL, reader_main, NULL);
	for (unsigned long i = 0; i < rounds; i++) {
		nanosleep(&ts, NULL);
		if (write(pipe_fds[1], "x", 1) != 1)
			return 1;
	}
	pthread_join(sleeper, NULL);
	pthread_join(reader, NULL);
	return 0;
}
