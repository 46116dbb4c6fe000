#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Test of the OTLP test receivers and checker, on the request test_otlp encodes from
# its fixture report: each receiver (gRPC, HTTP) gets it plain and gzip'd, over TLS, and
# told to fail or to answer a partial success; check.mjs passes what they recorded and
# fails a corrupted copy. Needs: make build/tests/test_otlp, node, openssl.
# Installs the pinned npm packages (package-lock.json) into tests/otlp/node_modules.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-build}
case $build in
/*) ;;
*) build=$root/$build ;;
esac
bin=$build/tests/test_otlp

if [ ! -x "$bin" ]; then
	echo "FAIL otlp_receivers: $bin not built (make $bin)"
	exit 1
fi
OTLP_DIR=$here
. "$here/lib.sh"
if ! otlp_node_modules; then
	echo "FAIL otlp_receivers: npm ci failed"
	exit 1
fi

tmp=$(mktemp -d)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

if ! EBPROF_OTLP_FIXTURE=$tmp/req.bin "$bin" >"$tmp/unit.log" 2>&1 || [ ! -s "$tmp/req.bin" ]; then
	cat "$tmp/unit.log" >&2
	echo "FAIL otlp_receivers: could not write the fixture request"
	exit 1
fi

pass() { echo "PASS $1"; }
fail() {
	echo "FAIL $1: $2"
	failed=1
}
failed=0

# start NAME SCRIPT ARGS...: starts a receiver writing $tmp/NAME.jsonl; sets $port.
start() {
	name=$1
	kind=${2%-receiver.mjs}
	shift 2
	otlp_receiver "$tmp" "$name" "$kind" 0 "$@" || return 1
	pids="$pids $receiver_pid"
	port=$receiver_port
}

stop() { # stops the receiver started last
	last=${pids##* }
	kill "$last" 2>/dev/null
	wait "$last" 2>/dev/null
	pids=${pids% *}
}

send() { node "$here/send.mjs" --file "$tmp/req.bin" "$@" 2>&1; }

# field FILE LINE EXPR: a JavaScript expression over entry `e` of line LINE of FILE.
field() {
	node -e 'const l = require("fs").readFileSync(process.argv[1], "utf8").split("\n");
		const e = JSON.parse(l[Number(process.argv[2]) - 1]);
		console.log(eval(process.argv[3]))' "$1" "$2" "$3" 2>&1
}

check() { node "$here/check.mjs" "$@" >"$tmp/check.log" 2>&1; }

CHECK_ARGS="--function work --function main --pid 100 --frame-type kernel --frame-type native"
CHECK_ARGS="$CHECK_ARGS --resource-attr host.name --sample-attr thread.name"

# 1. plain and gzip'd, each transport; what was recorded passes the checker.
for t in grpc http; do
	if [ $t = grpc ]; then
		start $t grpc-receiver.mjs || { fail ${t}_receiver "did not start"; continue; }
		target="--grpc 127.0.0.1:$port"
	else
		start $t http-receiver.mjs || { fail ${t}_receiver "did not start"; continue; }
		target="--http http://127.0.0.1:$port"
	fi
	a=$(send $target)
	b=$(send $target --gzip 1)
	stop
	case "$a$b" in
	*'"ok":false'* | *error* | '') fail ${t}_receiver "send failed: $a $b" ;;
	*)
		c1=$(field "$tmp/$t.jsonl" 1 e.compression)
		c2=$(field "$tmp/$t.jsonl" 2 e.compression)
		w2=$(field "$tmp/$t.jsonl" 2 'e.wireBytes < e.bytes')
		if [ "$c1 $c2 $w2" != "identity gzip true" ]; then
			fail ${t}_receiver "compression recorded as '$c1 $c2 $w2'"
		elif ! check "$tmp/$t.jsonl" --min-requests 2 $CHECK_ARGS; then
			fail ${t}_receiver "check.mjs: $(cat "$tmp/check.log")"
		else
			pass ${t}_receiver
		fi
		;;
	esac
done

# 2. told to fail the first request, then succeed (what a retrying transport sees).
if start grpcfail grpc-receiver.mjs --fail UNAVAILABLE --fail-first 1; then
	a=$(send --grpc "127.0.0.1:$port")
	b=$(send --grpc "127.0.0.1:$port")
	stop
	case "$a|$b" in
	*'"status":"UNAVAILABLE"'*'|'*'"ok":true'*) pass grpc_fail_then_ok ;;
	*) fail grpc_fail_then_ok "got: $a | $b" ;;
	esac
else
	fail grpc_fail_then_ok "did not start"
fi
if OTLP_RECEIVER_RETRY_AFTER=2 start httpfail http-receiver.mjs --fail 503 --fail-first 1; then
	a=$(send --http "http://127.0.0.1:$port")
	b=$(send --http "http://127.0.0.1:$port")
	stop
	s=$(field "$tmp/httpfail.jsonl" 1 e.answered.status)
	case "$a|$b|$s" in
	*'"status":503'*'"retryAfter":"2"'*'|'*'"ok":true'*'|503') pass http_fail_then_ok ;;
	*) fail http_fail_then_ok "got: $a | $b | recorded $s" ;;
	esac
else
	fail http_fail_then_ok "did not start"
fi

# 3. partial success, both transports.
for t in grpc http; do
	if [ $t = grpc ]; then
		start ${t}partial grpc-receiver.mjs --partial-success "2:too old" || continue
		a=$(send --grpc "127.0.0.1:$port")
	else
		start ${t}partial http-receiver.mjs --partial-success "2:too old" || continue
		a=$(send --http "http://127.0.0.1:$port")
	fi
	stop
	case "$a" in
	*'"ok":true'*'"rejected_profiles":"2","error_message":"too old"'*) pass ${t}_partial_success ;;
	*) fail ${t}_partial_success "got: $a" ;;
	esac
done

# 4. TLS (HTTP: HTTP/2 or 1.1 by ALPN), with a throw-away self-signed certificate.
if openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
	-addext subjectAltName=IP:127.0.0.1 -keyout "$tmp/key.pem" -out "$tmp/cert.pem" \
	>"$tmp/openssl.log" 2>&1; then
	tls="--tls-cert $tmp/cert.pem --tls-key $tmp/key.pem"
	if start grpctls grpc-receiver.mjs $tls; then
		a=$(send --grpc "127.0.0.1:$port" --ca "$tmp/cert.pem" --gzip 1)
		stop
		case "$a" in
		*'"ok":true'*) pass grpc_tls ;;
		*) fail grpc_tls "got: $a" ;;
		esac
	fi
	if start httptls http-receiver.mjs $tls; then
		a=$(send --http "https://127.0.0.1:$port" --ca "$tmp/cert.pem")
		b=$(send --http "https://127.0.0.1:$port" --ca "$tmp/cert.pem" --h2 1 --gzip 1)
		stop
		v=$(field "$tmp/httptls.jsonl" 1 e.httpVersion)/$(field "$tmp/httptls.jsonl" 2 e.httpVersion)
		case "$a|$b|$v" in
		*'"ok":true'*'|'*'"ok":true'*'|1.1/2.0') pass http_tls ;;
		*) fail http_tls "got: $a | $b | versions $v" ;;
		esac
	fi
else
	cat "$tmp/openssl.log" >&2
	fail tls "openssl could not make a certificate"
fi

# 5. the checker fails what breaks the rules.
if [ -s "$tmp/http.jsonl" ]; then
	head -n 1 "$tmp/http.jsonl" >"$tmp/good.jsonl"
	bad=0
	for mutation in 'd.string_table[0] = "x"' \
		'd.stack_table[1].location_indices[0] = d.location_table.length' \
		'd.location_table[1].lines[0].function_index = 0' \
		'd.mapping_table[0].memory_limit = "1"' \
		'r.resource_profiles[0].scope_profiles[0].profiles[0].samples[0].values.pop()' \
		'r.resource_profiles[0].resource.attributes.shift()'; do
		node -e 'const fs = require("fs"); const e = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
			const r = e.request, d = r.dictionary; eval(process.argv[2]);
			fs.writeFileSync(process.argv[3], JSON.stringify(e) + "\n")' \
			"$tmp/good.jsonl" "$mutation" "$tmp/bad.jsonl"
		if check "$tmp/bad.jsonl"; then
			fail checker_rejects "accepted a request where $mutation"
			bad=1
		fi
	done
	if ! check "$tmp/good.jsonl" $CHECK_ARGS; then
		fail checker_rejects "rejected the good request: $(cat "$tmp/check.log")"
	elif check "$tmp/good.jsonl" --function no_such_function; then
		fail checker_rejects "found a function that is not there"
	elif check "$tmp/good.jsonl" --function memcpy --pid 100; then
		fail checker_rejects "found memcpy in pid 100, which never ran it"
	elif check "$tmp/good.jsonl" --every-attr process.pid=101; then
		fail checker_rejects "took every resource for process 101's"
	elif [ $bad -eq 0 ]; then
		pass checker_rejects
	fi
fi

exit $failed
