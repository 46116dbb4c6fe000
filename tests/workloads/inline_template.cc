// SPDX-License-Identifier: Apache-2.0
// cflags: -O2 -g -fomit-frame-pointer
/* C++ with a template inlined: main -> run_rounds<Mixer<unsigned long>> (noinline) ->
 * Mixer<unsigned long>::step (always inline) -> churn<unsigned long> (noinline), the
 * leaf. Its folded stacks must name the template's methods as inlined frames.
 * Usage: inline_template SECONDS */
#include <chrono>
#include <cstdint>
#include <cstdlib>

static volatile uint64_t sink;

template <typename T> __attribute__((noinline)) T churn(T x)
{
	for (int i = 0; i < 20000; i++) {
		x ^= x >> 29;
		x *= 0xbf58476d1ce4e5b9ull;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

template <typename T> struct Mixer {
	T state;
	__attribute__((always_inline)) inline T step(T x)
	{
		state += churn<T>(x + state); /* call:churn */
		return state;
	}
};

template <typename M> __attribute__((noinline)) uint64_t run_rounds(M &m, double secs)
{
	auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
	uint64_t acc = 1;

	while (std::chrono::steady_clock::now() < end)
		acc = m.step(acc); /* call:step */
	return acc;
}

int main(int argc, char **argv)
{
	Mixer<uint64_t> m{3};

	sink = run_rounds(m, argc > 1 ? atof(argv[1]) : 2);
	return 0;
}
