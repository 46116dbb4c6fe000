#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `ebprof agent` end to end against the independent receivers of tests/otlp (gRPC via
# @grpc/grpc-js, HTTP via node): content checked by check.mjs (every index in range,
# index-0 invariants, the attributes OTLP backends use, a known workload's functions);
# the environment configures the HTTP exporter; a partial success is logged with the
# server's message; SIGTERM flushes the last interval; a receiver killed and restarted
# mid-run costs counted drops and exports resume.
. "$(dirname "$0")/lib.sh"

OTLP=tests/otlp
OTLP_DIR=$PWD/$OTLP
. $OTLP/lib.sh
if ! command -v node >/dev/null; then
	echo "SKIP agent: node is missing (scripts/install-deps.sh test installs it)"
	exit 0
fi
if ! otlp_node_modules; then
	echo "FAIL agent: npm ci in $OTLP failed"
	exit 0
fi

PIDS=()
cleanup_all() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup_all EXIT

# receiver NAME SCRIPT PORT [ARGS...]: starts it (writing $TMP/NAME.jsonl), sets $port
# and $rpid.
receiver() {
	local name=$1 kind=${2%-receiver.mjs} want=$3
	shift 3
	otlp_receiver "$TMP" "$name" "$kind" "$want" "$@"
	rpid=$receiver_pid
	PIDS+=("$rpid")
	port=$receiver_port
}

requests() { [ -f "$1" ] && wc -l <"$1" || echo 0; }

# otlp_content NAME FILE ARGS...: check.mjs FILE ARGS, its last lines as the reason.
otlp_content() {
	local name=$1 file=$2 rc
	shift 2
	node "$OTLP/check.mjs" "$file" "$@" >"$file.check" 2>&1
	rc=$? # before the reason's command substitution resets $?
	check "$name" "$(tail -3 "$file.check")" [ $rc -eq 0 ]
}

# The workload whose functions must reach the collector: it runs until the cleanup
# kills it, however long the five cases take on a loaded machine.
"$W/fp_chain" 3600 &
victim=$!
PIDS+=("$victim")

# gRPC, plaintext h2c.
receiver grpc grpc-receiver.mjs 0
"$EBPROF" agent -F 99 --endpoint "127.0.0.1:$port" --insecure --report-interval 1s -d 3.5 \
	>"$TMP/grpc.out" 2>"$TMP/grpc.err"
rc=$?
check agent_grpc_runs "exit $rc: $(tail -3 "$TMP/grpc.err")" [ "$rc" -eq 0 ]
otlp_content agent_grpc_content "$TMP/grpc.jsonl" --min-requests 3 --function chain_leaf \
	--function chain_a --pid "$victim" --frame-type kernel --frame-type native --dev-version 1 \
	--resource-attr process.executable.name --resource-attr host.name \
	--sample-attr thread.name --sample-attr cpu.logical_number
kill "$rpid"

# Probe and off-CPU events travel as profiles of their own sample types, every sample
# inside its profile's time range (check.mjs verifies the timestamps).
receiver events grpc-receiver.mjs 0
(sleep 1 && "$W/probe_target" 500 1 100 >/dev/null && "$W/offcpu_sleep" >/dev/null) &
PIDS+=($!)
"$EBPROF" agent --endpoint "127.0.0.1:$port" --report-interval 1s -d 4 \
	--probe "uprobe:$W/probe_target:probe_leaf" --off-cpu >"$TMP/events.out" 2>"$TMP/events.err"
rc=$?
check agent_events_runs "exit $rc: $(tail -3 "$TMP/events.err")" [ "$rc" -eq 0 ]
otlp_content agent_events_content "$TMP/events.jsonl" --function probe_leaf --function __schedule \
	--sample-type samples/count --sample-type events/count --sample-type off_cpu/nanoseconds
kill "$rpid"

# Allocations of a process started with the library preloaded: alloc and in-use
# profiles, the in-use one a snapshot at each interval's end.
receiver alloc grpc-receiver.mjs 0
# The sites wait 3 s after its first allocation: the agent describes the process on that
# event, after any walker it is verifying for another runtime on the host.
(sleep 1 && EBPROF_ALLOC_MEAN=65536 LD_PRELOAD=$PWD/$BUILD/libebprof-alloc.so \
	"$W/alloc_sites" 3 3 >/dev/null) &
PIDS+=($!)
"$EBPROF" agent --alloc=64K --endpoint "127.0.0.1:$port" --report-interval 1s -d 8 \
	>"$TMP/alloc.out" 2>"$TMP/alloc.err"
rc=$?
check agent_alloc_runs "exit $rc: $(tail -3 "$TMP/alloc.err")" [ "$rc" -eq 0 ]
otlp_content agent_alloc_content "$TMP/alloc.jsonl" --function site_small --function site_medium \
	--sample-type alloc_space/bytes --sample-type alloc_objects/count \
	--sample-type inuse_space/bytes --sample-type inuse_objects/count
