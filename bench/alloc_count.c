// SPDX-License-Identifier: Apache-2.0
/* A fixed number of malloc(64)/free pairs, for counting the allocation sampler's
 * instructions under callgrind (bench/footprint.sh): run with N and 2N iterations, with
 * and without libebprof-alloc.so preloaded; the difference over N is one iteration. */
#include <stdlib.h>

static void *volatile sink;

__attribute__((noinline)) static void alloc_site(void)
{
	void *p = malloc(64);

	sink = p;
	free(p);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;

	for (long i = 0; i < n; i++)
		alloc_site();
	return 0;
}
