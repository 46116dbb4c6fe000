#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `record -- CMD` behaves as a wrapper: it exits with the command's status (128 + N for
# signal N); when -d expires or Ctrl-C comes first the command gets SIGTERM, a bounded
# grace, then SIGKILL, and the profile is written; --help says so; the command runs with the
# resource limits it was given, whatever ebprof raised for itself. `record -p` ends once
# every target has exited.
. "$(dirname "$0")/lib.sh"

written() { [ -s "$1/profile.pb.gz" ] && [ -s "$1/stacks.folded" ] && [ -s "$1/flamegraph.html" ]; }

"$EBPROF" record -o "$TMP/exit" -- sh -c 'exit 3' >/dev/null 2>"$TMP/exit.err"
rc=$?
check wrapper_exit_status "exit $rc, the command's was 3" [ $rc -eq 3 ]

"$EBPROF" record -o "$TMP/sig" -- sh -c 'kill -SEGV $$' >/dev/null 2>"$TMP/sig.err"
rc=$?
check wrapper_signal_status "exit $rc, want 128 + SIGSEGV" [ $rc -eq $((128 + 11)) ]
check wrapper_signal_said "no line about the signal: $(cat "$TMP/sig.err")" \
	grep -q 'command killed by signal 11' "$TMP/sig.err"

# ebprof raises its own limits (an fd per BPF program, map and BTF object: over a thousand
# with every walker) from a login shell's 1,024 open files, and loads every walker within
# it; the command still gets the limits it was started with.
got=$(bash -c 'ulimit -Sn 1024 && ulimit -Sl 64 && exec "$0" record -o "$1" -- sh -c "ulimit -Sn; ulimit -Sl"' \
	"$EBPROF" "$TMP/limits" 2>"$TMP/limits.err" | tr '\n' ' ')
check wrapper_limits "the command saw open files and locked memory '$got', want '1024 64 ' ($(tail -1 "$TMP/limits.err"))" \
	[ "$got" = "1024 64 " ]

# -d expires first: SIGTERM, which this command turns into exit 7; sampled until then.
"$EBPROF" record -d 1 -o "$TMP/term" -- sh -c 'trap "exit 7" TERM; while :; do :; done' \
	>/dev/null 2>"$TMP/term.err"
rc=$?
check wrapper_stop_sigterm "exit $rc, want 7 (the command's answer to SIGTERM)" [ $rc -eq 7 ]
check wrapper_stop_written "outputs missing" written "$TMP/term"
check wrapper_stop_sampled "no samples of the command" grep -q '^sh;' "$TMP/term/stacks.folded"
check wrapper_stop_true "$(grep -i 'still running' "$TMP/term.err")" \
	bash -c "! grep -qi 'still running' '$TMP/term.err'"

# A command that ignores SIGTERM is killed after the grace. It spins: a sleeping one may
# go unsampled in so short a recording, and its outputs hold no stacks.
start=$SECONDS
"$EBPROF" record -d 1 -o "$TMP/kill" -- sh -c 'trap "" TERM; while :; do :; done' \
	>/dev/null 2>"$TMP/kill.err"
rc=$?
took=$((SECONDS - start))
check wrapper_stop_kill "exit $rc after $took s, want 137 within 30 s" [ $rc -eq 137 -a $took -lt 30 ]
check wrapper_kill_written "outputs missing" written "$TMP/kill"

# Ctrl-C first (SIGINT to ebprof alone): the same SIGTERM to the command, which turns it
# into exit 5, and the profile written. The loop bounds the wait: a hang detector only.
"$EBPROF" record -o "$TMP/int" -- sh -c 'trap "exit 5" TERM; while :; do :; done' \
	>/dev/null 2>"$TMP/int.err" &
rec=$!
if wait_sampling $rec; then
	sleep 0.5
	kill -INT $rec
	for _ in $(seq 600); do
		kill -0 $rec 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL $rec 2>/dev/null
	wait $rec
	rc=$?
	check wrapper_sigint_status "exit $rc, want 5 (the command's answer to SIGTERM)" [ $rc -eq 5 ]
	check wrapper_sigint_written "outputs missing" written "$TMP/int"
else
	fail wrapper_sigint_status "record did not start sampling: $(tail -2 "$TMP/int.err")"
	kill -KILL $rec 2>/dev/null
fi

# -p: the recording ends once its targets have exited, not at -d.
SPIN='while :; do :; done'
bash -c "$SPIN" &
a=$!
bash -c "$SPIN" &
b=$!
"$EBPROF" record -p "$a,$b" -d 120 -o "$TMP/pid" >/dev/null 2>"$TMP/pid.err" &
rec=$!
if wait_sampling $rec; then
	sleep 1
	kill $a
	sleep 0.5
	kill $b
	start=$SECONDS
	for _ in $(seq 300); do
		kill -0 $rec 2>/dev/null || break
		sleep 0.1
	done
	took=$((SECONDS - start))
	kill $rec 2>/dev/null
	wait $rec
	rc=$?
	check wrapper_pid_ends "exit $rc $took s after the last target exited (-d 120)" \
		[ $rc -eq 0 -a $took -lt 10 ]
	check wrapper_pid_written "no profile written" [ -s "$TMP/pid/profile.pb.gz" ]
else
	fail wrapper_pid_ends "record did not start sampling: $(tail -2 "$TMP/pid.err")"
fi
kill $a $b $rec 2>/dev/null

# What the help promises.
"$EBPROF" record --help >"$TMP/help"
check wrapper_help "record --help does not describe SIGTERM, the grace and the status" \
	grep -q 'SIGTERM' "$TMP/help"
