#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Errors: usage errors exit 2 with a message, runtime refusals exit 1 with one line
# saying what is wrong, and nothing is left behind.
. "$(dirname "$0")/lib.sh"

expect() { # expect NAME STATUS PATTERN CMD...
	local name=$1 want=$2 pat=$3
	shift 3
	"$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	if [ $rc -ne "$want" ]; then
		fail "$name" "exit $rc, want $want: $(head -2 "$TMP/err")"
	elif ! grep -qiE -e "$pat" "$TMP/err" "$TMP/out"; then
		fail "$name" "output lacks /$pat/: $(head -2 "$TMP/err")"
	else
		pass "$name"
	fi
}

track_bpf
expect errors_unknown_flag 2 "unknown option '--bogus'" "$EBPROF" record --bogus
expect errors_bad_freq 2 '-F:.*not a whole number' "$EBPROF" record -F abc
expect errors_freq_range 2 '-F:.*out of range' "$EBPROF" record -F 0
expect errors_bad_duration 2 '-d:.*not a duration' "$EBPROF" record -d soon
sleep 0 & gone=$!; wait $gone
expect errors_missing_pid 2 "no process with pid $gone" "$EBPROF" record -p $gone
expect errors_pid_and_cmd 2 'exclude' "$EBPROF" record -p 1 -- true
expect errors_unknown_verb 2 'unknown command' "$EBPROF" frobnicate
expect errors_outdir 1 'cannot (create|write).*output directory' "$EBPROF" record -d 1 -o /proc/ebprof-no
expect errors_missing_command 1 'cannot run no-such-command-xyz' "$EBPROF" record -- no-such-command-xyz
# The agent's settings, from flags or the environment, are checked before the host is.
expect errors_agent_max_queue 2 '--max-queue: 0 is out of range \(1 to 65536\)' \
	"$EBPROF" agent --max-queue 0
expect errors_agent_endpoint 2 '--endpoint:.*scheme' "$EBPROF" agent --endpoint 'ftp://x:1'
expect errors_agent_env 2 'OTEL_RESOURCE_ATTRIBUTES:.*no' \
	env OTEL_RESOURCE_ATTRIBUTES=x "$EBPROF" agent
expect errors_agent_env_protocol 2 'OTEL_EXPORTER_OTLP_PROTOCOL' \
	env OTEL_EXPORTER_OTLP_PROTOCOL=carrier-pigeon "$EBPROF" agent
expect errors_help_main 0 'record' "$EBPROF" --help
expect errors_help_record 0 'examples' "$EBPROF" record --help
expect errors_check 0 'btf +ok' "$EBPROF" check
if command -v setpriv >/dev/null; then
	expect errors_not_root 1 'privileges:.*(root|CAP_BPF)' \
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$EBPROF" record -d 1 -o "$TMP/np"
else
	echo "SKIP errors_not_root: setpriv missing"
fi
bpf_gone errors_clean
