#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# --cgroup and --container: only the tasks of the chosen cgroup v2 groups are sampled.
# The groups are the test's own, named as container runtimes name them (Docker's
# docker-ID.scope, containerd's cri-containerd-ID.scope in a pod's slice), with a process
# outside them that no recording may show; with --container of one of the two, every
# output (folded stacks by process and by container, pprof, the flame graph, the agent's
# OTLP, top's table) holds its process alone, labelled with its id; a group made and a
# process moved in after the start count too; each sample's group and container are
# pprof labels; a wrong argument gets one clear line and exit 1.
. "$(dirname "$0")/lib.sh"

mount=$(awk '$(NF - 2) == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
if [ -z "$mount" ] || ! mkdir "$mount/ebprof-test.$$" 2>/dev/null; then
	echo "SKIP cgroup: no writable cgroup v2 hierarchy (${mount:-none mounted})"
	exit 0
fi
base=$mount/ebprof-test.$$
# Ids that start with this test's pid, so that a prefix names one container.
id1=$(printf 'e1%08x%054d' $$ 0)
id2=$(printf 'e2%08x%054d' $$ 0)
docker=$base/docker-$id1.scope
# A pod's slice as the systemd driver names it: its uid with underscores.
uid=$(printf '%08x-1111-2222-3333-444455556666' $$)
pod=$base/kubepods-pod${uid//-/_}.slice
cri=$pod/cri-containerd-$id2.scope
late=$base/late.slice
mkdir -p "$docker" "$cri" "$late"

pids=()
# Groups go deepest first, once their processes are gone (rm cannot remove them).
cleanup() {
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	find "$base" -depth -type d -exec rmdir {} + 2>/dev/null
	rm -rf "$TMP" "${CLEAN[@]}"
}
trap cleanup EXIT

# in_group DIR CMD...: CMD in group DIR, in the background; its pid appended to pids.
in_group() {
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$@" &
	pids+=($!)
}

in_group "$docker" "$W/fp_chain" 60
in_group "$cri" "$W/syscall_loop" 60
"$W/nofp_qsort" 60 &
pids+=($!)

# comms FOLDED: the processes sampled, with their sample counts ("fp_chain 120 ...").
comms() { awk -F';' '{ n = $NF; sub(/.* /, "", n); s[$1] += n } END { for (c in s) printf "%s %d ", c, s[c] }' "$1"; }
# only NAME FOLDED WANT...: PASS when the comms sampled are exactly WANT, each at least 5
# times (at 99 Hz a spinning process gives hundreds in 2 s; 5 holds on a loaded host).
only() {
	local name=$1 folded=$2 got c n
	shift 2
	got=$(comms "$folded")
	for c in "$@"; do
		n=$(folded_count "$folded" "$c")
		[ "$n" -ge 5 ] || { fail "$name" "$c sampled $n times, want >= 5 (sampled: $got)"; return; }
	done
	n=$(awk -F';' '{ print $1 }' "$folded" | sort -u | grep -vxF -f <(printf '%s\n' "$@") | paste -sd,)
	check "$name" "sampled outside the groups: $n (sampled: $got)" [ -z "$n" ]
}

# record NAME ARGS...: a 2 s recording with ARGS into $TMP/NAME; FAIL when it fails.
record() {
	local name=$1
	shift
	if ! "$EBPROF" record -d 2 -o "$TMP/$name" "$@" >/dev/null 2>"$TMP/$name.err"; then
		fail "$name" "record $*: $(tail -2 "$TMP/$name.err")"
		return 1
	fi
}

# weight TRACES COMM KEY VALUE: the ms of COMM's samples (COMM "": anyone's) labelled
# KEY=VALUE (VALUE "": no KEY label; KEY "": all), from go tool pprof -traces's output
# TRACES (a block per stack: its labels, then its weight on the leaf).
weight() {
	awk -v c="$2" -v k="$3" -v v="$4" '
		/^-----/ { flush(); next }
		/^ *[^ ]+:  / { key = $1; sub(/:$/, "", key); lab[key] = $2; next }
		w == "" && $1 ~ /^[0-9.]+(ms|s)$/ { w = $1 + 0; if ($1 !~ /ms$/) w *= 1000 }
		END { flush(); printf "%d\n", sum }
		function flush() {
			if ((c == "" || lab["comm"] == c) && (k == "" || lab[k] == v)) sum += w
			delete lab; w = ""
		}' "$1"
}

# traces NAME REC: go tool pprof -traces of recording REC's profile, into
# $TMP/REC.traces; false after a SKIP line for check NAME without go.
traces() {
	if ! command -v go >/dev/null; then
		echo "SKIP $1: no go for go tool pprof (scripts/install-deps.sh test)"
		return 1
	fi
	HOME=$TMP GOCACHE=$GO_TOOL_CACHE PPROF_TMPDIR=$TMP \
		go tool pprof -traces "$TMP/$2/profile.pb.gz" >"$TMP/$2.traces" 2>/dev/null
}

# fg_roots NAME WANT: every path of process, container and labels nodes in recording
# NAME's flame graph (tests/kernel/flamegraph_roots.mjs) is WANT (names joined by ";"),
# with samples.
fg_roots() {
	local name=$1 want=$2 paths
	if ! command -v node >/dev/null; then
		echo "SKIP ${name}_flamegraph: no node (scripts/install-deps.sh test)"
		return
	fi
	paths=$(node tests/kernel/flamegraph_roots.mjs "$TMP/$name/flamegraph.html" 2>&1)
	check "${name}_flamegraph" "paths above the frames: $(paste -sd, <<<"$paths"), want $want" \
		awk -v want="$want" '{ n++; s += $NF; sub(/ [0-9]+$/, "") } $0 != want { bad = 1 }
			END { exit !(n && s && !bad) }' <<<"$paths"
}

# --container of one of the two containers, its id's first 12 digits: its process alone,
# labelled with its id, in every output: the folded stacks rooted at the process and at
# the container, the pprof profile, the flame graph, the agent's OTLP and top's table.
# Top, the --root container recording and the agent (3 s) run beside the one recording
# checked several ways: the case takes about as long as the agent.
if case_selected cgroup_container; then
	mine=(--container "${id1:0:12}")
	labels="{cgroup=${docker#"$mount"}, container.id=$id1}"
	"$EBPROF" top --batch -n 4 -i 1 -w 1 --by process --rows 20 "${mine[@]}" \
		>"$TMP/top.out" 2>"$TMP/top.err" &
	top=$!
	record cgroup_container_root --root container "${mine[@]}" &
	root=$!
	record cgroup_container "${mine[@]}" &
	rec=$!
	# The receiver starts (a second or more) while the recordings run.
	if agent_start cgroup_container_otlp -d 3 "${mine[@]}"; then agent=1; else agent=; fi
	if wait $rec; then
		only cgroup_container "$TMP/cgroup_container/stacks.folded" fp_chain
		if traces cgroup_container_pprof cgroup_container; then
			t=$TMP/cgroup_container.traces
			all=$(weight "$t" "" "" "") ours=$(weight "$t" "" container.id "$id1")
			fp=$(weight "$t" fp_chain container.id "$id1")
			check cgroup_container_pprof "$all ms of samples, $ours ms labelled container.id \
$id1, $fp ms of them fp_chain's; want all of them, fp_chain's" \
				[ "$fp" -gt 0 -a "$ours" -eq "$all" -a "$fp" -eq "$all" ]
		fi
		fg_roots cgroup_container "fp_chain;$labels"
	fi
	if wait $root; then
		check cgroup_container_root "roots other than fp_chain's container's: \
$(cut -d';' -f1,2 "$TMP/cgroup_container_root/stacks.folded" | sort | uniq -c | paste -sd,)" \
			bash -c "grep -q '^${id1:0:12};fp_chain;' '$TMP/cgroup_container_root/stacks.folded' &&
				! grep -v '^${id1:0:12};fp_chain;' '$TMP/cgroup_container_root/stacks.folded'"
		fg_roots cgroup_container_root "${id1:0:12};fp_chain;$labels"
	fi
	[ -n "$agent" ] && agent_check cgroup_container_otlp --every-attr "container.id=$id1" \
		--pid "${pids[0]}" --function chain_leaf --function chain_a
	if wait $top; then
		rows=$(awk '/^ebprof top / || /^   SELF/ || !NF { next } { print $5 }' "$TMP/top.out" |
			sort | uniq -c | paste -sd,)
		check cgroup_container_top "rows by process: $rows, want fp_chain[${pids[0]}]'s alone" \
			bash -c '[[ $1 =~ ^\ *[0-9]+\ fp_chain\[$2\]$ ]]' _ "$rows" "${pids[0]}"
	else
		fail cgroup_container_top "top failed: $(tail -2 "$TMP/top.err")"
	fi
fi

# A pod's slice as /proc/PID/cgroup names it (below the mount): its container's tasks.
if case_selected cgroup_path; then
	record cgroup_path --cgroup "${pod#"$mount"}" &&
		only cgroup_path "$TMP/cgroup_path/stacks.folded" syscall_loop
fi

if case_selected cgroup_both; then
	record cgroup_both --container "$id1" --cgroup "$pod" &&
		only cgroup_both "$TMP/cgroup_both/stacks.folded" fp_chain syscall_loop
fi

# Every sample says its group, container and pod in pprof's labels: each container's
# process under its own id and path (and the pod's uid), the one outside under none.
if case_selected cgroup_labels; then
	if record cgroup_labels && traces cgroup_labels cgroup_labels; then
		t=$TMP/cgroup_labels.traces
		c1=$(weight "$t" fp_chain container.id "$id1")
		c2=$(weight "$t" syscall_loop container.id "$id2")
		p2=$(weight "$t" syscall_loop cgroup "${cri#"$mount"}")
		k2=$(weight "$t" syscall_loop k8s.pod.uid "$uid")
		out=$(($(weight "$t" nofp_qsort container.id "$id1") + $(weight "$t" nofp_qsort container.id "$id2") +
			$(weight "$t" nofp_qsort k8s.pod.uid "$uid") + $(weight "$t" fp_chain k8s.pod.uid "$uid")))
		echo "cgroup_labels: fp_chain ${c1:-0} ms under its id, syscall_loop ${c2:-0} ms" \
			"under its id, ${p2:-0} ms under its path and ${k2:-0} ms under its pod's" \
			"uid; nofp_qsort and fp_chain $out ms under others'" >&2
		check cgroup_labels "fp_chain ${c1:-0} ms with container.id $id1, syscall_loop \
${c2:-0} ms with its id, ${p2:-0} ms with its path, ${k2:-0} ms with k8s.pod.uid $uid; \
others $out ms with them" \
			[ "${c1:-0}" -gt 0 -a "${c2:-0}" -gt 0 -a "${p2:-0}" -gt 0 -a "${k2:-0}" -gt 0 -a "$out" -eq 0 ]
	fi
fi

# --root container: every stack rooted at its container, the process's name below.
if case_selected cgroup_root; then
	record cgroup_root --root container --cgroup "$base" &&
		check cgroup_root "roots other than the two containers': \
$(cut -d';' -f1,2 "$TMP/cgroup_root/stacks.folded" | sort | uniq -c | paste -sd,)" \
			bash -c "grep -q '^${id1:0:12};fp_chain;' '$TMP/cgroup_root/stacks.folded' &&
				grep -q '^${id2:0:12};syscall_loop;' '$TMP/cgroup_root/stacks.folded' &&
				! grep -Ev '^(${id1:0:12};fp_chain|${id2:0:12};syscall_loop);' \
					'$TMP/cgroup_root/stacks.folded'"
fi

# A systemd-nspawn container: a machine's scope (known by its name alone, here with a
# dash systemd escapes) with the payload group its processes run in, found by that name
# and rooted at it.
if case_selected cgroup_machine; then
	machine=t-box$$
	mkdir -p "$base/machine-${machine//-/\\x2d}.scope/payload"
	in_group "$base/machine-${machine//-/\\x2d}.scope/payload" "$W/nofp_vdso" 60
	mpid=${pids[-1]}
	if record cgroup_machine --container "$machine" --root container; then
		f=$TMP/cgroup_machine/stacks.folded
		check cgroup_machine "roots: $(cut -d';' -f1,2 "$f" | sort | uniq -c | paste -sd,), want ${machine:0:12};nofp_vdso alone" \
			bash -c "grep -q '^${machine:0:12};nofp_vdso;' '$f' && ! grep -v '^${machine:0:12};nofp_vdso;' '$f'"
	fi
	kill "$mpid" 2>/dev/null
	wait "$mpid" 2>/dev/null
fi

# A group made after the start, and a process moved into it: both found (the groups are
# walked again every second; the check in BPF is per event).
if case_selected cgroup_late; then
	"$EBPROF" record -d 0 -o "$TMP/cgroup_late" --cgroup "$late" >/dev/null 2>"$TMP/late.err" &
	rec=$!
	if wait_sampling $rec; then
		mkdir "$late/app.scope"
		in_group "$late/app.scope" "$W/nofp_vdso" 60
		sleep "$(secs 3)"
	fi
	kill -INT $rec
	wait $rec
	only cgroup_late "$TMP/cgroup_late/stacks.folded" nofp_vdso
fi

# Each wrong argument: exit 1, one line saying what is wrong with which argument.
if case_selected cgroup_errors; then
	bad() { # bad NAME WANT ARGS...
		local name=$1 want=$2 rc
		shift 2
		"$EBPROF" record -d 1 -o "$TMP/bad" "$@" >/dev/null 2>"$TMP/bad.err"
		rc=$?
		check "$name" "exit $rc, want 1 and '$want': $(head -2 "$TMP/bad.err")" \
			bash -c "[ $rc -eq 1 ] && grep -q -- '$want' '$TMP/bad.err'"
	}
	bad cgroup_errors_not_id "give a container id" --container web/1
	bad cgroup_errors_no_container "no cgroup below" --container 0123456789ab
	bad cgroup_errors_no_group "no such group" --cgroup /ebprof-no-such-group
	bad cgroup_errors_not_v2 "not a cgroup v2 group" --cgroup /proc
	mkdir "$base/docker-$(printf 'e1%08x%053d1' $$ 0).scope"
	bad cgroup_errors_ambiguous "more than one container" --container "${id1:0:10}"
fi
