// SPDX-License-Identifier: Apache-2.0
/* The ratio bound on inflating another user's file (inflate_limit.h says why). */
#include "util/inflate_limit.h"

static uint64_t refused;

bool inflate_limit__allow(uint64_t file_bytes, uint64_t total)
{
	uint64_t cap;

	if (__builtin_mul_overflow(file_bytes, INFLATE_RATIO_MAX, &cap) || total <= cap)
		return true;
	__atomic_add_fetch(&refused, 1, __ATOMIC_RELAXED);
	return false;
}

uint64_t inflate_limit__refused(void)
{
	return __atomic_load_n(&refused, __ATOMIC_RELAXED);
}
