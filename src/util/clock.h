/* SPDX-License-Identifier: Apache-2.0 */
/* Clock readings in nanoseconds: the one place that turns a struct timespec into a count,
 * so deadlines, pacing and durations all agree on the clock and the arithmetic. */
#ifndef EBPROF_UTIL_CLOCK_H
#define EBPROF_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds on clock id (CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_THREAD_CPUTIME_ID...). */
static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC: deadlines and durations, which a change of the wall clock must not move. */
static inline uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

#endif
