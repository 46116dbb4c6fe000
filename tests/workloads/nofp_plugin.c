// SPDX-License-Identifier: Apache-2.0
// cflags: -O2 -g -fomit-frame-pointer -shared -fPIC
/* The library nofp_dlopen loads: plugin_outer -> plugin_leaf. */
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void plugin_leaf(void)
{
	for (int i = 0; i < 100000; i++)
		sink += i * 5;
}

__attribute__((noinline)) void plugin_outer(double secs)
{
	struct timespec ts;
	double end;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + ts.tv_nsec / 1e9 + secs;
	do {
		plugin_leaf();
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
}
