// SPDX-License-Identifier: Apache-2.0
/* Benchmark victim for allocation profiling: malloc(64) and free in a tight loop for the
 * given seconds, then prints "iterations_per_second N". The allocation happens in
 * victim_alloc_site, so a profile can be checked for naming it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void *volatile sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void victim_alloc_site(void)
{
	void *p = malloc(64);

	sink = p;
	free(p);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2, start = now(), end = start;
	uint64_t n = 0;

	while (end - start < seconds) {
		for (int i = 0; i < 65536; i++)
			victim_alloc_site();
		n += 65536;
		end = now();
	}
	printf("iterations_per_second %.0f\n", n / (end - start));
	return 0;
}
