#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of `ebprof agent` under the conditions a fleet meets (issue 37): whole system
# at 20 Hz with an export every 5 s to a local OTLP/HTTP sink (bench/otlp_sink.py) while
# a fixed workload keeps both CPUs busy in several processes. Arms, run one after the
# other, each its own agent:
#   gzip, none  a collector that answers at once, with and without compression
#   slow        a collector that answers BENCH_SLOW seconds (30) after taking a request
#   outage      the collector stopped BENCH_OUTAGE seconds (300) from 10 s into the run
#   churn       BENCH_CHURN (500) short-lived processes a second (bench/exec_churn.c)
# Each prints the agent's CPU % (user+sys over wall time), peak RSS, exports sent and
# dropped, samples lost in the ring buffer, duplicates (the agent's count and the sink's:
# a body it took twice) and bytes per export, then the goals beside them. As root:
#   sudo bench/agent.sh                                  # every arm, about 12 minutes
#   sudo BENCH_ARMS="gzip churn" BENCH_SECONDS=30 bench/agent.sh   # a quick look
#   sudo BENCH_ARMS=outage BENCH_OUTAGE=60 bench/agent.sh
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=${BENCH_SECONDS:-60}
FREQ=${BENCH_FREQ:-20}
INTERVAL=${BENCH_INTERVAL:-5}
ARMS=${BENCH_ARMS:-gzip none slow outage churn}
SLOW=${BENCH_SLOW:-30}
OUTAGE=${BENCH_OUTAGE:-300}
CHURN=${BENCH_CHURN:-500}
EBPROF=${BENCH_EBPROF:-$ROOT/build/ebprof}
PORT=${BENCH_PORT:-24318}

die() {
	echo "bench: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "run as root (it loads BPF programs)"
[[ $D =~ ^[0-9]+$ ]] && [ "$D" -ge 20 ] || die "BENCH_SECONDS must be an integer >= 20"
[[ $OUTAGE =~ ^[0-9]+$ ]] || die "BENCH_OUTAGE must be an integer"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing: apt-get install time"
command -v python3 >/dev/null || die "python3 is needed for the sink"
command -v cc >/dev/null || die "cc is needed for the churn generator"
make -s -C "$ROOT" all workloads >/dev/null || die "ebprof does not build"

TMP=$(mktemp -d /tmp/ebprof-bench-agent.XXXXXX)
PIDS=()
SINK=""
SIDE=""
AGENT=""
cleanup() {
	[ -z "$AGENT" ] || kill -INT "$AGENT" 2>/dev/null || true
	for p in "${PIDS[@]}" $SINK $SIDE; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT
cc -O2 -o "$TMP/exec_churn" "$ROOT/bench/exec_churn.c"

# Load: a C++ sort, a Rust program and a libc qsort, each in its own process, looping.
load() {
	local w
	for w in nofp_sort nofp_rust nofp_qsort; do
		(while :; do "$ROOT/build/workloads/$w" 5 >/dev/null 2>&1 || sleep 1; done) &
		PIDS+=($!)
	done
}

# sink_start NAME [ARGS...]: the sink, its counts in $TMP/NAME.sink ("requests bytes dups")
sink_start() {
	local name=$1
	shift
	python3 "$ROOT/bench/otlp_sink.py" "$PORT" "$TMP/$name.sink" "$@" &
	SINK=$!
	for _ in $(seq 50); do
		[ -s "$TMP/$name.sink" ] && return 0
		sleep 0.1
	done
	die "the sink did not start"
}
sink_stop() {
	[ -n "$SINK" ] || return 0
	kill "$SINK" 2>/dev/null || true
	wait "$SINK" 2>/dev/null || true
	SINK=""
}

# The run's length: an outage needs the collector back for a while before the end.
arm_seconds() {
	case $1 in
	outage) echo $((OUTAGE + D)) ;;
	slow) echo $((D > 3 * SLOW ? D : 3 * SLOW)) ;;
	*) echo "$D" ;;
	esac
}

# What happens beside the agent during an arm (in the background; its pid in $SIDE).
side() {
	local arm=$1 secs=$2
	SIDE=""
	case $arm in
	outage)
		(sleep 10 && kill "$SINK" 2>/dev/null && sleep "$OUTAGE" &&
			exec python3 "$ROOT/bench/otlp_sink.py" "$PORT" "$TMP/outage.sink2") >/dev/null 2>&1 &
		SIDE=$!
		;;
	churn)
		(sleep 5 && exec "$TMP/exec_churn" "$CHURN" $((secs - 10))) 2>"$TMP/churn.rate" &
		SIDE=$!
		;;
	esac
}

