#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A runtime's walker is verified only when a file of that runtime is found: a native
# command verifies none; python3 run directly has its walker verified before it runs
# (its first samples have Python frames); a python3 a shell starts later has it verified
# when the tracker finds it, or before the shell runs when --runtimes names Python; a walker the verifier rejects then leaves Python's frames
# native, the recording goes on and nothing stays in the kernel. Also without bpf_loop.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
CHAIN=$PWD/tests/workloads/python/chain.py
# A Python frame: "name (file.py:LINE)" or "(<frozen ...>:LINE)"; native lines end ".c:N".
PYFRAME='\([^;]*(\.py|>):[0-9]+\)'

# walkers FILE: the runtimes' programs record -v listed as verified, space-separated:
# every object's but the sampler's own (sample_bpf), so a new runtime needs no line here.
walkers() {
	grep -oE 'program name=[a-z0-9_]+/[a-z0-9_]+' "$1" | sed 's/.*=//' | grep -v '^sample_bpf/' |
		sort -u | tr '\n' ' '
}

# most HIT OF: at least 20 samples, >= 90 % of them hits.
most() { [ "$2" -ge 20 ] && [ "$(pct "$1" "$2")" -ge 90 ]; }

# before_cmd FILE: the walkers verified later (verify_later=) were verified between the
# sampler's load and attach, so before the command ran (it execs after the attach).
before_cmd() {
	awk '/^ebprof: startup_ms/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		ok = v["verify_later"] > 0 && v["attached"] - v["loaded"] >= v["verify_later"]
	} END { exit !ok }' "$1"
}

# native LACKS SUFFIX: a command of no runtime, the recording's scope that command only.
native() {
	local t=lazywalk_native$2 out=$TMP/native$2 rc
	EBPROF_KERNEL_LACKS=$1 "$EBPROF" record -v -F 199 -o "$out" -- "$W/nofp_sort" 0.3 \
		>/dev/null 2>"$out.err"
	rc=$?
	check "${t}_exit" "exit $rc" [ $rc -eq 0 ]
	check "${t}_sampler" "no program lines" grep -q 'program name=sample_bpf/native_walk' \
		"$out.err"
	check "${t}_none" "runtime walkers verified: $(walkers "$out.err")" \
		[ -z "$(walkers "$out.err")" ]
}

# direct LACKS SUFFIX: python3 as the command: only Python's walker, verified before it
# ran, so of the samples of the script's run (PyEval_EvalCode, a symbol Debian's stripped
# python3 keeps) >= 90 % have its frames from the first ones on.
direct() {
	local t=lazywalk_direct$2 out=$TMP/direct$2 rc eval py
	EBPROF_KERNEL_LACKS=$1 "$EBPROF" record -v -F 199 -o "$out" -- "$PY" "$CHAIN" 1 \
		>/dev/null 2>"$out.err"
	rc=$?
	check "${t}_exit" "exit $rc" [ $rc -eq 0 ]
	check "${t}_python_only" "verified: $(walkers "$out.err")" \
		grep -qE '^python/python_walk(_unrolled)?_perf $' <<<"$(walkers "$out.err")"
	check "${t}_before" "not verified before python3 ran: $(grep startup_ms "$out.err")" \
		before_cmd "$out.err"
	eval=$(folded_match "$out/stacks.folded" python3 ';PyEval_EvalCode;')
	py=$(folded_match "$out/stacks.folded" python3 ';PyEval_EvalCode;<module> \(chain\.py:')
	echo "$t: $py of $eval samples of the script with its frames" >&2
	check "${t}_frames" "$py of $eval samples of the script with its frames, want >= 90 %" \
		most "$py" "$eval"
}

native '' ''
direct '' ''
native bpf_loop _unrolled
direct bpf_loop _unrolled

