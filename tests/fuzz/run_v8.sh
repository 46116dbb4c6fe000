#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harness of the V8 decoders (source position tables, line lookups,
# instruction targets, and the string/function/script/code readers over a fake memory) and
# fuzzes for $FUZZ_SECONDS (default 30); any crash, leak or broken bound fails.
# Usage: tests/fuzz/run_v8.sh    or    FUZZ_SECONDS=600 tests/fuzz/run_v8.sh
NAME=fuzz_v8
out=${BUILD:-build}/fuzz/v8
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-4096}
. "$(dirname "$0")/lib.sh"

# Seeds: a source position table of Node 20's (outer's, with two inlined functions), the
# instructions DefaultEmbeddedBlobCode() and ...Size() are in Node 18, 20 and the host's
# build, those of Debian's arm64 Node 18 (the first byte's bit 0 picks arm64), and a
# memory image.
seed() {
	local dir=$out/seeds
	printf '\000\020\000\000\000\003\314\004\117\214\001\341\001\244\373\377\377\037' >"$dir/positions"
	printf '\000\000\020\000\000\110\215\005\031\205\334\001\110\213\000\303' >"$dir/lea_load64"
	printf '\000\000\020\000\000\110\215\005\311\245\232\001\213\000\303\000' >"$dir/lea_load32"
	printf '\000\000\020\000\000\270\000\100\214\001\303\000\000\000\000\000' >"$dir/mov_imm"
	printf '\001\000\067\353\000\100\325\000\320\000\204\104\371\000\000\100\371\300\003\137\326' >"$dir/a64_got"
	printf '\001\020\067\353\000\340\324\000\320\000\304\105\371\000\000\100\271\300\003\137\326' >"$dir/a64_got32"
	{ printf '\002'; head -c 512 /dev/zero; } >"$dir/memory"
}

dictionary() {
	cat <<'DICT'
smi="\x00\x00\x00\x00\x01\x00\x00\x00"
lea="\x48\x8d\x05"
ret="\xc3"
a64_ret="\xc0\x03\x5f\xd6"
a64_bti="\x5f\x24\x03\xd5"
DICT
}

fuzz_all tests/fuzz/fake_mem.c src/interp/v8/v8_heap.c src/interp/v8/v8_meta.c src/elf/elf_file.c \
	src/util/hmap.c src/util/inflate_limit.c -- -lelf -lz
