#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Off-CPU time: a thread sleeping in nanosleep and one blocked in read() on a pipe, each
# for 10 x 100 ms, are reported at their blocking stacks with totals within 10 % of the
# time each timed itself waiting (a busy host's wait to run again after waking is off-CPU
# time too), although the sleeper is moved to another CPU during every sleep; and
# nothing stays attached afterwards.
. "$(dirname "$0")/lib.sh"

track_bpf
"$EBPROF" record --off-cpu -o "$TMP/out" -- "$W/offcpu_sleep" 10 100 300 >"$TMP/stdout" 2>"$TMP/err"
rc=$?
check offcpu_exit "exit $rc: $(head -3 "$TMP/err")" [ $rc -eq 0 ]
f=$TMP/out/stacks.off-cpu.folded
check offcpu_files "no off-CPU outputs" [ -s "$f" -a -s "$TMP/out/profile.off-cpu.pb.gz" -a -s "$TMP/out/flamegraph.off-cpu.html" ]
check offcpu_summary "summary lacks the off-cpu line" grep -q 'off-cpu: [0-9]* samples, [0-9.]* s off_cpu' "$TMP/err"

moved=$(sed -n 's/^migrated //p' "$TMP/stdout")
if [ "${moved:-0}" -gt 0 ]; then
	echo "offcpu_migration: the sleeper woke on another CPU in $moved of 10 sleeps"
	pass offcpu_migration_exercised
else
	echo "SKIP offcpu_migration_exercised: the sleeper never changed CPU (one CPU?)"
fi

# within_10pct NAME WHO PATTERN: the off-CPU nanoseconds of stacks matching PATTERN are
# within 10 % of the time thread WHO timed its own waits at (1 s asleep, and what a
# loaded host adds before the thread runs again, which is off-CPU time too).
within_10pct() {
	local ns timed ok=0
	ns=$(folded_match "$f" offcpu_sleep "$3")
	timed=$(sed -n "s/^$2_ns //p" "$TMP/stdout")
	echo "$1: $ns ns off CPU for ${timed:-?} ns the thread timed itself waiting" >&2
	[ "${timed:-0}" -ge 1000000000 ] && [ $((ns * 10)) -ge $((timed * 9)) ] &&
		[ $((ns * 10)) -le $((timed * 11)) ] && ok=1
	check "$1" "$ns ns is not within 10 % of the ${timed:-?} ns waited" [ $ok = 1 ]
}
within_10pct offcpu_nanosleep_total sleeper ";sleeper_main$L;sleeper_wait$L;$I(__)?nanosleep$L;([^;]*;)?[^;]*clock_nanosleep[^;]*;.*;schedule_\[k\];__schedule_\[k\] [0-9]+\$"
within_10pct offcpu_pipe_read_total reader ";reader_main$L;reader_wait$L;(__libc_)?read$L;.*anon_pipe_read_\[k\];.*schedule_\[k\];__schedule_\[k\] [0-9]+\$"

# Every stack of the two waits goes through the function that blocked.
all=$(folded_match "$f" offcpu_sleep ";(sleeper_main|reader_main)$L;")
good=$(folded_match "$f" offcpu_sleep ";(sleeper_main$L;sleeper_wait|reader_main$L;reader_wait)$L;")
check offcpu_stacks "only $good of $all ns carry the blocking function" [ "$all" -gt 0 -a "$good" -eq "$all" ]

if command -v go >/dev/null; then
	export HOME=$TMP GOCACHE=$GO_TOOL_CACHE PPROF_TMPDIR=$TMP
	go tool pprof -raw -symbolize=none "$TMP/out/profile.off-cpu.pb.gz" >"$TMP/raw" 2>/dev/null
	check offcpu_pprof_types "sample types are not samples/count off_cpu/nanoseconds" grep -q 'samples/count off_cpu/nanoseconds' "$TMP/raw"
else
	echo "SKIP offcpu_pprof_types: go is not installed"
fi

# A thread still asleep when the recording stops counts up to the stop.
"$EBPROF" record --off-cpu -d 1 -o "$TMP/long" -- "$W/offcpu_sleep" 1 3000 300 >/dev/null 2>&1
ns=$(folded_match "$TMP/long/stacks.off-cpu.folded" offcpu_sleep ";sleeper_wait$L;")
check offcpu_until_stop "a sleep across the stop counted $ns ns, not about 0.7 s" [ "${ns:-0}" -ge 400000000 -a "${ns:-0}" -le 1000000000 ]

"$EBPROF" record --off-cpu=2 -d 1 -o "$TMP/bad" >/dev/null 2>"$TMP/err"
rc=$?
check offcpu_bad_rate "exit $rc for --off-cpu=2" [ $rc -eq 2 ]
check offcpu_bad_rate_message "no message" grep -q -- '--off-cpu' "$TMP/err"

bpf_gone offcpu_clean
