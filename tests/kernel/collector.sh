#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `ebprof agent` against the real OpenTelemetry Collector (tests/otlp/collector, built
# once per machine) running deploy/otel-collector.yaml: gRPC and HTTP, plaintext and TLS,
# gzip on and off. What the collector wrote (file exporter, OTLP/JSON) is read back:
# every export arrived, a workload in a container's cgroup has its functions, pid,
# executable name, thread names, container.id and build id; the collector logged no
# error and refused nothing. Then the failures a real collector causes: stopped and
# restarted under a running agent, and its memory limiter refusing data (HTTP and gRPC).
# Last the Kubernetes recipe, deploy/otel-collector-k8s.yaml: it loads, and the profiles
# of processes in a pod's groups come out with the pod's names from a stand-in API server.
. "$(dirname "$0")/lib.sh"

OTLP=tests/otlp
OTLP_DIR=$PWD/$OTLP
. $OTLP/lib.sh
CONFIG=deploy/otel-collector.yaml
for tool in node openssl; do
	if ! command -v $tool >/dev/null; then
		echo "FAIL collector: $tool is missing (scripts/install-deps.sh test installs it)"
		exit 0
	fi
done
if ! otlp_node_modules; then
	echo "FAIL collector: npm ci in $OTLP failed"
	exit 0
fi
if ! OTELCOL=$($OTLP/collector/build.sh -v); then
	echo "FAIL collector_build: tests/otlp/collector/build.sh failed (output above)"
	exit 0
fi
echo "collector: $OTELCOL" >&2

PIDS=()
CGROUP=
cleanup_all() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	# Groups go deepest first, once their processes are gone.
	[ -n "$CGROUP" ] && find "$(dirname "$CGROUP")" -depth -type d -exec rmdir {} + 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup_all EXIT

