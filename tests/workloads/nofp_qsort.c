// SPDX-License-Identifier: Apache-2.0
// cflags: -O2 -g -fomit-frame-pointer
/* No frame pointers anywhere: main -> sort_rounds -> qsort (libc) -> ... -> by_key, the
 * comparator, as leaf. Frame-pointer unwinding loses main here; CFI must not.
 * Usage: nofp_qsort SECONDS */
#include <stdlib.h>
#include <time.h>

#define N 4096

static int keys[N];

__attribute__((noinline)) int by_key(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	/* Some work per comparison, so the comparator is where the time goes. */
	for (int i = 0; i < 40; i++)
		x = (x * 1103515245 + 12345) ^ (y >> 3);
	return (*(const int *)a > y) - (*(const int *)a < y) + (x & 0);
}

__attribute__((noinline)) void sort_rounds(double end)
{
	struct timespec ts;

	do {
		for (int i = 0; i < N; i++)
			keys[i] = rand();
		qsort(keys, N, sizeof(keys[0]), by_key);
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
}

/* nofp_maps.c includes this file for the work, with a main of its own. */
#ifndef NOFP_QSORT_NO_MAIN
int main(int argc, char **argv)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	sort_rounds(ts.tv_sec + ts.tv_nsec / 1e9 + (argc > 1 ? atof(argv[1]) : 2));
	return 0;
}
#endif
