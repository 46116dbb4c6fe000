#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Nothing is left in the kernel: the sets of BPF programs, maps and links are the same
# before and after a recording that succeeds, one stopped by SIGINT, one that fails
# after attaching everything, and one that crashes there (which also says where).
. "$(dirname "$0")/lib.sh"

before=$(bpf_ids)
"$EBPROF" record -d 1 -o "$TMP/a" >/dev/null 2>&1
rc=$?
check teardown_success_exit "exit $rc" [ $rc -eq 0 ]
check teardown_success_clean "BPF objects differ after a recording" settled "$before"

# SIGINT once it samples (start-up takes seconds in an emulated guest).
"$EBPROF" record -d 0 -o "$TMP/b" >/dev/null 2>&1 &
pid=$!
wait_sampling $pid
during=$(bpf_ids)
kill -INT $pid
wait $pid
rc=$?
check teardown_sigint_exit "exit $rc after SIGINT" [ $rc -eq 0 ]
check teardown_sigint_outputs "no outputs after SIGINT" [ -s "$TMP/b/stacks.folded" ]
check teardown_sigint_loaded "no BPF program was loaded while recording" [ "$before" != "$during" ]
check teardown_sigint_clean "BPF objects differ after SIGINT" settled "$before"

EBPROF_INJECT_FAILURE=after-attach "$EBPROF" record -d 1 -o "$TMP/c" >/dev/null 2>"$TMP/err"
rc=$?
check teardown_failure_exit "exit $rc on an injected failure" [ $rc -eq 1 ]
check teardown_failure_message "no message" grep -q 'injected failure' "$TMP/err"
check teardown_failure_clean "BPF objects differ after a failure" settled "$before"

(ulimit -c 0 && EBPROF_INJECT_FAILURE=crash-after-attach exec "$EBPROF" record -d 1 -o "$TMP/e") \
	>/dev/null 2>"$TMP/err"
rc=$?
check teardown_crash_signal "exit $rc on an injected crash, want 139 (SIGSEGV)" [ $rc -eq 139 ]
check teardown_crash_report "no crash report: $(head -2 "$TMP/err")" \
	grep -q '^ebprof: crashed: SIGSEGV (a bug in ebprof' "$TMP/err"
check teardown_crash_backtrace "no backtrace through the binary" grep -q 'ebprof(+0x' "$TMP/err"
check teardown_crash_clean "BPF objects differ after a crash" settled "$before"

# A verifier rejection of one program among several: every failure reported, the log
# shown once, and nothing attached or left loaded.
EBPROF_INJECT_FAILURE=load:on_cpu_sample "$EBPROF" record -d 1 -o "$TMP/d" >/dev/null 2>"$TMP/err"
rc=$?
check teardown_load_failure_exit "exit $rc on a rejected program" [ $rc -eq 1 ]
check teardown_load_failure_report "no per-program report" grep -qE '1 of [0-9]+ failed' "$TMP/err"
check teardown_load_failure_log "no verifier log" grep -q -- '--- verifier log of sample_bpf/on_cpu_sample' "$TMP/err"
check teardown_load_failure_clean "BPF objects differ after a rejected load" settled "$before"
