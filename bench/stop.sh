#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How long the end of `ebprof record -d 0.2` waits for the tracker thread (issue 17):
# `exit_ms tracker=` under -v, medians of STOP_RUNS runs (default 5) in five arms: the
# whole system as it is, the whole system with load added (bench/cpu_work on 4 threads), one
# process mapping the largest binaries here (libLLVM, cc1plus, cc1: the stop lands in
# one of their table builds), one mapping Debian's Go toolchains (rows from the
# pclntab), and the whole system with a busy Python (its walker is verified on the
# tracker thread). With STOP_BASELINE=/path/to/old/ebprof every run of
# the baseline alternates with one of ours, so both see the same machine.
# Usage: sudo bench/stop.sh
#        sudo STOP_BASELINE=/tmp/ebprof-main bench/stop.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${STOP_RUNS:-5}
BUILD=${BUILD:-build}
BASE=${STOP_BASELINE:-}
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "STOP_BASELINE=$BASE is not an executable" >&2; exit 1; }
make -s all >/dev/null
mkdir -p "$BUILD/bench"
cc -O2 -o "$BUILD/bench/map_exec" bench/map_exec.c
cc -O2 -pthread -o "$BUILD/bench/cpu_work" bench/cpu_work.c
TMP=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }'; }

# one_run BIN ARM ARGS...: one recording; appends its tracker=, the builds abandoned at
# the stop (the summary on stdout says so, from branch stopcancel on) and whether a
# runtime's walker was verified to files
one_run() {
	local bin=$1 arm=$2
	shift 2
	"$bin" record -v -d 0.2 -o "$TMP/out" "$@" >"$TMP/err" 2>&1 || true
	sed -n 's/^ebprof: exit_ms .*tracker=\([0-9.]*\).*/\1/p' "$TMP/err" >>"$TMP/$arm.$(basename "$bin").ms"
	sed -n 's/.*; \([0-9]*\) abandoned at the stop.*/\1/p' "$TMP/err" >>"$TMP/$arm.$(basename "$bin").ab"
	# A runtime's walker verified in this run (on the tracker thread, before or after
	# the stop: a verification that has begun is waited for).
	if grep '^ebprof: program name=' "$TMP/err" | grep -vq 'name=sample_bpf/'; then
		echo 1 >>"$TMP/$arm.$(basename "$bin").walker"
	fi
}

arm() { # arm NAME ARGS...: RUNS runs of ours, alternating with the baseline's
	local name=$1 i
	shift
	for ((i = 0; i < RUNS; i++)); do
		[ -z "$BASE" ] || one_run "$BASE" "$name" "$@"
		one_run "$BUILD/ebprof" "$name" "$@"
	done
	for b in ${BASE:+"$BASE"} "$BUILD/ebprof"; do
		local f="$TMP/$name.$(basename "$b")"
		touch "$f.ab" "$f.walker"
		printf '%-8s %-14s tracker= median %6.2f ms (%s); runs with a build abandoned %s, ' \
			"$name" "$(basename "$b")" "$(median <"$f.ms")" "$(range <"$f.ms")" \
			"$(grep -c . "$f.ab" || true)"
		printf 'a walker verified %s, of %s; load %s\n' "$(grep -c . "$f.walker" || true)" \
			"$RUNS" "$(cut -d' ' -f1 /proc/loadavg)"
	done
}

arm system
"$BUILD/bench/cpu_work" 100000000000 4 >/dev/null &
pids+=($!)
arm loaded
kill "${pids[-1]}"
big=()
for f in /usr/lib/x86_64-linux-gnu/libLLVM-1[0-9].so.1 /usr/lib/gcc/x86_64-linux-gnu/*/cc1plus \
	/usr/lib/gcc/x86_64-linux-gnu/*/cc1; do
	[ -r "$f" ] && big+=("$f")
done
if [ ${#big[@]} -gt 0 ]; then
	"$BUILD/bench/map_exec" "${big[@]}" >"$TMP/ready" &
	pids+=($!)
	while ! grep -q ready "$TMP/ready"; do sleep 0.05; done
	arm big -p "${pids[-1]}" --unwind-memory 256M
	kill "${pids[-1]}"
fi
gobins=(/usr/lib/go-*/bin/go)
if [ -r "${gobins[0]}" ]; then # Go's rows come from the pclntab, read range by range
	"$BUILD/bench/map_exec" "${gobins[@]}" >"$TMP/ready" &
	pids+=($!)
	while ! grep -q ready "$TMP/ready"; do sleep 0.05; done
	arm go -p "${pids[-1]}" --unwind-memory 256M
	kill "${pids[-1]}"
fi
if command -v python3 >/dev/null; then
	python3 -c 'while True: pass' &
	pids+=($!)
	arm python
fi
