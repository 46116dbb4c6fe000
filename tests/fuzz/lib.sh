# SPDX-License-Identifier: Apache-2.0
# What every libFuzzer harness script shares (sourced): settings, building a harness with
# ASan/UBSan, and a bounded run that fails on any crash, leak, timeout or OOM.
# The sourcing script sets NAME (the harness, tests/fuzz/NAME.c) and out (its work dir),
# defines seed() (writes seed inputs into $out/seeds) and dictionary() (prints a libFuzzer
# dictionary), and calls fuzz_all.
set -u
cd "$(dirname "$0")/../.." || exit 1

BUILD=${BUILD:-build}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
CLANG=${CLANG:-clang}
bin=$BUILD/fuzz/$NAME

fail() {
	echo "FAIL $NAME: $*"
	exit 1
}

# fuzz_build SOURCES... -- LIBS...: compiles tests/fuzz/$NAME.c with SOURCES.
fuzz_build() {
	local srcs=() libs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		srcs+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	libs=("$@")
	command -v "$CLANG" >/dev/null || fail "$CLANG not installed"
	mkdir -p "$out" || fail "cannot create $out"
	"$CLANG" -std=gnu11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-Isrc -Ibpf "tests/fuzz/$NAME.c" "${srcs[@]}" "${libs[@]}" -o "$bin" \
		>"$out/build.log" 2>&1 || { cat "$out/build.log"; fail "build failed"; }
}

# fuzz_run DICT: fuzzes $out/corpus seeded by $out/seeds for FUZZ_SECONDS.
fuzz_run() {
	local log=$out/fuzz.log rc
	"$bin" -max_total_time="$FUZZ_SECONDS" -max_len="$FUZZ_MAX_LEN" -timeout=10 \
		-malloc_limit_mb=512 -rss_limit_mb=2048 -use_value_profile=1 \
		-dict="$1" -print_final_stats=1 \
		-artifact_prefix="$out/" "$out/corpus" "$out/seeds" >"$log" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$log"
		fail "fuzzer exited $rc; see $log and the crash-/leak-/timeout-/oom- file in $out"
	fi
	grep -E '^(Done|stat::number_of_executed_units)' "$log"
	echo "PASS $NAME"
}

# fuzz_all SOURCES... [-- LIBS...]: builds the harness, has seed() fill $out/seeds (emptied
# first, so a changed seed set leaves no stale file) and dictionary() write the dictionary,
# then fuzzes.
fuzz_all() {
	fuzz_build "$@"
	rm -rf "$out/seeds"
	mkdir -p "$out/seeds" "$out/corpus" || fail "cannot create corpus dirs"
	seed
	dictionary >"$out/$NAME.dict" || fail "cannot write $out/$NAME.dict"
	fuzz_run "$out/$NAME.dict"
}
