#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Probes: a uprobe, a uretprobe and a USDT probe on a test binary see exactly the calls
# it makes, each with its full stack (the binary has no frame pointers: CFI unwinding);
# a tracepoint sees exactly its forks; each is a profile of its own in every format;
# kprobes are refused with a clear error; a probe that cannot attach fails cleanly; and
# nothing stays attached afterwards.
. "$(dirname "$0")/lib.sh"

CALLS=2000
T=$W/probe_target
track_bpf
# Without attach cookies (before 5.15) the uprobe program serves one probe: the
# uretprobe is recorded on its own, and the two together are refused, saying why.
ret=$TMP/out
together=(--probe "uretprobe:$T:probe_leaf" --probe "usdt:$T:ebprof:tick")
cookies=yes
if ! "$EBPROF" check | grep -q '^cookies *yes'; then
	cookies=no
	ret=$TMP/ret
	together=()
	# A USDT probe in a PIE needs them too.
	"$EBPROF" record -d 1 -o "$TMP/usdt" --probe "usdt:$T:ebprof:tick" >/dev/null 2>"$TMP/err"
	check probes_usdt_refused "$(head -1 "$TMP/err")" \
		grep -q 'USDT probe in a position-independent binary or library needs Linux 5.15' "$TMP/err"
	"$EBPROF" record -o "$ret" --probe "uretprobe:$T:probe_leaf" -- "$T" $CALLS 3 0 \
		>/dev/null 2>"$TMP/err"
	rc=$?
	check probes_ret_exit "exit $rc: $(head -3 "$TMP/err")" [ $rc -eq 0 ]
	"$EBPROF" record -d 1 -o "$TMP/two" --probe "uprobe:$T:probe_leaf" \
		--probe "uretprobe:$T:probe_leaf" >/dev/null 2>"$TMP/err"
	rc=$?
	check probes_cookies_refused "exit $rc, $(head -1 "$TMP/err")" [ $rc -ne 0 ]
	check probes_cookies_message "the error does not say which kernel: $(head -1 "$TMP/err")" \
		grep -q 'more than one uprobe/uretprobe probe needs Linux 5.15' "$TMP/err"
fi
# WARM warm-up calls, 100 ms apart (times the guest's scale), before the counted ones: on
# a 6.8+ overlay root each file's first sight costs a notice and its answer
# (unwind_new_process's business), and a walk notices a file only once those below it are
# known: with one warm-up, 100 or 300 ms before, a counted call was cut in the 6.12 guest
# twice in about ten runs (one in 2,000).
WARM=4
"$EBPROF" record -o "$TMP/out" --probe "uprobe:$T:probe_leaf" "${together[@]}" \
	--probe tracepoint:sched:sched_process_fork \
	-- "$T" $CALLS 3 "$(awk -v k="$TIME_SCALE" -v n=$WARM 'BEGIN { print int(100 * k * n) }')" $WARM \
	>"$TMP/stdout" 2>"$TMP/err"
rc=$?
check probes_exit "exit $rc: $(head -3 "$TMP/err")" [ $rc -eq 0 ]

# exact NAME FILE PATTERN N [WARMUP]: the events in FILE number N + WARMUP, and N of
# them match PATTERN (the warm-up call, made right after exec, may be cut short).
exact() {
	local all good
	all=$(folded_count "$2" probe_target)
	good=$(folded_match "$2" probe_target "$3")
	echo "$1: $good of $all events match $3 (calls: $4 + ${5:-0} warm-up)"
	check "$1" "$good of $all events match, $4 + ${5:-0} calls were made" \
		[ "$all" -eq $(($4 + ${5:-0})) -a "$good" -eq "$4" ]
	# What the others were, for the log: the cause of a cut is in its stack.
	[ "$good" -eq "$4" ] || grep -vE "$3" "$2" | head -5 | cut -c1-400 >&2
}
o=$TMP/out
exact probes_uprobe "$o/stacks.uprobe-probe_leaf.folded" "^probe_target;_start;.*;main$L;probe_outer$L;probe_leaf$L [0-9]+\$" $CALLS $WARM
# The return lands in the caller: the stack is probe_outer's, at the call (without
# cookies the uretprobe's own run above has one warm-up).
exact probes_uretprobe "$ret/stacks.uretprobe-probe_leaf.folded" "^probe_target;_start;.*;main$L;probe_outer$L [0-9]+\$" $CALLS \
	"$([ $cookies = yes ] && echo $WARM || echo 1)"