kill "$rpid"

# HTTP/protobuf, configured by the standard variables alone.
receiver http http-receiver.mjs 0
OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$port OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf \
	OTEL_RESOURCE_ATTRIBUTES=deployment.environment=test OTEL_SERVICE_NAME=ebprof-test \
	"$EBPROF" agent -F 99 --report-interval 1s -d 2.5 >"$TMP/http.out" 2>"$TMP/http.err"
rc=$?
check agent_http_env_runs "exit $rc: $(tail -3 "$TMP/http.err")" [ "$rc" -eq 0 ]
otlp_content agent_http_content "$TMP/http.jsonl" --min-requests 2 --function chain_leaf \
	--pid "$victim" --resource-attr deployment.environment --dev-version 1
check agent_http_service_name "OTEL_SERVICE_NAME not in the requests" \
	grep -q '"ebprof-test"' "$TMP/http.jsonl"
kill "$rpid"

# A partial success is logged with the collector's own words.
receiver partial grpc-receiver.mjs 0 --partial-success "2:two profiles were too old"
"$EBPROF" agent --endpoint "127.0.0.1:$port" --insecure --report-interval 1s -d 2 \
	>"$TMP/partial.out" 2>"$TMP/partial.err"
check agent_partial_success_logged "stderr: $(tail -2 "$TMP/partial.err")" \
	grep -q 'two profiles were too old' "$TMP/partial.err"
kill "$rpid"

# SIGTERM: the last interval leaves before the agent exits, within the flush bound.
receiver term grpc-receiver.mjs 0
"$EBPROF" agent -F 99 --endpoint "127.0.0.1:$port" --insecure --report-interval 60s \
	>"$TMP/term.out" 2>"$TMP/term.err" &
agent=$!
sleep 2.5
kill -TERM "$agent"
start=$(date +%s)
wait "$agent"
rc=$?
took=$(($(date +%s) - start))
check agent_sigterm_exit "exit $rc after SIGTERM: $(tail -2 "$TMP/term.err")" [ "$rc" -eq 0 ]
check agent_sigterm_flush "$(requests "$TMP/term.jsonl") requests after SIGTERM" \
	[ "$(requests "$TMP/term.jsonl")" -ge 1 ]
check agent_sigterm_bounded "took ${took}s to exit" [ "$took" -le 8 ]
kill "$rpid"

# Outage: the receiver dies for ~5 s and comes back on the same port.
receiver before grpc-receiver.mjs 0
fixed=$port
"$EBPROF" agent -F 49 --endpoint "127.0.0.1:$fixed" --insecure --report-interval 0.5s \
	--max-queue 2 -d 14 >"$TMP/outage.out" 2>"$TMP/outage.err" &
agent=$!
# The outage starts once the receiver has had an export (a loaded machine may take
# seconds to verify the agent's programs), at the latest 8 s in.
for _ in $(seq 80); do
	[ "$(requests "$TMP/before.jsonl")" -ge 1 ] && break
	sleep 0.1
done
kill "$rpid"
wait "$rpid" 2>/dev/null
sleep 5
receiver after grpc-receiver.mjs "$fixed"
wait "$agent"
rc=$?
dropped=$(sed -nE 's/.*exports: [0-9]+ sent, ([0-9]+) dropped.*/\1/p' "$TMP/outage.out")
echo "outage: before $(requests "$TMP/before.jsonl"), after $(requests "$TMP/after.jsonl") requests; dropped ${dropped:-?}" >&2
grep -E 'dropped' "$TMP/outage.err" | head -3 >&2
check agent_outage_exit "exit $rc: $(tail -2 "$TMP/outage.err")" [ "$rc" -eq 0 ]
check agent_outage_before "$(requests "$TMP/before.jsonl") requests before the outage" \
	[ "$(requests "$TMP/before.jsonl")" -ge 1 ]
check agent_outage_dropped "dropped counter ${dropped:-missing}" [ "${dropped:-0}" -ge 1 ]
check agent_outage_logged "no drop warning on stderr" grep -q 'dropped' "$TMP/outage.err"
check agent_outage_resumed "$(requests "$TMP/after.jsonl") requests after the restart" \
	[ "$(requests "$TMP/after.jsonl")" -ge 2 ]
kill "$rpid" 2>/dev/null

