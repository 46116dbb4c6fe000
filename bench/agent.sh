#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of `ebprof agent`: whole system at 20 Hz for D seconds (default 60) with an
# export every 5 s to a local OTLP/HTTP sink (bench/otlp_sink.py), once with gzip and
# once without, while a fixed workload keeps both CPUs busy in several processes. Prints
# the agent's CPU % (user+sys over wall time), peak RSS, exports, and bytes per export
# encoded and on the wire, side by side. Run as root:
#   sudo bench/agent.sh                     # 2 x 60 s
#   sudo BENCH_SECONDS=15 bench/agent.sh    # quick check
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=${BENCH_SECONDS:-60}
FREQ=${BENCH_FREQ:-20}
INTERVAL=${BENCH_INTERVAL:-5}
EBPROF=$ROOT/build/ebprof
PORT=${BENCH_PORT:-24318}

die() {
	echo "bench: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "run as root (it loads BPF programs)"
[[ $D =~ ^[0-9]+$ ]] && [ "$D" -ge 10 ] || die "BENCH_SECONDS must be an integer >= 10"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing: apt-get install time"
command -v python3 >/dev/null || die "python3 is needed for the sink"
make -s -C "$ROOT" all workloads >/dev/null || die "ebprof does not build"

TMP=$(mktemp -d /tmp/ebprof-bench-agent.XXXXXX)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT

# Load: a C++ sort, a Rust program and a libc qsort, each in its own process, looping.
load() {
	local w
	for w in nofp_sort nofp_rust nofp_qsort; do
		(while :; do "$ROOT/build/workloads/$w" 5 >/dev/null 2>&1 || sleep 1; done) &
		PIDS+=($!)
	done
}

# arm COMPRESSION: one agent run; prints "cpu% rss_mib exports raw_per wire_per".
arm() {
	local comp=$1 sink_pid out=$TMP/$1
	python3 "$ROOT/bench/otlp_sink.py" "$PORT" "$TMP/sink.$comp" &
	sink_pid=$!
	sleep 0.5
	/usr/bin/time -f "%e %U %S %M" -o "$out.time" "$EBPROF" agent -F "$FREQ" \
		--report-interval "${INTERVAL}s" -d "$D" --protocol http/protobuf \
		--endpoint "http://127.0.0.1:$PORT" --compression "$comp" >"$out.stdout" 2>"$out.stderr" ||
		die "agent failed: $(tail -3 "$out.stderr")"
	kill "$sink_pid" 2>/dev/null || true
	wait "$sink_pid" 2>/dev/null || true
	read -r el us sy rss <"$out.time"
	# "exports: N sent, ... ; R bytes encoded, W on the wire"
	local sent raw wire
	sent=$(sed -nE 's/.*exports: ([0-9]+) sent.*/\1/p' "$out.stdout")
	raw=$(sed -nE 's/.* ([0-9]+) bytes encoded.*/\1/p' "$out.stdout")
	wire=$(sed -nE 's/.*encoded, ([0-9]+) on the wire.*/\1/p' "$out.stdout")
	[ -n "$sent" ] && [ "$sent" -gt 0 ] || die "no export reached the sink: $(cat "$out.stdout" "$out.stderr" | tail -5)"
	awk -v el="$el" -v us="$us" -v sy="$sy" -v rss="$rss" -v n="$sent" -v raw="$raw" -v wire="$wire" \
		'BEGIN { printf "%.2f %.1f %d %d %d\n", 100 * (us + sy) / el, rss / 1024, n, raw / n, wire / n }'
}

load
sleep 1
echo "ebprof agent: whole system, $FREQ Hz, export every ${INTERVAL}s, ${D}s per arm, 2 CPUs busy"
read -r c1 r1 n1 raw1 wire1 < <(arm gzip)
read -r c2 r2 n2 raw2 wire2 < <(arm none)
printf '\n%-12s %8s %9s %8s %14s %14s\n' arm "CPU %" "RSS MiB" exports "bytes/export" "on the wire"
printf '%-12s %8s %9s %8s %14s %14s\n' gzip "$c1" "$r1" "$n1" "$raw1" "$wire1"
printf '%-12s %8s %9s %8s %14s %14s\n' none "$c2" "$r2" "$n2" "$raw2" "$wire2"
awk -v a="$wire1" -v b="$wire2" -v c1="$c1" -v c2="$c2" 'BEGIN {
	printf "\ngzip: %.1f%% of the uncompressed bytes on the wire; CPU %.2fx of the run without\n",
		100 * a / b, (c2 > 0 ? c1 / c2 : 0) }'
