#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harness of the Python decoders (line tables, str objects, 3.13's
# debug offsets: all read from a traced process's memory) and fuzzes for $FUZZ_SECONDS
# (default 30: the decoders are small); any crash, leak or broken bound fails.
# Usage: tests/fuzz/run_python.sh    or    FUZZ_SECONDS=600 tests/fuzz/run_python.sh
NAME=fuzz_python
out=${BUILD:-build}/fuzz/python
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-4096}
. "$(dirname "$0")/lib.sh"

# One seed per decoder: the 3.11 location table of tests/unit/test_python_lines.c's
# function, an ASCII and a UCS-4 str, and a 3.13 debug-offsets header.
seed() {
	local dir=$out/seeds
	printf '\000\002\002\000\000\000\020\000\000\000\200\000\330\014\015\200\105\335\015\022\220\061\211\130' >"$dir/lines311"
	printf '\000\000\002\000\000\000\006\000\000\000\001\003\002\001\004\001' >"$dir/lnotab"
	{ printf '\001'; head -c 16 /dev/zero; printf '\005\000\000\000\000\000\000\000'
	  head -c 8 /dev/zero; printf '\144\000\000\000'; head -c 12 /dev/zero; printf 'hello'; } >"$dir/ascii"
	{ printf '\001'; head -c 16 /dev/zero; printf '\002\000\000\000\000\000\000\000'
	  head -c 8 /dev/zero; printf '\060\000\000\000'; head -c 12 /dev/zero
	  printf 'f\000\000\000\000\366\001\000'; } >"$dir/ucs4"
	{ printf '\002xdebugpy\360\000\015\003\000\000\000\000'; head -c 600 /dev/zero; } >"$dir/debug"
}

dictionary() {
	cat <<'DICT'
magic="xdebugpy"
v313="\xf0\x00\x0d\x03"
compact_ascii="\x64\x00\x00\x00"
compact_ucs2="\x28\x00\x00\x00"
compact_ucs4="\x30\x00\x00\x00"
loc_long="\xf0"
loc_none="\xf8"
no_line="\x80"
DICT
}

fuzz_all tests/fuzz/fake_mem.c src/interp/python/python_lines.c src/interp/python/python_offsets.c
