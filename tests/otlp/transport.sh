#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The OTLP transport against the test receivers (grpc-receiver.mjs, http-receiver.mjs):
# gRPC over h2c and over TLS with a throwaway CA, OTLP/HTTP with gzip over HTTP/1.1 and
# HTTP/2 (TLS), the OTEL_EXPORTER_OTLP_* variables, error statuses and partial success
# reported with the server's message, and an outage: the receiver is killed mid-run,
# drops rise while the queue stays bounded, and exports resume once it is back on the
# same port. Needs build/tests/otlp_send (make unit-bins), node, npm, protoc, openssl;
# no root.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-build}
case $build in
/*) ;;
*) build=$root/$build ;;
esac
send=$build/tests/otlp_send
svc_proto=opentelemetry/proto/collector/profiles/v1development/profiles_service.proto
failed=0

pass() { echo "PASS $1"; }
fail() {
	echo "FAIL $1: $2"
	failed=1
}

if [ ! -x "$send" ]; then
	echo "FAIL otlp_transport: $send not built (make unit-bins)"
	exit 1
fi
for tool in node npm protoc openssl; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "FAIL otlp_transport: $tool not found (scripts/install-deps.sh test)"
		exit 1
	fi
done
OTLP_DIR=$here
. "$here/lib.sh"
if ! otlp_node_modules; then
	echo "FAIL otlp_transport: npm ci in tests/otlp failed"
	exit 1
fi

tmp=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# A request the receivers can decode, with a token this run can find in what they got.
token="otlp-transport-$$-$RANDOM"
cat >"$tmp/req.txt" <<EOF
resource_profiles {
  resource { attributes { key: "service.name" value { string_value: "$token" } } }
  scope_profiles { scope { name: "ebprof" version: "test" } }
}
EOF
if ! protoc -I "$build/proto" --encode=opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest \
	"$build/proto/$svc_proto" <"$tmp/req.txt" >"$tmp/req.bin"; then
	echo "FAIL otlp_transport: protoc could not encode the test request"
	exit 1
fi

# start_receiver NAME KIND [receiver flags...]: starts KIND-receiver.mjs writing to
# $tmp/NAME.jsonl, on port $RECEIVER_PORT (default: any free one); sets rpid and rport.
start_receiver() {
	local name=$1 kind=$2
	shift 2
	otlp_receiver "$tmp" "$name" "$kind" "${RECEIVER_PORT:-0}" "$@" || return 1
	rpid=$receiver_pid
	pids+=("$rpid")
	rport=$receiver_port
}

stop_receiver() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# field NAME LINE: the value of NAME=... in a stats line of otlp_send.
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$2"; }

# received FILE CHECK: number of requests in FILE (JSON lines) for which the
# node expression (over `e`, one entry) is true.
received() {
	node -e '
		const fs = require("fs");
		const lines = fs.existsSync(process.argv[1]) ?
			fs.readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean) : [];
		const check = new Function("e", "token", "return " + process.argv[2]);
		console.log(lines.map(JSON.parse).filter((e) => check(e, process.argv[3])).length);
	' "$1" "$2" "$token"
}

has_token='e.request.resource_profiles[0].resource.attributes.some(a => a.value.string_value === token)'

# --- gRPC over h2c --------------------------------------------------------------------
test_grpc_h2c() {
	start_receiver h2c grpc || {
		fail grpc_h2c "receiver did not start"
		return
	}
	local out
	out=$("$send" --protocol grpc --endpoint "http://127.0.0.1:$rport" --header x-test=h2c \
		--count 3 "$tmp/req.bin" 2>"$tmp/h2c.err" | grep '^final')
	stop_receiver "$rpid"
	local got
	got=$(received "$tmp/h2c.jsonl" "$has_token && e.compression === 'gzip' && e.metadata['x-test'] === 'h2c' && e.userAgent.startsWith('ebprof')")
	if [ "$(field sent "$out")" = 3 ] && [ "$got" = 3 ]; then
		pass grpc_h2c
	else
		cat "$tmp/h2c.err" >&2
		fail grpc_h2c "sent=$(field sent "$out"), receiver got $got of 3 gzip'd with the header"
	fi
}

# --- gRPC over TLS, with a CA made for this run ---------------------------------------
make_ca() {
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=ebprof test CA" \
		-keyout "$tmp/ca.key" -out "$tmp/ca.pem" 2>/dev/null &&
		openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
			-keyout "$tmp/srv.key" -out "$tmp/srv.csr" 2>/dev/null &&
		printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$tmp/san.ext" &&
		openssl x509 -req -in "$tmp/srv.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" \
			-CAcreateserial -days 2 -extfile "$tmp/san.ext" -out "$tmp/srv.pem" 2>/dev/null
}

test_grpc_tls() {
	start_receiver tls grpc --tls-cert "$tmp/srv.pem" --tls-key "$tmp/srv.key" || {
		fail grpc_tls "receiver did not start"
		return
	}
	local ok untrusted bare
	# An https:// endpoint, the CA given as a flag.
	ok=$("$send" --protocol grpc --endpoint "https://localhost:$rport" --ca-file "$tmp/ca.pem" \
		--count 2 "$tmp/req.bin" 2>"$tmp/tls.err" | grep '^final')
	# The CA from the environment this time. (A host:port without a scheme is TLS too,
	# but not on the loopback, where it is plaintext: test_otlp_config covers both.)
	bare=$(OTEL_EXPORTER_OTLP_CERTIFICATE="$tmp/ca.pem" OTEL_EXPORTER_OTLP_PROTOCOL=grpc \
		"$send" --endpoint "https://localhost:$rport" "$tmp/req.bin" 2>>"$tmp/tls.err" |
		grep '^final')
	# Without the CA the server's certificate must not be trusted.
	untrusted=$("$send" --protocol grpc --endpoint "https://localhost:$rport" \
		--retry-max-ms 300 --backoff 50,100 "$tmp/req.bin" 2>"$tmp/untrusted.err" | grep '^final')
	stop_receiver "$rpid"
	local got
	got=$(received "$tmp/tls.jsonl" "$has_token")
	if [ "$(field sent "$ok")" = 2 ] && [ "$(field sent "$bare")" = 1 ] && [ "$got" = 3 ] &&
		[ "$(field sent "$untrusted")" = 0 ] && grep -qi 'certificate' "$tmp/untrusted.err"; then
		pass grpc_tls
	else
		cat "$tmp/tls.err" "$tmp/untrusted.err" >&2
		fail grpc_tls "sent $(field sent "$ok")/2 and $(field sent "$bare")/1 with the CA (receiver got $got), $(field sent "$untrusted") without"
	fi
}

# --- OTLP/HTTP with gzip: HTTP/1.1 in plaintext, HTTP/2 over TLS ------------------------
test_http() {
	start_receiver http http || {
		fail http_gzip "receiver did not start"
		return
	}
	local flag envout
	flag=$("$send" --protocol http/protobuf --endpoint "http://127.0.0.1:$rport" \
		--header "Authorization=Bearer t0k" --count 2 "$tmp/req.bin" 2>"$tmp/http.err" |
		grep '^final')
	# The generic variable is a base URL: /v1development/profiles is appended.
	envout=$(OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$rport" \
		OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf \
		OTEL_EXPORTER_OTLP_HEADERS="x-from-env=a%20b" "$send" "$tmp/req.bin" \
		2>>"$tmp/http.err" | grep '^final')
	stop_receiver "$rpid"
	local got envgot
	got=$(received "$tmp/http.jsonl" "$has_token && e.compression === 'gzip' && e.path === '/v1development/profiles' && e.headers.authorization === 'Bearer t0k'")
	envgot=$(received "$tmp/http.jsonl" "$has_token && e.headers['x-from-env'] === 'a b'")
	if [ "$(field sent "$flag")" = 2 ] && [ "$got" = 2 ] && [ "$(field sent "$envout")" = 1 ] &&
		[ "$envgot" = 1 ]; then
		pass http_gzip
	else
		cat "$tmp/http.err" >&2
		fail http_gzip "sent $(field sent "$flag")/2 (receiver got $got as expected), from the environment $(field sent "$envout")/1 ($envgot)"
	fi

	start_receiver https http --tls-cert "$tmp/srv.pem" --tls-key "$tmp/srv.key" || {
		fail http_tls_h2 "receiver did not start"
		return
	}
	flag=$("$send" --protocol http/protobuf --endpoint "https://localhost:$rport" \
		--ca-file "$tmp/ca.pem" --count 2 "$tmp/req.bin" 2>"$tmp/https.err" | grep '^final')
	stop_receiver "$rpid"
	got=$(received "$tmp/https.jsonl" "$has_token && e.compression === 'gzip' && e.httpVersion === '2.0'")
	if [ "$(field sent "$flag")" = 2 ] && [ "$got" = 2 ]; then
		pass http_tls_h2
	else
		cat "$tmp/https.err" >&2
		fail http_tls_h2 "sent $(field sent "$flag")/2, receiver got $got over HTTP/2"
	fi
}

# run_case NAME KIND "RECEIVER FLAGS" "SEND FLAGS" EXPECT...: one answer-handling case;
# each EXPECT is FIELD=VALUE of the final counters or /TEXT/ that stderr must contain.
run_case() {
	local name=$1 kind=$2 rflags=$3 sflags=$4 out e why=""
	shift 4
	# shellcheck disable=SC2086
	start_receiver "$name" "$kind" $rflags || {
		fail "$name" "receiver did not start"
		return
	}
	local proto=grpc url="http://127.0.0.1:$rport"
	[ "$kind" = http ] && proto=http/protobuf
	# shellcheck disable=SC2086
	out=$("$send" --protocol $proto --endpoint "$url" --backoff 50,200 $sflags "$tmp/req.bin" \
		2>"$tmp/$name.err" | grep '^final')
	stop_receiver "$rpid"
	for e in "$@"; do
		case $e in
		/*/) grep -qF -- "${e:1:${#e}-2}" "$tmp/$name.err" || why="$why stderr lacks '${e:1:${#e}-2}';" ;;
		*) [ "$(field "${e%%=*}" "$out")" = "${e#*=}" ] ||
			why="$why ${e%%=*}=$(field "${e%%=*}" "$out") (want ${e#*=});" ;;
		esac
	done
	if [ -z "$why" ]; then
		pass "$name"
	else
		cat "$tmp/$name.err" >&2
		fail "$name" "$why"
	fi
}

