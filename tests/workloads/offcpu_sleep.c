// SPDX-License-Identifier: Apache-2.0
// cflags: -O2 -g -fomit-frame-pointer -pthread -D_GNU_SOURCE
// ldflags: -pthread
/* Known off-CPU time: one thread sleeps in nanosleep (sleeper_wait) and another blocks
 * in read() on a pipe (reader_wait) that main writes to after each interval, ROUNDS
 * times MS milliseconds each, so each waits about ROUNDS x MS ms in one known place.
 * Halfway through each sleep main moves the sleeper to the other CPU, so it blocks on
 * one CPU and wakes on another (the case per-CPU bookkeeping gets wrong); at the end it
 * prints how many of its sleeps ended on another CPU than they began.
 * The threads start after DELAY ms: ebprof describes a new process asynchronously.
 * Each thread also times its own waits (what a loaded host adds, the wait to run again
 * after waking, included) and prints the totals: "sleeper_ns N", "reader_ns N".
 * Usage: offcpu_sleep ROUNDS MS [DELAY_MS] */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static unsigned long rounds, ms;
static int pipe_fds[2];
static volatile pid_t sleeper_tid;
static volatile int sleeper_cpu; /* where the sleeper went to sleep */
static unsigned long migrated;
static unsigned long long sleeper_ns, reader_ns; /* each thread's own waits, timed */

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

static void sleep_ns(unsigned long ns)
{
	struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = (long)(ns % 1000000000)};

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) void sleeper_wait(void)
{
	int before = sched_getcpu();
	unsigned long long t0;

	sleeper_cpu = before;
	t0 = now_ns();
	sleep_ns(ms * 1000000);
	sleeper_ns += now_ns() - t0;
	migrated += sched_getcpu() != before;
	__asm__ volatile("" ::: "memory");
}

static void *sleeper_main(void *arg)
{
	sleeper_tid = (pid_t)syscall(SYS_gettid);
	for (unsigned long i = 0; i < rounds; i++)
		sleeper_wait();
	return arg;
}

__attribute__((noinline)) void reader_wait(void)
{
	unsigned long long t0 = now_ns();
	char c;

	if (read(pipe_fds[0], &c, 1) != 1)
		abort();
	reader_ns += now_ns() - t0;
	__asm__ volatile("" ::: "memory");
}

static void *reader_main(void *arg)
{
	for (unsigned long i = 0; i < rounds; i++)
		reader_wait();
	return arg;
}

/* Pins the sleeping thread to the CPU it is not on: it wakes up there. */
static void move_sleeper(void)
{
	cpu_set_t all, to;
	int n = 0, cpus[2];

	if (sched_getaffinity(0, sizeof(all), &all))
		return;
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++) {
		if (CPU_ISSET(c, &all))
			cpus[n++] = c;
	}
	if (n < 2 || !sleeper_tid)
		return;
	CPU_ZERO(&to);
	CPU_SET(sleeper_cpu == cpus[0] ? cpus[1] : cpus[0], &to);
	sched_setaffinity(sleeper_tid, sizeof(to), &to);
}

int main(int argc, char **argv)
{
	pthread_t sleeper, reader;

	rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 10;
	ms = argc > 2 ? strtoul(argv[2], NULL, 0) : 100;
	usleep((argc > 3 ? strtoul(argv[3], NULL, 0) : 0) * 1000);
	if (pipe(pipe_fds))
		return 1;
	pthread_create(&sleeper, NULL, sleeper_main, NULL);
	pthread_create(&reader, NULL, reader_main, NULL);
	for (unsigned long i = 0; i < rounds; i++) {
		sleep_ns(ms * 500000);
		move_sleeper();
		sleep_ns(ms * 500000);
		if (write(pipe_fds[1], "x", 1) != 1)
			return 1;
	}
	pthread_join(sleeper, NULL);
	pthread_join(reader, NULL);
	printf("migrated %lu\nsleeper_ns %llu\nreader_ns %llu\n", migrated, sleeper_ns, reader_ns);
	return 0;
}
