#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Nothing is left in the kernel: every BPF program, map, link and BTF object and every
# perf event ebprof created is gone after a recording that succeeds, one stopped by
# SIGINT, one that fails after attaching everything, one that crashes there (which also
# says where), one whose start a SIGINT ends, and one whose load the verifier rejects; the check sees only ebprof's own
# objects (lib.sh: track_bpf), so it holds while another process loads and unloads BPF
# beside it, and it catches a map leaked on purpose. EBPROF_TEST_CASES chooses among the
# cases by their first name (lib.sh: case_selected): the arm64 guest runs a few.
. "$(dirname "$0")/lib.sh"

if case_selected teardown_success; then
	track_bpf
	"$EBPROF" record -d 1 -o "$TMP/a" >/dev/null 2>&1
	rc=$?
	check teardown_success_exit "exit $rc" [ $rc -eq 0 ]
	bpf_gone teardown_success_clean
fi

# SIGINT once it samples (start-up takes seconds in an emulated guest). Meanwhile, every
# object ebprof holds must be in the log: the tracking misses nothing.
if case_selected teardown_sigint; then
	track_bpf
	"$EBPROF" record -d 0 -o "$TMP/b" >/dev/null 2>&1 &
	pid=$!
	wait_sampling $pid
	grep -hE '^(prog|map|link|btf)_id:' /proc/$pid/fdinfo/* 2>/dev/null | sed 's/_id:\s*/ /' |
		sort -u >"$TMP/held"
	kill -INT $pid
	wait $pid
	rc=$?
	check teardown_sigint_exit "exit $rc after SIGINT" [ $rc -eq 0 ]
	check teardown_sigint_outputs "no outputs after SIGINT" [ -s "$TMP/b/stacks.folded" ]
	check teardown_sigint_loaded "no BPF program held while recording" grep -q '^prog ' "$TMP/held"
	unlogged=$(while read -r kind id; do
		grep -q "^$kind $id " "$BPF_LOG" || echo "$kind $id"
	done <"$TMP/held" | paste -sd' ')
	check teardown_tracked "held but not logged: $unlogged" [ -z "$unlogged" ]
	bpf_gone teardown_sigint_clean
fi

# SIGINT while the programs load: the start ends there, one line says nothing was
# recorded, no output is written, the exit status is 130 (128 + SIGINT) and nothing is
# left. One program is verified 4 s late (EBPROF_INJECT_FAILURE=slow:on_exit), so the
# signal lands while the programs load: without it, three tries in a row in a loaded
# 5.10 guest saw the first program only once all were loaded (the verifying threads run
# 10 less nice than this loop: loader.c). A start over before the signal is tried again.
if case_selected teardown_startup_sigint; then
	track_bpf
	for try in 1 2 3; do
		rm -rf "$TMP/s"
		EBPROF_INJECT_FAILURE=slow:on_exit "$EBPROF" record -d 5 -o "$TMP/s" >/dev/null 2>"$TMP/s.err" &
		pid=$!
		for _ in $(seq 3000); do
			ls -l /proc/$pid/fd 2>/dev/null | grep -q bpf-prog && break
			kill -0 $pid 2>/dev/null || break
			sleep 0.01
		done
		kill -INT $pid
		wait $pid
		rc=$?
		grep -q 'sampling .* Ctrl-C to stop' "$TMP/s.err" || break
		echo "teardown_startup_sigint: try $try started sampling before the signal" >&2
	done
	check teardown_startup_sigint_exit "exit $rc: $(paste -sd'|' "$TMP/s.err")" [ $rc -eq 130 ]
	check teardown_startup_sigint_said "stderr: $(paste -sd'|' "$TMP/s.err")" \
		grep -qx 'ebprof: stopped by SIGINT before sampling began: nothing was recorded' "$TMP/s.err"
	check teardown_startup_sigint_outputs "outputs written: $(ls "$TMP/s" 2>/dev/null | paste -sd' ')" \
		[ ! -e "$TMP/s/stacks.folded" ]
	bpf_gone teardown_startup_sigint_clean
