#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Whole-system recording: every output is written and readable; a syscall-heavy
# workload shows kernel frames under its user frames; the known chain shows.
# suite: alone (its sample counts assume the CPUs are not shared with other tests)
. "$(dirname "$0")/lib.sh"

"$W/syscall_loop" 4 &
sys=$!
"$W/fp_chain" 4 &
fp=$!
sleep 0.3
"$EBPROF" record -d 2 -o "$TMP/out" >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
wait $sys $fp
check record_system_runs "exit $rc: $(head -3 "$TMP/stderr")" [ $rc -eq 0 ]
for f in profile.pb.gz stacks.folded flamegraph.html; do
	check "record_system_writes_${f%%.*}" "$f missing or empty" [ -s "$TMP/out/$f" ]
done
f=$TMP/out/stacks.folded
total=$(folded_count "$f" syscall_loop)
# The whole chain: main, the workload's function, libc's read (no frame pointers
# there: the CFI unwinder carries it), then the kernel's read path.
kern=$(folded_match "$f" syscall_loop ";main$L;read_zeroes$L;.*_\[k\]")
echo "syscall_loop: $kern of $total samples with kernel frames under main;read_zeroes" >&2
check record_system_kernel_frames "kernel frames under read_zeroes in $(pct "$kern" "$total") % of samples, want >= 50" \
	[ "$(pct "$kern" "$total")" -ge 50 ]
check record_system_kernel_read "no read syscall path in kernel frames" grep -qE "^syscall_loop;.*main$L;read_zeroes$L;(__libc_)?read$L;.*(ksys_read|vfs_read)_\[k\]" "$f"
total=$(folded_count "$f" fp_chain)
chain=$(folded_match "$f" fp_chain "main$L;chain_a$L;chain_b$L;chain_c$L;chain_leaf")
check record_system_chain "chain in $(pct "$chain" "$total") % of fp_chain samples" [ "$(pct "$chain" "$total")" -ge 90 ]
comms=$(cut -d';' -f1 "$f" | sort -u | wc -l)
check record_system_many_processes "only $comms distinct comms" [ "$comms" -ge 2 ]
check record_system_summary "summary lacks the samples line" grep -q 'samples: [0-9]* taken' "$TMP/stderr"
check record_system_started "no line saying sampling began" \
	grep -qE '^ebprof: sampling [0-9]+ CPUs at 99 Hz for 2 s; Ctrl-C to stop$' "$TMP/stderr"
check record_system_stdout "ebprof wrote on stdout: $(head -2 "$TMP/stdout")" [ ! -s "$TMP/stdout" ]
# The summary is short: the counters of every part are -v's (rates.sh sees them there).
check record_system_short "internals without -v: $(grep -E '^  (processes|unwinding|walker chain):' "$TMP/stderr" | head -2)" \
	bash -c "! grep -qE '^  (processes|unwinding|walker chain):' '$TMP/stderr'"

# go tool pprof reads the profile and finds the same functions.
if command -v go >/dev/null; then
	export HOME=$TMP GOCACHE=$GO_TOOL_CACHE PPROF_TMPDIR=$TMP
	go tool pprof -top -symbolize=none "$TMP/out/profile.pb.gz" >"$TMP/top" 2>"$TMP/pprof.err"
	check record_system_pprof_reads "go tool pprof failed: $(head -2 "$TMP/pprof.err")" grep -q chain_leaf "$TMP/top"
	go tool pprof -raw -symbolize=none "$TMP/out/profile.pb.gz" >"$TMP/raw" 2>/dev/null
	check record_system_pprof_types "sample types missing" grep -q 'samples/count cpu/nanoseconds' "$TMP/raw"
	check record_system_pprof_kernel "kernel mapping missing" grep -q 'kernel.kallsyms' "$TMP/raw"
else
	echo "SKIP record_system_pprof_reads: go is not installed"
fi
