#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `record -p PID`: only the named process is recorded, with its full chain.
# suite: alone (its sample counts assume the CPUs are not shared with other tests)
. "$(dirname "$0")/lib.sh"

cp "$W/fp_chain" "$TMP/fp_wanted"
cp "$W/fp_chain" "$TMP/fp_other"
"$TMP/fp_wanted" 4 &
wanted=$!
"$TMP/fp_other" 4 &
other=$!
sleep 0.3
"$EBPROF" record -p "$wanted" -d 2 -o "$TMP/out" >/dev/null 2>"$TMP/stderr"
rc=$?
wait $wanted $other
check record_pid_runs "exit $rc: $(head -3 "$TMP/stderr")" [ $rc -eq 0 ]
total=$(folded_count "$TMP/out/stacks.folded" fp_wanted)
chain=$(folded_match "$TMP/out/stacks.folded" fp_wanted "main$L;chain_a$L;chain_b$L;chain_c$L;chain_leaf$L")
echo "fp_wanted: $chain of $total samples with the chain" >&2
check record_pid_samples "only $total samples of the wanted process" [ "$total" -ge 30 ]
check record_pid_chain "chain in $(pct "$chain" "$total") %" [ "$(pct "$chain" "$total")" -ge 90 ]
others=$(awk -F';' '$1 != "fp_wanted"' "$TMP/out/stacks.folded" | wc -l)
check record_pid_only_pid "$others stack lines of other processes" [ "$others" -eq 0 ]