# java's launcher loads libjvm.so by dlopen: its walker is verified before it runs too.
if java=$(host_runtime java); then
	java=${java#host::}
	"$EBPROF" record -v -F 199 -o "$TMP/java" -- "$java" -version >/dev/null 2>"$TMP/java.err"
	rc=$?
	check lazywalk_java_exit "exit $rc" [ $rc -eq 0 ]
	check lazywalk_java_only "verified: $(walkers "$TMP/java.err")" \
		[ "$(walkers "$TMP/java.err")" = "hotspot/hotspot_walk_perf " ]
	check lazywalk_java_before "not verified before java ran: $(grep startup_ms "$TMP/java.err")" \
		before_cmd "$TMP/java.err"
else
	echo "SKIP lazywalk_java: no java on the host"
fi

# Found later: a shell runs first, then execs python3; the tracker verifies the walker.
"$EBPROF" record -v -F 199 -o "$TMP/late" -- sh -c "sleep 0.2; exec $PY $CHAIN 1" \
	>/dev/null 2>"$TMP/late.err"
rc=$?
check lazywalk_late_exit "exit $rc" [ $rc -eq 0 ]
check lazywalk_late_verified "verified: $(walkers "$TMP/late.err")" \
	grep -qE '^python/python_walk(_unrolled)?_perf $' <<<"$(walkers "$TMP/late.err")"
leaf=$(folded_match "$TMP/late/stacks.folded" python3 'outer \(chain\.py:[0-9]+\);middle \(chain\.py:[0-9]+\);leaf \(chain\.py')
check lazywalk_late_frames "$leaf samples of outer -> middle -> leaf, want >= 20" [ "$leaf" -ge 20 ]

# Named (--runtimes python): the walker verified before a shell ran, so the python3 it
# starts later has Python's frames from its first samples; 'none' verifies none even
# for python3 as the command; a name that is no runtime's is a usage error.
"$EBPROF" record -v -F 199 --runtimes Python -o "$TMP/named" -- sh -c "sleep 0.2; exec $PY $CHAIN 1" \
	>/dev/null 2>"$TMP/named.err"
rc=$?
check lazywalk_named_exit "exit $rc" [ $rc -eq 0 ]
check lazywalk_named_only "verified: $(walkers "$TMP/named.err")" \
	grep -qE '^python/python_walk(_unrolled)?_perf $' <<<"$(walkers "$TMP/named.err")"
check lazywalk_named_before "not verified before the shell ran: $(grep startup_ms "$TMP/named.err")" \
	before_cmd "$TMP/named.err"
eval=$(folded_match "$TMP/named/stacks.folded" python3 ';PyEval_EvalCode;')
py=$(folded_match "$TMP/named/stacks.folded" python3 ';PyEval_EvalCode;<module> \(chain\.py:')
echo "lazywalk_named: $py of $eval samples of the script with its frames" >&2
check lazywalk_named_frames "$py of $eval samples of the script with its frames, want >= 90 %" \
	most "$py" "$eval"
"$EBPROF" record -v -F 199 --runtimes none -o "$TMP/none" -- "$PY" "$CHAIN" 0.3 \
	>/dev/null 2>"$TMP/none.err"
rc=$?
check lazywalk_none_exit "exit $rc" [ $rc -eq 0 ]
check lazywalk_none_verified "verified: $(walkers "$TMP/none.err")" [ -z "$(walkers "$TMP/none.err")" ]
usage_errors lazywalk_named_bad record "--runtimes cobol -d 1" "--runtimes python,,go -d 1"

# Rejected when found: said once, Python's frames native, the recording complete.
prog=$(walkers "$TMP/direct.err")
prog=${prog% }
prog=${prog#python/}
track_bpf
EBPROF_INJECT_FAILURE=load:$prog "$EBPROF" record -F 199 -o "$TMP/rej" -- "$PY" "$CHAIN" 0.5 \
	>/dev/null 2>"$TMP/rej.err"
rc=$?
check lazywalk_rejected_exit "exit $rc" [ $rc -eq 0 ]
check lazywalk_rejected_said "not said once: $(head -c 300 "$TMP/rej.err")" \
	[ "$(grep -c 'python: its walker did not load' "$TMP/rej.err")" -eq 1 ]
check lazywalk_rejected_reason "no per-program reason" grep -qE "^ebprof: error: +python/$prog: " \
	"$TMP/rej.err"
check lazywalk_rejected_native "Python frames from a rejected walker" \
	[ "$(grep -cE "$PYFRAME" "$TMP/rej/stacks.folded")" -eq 0 ]
check lazywalk_rejected_samples "no samples of the eval loop" \
	[ "$(folded_match "$TMP/rej/stacks.folded" python3 ';PyEval_EvalCode;')" -ge 20 ]
bpf_gone lazywalk_rejected_clean

# Nothing waits for a verification: Python's walker verified 4 s late
# (EBPROF_INJECT_FAILURE=slow:PROG), a program without frame pointers that starts while it
# is verified (a thread "ebprof-load" of the recording) has its chain as often as with no
# runtime at all; Python's frames come once the walker is in, and `dump` waits for them.
# loading REC: a walker's verification is under way in recording REC, which samples.
loading() { grep -qx ebprof-load /proc/"$1"/task/*/comm 2>/dev/null; }
# stalled OUT [wait]: a shell runs python3 and, once told (with wait: once Python's walker
# is being verified), nofp_qsort 2; prints whether all went as said, nofp_qsort's samples
# and those with its chain.
stalled() {
	local out=$1 rec go=$TMP/go.${1##*/} ok=1
	"$EBPROF" record -F 199 -o "$out" -- sh -c "$PY $CHAIN $(secs 8) &
		while [ ! -e $go ]; do sleep 0.02; done; $W/nofp_qsort $(secs 2); wait" \
		>/dev/null 2>"$out.err" &
	rec=$!
	wait_sampling "$rec" || ok=0
	if [ "${2:-}" = wait ]; then
		for _ in $(seq 600); do loading "$rec" && break; sleep 0.05; done
		loading "$rec" || ok=0
	fi
	touch "$go"
	wait "$rec" || ok=0
	echo "$ok $(folded_count "$out/stacks.folded" nofp_qsort)" \
		"$(folded_match "$out/stacks.folded" nofp_qsort ";main$L;sort_rounds$L;")"
}
# share_ok PCT HIT OF: at least 20 samples, at least PCT % of them hits.
share_ok() { [ "$3" -ge 20 ] && [ "$(pct "$2" "$3")" -ge "$1" ]; }
if case_selected lazywalk_stall; then
	track_bpf
	read -r ok0 all0 chain0 < <(EBPROF_RUNTIMES=none stalled "$TMP/stall_none")
	read -r ok1 all1 chain1 < <(EBPROF_INJECT_FAILURE=slow:$prog stalled "$TMP/stall" wait)
	echo "lazywalk_stall: nofp_qsort's chain in $chain0 of $all0 samples with no runtime," \
		"$chain1 of $all1 while Python's walker was verified" >&2
	check lazywalk_stall_ran "a recording failed, or nofp_qsort did not start during the verification: $(tail -2 "$TMP/stall.err")" \
		[ "$ok0$ok1" = 11 ]
	check lazywalk_stall_native "$chain0 of $all0 samples with no runtime, want >= 50 %" \
		share_ok 50 "$chain0" "$all0"
	want=$(($(pct "$chain0" "$all0") - 20))
	check lazywalk_stall_chain "$chain1 of $all1 samples while Python's walker was verified, want >= $want %" \
		share_ok "$want" "$chain1" "$all1"
	leaf=$(folded_match "$TMP/stall/stacks.folded" python3 'outer \(chain\.py:[0-9]+\);middle \(chain\.py:[0-9]+\);leaf \(chain\.py')
	check lazywalk_stall_python "$leaf samples of outer -> middle -> leaf once the walker was in, want >= 20" \
		[ "$leaf" -ge 20 ]
	"$PY" "$CHAIN" "$(secs 30)" &
	pid=$!
	EBPROF_INJECT_FAILURE=slow:$prog "$EBPROF" dump -p "$pid" >"$TMP/dump.txt" 2>"$TMP/dump.err"
	rc=$?
	kill "$pid"
	wait "$pid" 2>/dev/null
	check lazywalk_stall_dump "dump, $(how_ended "$rc" "$TMP/dump.err"), showed no leaf (chain.py) frame" \
		grep -qE '^    leaf \(chain\.py:[0-9]+\)' "$TMP/dump.txt"
	bpf_gone lazywalk_stall_clean
fi
