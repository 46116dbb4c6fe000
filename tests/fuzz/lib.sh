# SPDX-License-Identifier: Apache-2.0
# What every libFuzzer harness script shares (sourced): settings, building a harness with
# ASan/UBSan, and a deterministic run: every committed input (tests/fuzz/corpus/SHORT, the
# inputs that reach the code's corners) and every saved finding (tests/fuzz/findings/SHORT,
# inputs that once crashed, hung or blew a bound) is replayed first, then the harness
# fuzzes for FUZZ_SECONDS from a fixed seed, so the suite fails on a regression, never on
# an input no run made before. A longer local run (FUZZ_SEED=0: a random seed) that finds
# something: fix it, and copy the input from $out/artifacts into the findings.
# The sourcing script sets NAME (the harness, tests/fuzz/NAME.c) and out (its work dir
# under $BUILD), defines seed() (writes inputs made at run time into $out/seeds) and
# dictionary() (prints a libFuzzer dictionary), and calls fuzz_all.
set -u
cd "$(dirname "$0")/../.." || exit 1

BUILD=${BUILD:-build}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_SEED=${FUZZ_SEED:-1} # 0: libFuzzer picks one (a local run's, never the suite's)
CLANG=${CLANG:-clang}
SHORT=${NAME#fuzz_}
bin=$BUILD/fuzz/$NAME
# Crash, leak, timeout and OOM inputs land here, never in the source tree (libFuzzer's
# default is the current directory, which is the tree's root).
artifacts=$out/artifacts
committed=()
for d in tests/fuzz/corpus/$SHORT tests/fuzz/findings/$SHORT; do
	[ -d "$d" ] && committed+=("$d")
done

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
	mkdir -p "$out" "$(dirname "$bin")" || fail "cannot create $out"
	"$CLANG" -std=gnu11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-Isrc -Ibpf -I"$BUILD/gen" "tests/fuzz/$NAME.c" "${srcs[@]}" "${libs[@]}" -o "$bin" \
		>"$out/build.log" 2>&1 || { cat "$out/build.log"; fail "build failed"; }
}

# The options of every run: the bounds that make a hang, a leak or a bomb a failure.
run_opts() {
	echo -max_len="$FUZZ_MAX_LEN" -timeout=10 -malloc_limit_mb=512 -rss_limit_mb=2048 \
		-artifact_prefix="$artifacts/"
}

# fuzz_replay: runs every committed input and seed once, in file mode (no fuzzing).
fuzz_replay() {
	local log=$out/replay.log n
	find "${committed[@]}" "$out/seeds" -type f | sort >"$out/replay.list"
	n=$(wc -l <"$out/replay.list")
	[ "$n" -gt 0 ] || return 0
	# shellcheck disable=SC2046
	xargs -d '\n' "$bin" $(run_opts) <"$out/replay.list" >"$log" 2>&1 || {
		tail -n 30 "$log"
		fail "replaying an input failed (the last 'Running:' line in $log names it)"
	}
	echo "$NAME: replayed $n inputs (${#committed[@]} committed directories and the seeds)"
}

# fuzz_run DICT: fuzzes for FUZZ_SECONDS from FUZZ_SEED, starting afresh from the
# committed inputs and the seeds; what it finds new goes to $out/work only.
fuzz_run() {
	local log=$out/fuzz.log rc
	rm -rf "$out/work"
	mkdir -p "$out/work"
	# shellcheck disable=SC2046
	"$bin" $(run_opts) -seed="$FUZZ_SEED" -max_total_time="$FUZZ_SECONDS" \
		-use_value_profile=1 -dict="$1" -print_final_stats=1 \
		"$out/work" "${committed[@]}" "$out/seeds" >"$log" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$log"
		fail "fuzzer exited $rc (seed $FUZZ_SEED); see $log and the input in $artifacts"
	fi
	grep -E '^(Done|stat::number_of_executed_units|INFO: Seed)' "$log"
	echo "PASS $NAME"
}

# fuzz_all SOURCES... [-- LIBS...]: builds the harness, has seed() fill $out/seeds (emptied
# first, so a changed seed set leaves no stale file) and dictionary() write the dictionary,
# replays, then fuzzes.
fuzz_all() {
	fuzz_build "$@"
	rm -rf "$out/seeds"
	mkdir -p "$out/seeds" "$artifacts" || fail "cannot create corpus dirs"
	seed
	dictionary >"$out/$NAME.dict" || fail "cannot write $out/$NAME.dict"
	fuzz_replay
	fuzz_run "$out/$NAME.dict"
}
