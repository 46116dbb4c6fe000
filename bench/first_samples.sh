#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How many of a command's samples are cut ([truncated] or [unknown] in the folded
# stacks) because a table was not built yet when they were taken: `record -F 999 --
# WORKLOAD SECS` with this build and, with FIRST_BASE=PATH, another ebprof build,
# alternating, medians of FIRST_REPEAT runs. Run as root; inside a guest with
# scripts/vm.sh 5.10 -- bench/first_samples.sh (the base build on the root file system).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPEAT=${FIRST_REPEAT:-5}
SECS=${FIRST_SECONDS:-1}
WORKLOAD=${FIRST_WORKLOAD:-$ROOT/build/workloads/nofp_qsort}
declare -A BIN=([this]=$ROOT/build/ebprof)
ARMS=this
if [ -n "${FIRST_BASE:-}" ]; then
	BIN[base]=$FIRST_BASE
	ARMS="base this"
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for r in $(seq "$REPEAT"); do
	for arm in $ARMS; do
		"${BIN[$arm]}" record -F 999 -o "$TMP/out" -- "$WORKLOAD" "$SECS" >/dev/null 2>"$TMP/err" ||
			{ echo "$arm failed: $(tail -2 "$TMP/err")" >&2 && exit 1; }
		total=$(awk '{ s += $NF } END { print s + 0 }' "$TMP/out/stacks.folded")
		cut=$(awk '/\[truncated\]|\[unknown\]/ { s += $NF } END { print s + 0 }' "$TMP/out/stacks.folded")
		echo "$arm $cut $total" >>"$TMP/runs"
		echo "  run $r $arm: $cut of $total samples cut"
	done
done
echo "${WORKLOAD##*/} $SECS s at 999 Hz, $(uname -r), median of $REPEAT runs:"
for arm in $ARMS; do
	printf '  %-5s %s cut of %s samples\n' "$arm" \
		"$(awk -v a="$arm" '$1 == a { print $2 }' "$TMP/runs" | median)" \
		"$(awk -v a="$arm" '$1 == a { print $3 }' "$TMP/runs" | median)"
done
