/* SPDX-License-Identifier: Apache-2.0 */
/* A stop flag that long work on one thread polls while another thread may set it: the
 * tracker's stop, read by the unwind table compiler so the end of a recording need not
 * wait for a table nobody will use. */
#ifndef EBPROF_CANCEL_H
#define EBPROF_CANCEL_H

#include <stdbool.h>

/* True once *flag is set; flag may be NULL (work that cannot be cancelled). A relaxed
 * load: the flag orders nothing, it only asks for an early return, and a poll that
 * misses it by a few instructions sees it at the next one. */
static inline bool cancel__requested(const bool *flag)
{
	return flag && __atomic_load_n(flag, __ATOMIC_RELAXED);
}

/* Sets *flag for every thread polling it. */
static inline void cancel__request(bool *flag)
{
	__atomic_store_n(flag, true, __ATOMIC_RELAXED);
}

#endif
