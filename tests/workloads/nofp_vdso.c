// SPDX-License-Identifier: Apache-2.0
// cflags: -O2 -g -fomit-frame-pointer
/* Time spent in the vDSO: main -> time_loop -> clock_gettime (libc) -> the vDSO's
 * __vdso_clock_gettime, whose unwind table comes from the kernel's vDSO image.
 * Usage: nofp_vdso SECONDS */
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) void time_loop(double end)
{
	struct timespec ts;

	do {
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
}

int main(int argc, char **argv)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	time_loop(ts.tv_sec + ts.tv_nsec / 1e9 + (argc > 1 ? atof(argv[1]) : 2));
	return 0;
}
