#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What DWARF symbolization costs on a large C++ binary: builds one (COPIES renamed copies
# of bench/dwarf_unit.cc, about 2 MB of DWARF each), then runs bench/dwarf_cost over the
# midpoints of its functions: CPU time to open, to look up (first time: units indexed;
# again: cached), against ELF symbol lookups of the same addresses, the heap held, and
# the pages of the file's mapping resident with and without their bound.
# DWARF_FILE=PATH measures an existing file instead (e.g. libc's debug file; its symbol
# table gives the addresses).
# Usage: bench/dwarf.sh   (DWARF_COPIES=24 DWARF_ADDRS=4000 DWARF_REPEAT=3 DWARF_CALLGRIND=1
#                          DWARF_FILE=/usr/lib/debug/.build-id/xx/yyyy.debug
#                          DWARF_MAPPED_BOUND=BYTES: another bound than the default)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
COPIES=${DWARF_COPIES:-24}
NADDRS=${DWARF_ADDRS:-4000}
REPEAT=${DWARF_REPEAT:-3}
CALLGRIND=${DWARF_CALLGRIND:-1}
out=$BUILD/bench/dwarf
mkdir -p "$out"

die() { echo "dwarf bench: $*" >&2; exit 1; }
for t in g++ gcc objcopy nm size; do command -v $t >/dev/null || die "$t is missing"; done

# The binary, rebuilt only when the unit's source or COPIES change.
key="$(sha256sum bench/dwarf_unit.cc | cut -c1-16)-$COPIES"
big=$out/big-$key
if [ -n "${DWARF_FILE:-}" ]; then
	[ -r "$DWARF_FILE" ] || die "$DWARF_FILE is not readable"
	big=$DWARF_FILE
elif [ ! -x "$big" ]; then
	echo "dwarf bench: building the large binary ($COPIES units; the unit takes ~10 s CPU)" >&2
	[ "$out/unit.o" -nt bench/dwarf_unit.cc ] ||
		g++ -std=c++17 -O2 -g -c bench/dwarf_unit.cc -o "$out/unit.o"
	objs=() calls="" decls=""
	for i in $(seq 1 "$COPIES"); do
		objcopy --redefine-sym "_Z16dwarf_unit_entryl=_Z9entry_$(printf %03d "$i")l" \
			"$out/unit.o" "$out/unit$i.o"
		objs+=("$out/unit$i.o")
		decls+="long entry_$(printf %03d "$i")(long);"
		calls+="s += entry_$(printf %03d "$i")(argc);"
	done
	echo "$decls int main(int argc, char **argv) { long s = 0; $calls return (int)(s & 1); }" \
		>"$out/main.cc"
	g++ -O2 -g "$out/main.cc" "${objs[@]}" -o "$big.tmp"
	rm -f "$out"/unit[0-9]*.o
	mv "$big.tmp" "$big"
fi
# -fno-ipa-icf: the two lookup phases are identical code, kept apart for callgrind.
gcc -O2 -g -fno-ipa-icf -std=gnu11 -D_GNU_SOURCE -Isrc bench/dwarf_cost.c src/symbol/dwarfsym.c \
	src/symbol/elfsym.c src/elf/elf_file.c src/util/arena.c src/util/hmap.c src/util/resident.c -ldw -lelf -lz -liberty \
	-o "$out/dwarf_cost"

# Midpoints of every sized function, NADDRS of them spread over the binary.
nm -S --defined-only --radix=d "$big" | awk 'NF == 4 && $3 ~ /^[tTwW]$/ {
	printf "%x\n", $1 + int($2 / 2) }' >"$out/all.addrs"
total=$(wc -l <"$out/all.addrs")
awk -v n="$NADDRS" -v t="$total" 'BEGIN { step = t > n ? t / n : 1 } NR >= next_nr { print; next_nr += step }' \
	"$out/all.addrs" >"$out/addrs"
dwarf=$(size -A "$big" | awk '$1 ~ /^\.debug_/ { s += $2 } END { printf "%.1f", s / 1048576 }')
echo "binary: $(du -m "$big" | cut -f1) MiB, DWARF sections $dwarf MiB, $total functions, $(wc -l <"$out/addrs") looked up"

for r in $(seq 1 "$REPEAT"); do "$out/dwarf_cost" "$big" "$out/addrs"; done >"$out/runs"
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
field() { grep -o "$1 [0-9.]*" "$out/runs" | awk '{ print $2 }' | median; }
head -1 "$out/runs"
o=$(field cpu_open_s) f=$(field cpu_first_s) a=$(field cpu_again_s) e=$(field cpu_elf_s)
printf 'CPU s, median of %d: open %s, first lookups %s, again %s, ELF symbols %s\n' "$REPEAT" "$o" "$f" "$a" "$e"
awk -v f="$f" -v a="$a" -v e="$e" -v n="$(wc -l <"$out/addrs")" 'BEGIN {
	printf "per address: first %.1f us, cached %.2f us; cached DWARF / ELF lookup = %.1f\n",
		f / n * 1e6, a / n * 1e6, (e > 0 ? a / e : 0) }'
printf 'heap: %s MiB after open, %s MiB after indexing (the reader counts %s MiB); open adds %s MiB to the resident set\n' \
	"$(field heap_open_mib)" "$(field heap_indexed_mib)" "$(field counted_mib)" "$(field rss_open_mib)"
grep -m1 '^bounded:' "$out/runs" | sed 's/^bounded:/record'"'"'s way (sorted, units bounded to 4 MiB):/'
grep -m1 '^kept:' "$out/runs" | sed 's/^kept:/the same, the mapped pages kept:/'
grep -m1 '^mapped:' "$out/runs" | sed 's/^mapped:/resident pages of the mapping at most, bounded (MiB by section):/'
grep -m1 '^mapped_kept:' "$out/runs" | sed 's/^mapped_kept:/the same, kept:/'

# Instructions, which time on a shared machine cannot give: callgrind, one run.
if [ "$CALLGRIND" = 1 ] && command -v valgrind >/dev/null; then
	valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" "$out/dwarf_cost" "$big" \
		"$out/addrs" >/dev/null 2>"$out/cg.log" || die "callgrind failed, see $out/cg.log"
	callgrind_annotate --inclusive=yes "$out/cg.out" 2>/dev/null |
		awk '/dwarf_cost.c:phase_[a-z]+ \[/ { n = $1; gsub(",", "", n)
			match($0, /phase_[a-z]+/); p = substr($0, RSTART + 6, RLENGTH - 6)
			printf "instructions (callgrind): %-6s %.0f (%.0f per address)\n", p, n, n / a }' \
			a="$(wc -l <"$out/addrs")"
fi
