// SPDX-License-Identifier: Apache-2.0
// cflags: -O2 -g -fomit-frame-pointer
/* A process of many mappings: 20,000 small anonymous regions of alternating protection
 * (which the kernel cannot merge), mapped before the work and between its code and the
 * stack, so the kernel's tree of VMAs is several levels deep (the walker finds each pc's
 * VMA in it, tests/kernel/unwind.sh). The work is nofp_qsort's: main -> sort_rounds ->
 * qsort (libc) -> ... -> by_key, without frame pointers.
 * Usage: nofp_maps SECONDS [REGIONS] */
#include <sys/mman.h>
#include <unistd.h>

#define NOFP_QSORT_NO_MAIN
#include "nofp_qsort.c"

/* n regions of one page each, every other one readable: neighbours differ, so each is a
 * VMA of its own. Stops at the first that fails (the map count limit). */
static void map_regions(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *base = mmap(NULL, n * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (base == MAP_FAILED)
		return;
	for (long i = 0; i < n; i += 2)
		if (mprotect(base + i * page, page, PROT_READ))
			return;
}

int main(int argc, char **argv)
{
	struct timespec ts;

	map_regions(argc > 2 ? atol(argv[2]) : 20000);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	sort_rounds(ts.tv_sec + ts.tv_nsec / 1e9 + (argc > 1 ? atof(argv[1]) : 2));
	return 0;
}
