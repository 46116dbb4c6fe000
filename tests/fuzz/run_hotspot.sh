#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harness of the HotSpot decoders (line-number tables, scope records,
# PcDesc search, and the VMStructs/layout/method readers over a fake process memory) and
# fuzzes for $FUZZ_SECONDS (default 30); any crash, leak or broken bound fails.
# Usage: tests/fuzz/run_hotspot.sh    or    FUZZ_SECONDS=600 tests/fuzz/run_hotspot.sh
NAME=fuzz_hotspot
out=${BUILD:-build}/fuzz/hotspot
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-4096}
. "$(dirname "$0")/lib.sh"

# Seeds: Spin.main's line table as OpenJDK 17 and 21 wrote it (tests/unit/
# test_hotspot_stream.c), and a scope record chain.
seed() {
	local dir=$out/seeds
	printf '\000\070\000\000\000\006\211\377\114\002\071\000' >"$dir/lines17"
	printf '\001\070\000\000\000\006\211\377\115\003\071\000' >"$dir/lines21"
	printf '\001\001\000\000\000\000\006\003\006\000\001\002\023' >"$dir/scopes"
	{ printf '\002'; head -c 512 /dev/zero; } >"$dir/memory"
}

dictionary() {
	cat <<'DICT'
pair="\xff"
structs="gHotSpotVMStructs"
nm="nmethod::_method"
cb="CodeBlob::_name"
release="Abstract_VM_Version"
DICT
}

fuzz_all tests/fuzz/fake_mem.c src/interp/hotspot/hotspot_stream.c src/interp/hotspot/hotspot_vm.c src/interp/hotspot/hotspot_layout.c \
	src/interp/hotspot/hotspot_method.c src/util/hmap.c
