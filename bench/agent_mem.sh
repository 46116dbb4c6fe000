#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The agent's memory on the quiet three-process benchmark (bench/footprint.sh's agent arm,
# issue 37's goal of 25 MiB): `ebprof agent -F 20` whole system, an export every 5 s to
# bench/otlp_sink.py, while nofp_sort, nofp_rust and nofp_qsort loop in their own
# processes. One run per ebprof given, alternating, each polled by bench/agent_mem.py: peak
# RSS (VmHWM), the resident set by mapping at its largest and between spikes. Extra agent
# flags for every run go in AGENTMEM_FLAGS; an ebprof given as "PATH::ENV=VALUE,..." runs
# with those variables set (two arms of one binary). As root:
#   sudo bench/agent_mem.sh build/ebprof /tmp/old/build/ebprof
# Knobs: AGENTMEM_SECONDS (40), AGENTMEM_ROUNDS (1), AGENTMEM_PORT (24329).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=${AGENTMEM_SECONDS:-40}
ROUNDS=${AGENTMEM_ROUNDS:-1}
PORT=${AGENTMEM_PORT:-24329}

[ "$(id -u)" -eq 0 ] || { echo "run as root" >&2; exit 1; }
[ $# -ge 1 ] || { echo "usage: $0 EBPROF[::VAR=VALUE,...]..." >&2; exit 1; }
make -s -C "$ROOT" workloads >/dev/null
TMP=$(mktemp -d /tmp/ebprof-agentmem.XXXXXX)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[ -n "${AGENTMEM_KEEP:-}" ] && cp "$TMP"/out "$TMP"/err "$AGENTMEM_KEEP"/ 2>/dev/null; rm -rf "$TMP"
}
trap cleanup EXIT

for w in nofp_sort nofp_rust nofp_qsort; do
	(while :; do "$ROOT/build/workloads/$w" 5 >/dev/null 2>&1 || sleep 1; done) &
	PIDS+=($!)
done
python3 "$ROOT/bench/otlp_sink.py" "$PORT" "$TMP/sink" &
PIDS+=($!)
sleep 2

# shellcheck disable=SC2086
for r in $(seq "$ROUNDS"); do
	for arm in "$@"; do
		e=${arm%%::*}
		envs=()
		[ "$e" = "$arm" ] || IFS=, read -r -a envs <<<"${arm#*::}"
		load=$(cut -d' ' -f1 /proc/loadavg)
		env "${envs[@]}" "$e" agent -v -F 20 --report-interval 5s -d "$D" \
			--protocol http/protobuf --endpoint "http://127.0.0.1:$PORT" ${AGENTMEM_FLAGS:-} \
			>"$TMP/out" 2>"$TMP/err" &
		a=$!
		python3 "$ROOT/bench/agent_mem.py" "$a" --label "$arm round $r, load $load" >"$TMP/mem" || true
		wait "$a" || echo "$arm: agent failed: $(tail -2 "$TMP/err")"
		cat "$TMP/mem"
		grep -hE "exports: " "$TMP/out" "$TMP/err" | head -1 | sed 's/^/  /'
	done
done
