#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `record -- CMD`: the known frame-pointer chain shows in >= 90 % of the command's
# samples after start-up (lib.sh: STARTUP), nothing else is recorded, and forked
# children are followed.
# suite: alone (its sample counts assume the CPUs are not shared with other tests)
. "$(dirname "$0")/lib.sh"

out=$TMP/cmd
if ! "$EBPROF" record -o "$out" -- "$W/fp_chain" "$(secs 2)" >"$TMP/stdout" 2>"$TMP/stderr"; then
	fail record_command_runs "exit $?: $(head -3 "$TMP/stderr")"
	exit 0
fi
pass record_command_runs
steady=$(steady "$out/stacks.folded")
total=$(folded_count "$steady" fp_chain)
chain=$(folded_match "$steady" fp_chain ";main$L;chain_a$L;chain_b$L;chain_c$L;chain_leaf$L( |;)")
echo "fp_chain: $chain of $total samples carry main;chain_a;chain_b;chain_c;chain_leaf" >&2
check record_command_samples "only $total samples" [ "$total" -ge 30 ]
check record_command_chain "chain in $(pct "$chain" "$total") % of samples, want >= 90" \
	[ "$(pct "$chain" "$total")" -ge 90 ]
# The command's process before its exec completes still has ebprof's name: released
# from its wait in spawn__prepare (cli/spawn.c), on its way into exec, or inside it. Its
# frames in ebprof's own binary may be unnamed (the wait then shows as libc's read
# alone, as once in the 5.10 guest): no table was asked for that file, and
# where the kernel names it otherwise than the maps (overlayfs from Linux 6.8) the
# tracker's look at the process comes after its exec, when its maps no longer show it.
awk -F';' '$1 != "fp_chain"' "$out/stacks.folded" | cut -c1-300 >&2
others=$(awk -F';' '$1 != "fp_chain"' "$out/stacks.folded" |
	grep -Ev '^ebprof;(.*(spawn__prepare|_sys_execve)|(\[truncated\];)?(\[unknown\];)*((__libc_|__)?read( [^;]*)?;)*[^;]*_\[k\])' |
	cut -c1-200)
check record_command_only_cmd "stack lines of other processes: $(head -3 <<<"$others")" \
	[ -z "$others" ]
check record_command_summary "no top-functions summary on stderr" grep -q 'chain_leaf' "$TMP/stderr"
# The command's stdout is its own: nothing of ebprof's in it.
check record_command_stdout "ebprof wrote into the command's stdout: $(head -2 "$TMP/stdout")" \
	bash -c "! grep -q ebprof '$TMP/stdout'"

out=$TMP/fork
"$EBPROF" record -o "$out" -- "$W/fp_chain" 1.5 --fork >/dev/null 2>"$TMP/stderr"
child=$(folded_match "$out/stacks.folded" fp_child 'chain_leaf')
parent=$(folded_match "$out/stacks.folded" fp_chain 'chain_leaf')
echo "fork: parent $parent, child $child samples" >&2
check record_command_follows_children "child had $child samples" [ "$child" -ge 10 ]
check record_command_parent_with_children "parent had $parent samples" [ "$parent" -ge 10 ]
