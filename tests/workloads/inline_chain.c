// SPDX-License-Identifier: Apache-2.0
// cflags: -O2 -g -fomit-frame-pointer
/* Two always-inline levels between two noinline functions: main -> outer_work ->
 * [mix_block -> mix_word, both inlined into outer_work] -> leaf_hash, where the time goes.
 * The lines marked "call:" are what the inline chain must name. Usage: inline_chain SECS */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline, noclone)) uint64_t leaf_hash(uint64_t x)
{
	for (int i = 0; i < 20000; i++) {
		x ^= x >> 31;
		x *= 0x9e3779b97f4a7c15ull;
		__asm__ volatile("" : "+r"(x)); /* keeps the loop a loop */
	}
	return x;
}

static inline __attribute__((always_inline)) uint64_t mix_word(uint64_t x)
{
	return leaf_hash(x ^ 0x5555) + 1; /* call:leaf_hash */
}

static inline __attribute__((always_inline)) uint64_t mix_block(uint64_t x)
{
	return mix_word(x * 3) ^ (x >> 7); /* call:mix_word */
}

__attribute__((noinline, noclone)) uint64_t outer_work(uint64_t x)
{
	return mix_block(x) * 5; /* call:mix_block */
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 2);
	uint64_t acc = 1;

	while (now() < end)
		acc = outer_work(acc); /* call:outer_work */
	sink = acc;
	return 0;
}
