#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every rate is safe: at the most the host allows, with a JIT runtime (the host's Node)
# making every sample's ingest costly, a recording keeps its -d deadline, stops sampling
# within a second of SIGTERM and still writes its outputs; a rate above the host's bound
# is lowered in one line. Before the drain was bounded, -F 50000 -d 2 never stopped.
. "$(dirname "$0")/lib.sh"

NODE=$(command -v node || true)
if [ -z "$NODE" ]; then
	echo "SKIP rates: no node on this host (the JIT runtime these runs need)"
	exit 0
fi
"$NODE" tests/workloads/node/chain.js 60 &
node=$!
trap 'kill $node 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 0.5

# recorded FILE: the seconds the summary in FILE says were recorded.
recorded() { sed -nE 's/^ebprof: recorded ([0-9.]+) s .*/\1/p' "$1"; }
# gone_within SECS PID: true when PID exits within SECS; otherwise kills it.
gone_within() {
	local i
	for i in $(seq $(($1 * 10))); do
		kill -0 "$2" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$2" 2>/dev/null
	return 1
}
written() { [ -s "$1/profile.pb.gz" ] && [ -s "$1/stacks.folded" ] && [ -s "$1/flamegraph.html" ]; }

# -d 2 at the highest rate: the window ends on time and the process soon after.
"$EBPROF" record -F max -d 2 -o "$TMP/max" >"$TMP/max.out" 2>"$TMP/max.err" &
pid=$!
start=$SECONDS
if gone_within 120 $pid; then
	wait $pid
	rc=$?
	secs=$(recorded "$TMP/max.err")
	echo "-F max -d 2: exit $rc after $((SECONDS - start)) s, ${secs:-?} s recorded;" \
		"$(grep -E '^  (samples|lost):' "$TMP/max.err" | tr -s ' ' | tr '\n' ' ')" >&2
	check rates_max_exits "$(how_ended $rc "$TMP/max.err")" [ $rc -eq 0 ]
	check rates_max_deadline "recorded ${secs:-?} s for -d 2" \
		awk -v s="${secs:-99}" 'BEGIN { exit !(s <= 2.5) }'
	check rates_max_written "outputs missing" written "$TMP/max"
else
	fail rates_max_exits "record -F max -d 2 still running after 120 s (killed)"
fi

# SIGTERM during an endless recording at the highest rate: sampling stops within a
# second of the signal (-v's stop_mono_ns against the CLOCK_MONOTONIC of the kill) and
# the outputs are written.
"$EBPROF" record -v -F max -d 0 -o "$TMP/term" >"$TMP/term.out" 2>"$TMP/term.err" &
pid=$!
if ! wait_sampling $pid; then
	fail rates_sigterm "record did not start sampling: $(tail -2 "$TMP/term.err")"
else
	sleep 1.5
	sent=$(python3 -c 'import os, signal, sys, time
t = time.monotonic_ns(); os.kill(int(sys.argv[1]), signal.SIGTERM); print(t)' $pid)
	start=$SECONDS
	if gone_within 120 $pid; then
		wait $pid
		rc=$?
		stop=$(sed -nE 's/^ebprof: exit_ms .*stop_mono_ns=([0-9]+).*/\1/p' "$TMP/term.err")
		ms=$(awk -v a="$sent" -v b="${stop:-0}" 'BEGIN { printf "%.0f", (b - a) / 1e6 }')
		echo "SIGTERM: sampling stopped $ms ms later, the process exited $((SECONDS - start)) s later" >&2
		check rates_sigterm "$(how_ended $rc "$TMP/term.err")" [ $rc -eq 0 ]
		check rates_sigterm_prompt "sampling stopped $ms ms after SIGTERM" \
			[ -n "$stop" -a "$ms" -lt 1000 ]
		check rates_sigterm_written "outputs missing" written "$TMP/term"
	else
		fail rates_sigterm "record still running 120 s after SIGTERM (killed)"
	fi
fi

# Above the host's bound: lowered, said once, recorded.
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
[ "$max" -gt 100000 ] && max=100000
"$EBPROF" record -F 10000000 -d 0.5 -o "$TMP/low" >"$TMP/low.out" 2>"$TMP/low.err"
rc=$?
said=$(grep -c 'above what this host allows' "$TMP/low.err")
check rates_lowered_runs "$(how_ended $rc "$TMP/low.err")" [ $rc -eq 0 ]
check rates_lowered_said "said $said times that -F was lowered" [ "$said" -eq 1 ]
check rates_lowered_to_max "not lowered to $max Hz: $(grep 'above' "$TMP/low.err")" \
	grep -q "sampling at $max Hz" "$TMP/low.err"
