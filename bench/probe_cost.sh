#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What one kernel uprobe hit costs, stack collection included: a victim calls a tiny
# function N times, without a probe and with `ebprof record --probe uprobe:...` on
# functions whose first instruction the kernel emulates (push %rbp, nop) or must
# single-step out of line (mov, endbr64), and with ebprof's entry placement moving a
# probe from endbr64 to the push after it. Prints the median of RUNS runs per arm:
# nanoseconds per call, and the cost of one hit over the baseline.
# Usage: bench/probe_cost.sh [N] [RUNS]   (root; builds into $BUILD)
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
N=${1:-200000}
RUNS=${2:-5}
V=$BUILD/bench/probe_victim
mkdir -p "$BUILD/bench"
gcc -O2 -o "$V" bench/probe_victim.c || exit 1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# arm FN [PROBE]: median ns per call of the victim calling FN, under PROBE if given.
arm() {
	local fn=$1 probe=${2:-} i
	for i in $(seq "$RUNS"); do
		if [ -z "$probe" ]; then
			"$V" "$fn" "$N"
		else
			"$BUILD/ebprof" record -F 1 -o "$out/o" --probe "$probe" -- "$V" "$fn" "$N" |
				grep -E '^[0-9.]+$'
		fi
	done | median
}

base=$(arm push)
printf '%-44s %10s %12s\n' "arm" "ns/call" "ns/hit"
printf '%-44s %10s %12s\n' "no probe" "$base" "-"
row() {
	local t
	t=$(arm "$1" "uprobe:$V:$2")
	printf '%-44s %10s %12s\n' "$3" "$t" "$(awk -v a="$t" -v b="$base" 'BEGIN {printf "%.0f", a - b}')"
}
row push f_push "push %rbp (emulated)"
row nop f_nop "nop (emulated)"
row mov f_mov "mov %rdi,%rax (single-stepped)"
row endbr f_endbr+0 "endbr64, probe kept at +0"
row endbr f_endbr "endbr64, ebprof moves the probe to the push"