# arm NAME: one agent run; leaves one line of figures in FIG[NAME] (the table's columns).
arm() {
	local name=$1 comp=gzip secs out=$TMP/$1 sink_args=()
	secs=$(arm_seconds "$name")
	[ "$name" = none ] && comp=none
	[ "$name" = slow ] && sink_args=(--delay "$SLOW")
	sink_start "$name" "${sink_args[@]}"
	/usr/bin/time -f "%e %U %S %M" -o "$out.time" "$EBPROF" agent -F "$FREQ" \
		--report-interval "${INTERVAL}s" -d "$secs" --protocol http/protobuf \
		--endpoint "http://127.0.0.1:$PORT" --compression "$comp" >"$out.stdout" 2>"$out.stderr" &
	AGENT=$!
	side "$name" "$secs"
	# A collector slower than the agent's timeout never says it took anything, so the
	# agent ends with "no export reached the collector" (exit 1): its summary still holds.
	wait "$AGENT" || [ "$name" = slow ] || die "agent ($name) failed: $(tail -3 "$out.stderr")"
	AGENT=""
	# The outage arm's side job is the second sink by then: stop it; churn ends itself.
	if [ "$name" = outage ]; then kill "$SIDE" 2>/dev/null || true; fi
	[ -z "$SIDE" ] || wait "$SIDE" 2>/dev/null || true
	SIDE=""
	sink_stop
	FIG[$name]=$(figures "$name")
}

# figures NAME: "cpu% rss_mib sent dropped lost agent_dups sink_dups wire_per" from the
# agent's summary ("N samples taken, L lost in the ring buffer"; "exports: N sent, D
# dropped ... P possibly stored twice ...; R bytes encoded, W on the wire").
figures() {
	local out=$TMP/$1 el us sy rss sent dropped lost dups wire sdups=0 f
	# time(1) puts "Command exited with non-zero status N" first when it did.
	read -r el us sy rss < <(tail -1 "$out.time")
	sent=$(sed -nE 's/.*exports: ([0-9]+) sent.*/\1/p' "$out.stdout")
	dropped=$(sed -nE 's/.*exports: [0-9]+ sent, ([0-9]+) dropped.*/\1/p' "$out.stdout")
	lost=$(sed -nE 's/.* ([0-9]+) lost in the ring buffer.*/\1/p' "$out.stdout")
	dups=$(sed -nE 's/.* ([0-9]+) possibly stored twice.*/\1/p' "$out.stdout")
	wire=$(sed -nE 's/.*encoded, ([0-9]+) on the wire.*/\1/p' "$out.stdout")
	for f in "$out.sink" "$out.sink2"; do
		[ -s "$f" ] && sdups=$((sdups + $(awk '{ print $3 }' "$f")))
	done
	[ -n "$sent" ] && [ -n "$lost" ] || die "$1: no summary from the agent: $(tail -5 "$out.stdout" "$out.stderr")"
	awk -v el="$el" -v us="$us" -v sy="$sy" -v rss="$rss" -v n="$sent" -v d="$dropped" \
		-v l="$lost" -v a="$dups" -v s="$sdups" -v w="$wire" 'BEGIN {
		printf "%.2f %.1f %d %d %d %d %d %d\n", 100 * (us + sy) / el, rss / 1024, n, d, l, a, s,
			n ? w / n : 0 }'
}

load
sleep 1
echo "ebprof agent: whole system, $FREQ Hz, export every ${INTERVAL}s, ${D}s per arm; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "arms: $ARMS (slow: answers after ${SLOW}s; outage: ${OUTAGE}s from 10s in; churn: $CHURN execs/s)"
declare -A FIG
for a in $ARMS; do
	case $a in gzip | none | slow | outage | churn) ;; *) die "unknown arm $a" ;; esac
done
for a in $ARMS; do arm "$a"; done
printf '\n%-7s %6s %6s %6s %8s %10s %8s %8s %11s\n' arm "CPU %" "RSS" sent dropped "lost (rb)" "dups ag" "dups rx" "wire/exp"
for a in $ARMS; do
	# shellcheck disable=SC2086
	printf '%-7s %6s %6s %6s %8s %10s %8s %8s %11s\n' "$a" ${FIG[$a]}
done
[ -s "$TMP/churn.rate" ] && echo && cat "$TMP/churn.rate"
echo
echo "goals (issue 37): 0 samples lost in the ring buffer in every arm; at most one"
echo "duplicate per request that timed out (slow); nothing dropped in a ${OUTAGE}s outage"
echo "(queue 64 MiB); CPU <= 0.5 % of one CPU under churn; peak RSS <= 25 MiB (quiet)"
if [[ " $ARMS " == *" gzip "* && " $ARMS " == *" none "* ]]; then
	read -r c1 _ _ _ _ _ _ w1 <<<"${FIG[gzip]}"
	read -r c2 _ _ _ _ _ _ w2 <<<"${FIG[none]}"
	awk -v a="$w1" -v b="$w2" -v c1="$c1" -v c2="$c2" 'BEGIN {
		printf "gzip: %.1f%% of the uncompressed bytes on the wire; CPU %.2fx of the run without\n",
			100 * a / b, (c2 > 0 ? c1 / c2 : 0) }'
fi
