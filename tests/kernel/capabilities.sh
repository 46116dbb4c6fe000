#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The capabilities deploy/ebprof-daemonset.yaml grants are enough: uid 0 with only
# those in its bounding set (what the container gets) records whole-system stacks with
# named user and kernel frames; without CAP_BPF it fails with an error that says what
# is missing.
# suite: alone (its sample counts assume the CPUs are not shared with other tests)
. "$(dirname "$0")/lib.sh"

yaml=deploy/ebprof-daemonset.yaml
caps=$(grep -E '^ *add: \[' "$yaml" | head -1 | tr -d '[]" ' | sed 's/^add://' | tr 'A-Z' 'a-z')
if [ -z "$caps" ] || ! command -v setpriv >/dev/null; then
	echo "SKIP capabilities: no capability list in $yaml or no setpriv"
	exit 0
fi
bounding=-all,$(echo "$caps" | sed 's/[^,]*/+&/g')
echo "bounding set: $bounding" >&2

"$W/fp_chain" 4 &
victim=$!
# Kernel frames are named only if /proc/kallsyms gives addresses, which with
# perf_event_paranoid > 1 takes CAP_SYSLOG: a victim that lives in read(2) shows it.
"$W/syscall_loop" 4 &
reader=$!
out=$TMP/caps
setpriv --bounding-set "$bounding" -- "$EBPROF" record -d 2 -o "$out" >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
kill "$victim" "$reader" 2>/dev/null
wait "$victim" "$reader" 2>/dev/null
check capabilities_daemonset_record "exit $rc: $(head -3 "$TMP/stderr")" [ "$rc" -eq 0 ]
chain=$(folded_match "$out/stacks.folded" fp_chain ";main$L;chain_a$L;chain_b$L;chain_c$L;chain_leaf$L( |;)")
check capabilities_daemonset_stacks "$chain samples of the known chain" [ "${chain:-0}" -ge 20 ]
kern=$(folded_match "$out/stacks.folded" syscall_loop ";read_zeroes$L;.*(ksys_read|vfs_read)_\[k\]")
check capabilities_daemonset_kernel_names "$kern samples of read(2) with named kernel frames (CAP_SYSLOG)" \
	[ "${kern:-0}" -ge 20 ]

without=$(echo "$bounding" | sed 's/,+bpf//')
setpriv --bounding-set "$without" -- "$EBPROF" record -d 1 -o "$TMP/nobpf" >/dev/null 2>"$TMP/stderr"
rc=$?
refused() { [ "$rc" -eq 1 ] && grep -q 'CAP_BPF' "$TMP/stderr"; }
check capabilities_missing_bpf "exit $rc, stderr: $(head -2 "$TMP/stderr")" refused
