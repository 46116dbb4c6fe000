#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The small promises of the command line: `check` as a user without privileges blames
# the privileges, not the kernel, and `check --json` is JSON; `ebprof help VERB` is
# `VERB --help`; an unknown flag is one line plus "Try"; the agent's help speaks of no
# command; the README's examples run in a root shell without sudo and every flag in
# them parses; a recording into a directory removes what an earlier one wrote there.
. "$(dirname "$0")/lib.sh"

# check, as nobody: privileges FAIL, the probes that need them untested, said why.
if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$EBPROF" check >"$TMP/user" 2>&1
	rc=$?
	cat "$TMP/user" >&2
	check cli_check_user_exit "exit $rc, want 1" [ $rc -eq 1 ]
	check cli_check_user_privileges "no failing privileges line" \
		grep -qE '^privileges +FAIL' "$TMP/user"
	check cli_check_user_not_kernel "blames the kernel: $(grep -E 'needs 5\.|no BPF ring' "$TMP/user")" \
		bash -c "! grep -qE 'needs 5\\.8|no BPF ring buffer' '$TMP/user'"
	check cli_check_user_untested "nothing said untested, and why" \
		grep -qE '^ringbuf +untested .*CAP_BPF' "$TMP/user"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$EBPROF" check --json >"$TMP/user.json"
	check cli_check_user_json "not the JSON expected: $(head -c 300 "$TMP/user.json")" \
		python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
s = {c["name"]: c["status"] for c in d["checks"]}
assert d["can_record"] is False and s["privileges"] == "fail" and s["ringbuf"] == "untested"' \
		"$TMP/user.json"
else
	echo "SKIP cli_check_user: setpriv cannot switch to nobody here"
fi
"$EBPROF" check --json >"$TMP/root.json"
rc=$?
check cli_check_json "exit $rc, or not the JSON expected: $(head -c 300 "$TMP/root.json")" \
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["can_record"] is (sys.argv[2] == "0")
assert all(c["status"] in ("ok", "fail", "warn", "yes", "no") for c in d["checks"])' \
	"$TMP/root.json" $rc

# help VERB, unknown flags, the agent's own help.
same_help() { [ "$1" -eq 0 ] && cmp -s "$2" "$3"; }
one_line_and_try() { [ "$1" -eq 2 ] && [ "$(wc -l <"$2")" -eq 2 ] && [ "$(tail -1 "$2")" = "Try 'ebprof $3 --help'." ]; }
for v in record agent check; do
	"$EBPROF" help $v >"$TMP/help.$v" 2>&1
	rc=$?
	"$EBPROF" $v --help >"$TMP/dash.$v" 2>&1
	check "cli_help_$v" "exit $rc, or not '$v --help'" same_help $rc "$TMP/help.$v" "$TMP/dash.$v"
	"$EBPROF" $v --no-such-flag >"$TMP/bad.$v.out" 2>"$TMP/bad.$v"
	rc=$?
	check "cli_unknown_flag_$v" "exit $rc: $(cat "$TMP/bad.$v")" one_line_and_try $rc "$TMP/bad.$v" $v
done
check cli_agent_help_own "the agent's help speaks of a command: $(grep -nE 'COMMAND|CMD|the command' "$TMP/dash.agent")" \
	bash -c "! grep -qE 'COMMAND|CMD|the command' '$TMP/dash.agent'"

# The README's examples: commands a root shell runs as they are (no sudo), whose flags
# all parse ("--help" put before "--" stops each after its flags were read).
# The pids in them (1234, 5678) stand for running processes: this shell's and its parent.
sed -n '/^## Use/,/^## Deploy\|^## Requirements/p' README.md | sed -n '/^```sh/,/^```/p' |
	grep -v '^```' | sed "s/ *#.*//; s/\b1234\b/$$/g; s/\b5678\b/$PPID/g" >"$TMP/examples"
n=0
while read -r line; do
	[ -n "$line" ] || continue
	n=$((n + 1))
	case $line in
	sudo*) fail "cli_readme_$n" "needs sudo: $line"; continue ;;
	esac
	read -ra words <<<"$line"
	args=()
	env=()
	for w in "${words[@]}"; do
		if [ ${#args[@]} -eq 0 ] && [[ $w == *=* ]]; then env+=("$w"); continue; fi
		args+=("$w")
	done
	if [ "${args[0]}" != build/ebprof ]; then
		fail "cli_readme_$n" "not build/ebprof: $line"
		continue
	fi
	cmd=("$EBPROF")
	helped=0
	for w in "${args[@]:1}"; do
		[ "$w" = -- ] && [ $helped -eq 0 ] && cmd+=(--help) && helped=1
		cmd+=("$w")
	done
	[ $helped -eq 0 ] && [ "${args[1]}" != check ] && cmd+=(--help)
	env "${env[@]}" "${cmd[@]}" >/dev/null 2>"$TMP/readme.err"
	rc=$?
	check "cli_readme_$n" "exit $rc for '$line': $(head -2 "$TMP/readme.err")" [ $rc -eq 0 ]
done <"$TMP/examples"
check cli_readme_examples "only $n examples found in README's Use and agent sections" [ $n -ge 15 ]

# A recording into a directory removes what an earlier one wrote and this one did not.
"$EBPROF" record -d 1 -o "$TMP/out" --probe "tracepoint:sched:sched_switch" >/dev/null 2>&1
had=$(ls "$TMP/out" | grep -c 'tracepoint-sched-sched_switch')
touch "$TMP/out/notes.txt"
"$EBPROF" record -v -d 0.5 -o "$TMP/out" >/dev/null 2>"$TMP/rerun.err"
left=$(ls "$TMP/out" | grep -c 'tracepoint-sched-sched_switch')
check cli_rerun_removes "the probe's $had files: $left left after a recording without it" \
	[ "$had" -eq 3 -a "$left" -eq 0 ]
check cli_rerun_keeps_others "a file ebprof never wrote was removed" [ -e "$TMP/out/notes.txt" ]
check cli_rerun_writes "the new profile is missing" [ -s "$TMP/out/profile.pb.gz" ]
# -v adds the counters of every part to the summary (record_system.sh: none without it).
check cli_verbose_details "no counters of the parts with -v" \
	grep -q '^  processes: [0-9]* seen' "$TMP/rerun.err"
