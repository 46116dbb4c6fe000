// SPDX-License-Identifier: Apache-2.0
/* One unit of bench/dwarf.sh's large C++ program: templates over the standard library
 * (map, regex, streams, function) give about 2 MB of DWARF. Everything is local, so the
 * script links many renamed copies of one object into one binary without clashes. */
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {
template <int I> struct Node {
	std::map<std::string, std::vector<long>> m;

	long work(long x)
	{
		std::ostringstream os;

		os << x << ':' << I;
		m[os.str()].push_back(x * I);
		std::regex re("[0-9]+:" + std::to_string(I));
		std::function<long(long)> f = [this](long v) { return v + (long)m.size(); };
		return std::regex_match(os.str(), re) ? f(x) : x;
	}
};

template <int... Is> long all(long x)
{
	return (Node<Is>().work(x) + ...);
}
} // namespace

long dwarf_unit_entry(long x)
{
	return all<0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15>(x);
}
