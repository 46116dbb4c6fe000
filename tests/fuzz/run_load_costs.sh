#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harness of the load-cost cache's parser into $BUILD/fuzz, replays
# the committed inputs (a real cache file, its damaged forms) and fuzzes for $FUZZ_SECONDS
# (default 20: the parser is small); any crash, leak, hang or broken bound fails.
# Usage: tests/fuzz/run_load_costs.sh    or    FUZZ_SECONDS=600 tests/fuzz/run_load_costs.sh
NAME=fuzz_load_costs
out=${BUILD:-build}/fuzz/load_costs
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-65536} # LOAD_COSTS_BYTES: the reader refuses larger files
. "$(dirname "$0")/lib.sh"

seed() { :; } # the committed corpus is the seed

dictionary() {
	cat <<'DICT'
sample="sample_bpf/"
walk="native_walk_perf"
max="18446744073709551615"
over="18446744073709551616"
nl="\x0a"
DICT
}

fuzz_all src/loader/load_costs.c src/util/atomic_file.c src/util/cache_dir.c \
	src/util/safe_file.c src/util/log.c
