// SPDX-License-Identifier: Apache-2.0
/* Fixed CPU-bound workload for bench/run.sh: THREADS threads each run ITERATIONS steps of an
 * LCG feeding a multiply-xorshift hash, pure ALU work with no memory traffic or syscalls, and
 * report the job's throughput per wall-clock second and per CPU-second its threads were
 * charged. The same arguments always do the same work. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_THREADS 256

struct worker {
	pthread_t thread;
	uint64_t seed;
	uint64_t iterations;
	uint64_t result;
	double cpu_s;
};

static double clock_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One step is a 64-bit LCG (Knuth's MMIX constants) whose output is folded into a
 * hash with a multiply and two xor-shifts; the loop-carried dependency keeps the
 * compiler from vectorizing or skipping it. */
static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t x = w->seed, h = 0xcbf29ce484222325ULL;

	for (uint64_t i = 0; i < w->iterations; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		h ^= x >> 29;
		h *= 0x100000001b3ULL;
		h ^= h >> 32;
	}
	w->result = h;
	/* The thread's CPU time includes the interrupts it was charged with (the kernel's
	 * share of sampling it, unless the kernel accounts IRQ time apart). */
	w->cpu_s = clock_s(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

/* Returns the value of a positive decimal argument, or 0 when it is not one. */
static uint64_t parse_count(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-')
		return 0;
	return v;
}

static int usage(void)
{
	fprintf(stderr, "usage: cpu_work ITERATIONS [THREADS]\n"
			"  runs THREADS (default 2) threads of ITERATIONS steps each and prints\n"
			"  the job's throughput in iterations per second and per CPU-second\n"
			"example: cpu_work 1000000000 2\n");
	return 2;
}

int main(int argc, char **argv)
{
	static struct worker w[MAX_THREADS];
	uint64_t iterations, threads = 2, checksum = 0;
	double start, secs, cpu_s = 0;

	if (argc < 2 || argc > 3)
		return usage();
	iterations = parse_count(argv[1]);
	if (argc == 3)
		threads = parse_count(argv[2]);
	if (!iterations || !threads || threads > MAX_THREADS)
		return usage();

	start = clock_s(CLOCK_MONOTONIC);
	for (uint64_t t = 0; t < threads; t++) {
		w[t].seed = t + 1;
		w[t].iterations = iterations;
		if (pthread_create(&w[t].thread, NULL, work, &w[t])) {
			fprintf(stderr, "cpu_work: pthread_create failed\n");
			return 1;
		}
	}
	for (uint64_t t = 0; t < threads; t++) {
		pthread_join(w[t].thread, NULL);
		checksum ^= w[t].result;
		cpu_s += w[t].cpu_s;
	}
	secs = clock_s(CLOCK_MONOTONIC) - start;
	printf("cpu_work: %" PRIu64 " threads x %" PRIu64 " iterations in %.3f s wall, %.3f s "
	       "CPU: %.0f iterations/s, %.0f iterations/CPU-s (checksum %016" PRIx64 ")\n",
	       threads, iterations, secs, cpu_s, threads * iterations / secs,
	       threads * iterations / cpu_s, checksum);
	return 0;
}
