#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of the OTLP encoder: time, request size and peak memory of otlp__encode on
# synthetic reports from small to large (bench/otlp_encode.c). No root, no BPF.
# Usage: bench/otlp.sh   (BENCH_REPEAT=N, default 5)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
REPEAT=${BENCH_REPEAT:-5}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

make -s -C "$ROOT" all
objs=$(find "$BUILD/obj" -name '*.o' ! -path '*/cli/main.o' | sort)
cc -O2 -std=gnu11 -Wall -D_GNU_SOURCE -I"$ROOT/src" -I"$ROOT/bpf" -I"$BUILD/gen" \
	"$ROOT/bench/otlp_encode.c" $objs -o "$TMP/otlp_encode" \
	$(pkg-config --libs libbpf libelf libdw zlib libprotobuf-c) -liberty -lpthread

printf 'procs\tstacks\tdepth\tframes\ttimes\tencode_ms\tbytes\tgzip_bytes\tpeak_rss_growth_kb\n'
# procs stacks depth frames times: an idle host's 5 s, a busy one's, and a very busy one.
for args in "20 500 16 2000 1" "200 5000 24 20000 5" "500 50000 32 100000 5"; do
	# shellcheck disable=SC2086
	"$TMP/otlp_encode" $args "$REPEAT"
done
