// SPDX-License-Identifier: Apache-2.0
// cflags: -O2 -g -fomit-frame-pointer
/* C++ without frame pointers: main -> sort_rounds -> std::sort -> ... -> the lambda
 * comparator. Usage: nofp_sort SECONDS */
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <vector>

__attribute__((noinline)) static void sort_rounds(double secs)
{
	auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
	std::vector<unsigned> v(1 << 14);

	while (std::chrono::steady_clock::now() < end) {
		for (auto &x : v)
			x = std::rand();
		std::sort(v.begin(), v.end(), [](unsigned a, unsigned b) {
			unsigned h = a;
			for (int i = 0; i < 30; i++)
				h = h * 2654435761u ^ b;
			return a < b + (h & 0);
		});
	}
}

int main(int argc, char **argv)
{
	sort_rounds(argc > 1 ? std::atof(argv[1]) : 2);
	return 0;
}
