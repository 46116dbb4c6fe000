/* SPDX-License-Identifier: Apache-2.0 */
/* What the cost drivers of bench/ measure of themselves: the process's CPU time and the
 * heap malloc holds. */
#ifndef EBPROF_BENCH_COST_H
#define EBPROF_BENCH_COST_H

#include <malloc.h>
#include <stddef.h>
#include <time.h>

static inline double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline size_t heap(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd; /* large blocks are mmap()ed */
}

#endif
