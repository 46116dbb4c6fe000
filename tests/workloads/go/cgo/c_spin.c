// SPDX-License-Identifier: Apache-2.0
// The C half of the cgo workload: spins, then calls back into Go. A file of its own
// because a cgo preamble with //export may only declare.
#include "_cgo_export.h"

// Not inlined and with its own frame, so the C frame is a frame of its own.
__attribute__((noinline)) long long c_spin(long long n)
{
	volatile long long s = 0;

	for (long long i = 0; i < n; i++)
		s += i ^ (s >> 3);
	return s + goCallback(n);
}
