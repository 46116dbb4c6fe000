// SPDX-License-Identifier: Apache-2.0
/* The programs of bench/busyhost.sh. `late SECS`: a program a profiler meets after it has
 * started, built without frame pointers, sorting through libc's qsort (so a complete
 * stack needs the tables of the executable and libc): main > first_second > sort_round
 * > qsort > by_value for its first second, then the same under later, and it renames
 * itself busy_late_rest at the switch, so the folded stacks tell the two apart even when
 * a stack is cut. `hog`: spins forever, a CPU's worth of load. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#define NVALUES 4096

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline, noclone)) static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

__attribute__((noinline, noclone)) static void sort_round(uint64_t *v, uint64_t seed)
{
	for (int i = 0; i < NVALUES; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		v[i] = seed >> 17;
	}
	qsort(v, NVALUES, sizeof(*v), by_value);
	sink += v[NVALUES / 2];
}

__attribute__((noinline, noclone)) static void first_second(uint64_t *v, double until)
{
	for (uint64_t r = 1; now() < until; r++)
		sort_round(v, r);
}

__attribute__((noinline, noclone)) static void later(uint64_t *v, double until)
{
	for (uint64_t r = 1; now() < until; r++)
		sort_round(v, r * 7);
}

int main(int argc, char **argv)
{
	static uint64_t v[NVALUES];
	double start = now(), secs;

	if (argc > 1 && strcmp(argv[1], "hog") == 0) {
		for (uint64_t i = 0;; i++)
			sink += i;
	}
	if (argc < 3 || strcmp(argv[1], "late") != 0) {
		fprintf(stderr, "usage: %s late SECONDS | hog\n", argv[0]);
		return 2;
	}
	secs = atof(argv[2]);
	first_second(v, start + (secs < 1 ? secs : 1));
	prctl(PR_SET_NAME, "busy_late_rest");
	later(v, start + secs);
	return 0;
}
