#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What the tracker thread pays to ask every runtime whether a mapped file is its own
# (runtime.c's detect_fd): bench/detect_cost on the runtimes' binaries and on big files
# every host has. Prints per file the wall time of the shared ELF view's open and of each
# runtime's detect() (medians), then, with callgrind, the deterministic count: the
# instructions of the open and of each NAME_detect, inclusive.
# Usage: bench/detect.sh [FILE...]   (DETECT_REPEAT=9 DETECT_CALLGRIND=1; no FILE: the
#                                     default list below, the files missing skipped;
#                                     DETECT_BIN=PATH: another build of the driver, e.g.
#                                     one linked with an older src/elf/elf_file.c)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
REPEAT=${DETECT_REPEAT:-9}
CALLGRIND=${DETECT_CALLGRIND:-1}
out=$BUILD/bench/detect
roots=("" /var/cache/ebprof/bullseye /var/cache/ebprof/bookworm /var/cache/ebprof/trixie)
lib=usr/lib/x86_64-linux-gnu

bin=${DETECT_BIN:-$BUILD/bench/detect_cost}
[ -n "${DETECT_BIN:-}" ] || make -s "$bin" >/dev/null
mkdir -p "$out"

# The runtimes' files under every root, then the big files that are no runtime's.
default_files() {
	local r
	for r in "${roots[@]}"; do
		ls -d "$r"/usr/bin/node "$r"/usr/lib/jvm/*/lib/server/libjvm.so \
			"$r"/$lib/libpython3*.so.1.0 "$r"/usr/bin/python3.[0-9]* \
			"$r"/usr/bin/php[0-9]* "$r"/$lib/libperl.so.5.[0-9]*.[0-9]* \
			"$r"/$lib/libruby-*.so.*.*.* "$r"/usr/lib/erlang/erts-*/bin/beam.smp \
			2>/dev/null | grep -v -- -config || true
	done
	ls -d /$lib/libLLVM-*.so.1 /$lib/libclang-cpp.so.* /$lib/libstdc++.so.6 \
		/$lib/libc.so.6 2>/dev/null || true
	# A large C++ binary with its .symtab: ebprof's own, or the DWARF bench's.
	ls -d "$BUILD"/bench/dwarf/big-* 2>/dev/null | head -1 || true
}

if [ $# -gt 0 ]; then files=("$@"); else mapfile -t files < <(default_files | sort -u); fi
[ ${#files[@]} -gt 0 ] || { echo "detect bench: no file to measure" >&2; exit 1; }

echo "== wall time (median of $REPEAT rounds; a loaded host inflates it)"
"$bin" -r "$REPEAT" "${files[@]}"

[ "$CALLGRIND" = 1 ] || exit 0
command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null || {
	echo "detect bench: valgrind missing: no instruction counts" >&2
	exit 0
}
echo "== instructions (callgrind, one round, inclusive)"
for f in "${files[@]}"; do
	valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" \
		"$bin" -r 1 "$f" >/dev/null 2>&1
	echo "$f"
	callgrind_annotate --inclusive=yes --threshold=100 "$out/cg.out" 2>/dev/null |
		awk '/:(elf_file__open|[a-z0-9]+_detect) \[/ {
			n = $1; gsub(",", "", n); fn = $0
			sub(/ \[.*/, "", fn); sub(/.*:/, "", fn)
			printf "  %-16s %14d Ir\n", fn, n }'
done
