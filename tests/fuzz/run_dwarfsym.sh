#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harness of the DWARF lookup into $BUILD/fuzz, seeds a corpus from the
# inline_chain workload compiled as DWARF 4, 5, compressed and by clang, and from C++, and
# fuzzes (through the debug cache too) for $FUZZ_SECONDS; any crash, leak or hang fails.
# Usage: tests/fuzz/run_dwarfsym.sh    or    FUZZ_SECONDS=600 tests/fuzz/run_dwarfsym.sh
NAME=fuzz_dwarfsym
out=${BUILD:-build}/fuzz/dwarfsym
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-131072}
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
. "$(dirname "$0")/lib.sh"

seed() {
	local dir=$out/seeds src=tests/workloads/inline_chain.c
	gcc -O2 -gdwarf-4 "$src" -o "$dir/dwarf4" || fail "cannot build seeds"
	gcc -O2 -gdwarf-5 "$src" -o "$dir/dwarf5"
	gcc -O2 -g -gz=zlib "$src" -o "$dir/zlib"
	gcc -O2 -g -gsplit-dwarf "$src" -o "$dir/skeleton"
	"$CLANG" -O2 -g -Wno-unknown-attributes "$src" -o "$dir/clang" 2>/dev/null
	g++ -O2 -g tests/workloads/inline_template.cc -o "$dir/cxx" 2>/dev/null
	objcopy --only-keep-debug "$dir/dwarf5" "$dir/dwarf5.debug"
	rm -f "$dir"/*.dwo
}

# Section names and forms the mutator cannot guess byte by byte.
dictionary() {
	cat <<'DICT'
magic="\x7fELF\x02\x01\x01"
info=".debug_info"
abbrev=".debug_abbrev"
line=".debug_line"
line_str=".debug_line_str"
str=".debug_str"
str_offsets=".debug_str_offsets"
addr=".debug_addr"
ranges=".debug_ranges"
rnglists=".debug_rnglists"
aranges=".debug_aranges"
zinfo=".zdebug_info"
zlib="ZLIB"
DICT
}

fuzz_all src/symbol/dwarfsym.c src/symbol/debugcache.c src/symbol/elfsym.c src/elf/elf_file.c \
	src/util/arena.c src/util/atomic_file.c src/util/cache_dir.c src/util/hmap.c src/util/log.c \
	src/util/inflate_limit.c src/util/mapguard.c src/util/safe_file.c -- -ldw -lelf -liberty