# Ports the kernel gave out and took back, taken in turn by take_port VAR (one node
# start for all of them: node starts slowly on a loaded machine).
PORTS=($(node -e 'const net = require("net");
	const all = Array.from({ length: 32 }, () => net.createServer());
	let left = all.length;
	for (const s of all) s.listen(0, "127.0.0.1", () => {
		if (--left) return;
		console.log(all.map((x) => x.address().port).join(" "));
		for (const x of all) x.close();
	});'))
PORT_I=0
take_port() {
	printf -v "$1" %s "${PORTS[$PORT_I]}"
	PORT_I=$((PORT_I + 1))
}

# otelcol NAME CONFIG [--set=...]: runs the collector with CONFIG, writing $TMP/NAME.log
# (JSON log, the debug exporter's dump included), internal metrics on $mport. Sets cpid;
# returns 1 when it is not ready within 30 s.
otelcol() {
	local name=$1 config=$2
	shift 2
	take_port mport
	rm -f "$TMP/$name.metrics"
	"$OTELCOL" --config "$config" --feature-gates=service.profilesSupport \
		--set=service.telemetry.logs.encoding=json \
		--set="service.telemetry.metrics.readers=[{pull: {exporter: {prometheus: {host: 127.0.0.1, port: $mport}}}}]" \
		"$@" >"$TMP/$name.log" 2>&1 &
	cpid=$!
	PIDS+=("$cpid")
	for _ in $(seq 300); do
		grep -q '"msg":"Everything is ready' "$TMP/$name.log" 2>/dev/null && return 0
		kill -0 "$cpid" 2>/dev/null || break
		sleep 0.1
	done
	tail -5 "$TMP/$name.log" >&2
	return 1
}

# collector NAME GRPC_PORT HTTP_PORT [--set=...]: the deployment configuration on these
# ports, as otelcol, its file exporter writing $TMP/NAME.jsonl.
collector() {
	local name=$1 g=$2 h=$3
	shift 3
	otelcol "$name" "$CONFIG" --set=receivers.otlp.protocols.grpc.endpoint=127.0.0.1:"$g" \
		--set=receivers.otlp.protocols.http.endpoint=127.0.0.1:"$h" \
		--set=exporters.file.path="$TMP/$name.jsonl" "$@"
}

stop_collector() {
	kill -TERM "$cpid" 2>/dev/null
	wait "$cpid" 2>/dev/null
}

# scrape NAME: saves the collector's internal metrics (Prometheus text) to
# $TMP/NAME.metrics, through bash's /dev/tcp.
scrape() {
	exec 3<>"/dev/tcp/127.0.0.1/$mport" &&
		printf 'GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3 &&
		timeout 5 cat <&3 >"$TMP/$1.metrics"
	exec 3<&-
}
# metric NAME METRIC: the sum of METRIC over its labels in what scrape NAME saved.
metric() {
	awk -v m="$2" 'index($0, m "{") == 1 { n += $NF; seen = 1 }
		END { if (seen) print n; else print "missing" }' "$TMP/$1.metrics" 2>/dev/null
}

lines() { [ -f "$1" ] && grep -c . "$1" || echo 0; }
# agent_stat FILE FIELD: from the agent's summary, "N sent", "N dropped", "N partial successes"...
agent_stat() { grep -oE "[0-9]+ $2" "$1" | head -1 | cut -d' ' -f1; }

# TLS for the collector's receivers: a CA made for this run, a certificate for 127.0.0.1.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=ebprof test CA" \
	-keyout "$TMP/ca.key" -out "$TMP/ca.pem" 2>/dev/null &&
	openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
		-keyout "$TMP/srv.key" -out "$TMP/srv.csr" 2>/dev/null &&
	printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$TMP/san.ext" &&
	openssl x509 -req -in "$TMP/srv.csr" -CA "$TMP/ca.pem" -CAkey "$TMP/ca.key" \
		-CAcreateserial -days 2 -extfile "$TMP/san.ext" -out "$TMP/srv.pem" 2>/dev/null ||
	fail collector_tls_setup "openssl could not make the certificates"
TLS=()
for proto in grpc http; do
	TLS+=(--set=receivers.otlp.protocols.$proto.tls.cert_file="$TMP/srv.pem"
		--set=receivers.otlp.protocols.$proto.tls.key_file="$TMP/srv.key")
done

# The workload, in a cgroup named as a container runtime names its containers, so that
# its /proc/PID/cgroup carries a container id.
"$W/fp_chain" 600 & # killed at the end
victim=$!
PIDS+=("$victim")
cid=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$cgroot" ] || cgroot=$(awk '$3 == "cgroup" && $4 ~ /(^|,)pids(,|$)/ { print $2; exit }' /proc/mounts)
if [ -n "$cgroot" ] && mkdir -p "$cgroot/ebprof-test-$$/docker-$cid.scope"; then
	CGROUP=$cgroot/ebprof-test-$$/docker-$cid.scope
	echo "$victim" >"$CGROUP/cgroup.procs" || CGROUP=
fi
if [ -z "$CGROUP" ]; then
	rmdir "$cgroot/ebprof-test-$$/docker-$cid.scope" "$cgroot/ebprof-test-$$" 2>/dev/null
	fail collector_container_setup "could not move the workload into a cgroup under ${cgroot:-(none)}"
fi
build_id=$(readelf -n "$W/fp_chain" | awk '/Build ID/ { print $3 }')

# run NAME ENDPOINT PROTOCOL COMPRESSION [tls]: one agent run of ~3 s against a fresh
# collector, then everything checked on what the collector made of it.
run() {
	local name=$1 ep=$2 proto=$3 comp=$4 tls=${5:-}
	local g h extra=() args start=$SECONDS
	take_port g
	take_port h
	[ -n "$tls" ] && extra=("${TLS[@]}")
	if ! collector "$name" "$g" "$h" "${extra[@]}"; then
		fail "collector_${name}_starts" "the collector did not start"
		return
	fi
	[ "$proto" = http/protobuf ] && g=$h
	args=(--endpoint "${ep/PORT/$g}" --protocol "$proto" --compression "$comp")
	[ -n "$tls" ] && args+=(--ca-file "$TMP/ca.pem")
	"$EBPROF" agent -F 99 "${args[@]}" --report-interval 1s -d 3.2 >"$TMP/$name.out" \
		2>"$TMP/$name.err"
	local rc=$? accepted refused failed
	scrape "$name"
	stop_collector
	accepted=$(metric "$name" otelcol_receiver_accepted_profile_samples)
	refused=$(metric "$name" otelcol_receiver_refused_profile_samples)
	failed=$(metric "$name" otelcol_receiver_failed_profile_samples)

	local intervals empty sent dropped partial n out crc samples ok=0
	intervals=$(agent_stat "$TMP/$name.out" intervals) empty=$(agent_stat "$TMP/$name.out" empty)
	sent=$(agent_stat "$TMP/$name.out" sent) dropped=$(agent_stat "$TMP/$name.out" dropped)
	partial=$(agent_stat "$TMP/$name.out" 'partial successes')
	n=$(lines "$TMP/$name.jsonl")
	check "collector_${name}_agent" "$(how_ended $rc "$TMP/$name.err")" [ "$rc" -eq 0 ]
	[ "${sent:-0}" -ge 3 ] && [ "${dropped:-1}" -eq 0 ] && [ "$n" -eq "$sent" ] &&
		[ "$((${intervals:-0} - ${empty:-0}))" -eq "$sent" ] && ok=1
	check "collector_${name}_all_arrived" \
		"${intervals:-?} intervals (${empty:-?} empty), agent sent ${sent:-?}, dropped ${dropped:-?}; the collector wrote $n" \
		[ $ok = 1 ]
	out=$(node $OTLP/check.mjs "$TMP/$name.jsonl" --otlp-json --min-requests 3 \
		--function chain_leaf --function chain_a --pid "$victim" \
		--pid-attr process.executable.name=fp_chain ${CGROUP:+--pid-attr container.id=$cid} \
		--build-id "$(realpath "$W/fp_chain")=$build_id" --frame-type kernel --frame-type native \
		--resource-attr process.pid --resource-attr process.executable.name \
		--resource-attr service.name --sample-attr thread.name --sample-attr thread.id 2>&1)
	crc=$?
	check "collector_${name}_content" "$(echo "$out" | tail -4 | tr '\n' ' ')" [ $crc -eq 0 ]
	samples=$(echo "$out" | sed -nE 's/^otlp check passed: .* ([0-9]+) samples$/\1/p')
	ok=0
	[ "$refused" = 0 ] && [ "$failed" = 0 ] && [ "$accepted" = "${samples:-none}" ] && ok=1
	check "collector_${name}_accepted" \
		"accepted $accepted, refused $refused, failed $failed samples; the file has ${samples:-?}" \
		[ $ok = 1 ]
	check "collector_${name}_no_partial_success" "${partial:-?} partial successes" \
		[ "${partial:-1}" -eq 0 ]
	# The debug exporter's own rendering resolves the dictionary: the workload's
	# resource and threads must read back there too.
	out=$(node $OTLP/collector-log.mjs "$TMP/$name.log" --pid "$victim" \
		--has "process.executable.name: Str(fp_chain)" --has "thread.name: Str(fp_chain)" \
		${CGROUP:+--has "container.id: Str($cid)"} 2>&1)
	crc=$?
	check "collector_${name}_log" "$(echo "$out" | tail -4 | tr '\n' ' ')" [ $crc -eq 0 ]
	echo "collector: $name took $((SECONDS - start)) s" >&2
}

run grpc_h2c_gzip http://127.0.0.1:PORT grpc gzip
run grpc_tls_none https://localhost:PORT grpc none tls
run http_plain_none http://127.0.0.1:PORT http/protobuf none
run http_tls_gzip https://localhost:PORT http/protobuf gzip tls

# wait_lines FILE N [PID]: waits up to 30 s until FILE has N lines (or PID is gone).
wait_lines() {
	for _ in $(seq 300); do
		[ "$(lines "$1")" -ge "$2" ] && return 0
		[ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null && return 1
		sleep 0.1
	done
	return 1
}

# Outage: the collector stops (SIGTERM) under a running agent and a new one comes back
# on the same ports ~4 s later: drops counted and logged, exports resume, and every
# request the agent counted as sent is in one of the two files.
take_port g
take_port h
if collector outage_before "$g" "$h"; then
	"$EBPROF" agent -F 49 --endpoint "http://127.0.0.1:$g" --report-interval 0.5s \
		--max-queue 2 -d 14 >"$TMP/outage.out" 2>"$TMP/outage.err" &
	agent=$!
	PIDS+=("$agent")
	wait_lines "$TMP/outage_before.jsonl" 1 "$agent"
	stop_collector
	sleep 4
	collector outage_after "$g" "$h" || fail collector_outage_restart "the collector did not start again"
	wait "$agent"
	rc=$?
	stop_collector
	before=$(lines "$TMP/outage_before.jsonl") after=$(lines "$TMP/outage_after.jsonl")
	sent=$(agent_stat "$TMP/outage.out" sent) dropped=$(agent_stat "$TMP/outage.out" dropped)
	echo "collector outage: $before requests before, $after after; agent sent ${sent:-?}, dropped ${dropped:-?}" >&2
	check collector_outage_agent "$(how_ended $rc "$TMP/outage.err")" [ "$rc" -eq 0 ]
	check collector_outage_before "$before requests before the stop" [ "$before" -ge 1 ]
	check collector_outage_dropped "dropped ${dropped:-?}" [ "${dropped:-0}" -ge 1 ]
	check collector_outage_logged "no drop warning: $(tail -2 "$TMP/outage.err")" \
		grep -q 'dropped' "$TMP/outage.err"
	check collector_outage_resumed "$after requests after the restart" [ "$after" -ge 2 ]
	check collector_outage_all_sent_arrived "sent ${sent:-?}, the collectors wrote $((before + after))" \
		[ "$((before + after))" -ge "${sent:-1}" ]
else
	fail collector_outage_starts "the collector did not start"
fi

# limited NAME PROTOCOL SAYS: backpressure. The memory limiter refuses everything (limit
# 1 MiB, below any Go heap): the receiver answers HTTP 503 or gRPC UNAVAILABLE (SAYS,
# an ERE on the agent's stderr), the agent keeps the requests and retries them; a
# collector with the configuration's own limits then takes them.
limited() {
	local name=$1 proto=$2 says=$3 g h port
	take_port g
	take_port h
	port=$g
	[ "$proto" = http/protobuf ] && port=$h
	if ! collector "$name" "$g" "$h" --set=processors.memory_limiter.limit_mib=1 \
		--set=processors.memory_limiter.spike_limit_mib=0 \
		--set=processors.memory_limiter.check_interval=100ms; then
		fail "collector_${name}_starts" "the collector with a 1 MiB limit did not start"
		return
	fi
	"$EBPROF" agent -F 49 --protocol "$proto" --endpoint "http://127.0.0.1:$port" \
		--report-interval 0.5s --max-queue 8 -d 8 >"$TMP/$name.out" 2>"$TMP/$name.err" &
	local agent=$!
	PIDS+=("$agent")
	for _ in $(seq 300); do
		grep -qE "$says" "$TMP/$name.err" 2>/dev/null && break
		kill -0 "$agent" 2>/dev/null || break
		sleep 0.1
	done
	sleep 1
	scrape "$name"
	stop_collector
	local refused accepted relieved_at rc sent rejected failed held out crc
	refused=$(metric "$name" otelcol_receiver_refused_profile_samples)
	accepted=$(metric "$name" otelcol_receiver_accepted_profile_samples)
	relieved_at=$(date +%s%N)
	collector "${name}_relieved" "$g" "$h" ||
		fail "collector_${name}_restart" "the collector did not start again"
	wait "$agent"
	rc=$?
	stop_collector
	sent=$(agent_stat "$TMP/$name.out" sent) rejected=$(agent_stat "$TMP/$name.out" rejected)
	failed=$(agent_stat "$TMP/$name.out" 'failed attempts')
	# Profiles the relieved collector got that were made before it started: held back
	# by the agent while the limiter refused them.
	held=$(node -e 'const at = BigInt(process.argv[2]); let n = 0;
		for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n")) {
			if (!l) continue;
			const t = JSON.parse(l).resourceProfiles?.[0]?.scopeProfiles?.[0]?.profiles?.[0]?.timeUnixNano;
			if (t && BigInt(t) < at) n++;
		}
		console.log(n);' "$TMP/${name}_relieved.jsonl" "$relieved_at" 2>/dev/null || echo 0)
	echo "collector $name: refused $refused samples (accepted $accepted); agent: $failed failed attempts, sent $sent, $rejected rejected; $held held back and delivered later" >&2
	check "collector_${name}_agent" "$(how_ended $rc "$TMP/$name.err")" [ "$rc" -eq 0 ]
	check "collector_${name}_refused" "the collector refused ${refused:-?} samples" \
		[ "${refused:-0}" -gt 0 ]
	check "collector_${name}_logged" "stderr: $(tail -2 "$TMP/$name.err")" \
		grep -qE "$says" "$TMP/$name.err"
	check "collector_${name}_not_final" "${rejected:-?} dropped as rejected" \
		[ "${rejected:-1}" -eq 0 ]
	check "collector_${name}_delivered_later" \
		"$held requests made while refused reached the next collector" [ "$held" -ge 1 ]
	out=$(node $OTLP/collector-log.mjs "$TMP/${name}_relieved.log" 2>&1)
	crc=$?
	check "collector_${name}_log_clean" "$(echo "$out" | tail -3 | tr '\n' ' ')" [ $crc -eq 0 ]
}

limited limit_http http/protobuf '503'
limited limit_grpc grpc 'UNAVAILABLE'

# The Kubernetes recipe (deploy/otel-collector-k8s.yaml): the collector that runs beside
# the agent in each pod of the DaemonSet, with the k8s_attributes processor.
K8S_CONFIG=deploy/otel-collector-k8s.yaml
K8S_NODE=node-a

# First that this collector loads it, and that the check can fail: a metadata field the
# processor does not know, and the node's name missing from the environment (the
# DaemonSet gives it from the downward API), are both refused.
# validates NAME WANT_RC ERE [--set=...]: `validate` exits WANT_RC (0, or 1 for an
# error) and, on an error, says ERE.
validates() {
	local name=$1 want=$2 says=$3 rc
	shift 3
	"$OTELCOL" validate --config "$K8S_CONFIG" --feature-gates=service.profilesSupport "$@" \
		>"$TMP/$name.validate" 2>&1
	rc=$?
	check "$name" "exit $rc, want $want${says:+ and '$says'}: $(tail -3 "$TMP/$name.validate" | tr '\n' ' ')" \
		bash -c "[ $rc -eq $want ] && { [ -z '$says' ] || grep -qE '$says' '$TMP/$name.validate'; }"
}
K8S_NODE_NAME=$K8S_NODE validates collector_k8s_config_valid 0 ''
K8S_NODE_NAME=$K8S_NODE validates collector_k8s_config_bad_field 1 'k8s\.pod\.nam\b' \
	--set='processors.k8s_attributes.extract.metadata=[k8s.pod.nam]'
env -u K8S_NODE_NAME "$OTELCOL" validate --config "$K8S_CONFIG" \
	--feature-gates=service.profilesSupport >"$TMP/k8s_no_node.validate" 2>&1
rc=$?
check collector_k8s_config_needs_node "exit $rc, want 1 naming K8S_NODE_NAME: $(tail -2 "$TMP/k8s_no_node.validate")" \
	bash -c "[ $rc -eq 1 ] && grep -q K8S_NODE_NAME '$TMP/k8s_no_node.validate'"

# Then the whole path without a cluster: the agent sends to the node's collector running
# that file, whose processor lists pods from a stand-in API server (tests/otlp/kube-api.mjs,
# through a kubeconfig: the recipe's own auth is the pod's ServiceAccount), and forwards
# to a collector running deploy/otel-collector.yaml, whose file exporter is read back.
# Three processes in groups named as a node names them: one in a pod's slice (the
# systemd driver's kubepods-pod<UID>.slice: found by k8s.pod.uid), one in a container
# group alone (found by container.id), one whose container id a pod of another node
# claims (the node filter leaves it unnamed).
k8s_recipe() {
	local base uid id_a id_b id_c pods kport gw_g gw_h g gw rc out crc c
	base=$(dirname "$CGROUP")
	uid=$(printf '%08x-aaaa-4bbb-8ccc-%012x' $$ $$)
	id_a=$(printf 'a1%08x%054d' $$ 0) id_b=$(printf 'b2%08x%054d' $$ 0)
	id_c=$(printf 'c3%08x%054d' $$ 0)
	mkdir -p "$base/kubepods-pod${uid//-/_}.slice/cri-containerd-$id_a.scope" \
		"$base/cri-containerd-$id_b.scope" "$base/docker-$id_c.scope" || {
		fail collector_k8s_setup "could not make the groups under $base"
		return
	}
	in_group() { # in_group DIR CMD...: CMD in group DIR, in the background; sets ipid
		sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$@" &
		ipid=$!
		PIDS+=("$ipid")
	}
	in_group "$base/kubepods-pod${uid//-/_}.slice/cri-containerd-$id_a.scope" "$W/syscall_loop" 60
	local pid_a=$ipid
	in_group "$base/cri-containerd-$id_b.scope" "$W/nofp_qsort" 60
	local pid_b=$ipid
	in_group "$base/docker-$id_c.scope" "$W/nofp_vdso" 60
	local pid_c=$ipid

	pods=$TMP/k8s_pods.json
	cat >"$pods" <<-JSON
		[{"metadata": {"name": "web-7d4b9c6f5-x2k8p", "namespace": "shop", "uid": "$uid",
		   "labels": {"app": "web", "pod-template-hash": "7d4b9c6f5"},
		   "creationTimestamp": "2026-12-01T10:00:00Z",
		   "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "controller": true,
		     "name": "web-7d4b9c6f5", "uid": "5e1f0c2a-0000-4000-8000-000000000001"}]},
		  "spec": {"nodeName": "$K8S_NODE", "containers": [{"name": "app", "image": "registry.example/shop/web:1.4.2"}]},
		  "status": {"phase": "Running", "podIP": "10.1.0.7", "startTime": "2026-12-01T10:00:01Z",
		   "containerStatuses": [{"name": "app", "containerID": "containerd://$id_a", "ready": true,
		     "restartCount": 0, "image": "registry.example/shop/web:1.4.2", "imageID": ""}]}},
		 {"metadata": {"name": "cache-0", "namespace": "shop", "uid": "5e1f0c2a-0000-4000-8000-000000000002",
		   "creationTimestamp": "2026-12-01T10:00:00Z",
		   "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "controller": true,
		     "name": "cache", "uid": "5e1f0c2a-0000-4000-8000-000000000003"}]},
		  "spec": {"nodeName": "$K8S_NODE", "containers": [{"name": "redis", "image": "registry.example/redis:7.4"}]},
		  "status": {"phase": "Running", "podIP": "10.1.0.8", "startTime": "2026-12-01T10:00:01Z",
		   "containerStatuses": [{"name": "redis", "containerID": "containerd://$id_b", "ready": true,
		     "restartCount": 0, "image": "registry.example/redis:7.4", "imageID": ""}]}},
		 {"metadata": {"name": "elsewhere", "namespace": "shop", "uid": "5e1f0c2a-0000-4000-8000-000000000004",
		   "creationTimestamp": "2026-12-01T10:00:00Z"},
		  "spec": {"nodeName": "node-b", "containers": [{"name": "x", "image": "registry.example/x:1"}]},
		  "status": {"phase": "Running", "podIP": "10.2.0.9", "startTime": "2026-12-01T10:00:01Z",
		   "containerStatuses": [{"name": "x", "containerID": "docker://$id_c", "ready": true,
		     "restartCount": 0, "image": "registry.example/x:1", "imageID": ""}]}}]
	JSON
	node $OTLP/kube-api.mjs --pods "$pods" --log "$TMP/kube-api.requests" \
		--port-file "$TMP/kube-api.port" 2>"$TMP/kube-api.log" &
	PIDS+=($!)
	for _ in $(seq 300); do
		[ -s "$TMP/kube-api.port" ] && break
		sleep 0.1
	done
	kport=$(cat "$TMP/kube-api.port" 2>/dev/null)
	if [ -z "$kport" ]; then
		fail collector_k8s_api "the stand-in API server did not start: $(tail -2 "$TMP/kube-api.log")"
		return
	fi
	cat >"$TMP/kubeconfig" <<-YAML
		apiVersion: v1
		kind: Config
		clusters: [{name: test, cluster: {server: "http://127.0.0.1:$kport"}}]
		users: [{name: test, user: {token: test}}]
		contexts: [{name: test, context: {cluster: test, user: test}}]
		current-context: test
	YAML

	take_port gw_g
	take_port gw_h
	if ! collector k8s_gateway "$gw_g" "$gw_h"; then
		fail collector_k8s_gateway_starts "the gateway collector did not start"
		return
	fi
	gw=$cpid
	take_port g
	if ! KUBECONFIG=$TMP/kubeconfig K8S_NODE_NAME=$K8S_NODE otelcol k8s_node "$K8S_CONFIG" \
		--set=receivers.otlp.protocols.grpc.endpoint=127.0.0.1:"$g" \
		--set=exporters.otlp_grpc/gateway.endpoint=127.0.0.1:"$gw_g" \
		--set=processors.k8s_attributes.auth_type=kubeConfig; then
		fail collector_k8s_node_starts "the node's collector did not start (it waits for the pods): $(tail -2 "$TMP/kube-api.requests")"
		return
	fi
	"$EBPROF" agent -F 99 -p "$pid_a,$pid_b,$pid_c" --endpoint "http://127.0.0.1:$g" \
		--report-interval 1s -d 3.2 >"$TMP/k8s.out" 2>"$TMP/k8s.err"
	rc=$?
	stop_collector # the node's (the last started): SIGTERM sends what it holds on
	cpid=$gw
	stop_collector
	check collector_k8s_agent "$(how_ended $rc "$TMP/k8s.err")" [ "$rc" -eq 0 ]
	echo "collector_k8s: API requests: $(cut -d' ' -f1-2 "$TMP/kube-api.requests" | sort | uniq -c | paste -sd' ')" >&2
	check collector_k8s_node_filter "the pods were not asked for by node: $(head -3 "$TMP/kube-api.requests")" \
		bash -c "grep -q 'fieldSelector=spec.nodeName%3D$K8S_NODE' '$TMP/kube-api.requests' &&
			! grep -v ' 200\$' '$TMP/kube-api.requests'"

	# k8s_named NAME PID ARGS...: check.mjs on what the gateway wrote, about PID's resource.
	k8s_named() {
		local name=$1 pid=$2 out crc
		shift 2
		out=$(node $OTLP/check.mjs "$TMP/k8s_gateway.jsonl" --otlp-json --pid "$pid" "$@" 2>&1)
		crc=$?
		check "$name" "$(echo "$out" | tail -4 | tr '\n' ' ')" [ $crc -eq 0 ]
	}
	k8s_named collector_k8s_by_pod_uid "$pid_a" --pid-attr k8s.pod.uid="$uid" \
		--pid-attr k8s.pod.name=web-7d4b9c6f5-x2k8p --pid-attr k8s.namespace.name=shop \
		--pid-attr k8s.deployment.name=web --pid-attr k8s.node.name=$K8S_NODE \
		--pid-attr container.id="$id_a" --pid-attr k8s.container.name=app \
		--pid-attr container.image.name=registry.example/shop/web --pid-attr container.image.tags=1.4.2
	k8s_named collector_k8s_by_container_id "$pid_b" --pid-attr container.id="$id_b" \
		--pid-attr k8s.pod.uid=5e1f0c2a-0000-4000-8000-000000000002 \
		--pid-attr k8s.pod.name=cache-0 --pid-attr k8s.namespace.name=shop \
		--pid-attr k8s.statefulset.name=cache --pid-attr k8s.container.name=redis \
		--pid-attr k8s.node.name=$K8S_NODE
	k8s_named collector_k8s_other_node "$pid_c" --pid-attr container.id="$id_c" \
		--pid-no-attr k8s.pod.name --pid-no-attr k8s.namespace.name --pid-no-attr k8s.pod.uid
	for c in k8s_node k8s_gateway; do
		out=$(node $OTLP/collector-log.mjs "$TMP/$c.log" 2>&1)
		crc=$?
		check "collector_${c}_log_clean" "$(echo "$out" | tail -3 | tr '\n' ' ')" [ $crc -eq 0 ]
	done
}
[ -n "$CGROUP" ] && k8s_recipe
