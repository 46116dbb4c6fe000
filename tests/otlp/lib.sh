# SPDX-License-Identifier: Apache-2.0
# Shell helpers (sourced, POSIX sh) for the scripts that drive the OTLP test receivers:
# tests/otlp/run.sh, tests/otlp/transport.sh and tests/kernel/agent.sh. The caller sets
# OTLP_DIR to the absolute path of tests/otlp first.
: "${OTLP_DIR:?set OTLP_DIR to tests/otlp before sourcing lib.sh}"

# otlp_node_modules: installs the pinned npm packages (package-lock.json) when missing.
otlp_node_modules() {
	[ -d "$OTLP_DIR/node_modules/@grpc/grpc-js" ] && [ -d "$OTLP_DIR/node_modules/protobufjs" ] &&
		return 0
	(cd "$OTLP_DIR" && npm ci --no-audit --no-fund) >&2
}

# otlp_receiver DIR NAME KIND PORT [ARGS...]: starts KIND-receiver.mjs (grpc, http) on
# PORT (0: any free one), recording into DIR/NAME.jsonl, logging into DIR/NAME.log. Sets
# receiver_pid and receiver_port; returns 1 (the log on stderr) when it did not listen
# within 30 s or died first.
otlp_receiver() {
	_dir=$1 _name=$2 _kind=$3 _want=$4
	shift 4
	rm -f "$_dir/$_name.port"
	node "$OTLP_DIR/$_kind-receiver.mjs" --port "$_want" --port-file "$_dir/$_name.port" \
		--out "$_dir/$_name.jsonl" "$@" >"$_dir/$_name.log" 2>&1 &
	receiver_pid=$!
	_i=0
	while [ ! -s "$_dir/$_name.port" ] && [ $_i -lt 300 ] && kill -0 $receiver_pid 2>/dev/null; do
		sleep 0.1
		_i=$((_i + 1))
	done
	receiver_port=$(cat "$_dir/$_name.port" 2>/dev/null)
	[ -n "$receiver_port" ] && return 0
	cat "$_dir/$_name.log" >&2
	return 1
}