if [ $cookies = yes ]; then
	exact probes_usdt "$o/stacks.usdt-ebprof-tick.folded" "^probe_target;_start;.*;main$L;probe_outer$L [0-9]+\$" $CALLS
fi
exact probes_tracepoint "$o/stacks.tracepoint-sched-sched_process_fork.folded" ";main$L;(__libc_)?_?_?fork$L;.*_\[k\]" 3

for e in uprobe-probe_leaf uretprobe-probe_leaf usdt-ebprof-tick tracepoint-sched-sched_process_fork; do
	d=$o
	[ "$e" = uretprobe-probe_leaf ] && d=$ret
	[ "$e" = usdt-ebprof-tick ] && [ $cookies = no ] && continue
	check "probes_files_$e" "missing outputs of $e" [ -s "$d/profile.$e.pb.gz" -a -s "$d/flamegraph.$e.html" ]
done
check probes_summary "summary lacks the uprobe line" grep -q "uprobe:$T:probe_leaf: $((CALLS + WARM)) events" "$TMP/err"
check probes_cpu_kept "CPU outputs missing" [ -s "$o/stacks.folded" -a -s "$o/profile.pb.gz" ]

if command -v go >/dev/null; then
	export HOME=$TMP GOCACHE=$GO_TOOL_CACHE PPROF_TMPDIR=$TMP
	go tool pprof -raw -symbolize=none "$o/profile.uprobe-probe_leaf.pb.gz" >"$TMP/raw" 2>/dev/null
	check probes_pprof_types "the sample type is not events/count alone" grep -qx 'events/count' "$TMP/raw"
	n=$(awk '/^Samples:/ {on = 1; next} /^Locations/ {on = 0} on && $1 ~ /^[0-9]+:$/ {s += $1} END { printf "%.0f\n", s }' "$TMP/raw")
	check probes_pprof_total "pprof holds $n events, not $CALLS + $WARM" [ "$n" -eq $((CALLS + WARM)) ]
else
	echo "SKIP probes_pprof_types: go is not installed"
fi

"$EBPROF" record -d 1 -o "$TMP/k" --probe kprobe:do_sys_openat2 >/dev/null 2>"$TMP/err"
rc=$?
check probes_kprobe_refused "exit $rc for a kprobe" [ $rc -eq 2 ]
check probes_kprobe_message "the error does not say why: $(cat "$TMP/err")" grep -q 'kprobe.*tracepoint:CATEGORY:NAME' "$TMP/err"

# The first probe attaches, the second cannot: an error naming it, exit 1, nothing left.
"$EBPROF" record -d 1 -o "$TMP/bad" --probe tracepoint:sched:sched_process_fork --probe "uprobe:$T:no_such_function" \
	>/dev/null 2>"$TMP/err"
rc=$?
check probes_bad_symbol_exit "exit $rc for a missing symbol" [ $rc -eq 1 ]
check probes_bad_symbol_message "no error naming the probe" grep -q "attaching uprobe:$T:no_such_function" "$TMP/err"
"$EBPROF" record -d 1 -o "$TMP/bad2" --probe tracepoint:sched:no_such_event >/dev/null 2>"$TMP/err"
rc=$?
check probes_bad_tracepoint "exit $rc for a missing tracepoint" [ $rc -eq 1 ]

bpf_gone probes_clean
