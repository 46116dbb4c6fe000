#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The agent scoped by --cgroup to a group only its workload runs in, so the rest of the
# machine (other builds and tests) is out of its figures: the three native loops of
# bench/agent.sh, a Python loop of json/re, and with SCOPED_RUNTIMES=1 a Node loop, a
# Java program (bench/hotspot/Deep.java) and a Perl loop (their large libraries' ELF
# symbols and DWARF are what the agent's memory goes to). One agent run per ebprof given,
# alternating, each printing its peak RSS, the main thread's report CPU and the "debug
# info" line of `-v`. As root:
#   sudo bench/agent_scoped.sh build/ebprof /tmp/old/build/ebprof
# Knobs: SCOPED_SECONDS (30), SCOPED_FREQ (20), SCOPED_ROUNDS (1), SCOPED_RUNTIMES (0).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=${SCOPED_SECONDS:-30}
FREQ=${SCOPED_FREQ:-20}
ROUNDS=${SCOPED_ROUNDS:-1}
PORT=${SCOPED_PORT:-24319}
CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)

[ "$(id -u)" -eq 0 ] || { echo "run as root" >&2; exit 1; }
[ $# -ge 1 ] && [ -n "$CGROOT" ] || { echo "usage: $0 EBPROF... (cgroup v2 needed)" >&2; exit 1; }
make -s -C "$ROOT" workloads >/dev/null
TMP=$(mktemp -d /tmp/ebprof-scoped.XXXXXX)
CG=$CGROOT/ebprof-scoped-$$
mkdir "$CG"
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	[ -f "$CG/cgroup.kill" ] && echo 1 >"$CG/cgroup.kill" 2>/dev/null || true
	wait 2>/dev/null || true
	rmdir "$CG" 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT

# in_group CMD...: runs CMD again and again, in the group, in the background.
in_group() {
	(echo "$BASHPID" >"$CG/cgroup.procs" && while :; do "$@" >/dev/null 2>&1 || sleep 1; done) &
	PIDS+=($!)
}
for w in nofp_sort nofp_rust nofp_qsort; do in_group "$ROOT/build/workloads/$w" 5; done
in_group python3 -c 'import json, re
for i in range(200000): json.loads(json.dumps({"a": list(range(50))})); re.findall(r"\w+", "a b c " * 20)'
if [ "${SCOPED_RUNTIMES:-0}" = 1 ]; then
	in_group node -e 'let s = 0; for (let i = 0; i < 3e8; i++) s += Math.sqrt(i); console.log(s)'
	in_group java "$ROOT/bench/hotspot/Deep.java" 20 60
	in_group perl -e 'my $s = 0; for my $i (1 .. 3e7) { $s += sqrt($i) } print $s'
fi
python3 "$ROOT/bench/otlp_sink.py" "$PORT" "$TMP/sink" &
PIDS+=($!)
sleep 3

for r in $(seq "$ROUNDS"); do
	for e in "$@"; do
		/usr/bin/time -f "%M" -o "$TMP/time" "$e" agent -v -F "$FREQ" --cgroup "$CG" \
			--report-interval 5s -d "$D" --protocol http/protobuf \
			--endpoint "http://127.0.0.1:$PORT" >"$TMP/out" 2>"$TMP/err" || true
		printf '%s round %s: peak RSS %.1f MiB, %s\n  %s\n' "$e" "$r" \
			"$(echo "$(tail -1 "$TMP/time") / 1024" | bc -l)" \
			"$(grep -o 'agent_cpu_ms.*' "$TMP/err" | tail -1)" \
			"$(grep -h 'debug info:' "$TMP/out" "$TMP/err" | tail -1)"
	done
done