# The drops of the outage, counted in samples and seconds of profile, and said once the
# receiver is back.
lost=$(sed -nE 's/.*at exit: ([0-9]+) samples, ([0-9.]+) s of profile.*/\1 \2/p' "$TMP/outage.out")
echo "outage: dropped requests held ${lost:-?} (samples, seconds)" >&2
n=${lost%% *}
check agent_outage_counted "dropped samples and seconds: ${lost:-missing}" [ "${n:-0}" -ge 1 ]
check agent_outage_said "no line saying what the outage dropped once the receiver was back" \
	grep -q 'accepts requests again.*dropped meanwhile: [0-9]* samples' "$TMP/outage.err"

# A collector that answers after 30 s, 1 s timeouts: sampling never waits for it (nothing
# lost in the ring buffer), and a request whose attempt timed out once sent goes again
# once, not more: two attempts per request at most, then dropped and counted.
receiver slow grpc-receiver.mjs 0 --delay-ms 30000
"$EBPROF" agent -F 199 --endpoint "127.0.0.1:$port" --insecure --report-interval 0.5s \
	--timeout 1s -d 8 --flush-timeout 1 --health-interval 2s >"$TMP/slow.out" 2>"$TMP/slow.err"
rc=$?
kill "$rpid" 2>/dev/null
stat() { sed -nE "s/.* ([0-9]+) $2.*/\1/p" "$1" | head -1; }
intervals=$(sed -nE 's/^ebprof agent: ([0-9]+) intervals.*/\1/p' "$TMP/slow.out")
ringbuf=$(stat "$TMP/slow.out" 'lost in the ring buffer')
attempts=$(stat "$TMP/slow.out" 'failed attempts')
twice=$(stat "$TMP/slow.out" 'timed out twice')
echo "slow collector: ${intervals:-?} intervals, ${ringbuf:-?} lost in the ring buffer, ${attempts:-?} failed attempts, ${twice:-?} timed out twice" >&2
check agent_slow_exit "exit $rc, want 1 (nothing delivered): $(tail -2 "$TMP/slow.err")" [ "$rc" -eq 1 ]
check agent_slow_no_loss "${ringbuf:-?} samples lost in the ring buffer" [ "${ringbuf:-1}" -eq 0 ]
check agent_slow_retried_once "${attempts:-?} attempts for ${intervals:-?} intervals" \
	[ "${attempts:-999999}" -le $((2 * ${intervals:-0})) ]
check agent_slow_timeouts "${twice:-?} requests dropped after timing out twice" [ "${twice:-0}" -ge 1 ]
# A collector slower than --timeout, but not hopelessly (2 s against 1 s): after the first
# attempt that times out, deadlines make room for its answers, so requests get through
# and at most that first one may be stored twice.
receiver late grpc-receiver.mjs 0 --delay-ms 2000
"$EBPROF" agent -F 199 --endpoint "127.0.0.1:$port" --insecure --report-interval 0.5s \
	--timeout 1s -d 8 --flush-timeout 5 >"$TMP/late.out" 2>"$TMP/late.err"
rc=$?
kill "$rpid" 2>/dev/null
sent=$(sed -nE 's/.*exports: ([0-9]+) sent.*/\1/p' "$TMP/late.out")
twice=$(stat "$TMP/late.out" 'timed out twice')
dups=$(stat "$TMP/late.out" 'possibly stored twice')
echo "late collector: ${sent:-?} sent, ${twice:-?} timed out twice, ${dups:-?} possibly stored twice" >&2
check agent_late_exit "exit $rc: $(tail -2 "$TMP/late.err")" [ "$rc" -eq 0 ]
check agent_late_caught_up "${sent:-?} requests accepted, ${twice:-?} timed out twice" \
	[ "${sent:-0}" -ge 2 -a "${twice:-1}" -eq 0 ]
check agent_late_duplicates "${dups:-?} requests possibly stored twice, want at most 1" \
	[ "${dups:-9}" -le 1 ]

# The agent's own line every --health-interval, its failed attempts among its counters.
health=$(grep -c 'agent health: .* lost in the ring buffer.* failed attempts' "$TMP/slow.err")
check agent_health_lines "$health health lines in 8 s at one per 2 s" [ "$health" -ge 2 ]

# No collector at all: a clear warning, exit 1 (nothing it had to send was delivered),
# nothing left behind.
track_bpf
"$EBPROF" agent --endpoint 127.0.0.1:1 --insecure --report-interval 0.5s -d 2 \
	--flush-timeout 1 >"$TMP/down.out" 2>"$TMP/down.err"
rc=$?
check agent_no_collector_exit "exit $rc, want 1: $(tail -2 "$TMP/down.err")" [ "$rc" -eq 1 ]
check agent_no_collector_said "no line saying nothing was delivered" \
	grep -q 'no export reached the collector' "$TMP/down.err"
check agent_no_collector_says "stderr: $(tail -2 "$TMP/down.err")" \
	grep -qiE 'refused|connect' "$TMP/down.err"
bpf_gone agent_no_leftovers
