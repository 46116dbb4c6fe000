#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every rate is safe: at -F 50000 and at the most the host allows, with a JIT runtime (the
# host's Node) making every sample's ingest costly, a recording keeps its -d deadline,
# stops sampling soon after SIGTERM and still writes its outputs; a rate above the host's
# bound is lowered in one line. Before the drain was bounded, -F 50000 -d 2 never stopped.
# The bounds are counts: the perf clock fires at most F times a second on each CPU, so the
# samples taken bound how long sampling lasted, whatever the load did to the wall clock;
# the only timer is a generous hang detector.
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
# taken FILE: the samples the summary says BPF took; rate_cpus FILE: "HZ NCPUS" it sampled.
taken() { sed -nE 's/^  samples: ([0-9]+) taken.*/\1/p' "$1"; }
rate_cpus() { sed -nE 's/^ebprof: recorded .* at ([0-9]+) Hz on ([0-9]+) CPUs.*/\1 \2/p' "$1"; }
# at_most FILE SECS: true when FILE's samples could have been taken in SECS of sampling.
at_most() {
	local n hc
	n=$(taken "$1")
	hc=$(rate_cpus "$1")
	[ -n "$n" ] && [ -n "$hc" ] &&
		awk -v n="$n" -v hc="$hc" -v s="$2" 'BEGIN { split(hc, a, " "); exit !(n <= a[1] * a[2] * s) }'
}
mono_ns() { python3 -c 'import time; print(time.monotonic_ns())'; }
# said_sampling FILE PID: waits (up to 60 s) for the line saying sampling began, in FILE.
said_sampling() {
	for _ in $(seq 600); do
		grep -q '^ebprof: sampling ' "$1" && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
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

# deadline NAME RATE: -d 2 at RATE ends (the hang detector allows 120 s), having sampled
# no longer than the window and one turn of the loop (3 s of samples at most).
deadline() {
	local pid rc start
	"$EBPROF" record -F "$2" -d 2 -o "$TMP/$1" >"$TMP/$1.out" 2>"$TMP/$1.err" &
	pid=$!
	start=$SECONDS
	if ! gone_within 120 $pid; then
		fail "rates_${1}_exits" "record -F $2 -d 2 still running after 120 s (killed)"
		return
	fi
	wait $pid
	rc=$?
	echo "-F $2 -d 2: exit $rc after $((SECONDS - start)) s, $(recorded "$TMP/$1.err") s recorded," \
		"$(taken "$TMP/$1.err") samples at $(rate_cpus "$TMP/$1.err") (Hz CPUs);" \
		"$(grep -E '^  lost:' "$TMP/$1.err" | tr -s ' ')" >&2
	check "rates_${1}_exits" "$(how_ended $rc "$TMP/$1.err")" [ $rc -eq 0 ]
	check "rates_${1}_deadline" "$(taken "$TMP/$1.err") samples at $(rate_cpus "$TMP/$1.err") (Hz CPUs) is more than 3 s of sampling" \
		at_most "$TMP/$1.err" 3
	check "rates_${1}_written" "outputs missing" written "$TMP/$1"
}
deadline 50000 50000
deadline max max

# SIGTERM during an endless recording at the highest rate: it ends (within the hang
# detector), has sampled no longer than from its launch to the signal and one second
# more, and writes its outputs.
launched=$(mono_ns)
"$EBPROF" record -F max -d 0 -o "$TMP/term" >"$TMP/term.out" 2>"$TMP/term.err" &
pid=$!
if ! said_sampling "$TMP/term.err" $pid; then
	fail rates_sigterm "record did not start sampling: $(tail -2 "$TMP/term.err")"
else
	sleep 1
	sent=$(python3 -c 'import os, signal, sys, time
t = time.monotonic_ns(); os.kill(int(sys.argv[1]), signal.SIGTERM); print(t)' $pid)
	start=$SECONDS
	if gone_within 120 $pid; then
		wait $pid
		rc=$?
		allowed=$(awk -v a="$launched" -v b="$sent" 'BEGIN { print (b - a) / 1e9 + 1 }')
		echo "SIGTERM: the process exited $((SECONDS - start)) s later; $(recorded "$TMP/term.err") s" \
			"recorded, $(taken "$TMP/term.err") samples, $allowed s of sampling allowed" >&2
		check rates_sigterm "$(how_ended $rc "$TMP/term.err")" [ $rc -eq 0 ]
		check rates_sigterm_prompt "$(taken "$TMP/term.err") samples at $(rate_cpus "$TMP/term.err") (Hz CPUs) is more than $allowed s of sampling" \
			at_most "$TMP/term.err" "$allowed"
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
