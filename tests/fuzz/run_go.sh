#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harness of the Go pclntab reader into $BUILD/fuzz, seeds a corpus
# from the tables of the Go workloads (tests/workloads/go/build.sh) with and without
# section headers, and fuzzes for $FUZZ_SECONDS; any crash fails.
# Go's decoders: the pclntab (src/symbol/gopclntab.c) and the cgo stack switch
# (src/interp/go/go_cgo.c).
# Usage: tests/fuzz/run_go.sh    or    FUZZ_SECONDS=600 tests/fuzz/run_go.sh
NAME=fuzz_gopclntab
out=${BUILD:-build}/fuzz/gopclntab
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-1048576}
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
. "$(dirname "$0")/lib.sh"
bin=$out/$NAME

# seed_from BIN GO OUT: [flags][header offset][go:func.* offset] + the bytes from the
# lower of go:func.* and .gopclntab to the table's end, as fuzz_gopclntab.c reads them.
seed_from() {
	local sect gofunc
	sect=$(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".gopclntab" { print $3, $4, $5 }')
	gofunc=$("$2" tool nm "$1" | awk '$3 == "go:func.*" || $3 == "go.func.*" { print $1 }')
	[ -n "$sect" ] && [ -n "$gofunc" ] || return 0
	python3 - "$1" "$3" $sect "$gofunc" <<'PY'
import struct, sys
path, out, addr, off, size, gofunc = sys.argv[1], sys.argv[2], *(int(x, 16) for x in sys.argv[3:])
start = min(addr, gofunc)
data = open(path, 'rb').read()[off - (addr - start):off + size]
for flags in (0, 1):
    with open(f'{out}.{flags}', 'wb') as f:
        f.write(struct.pack('<BII', flags, addr - start, gofunc - start) + data)
PY
}

seed() {
	local dir=$out/seeds v d go n=0
	while read -r v d go; do
		for b in chain cgo; do
			seed_from "$d/$b" "$go" "$dir/$v.$b" && n=$((n + 1))
		done
	done < <(tests/workloads/go/build.sh)
	[ "$(ls "$dir" | wc -l)" -gt 0 ] || fail "no Go workloads to seed from"
}

dictionary() {
	cat <<'DICT'
magic120="\xf1\xff\xff\xff\x00\x00\x01\x08"
magic118="\xf0\xff\xff\xff\x00\x00\x01\x08"
magic116="\xfa\xff\xff\xff\x00\x00\x01\x08"
none="\xff\xff\xff\xff"
DICT
}

fuzz_all src/symbol/gopclntab.c src/interp/go/go_cgo.c src/elf/elf_file.c src/util/arena.c \
	src/util/hmap.c src/util/inflate_limit.c src/util/mapguard.c -- -lelf