test_answers() {
	run_case grpc_rejected grpc "--fail INVALID_ARGUMENT" "" sent=0 rejected=1 \
		failed_attempts=1 "/test receiver told to fail (INVALID_ARGUMENT)/"
	run_case grpc_unavailable_retried grpc "--fail UNAVAILABLE --fail-first 2" "" sent=1 \
		failed_attempts=2 dropped=0 "/grpc-status 14 (UNAVAILABLE)/"
	run_case grpc_partial grpc "--partial-success 2:profiles_too_old" "--count 2" sent=2 \
		partial=2 rejected_profiles=4 "/rejected 2 profile(s): profiles_too_old/"
	run_case http_rejected http "--fail 400" "" sent=0 rejected=1 failed_attempts=1 \
		"/HTTP 400: test receiver told to fail (400)/"
	run_case http_503_retried http "--fail 503 --fail-first 1 --retry-after 1" "" sent=1 \
		failed_attempts=1 dropped=0 "/HTTP 503/"
	run_case http_partial http "--partial-success 0:just_a_warning" "" sent=1 partial=1 \
		rejected_profiles=0 "/the collector says: just_a_warning/"
	# gRPC to an HTTP/1.1-only port: no answer, retried like a dead connection, dropped.
	run_case grpc_to_http_port http "" "--protocol grpc --retry-max-ms 300" sent=0 expired=1
}