fi

if case_selected teardown_failure; then
	track_bpf
	EBPROF_INJECT_FAILURE=after-attach "$EBPROF" record -d 1 -o "$TMP/c" >/dev/null 2>"$TMP/err"
	rc=$?
	check teardown_failure_exit "exit $rc on an injected failure" [ $rc -eq 1 ]
	check teardown_failure_message "no message" grep -q 'injected failure' "$TMP/err"
	bpf_gone teardown_failure_clean
fi

if case_selected teardown_crash; then
	track_bpf
	(ulimit -c 0 && EBPROF_INJECT_FAILURE=crash-after-attach exec "$EBPROF" record -d 1 -o "$TMP/e") \
		>/dev/null 2>"$TMP/err"
	rc=$?
	check teardown_crash_signal "exit $rc on an injected crash, want 139 (SIGSEGV)" [ $rc -eq 139 ]
	check teardown_crash_report "no crash report: $(head -2 "$TMP/err")" \
		grep -q '^ebprof: crashed: SIGSEGV (a bug in ebprof' "$TMP/err"
	check teardown_crash_backtrace "no backtrace through the binary" grep -q 'ebprof(+0x' "$TMP/err"
	bpf_gone teardown_crash_clean
fi

# A verifier rejection of one program among several: every failure reported, the log
# shown once, and nothing attached or left loaded.
if case_selected teardown_load_failure; then
	track_bpf
	EBPROF_INJECT_FAILURE=load:on_cpu_sample "$EBPROF" record -d 1 -o "$TMP/d" >/dev/null 2>"$TMP/err"
	rc=$?
	check teardown_load_failure_exit "exit $rc on a rejected program" [ $rc -eq 1 ]
	check teardown_load_failure_report "no per-program report" grep -qE '1 of [0-9]+ failed' "$TMP/err"
	check teardown_load_failure_log "no verifier log" grep -q -- '--- verifier log of sample_bpf/on_cpu_sample' "$TMP/err"
	bpf_gone teardown_load_failure_clean
fi

# Another BPF user beside the recording (tests/leaks/bpf_churn.c loads and unloads a
# program and a map every 10 ms): what it does is not ebprof's.
if case_selected teardown_beside_churn; then
	track_bpf
	"$BUILD/tests/bpf_churn" 4 >"$TMP/churn" 2>&1 &
	churn=$!
	"$EBPROF" record -d 1 -o "$TMP/f" >/dev/null 2>&1
	rc=$?
	check teardown_beside_churn_exit "exit $rc" [ $rc -eq 0 ]
	bpf_gone teardown_beside_churn_clean
	wait $churn
	check teardown_beside_churn_ran "the other BPF user failed: $(cat "$TMP/churn")" \
		grep -q ' 0 failed' "$TMP/churn"
fi

# A map leaked on purpose (EBPROF_INJECT_FAILURE=leak-map: a child program keeps it) must
# fail the check, naming the map and its holder; once the holder is gone, so is the map.
if case_selected teardown_leak; then
	track_bpf
	EBPROF_INJECT_FAILURE=leak-map "$EBPROF" record -d 1 -o "$TMP/g" >/dev/null 2>"$TMP/err"
	holder=$(sed -n 's/.*injected leak: map profiled_pids held by pid \([0-9]*\).*/\1/p' "$TMP/err")
	out=$("$BUILD/tests/bpf_gone" "$BPF_LOG" 500)
	rc=$?
	echo "teardown_leak_caught: $out" >&2
	check teardown_leak_caught "exit $rc, want 1, and the map named: $out" \
		grep -qE "^map [0-9]+ profiled_pids is still there, held by pid $holder " <<<"$out"
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	bpf_gone teardown_leak_released
fi