# --- Outage: kill the receiver mid-run, bring it back on the same port ------------------
last_stats() { grep '^stats\|^final' "$tmp/outage.out" | tail -1; }

# wait_for FIELD MIN: polls otlp_send's counters until FIELD >= MIN (or it exits).
wait_for() {
	local i v
	for i in $(seq 600); do
		v=$(field "$1" "$(last_stats)")
		[ -n "$v" ] && [ "$v" -ge "$2" ] && return 0
		kill -0 "$spid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

test_outage() {
	local max_queue=4 sent_down drops_down bad
	start_receiver up1 grpc || {
		fail outage "receiver did not start"
		return
	}
	"$send" --protocol grpc --endpoint "http://127.0.0.1:$rport" --count 300 --interval-ms 100 \
		--stats-ms 100 --max-queue $max_queue --backoff 50,300 --close-ms 5000 "$tmp/req.bin" \
		>"$tmp/outage.out" 2>"$tmp/outage.err" &
	spid=$!
	pids+=("$spid")
	if ! wait_for sent 3; then
		fail outage "no export before the outage: $(last_stats)"
		return
	fi
	stop_receiver "$rpid"
	sent_down=$(field sent "$(last_stats)")
	if ! wait_for queue_full 5; then
		fail outage "no drops while the receiver was down: $(last_stats)"
		return
	fi
	drops_down=$(field queue_full "$(last_stats)")
	RECEIVER_PORT=$rport start_receiver up2 grpc || {
		fail outage "receiver did not restart on port $rport"
		return
	}
	if ! wait_for sent $((sent_down + 5)); then
		fail outage "exports did not resume: $(last_stats)"
		return
	fi
	wait "$spid"
	local fin got
	fin=$(grep '^final' "$tmp/outage.out")
	got=$(received "$tmp/up2.jsonl" "$has_token")
	bad=$(grep '^stats\|^final' "$tmp/outage.out" | awk -v m=$max_queue '{
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "queued" && kv[2] > m) n++ } }
		END { print n + 0 }')
	if [ "$bad" = 0 ] && [ "$(field queued_max "$fin")" -le $max_queue ] &&
		[ "$(field queue_full "$fin")" -ge "$drops_down" ] && [ "$got" -ge 5 ] &&
		[ "$(field sent "$fin")" -gt "$sent_down" ] &&
		[ "$(field submitted "$fin")" = $(($(field sent "$fin") + $(field dropped "$fin"))) ] &&
		grep -q 'accepts requests again' "$tmp/outage.err"; then
		pass outage
		echo "    outage: sent $sent_down before, $drops_down dropped while down, $(field sent "$fin") sent in all, restarted receiver got $got, queue never over $(field queued_max "$fin")" >&2
	else
		cat "$tmp/outage.err" >&2
		fail outage "queue over $max_queue in $bad samples; final: $fin; restarted receiver got $got"
	fi
}

test_grpc_h2c
if make_ca; then
	test_grpc_tls
else
	fail grpc_tls "openssl could not make the test CA"
fi
test_http
test_answers
test_outage
exit $failed
