# SPDX-License-Identifier: Apache-2.0
# What the runtime walkers' benchmarks share (sourced by bench/python.sh, bench/hotspot.sh,
# ...): (1) the verified instructions and verification time of every program of a CPU
# sample's chain, per arm; (2) the BPF cost of one sample of a workload whose stack is
# DEPTH runtime frames deep, per arm, in one run, from bpf_stats. The sourcing script sets:
#   NAME       the benchmark's name, for messages
#   SECS REPEAT DEPTHS WARM   seconds per recording, repeats, depths, seconds before the
#                             window opens (tables built, process described, JIT warm)
#   ARMS, BIN[arm], ENVS[arm], arm_name ARM   what is compared (env runs ENVS before BIN);
#                             bench_unrolled ARM... adds each ARM's walkers without bpf_loop
#   WORKLOAD   array: the command, to which DEPTH and SECS are appended
#   NAMED_RE   regex of a folded stack whose runtime leaf is named
#   DEPTH_LABEL  the results table's first column
#   VERIFY_ARGS  optional: more options of part 1's recordings (-p PID: a process whose
#                runtime the tracker must find within the second, on a busy host;
#                bench_verify_running sets it)
# and calls bench_verify, then bench_cost. TMP and EP are the library's.
set -euo pipefail

die() {
	echo "$NAME bench: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "run as root (it loads BPF programs and reads BPF stats)"
for v in bpftool jq make; do command -v "$v" >/dev/null || die "$v is missing"; done

TMP=$(mktemp -d "/dev/shm/ebprof-$NAME-bench.XXXXXX")
STATS_BEFORE=$(sysctl -n kernel.bpf_stats_enabled)
EP=
bench_cleanup() {
	[ -n "$EP" ] && kill "$EP" 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled="$STATS_BEFORE"
	[ -d "$TMP/base" ] && git -C "$ROOT" worktree remove --force "$TMP/base"
	rm -rf "$TMP"
}
trap bench_cleanup EXIT

# bench_unrolled ARM...: adds arm ARM_unrolled for each ARM, the same recording with
# EBPROF_KERNEL_LACKS=bpf_loop: the walkers of kernels before 5.17, unrolled and
# tail-calling themselves, beside the bpf_loop ones in one run. Its "vs native alone" is
# against native_unrolled, so pass native too.
bench_unrolled() {
	local b
	for b in "$@"; do
		BIN[${b}_unrolled]=${BIN[$b]}
		ENVS[${b}_unrolled]="${ENVS[$b]} EBPROF_KERNEL_LACKS=bpf_loop"
		ARMS+=" ${b}_unrolled"
	done
}
# arm_label ARM: arm_name's, or for an arm of bench_unrolled its arm's, marked.
arm_label() {
	case $1 in
	*_unrolled) echo "$(arm_name "${1%_unrolled}"), unrolled" ;;
	*) arm_name "$1" ;;
	esac
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# bench_base REV ARM: builds git revision REV in a worktree as arm ARM (before/after).
bench_base() {
	git -C "$ROOT" worktree add -q --detach "$TMP/base" "$1" || die "no revision $1"
	make -s -C "$TMP/base" all >"$TMP/build.log" 2>&1 || die "make of $1 failed"
	BIN[$2]=$TMP/base/build/ebprof
}

bench_verify() {
	echo "== 1. verification of a CPU sample's programs (ebprof record -v -d 1, $REPEAT runs each)"
	printf '| %-28s | %-34s | %14s | %16s |\n' arm program "verified insns" "verify ms (med)"
	echo "|------------------------------|------------------------------------|---------------:|-----------------:|"
	for b in $ARMS; do
		: >"$TMP/verify.$b"
		for _ in $(seq "$REPEAT"); do
			env ${ENVS[$b]} "${BIN[$b]}" record -v -d 1 ${VERIFY_ARGS:-} -o "$TMP/v" 2>&1 >/dev/null |
				sed -n 's/.*name=\([^ ]*\) .*verified_insns=\([0-9]*\) .*verify_ms=\([0-9.]*\).*/\1 \2 \3/p' |
				grep -E 'on_cpu_sample|_perf ' >>"$TMP/verify.$b"
		done
		[ -s "$TMP/verify.$b" ] || die "no verifier figures from the $b arm"
		for p in $(cut -d' ' -f1 "$TMP/verify.$b" | sort -u); do
			printf '| %-28s | %-34s | %14s | %16s |\n' "$(arm_label $b)" "$p" \
				"$(awk -v p="$p" '$1 == p { print $2 }' "$TMP/verify.$b" | median)" \
				"$(awk -v p="$p" '$1 == p { print $3 }' "$TMP/verify.$b" | median)"
		done
	done
}

# bench_verify_running ARG...: bench_verify while WORKLOAD runs with ARG... (its DEPTH and
# a long SECS) meanwhile: a runtime's walker is verified once its runtime is found (-p).
bench_verify_running() {
	local wl
	"${WORKLOAD[@]}" "$@" >/dev/null 2>&1 &
	wl=$!
	VERIFY_ARGS="-p $wl"
	sleep 2
	bench_verify
	kill "$wl" 2>/dev/null
	wait "$wl" 2>/dev/null || true
}

prog_of() { # the id of EP's on_cpu_sample
	local ids
	ids=$(cat /proc/"$EP"/fdinfo/* 2>/dev/null | awk '$1 == "prog_id:" { print $2 }' | jq -sc .)
	bpftool prog show -j | jq -r --argjson ids "$ids" \
		'.[] | select(.name == "on_cpu_sample" and (.id as $i | $ids | index([$i]))) | .id' | head -1
}
map_of() { # the counters map of program $1
	local m
	for m in $(bpftool prog show id "$1" -j | jq -r '.map_ids[]?'); do
		[ "$(bpftool map show id "$m" -j | jq -r .name)" = counters ] && echo "$m" && return 0
	done
	return 1
}
# "run_time_ns run_cnt samples filtered" (counters 0 and 1 of bpf/ebprof_shared.h), or
# nothing and status 1. bpftool fails now and then while other programs load; a failed
# read used to count as 0 and give negative figures, so each read is checked and retried.
snapshot() {
	local s
	for _ in 1 2 3 4 5; do
		s="$(bpftool prog show id "$1" -j 2>/dev/null | jq -r '"\(.run_time_ns) \(.run_cnt)"' 2>/dev/null) $(bpftool map dump id "$2" -j 2>/dev/null | jq -r 'def s(k): [.[].formatted | select(.key == k) | .values[].value] | add // 0; "\(s(0)) \(s(1))"' 2>/dev/null)"
		[[ $s =~ ^[0-9]+\ [0-9]+\ [0-9]+\ [0-9]+$ ]] && echo "$s" && return 0
		sleep 0.1
	done
	return 1
}

# One recording of arm $1 at depth $2: a line "depth arm ns_per_sample samples" in
# $TMP/cost, and one line of progress.
cost_run() {
	local b=$1 d=$2 rep=$3 prog='' map='' a z line named c n
	env ${ENVS[$b]} "${BIN[$b]}" record -F 999 -o "$TMP/out" -- "${WORKLOAD[@]}" "$d" "$SECS" \
		>"$TMP/out.log" 2>&1 &
	EP=$!
	for _ in $(seq 300); do
		prog=$(prog_of) && [ -n "$prog" ] && map=$(map_of "$prog") && break
		sleep 0.02
	done
	[ -n "$map" ] || die "ebprof did not load: $(tail -3 "$TMP/out.log")"
	sleep "$WARM"
	a=$(snapshot "$prog" "$map") || a=
	sleep $((SECS - WARM - 2))
	z=$(snapshot "$prog" "$map") || z=
	wait "$EP" || die "ebprof failed: $(tail -3 "$TMP/out.log")"
	EP=
	if [ -z "$a" ] || [ -z "$z" ]; then
		echo "  rep $rep depth $d $b: bpftool could not read the program's figures; no figure"
		return
	fi
	# The window's run time over the runs that unwound (not filtered out).
	line=$(awk -v a="$a" -v z="$z" -v d="$d" -v b="$b" 'BEGIN { split(a, x); split(z, y)
		t = y[1] - x[1]; n = y[2] - x[2]; s = y[3] - x[3]; f = y[4] - x[4]
		if (s - f > 0) printf "%s %s %.0f %d\n", d, b, t / (s - f), s - f }')
	named=$( (grep -E "$NAMED_RE" "$TMP/out/stacks.folded" || true) | awk '{ s += $NF } END { print s + 0 }')
	if [ -z "$line" ]; then
		echo "  rep $rep depth $d $b: no unfiltered sample in the window (snapshots: '$a' / '$z')"
		return
	fi
	echo "$line" >>"$TMP/cost"
	read -r _ _ c n <<<"$line"
	echo "  rep $rep depth $d $b: $c ns per unwound sample ($n samples; $named with the leaf named)"
}

bench_cost() {
	[ "$SECS" -ge $((WARM + 3)) ] || die "recordings must last at least $((WARM + 3)) s"
	echo
	echo "== 2. BPF cost of one sample (ebprof record -F 999 -- ${WORKLOAD[*]##*/} DEPTH $SECS)"
	sysctl -qw kernel.bpf_stats_enabled=1
	: >"$TMP/cost"
	for rep in $(seq "$REPEAT"); do
		for d in $DEPTHS; do
			for b in $ARMS; do
				cost_run "$b" "$d" "$rep"
			done
		done
	done
	echo
	printf '| %-12s | %-28s | %-16s | %-16s |\n' "$DEPTH_LABEL" arm "ns per sample" "vs native alone"
	echo "|--------------|------------------------------|------------------|------------------|"
	for d in $DEPTHS; do
		for b in $ARMS; do
			base=native
			[[ $b == *_unrolled ]] && base=native_unrolled
			n=$(awk -v d="$d" -v b="$base" '$1 == d && $2 == b { print $3 }' "$TMP/cost" | median)
			c=$(awk -v d="$d" -v b="$b" '$1 == d && $2 == b { print $3 }' "$TMP/cost" | median)
			printf '| %-12s | %-28s | %-16s | %-16s |\n' "$d" "$(arm_label $b)" "$c" \
				"$(awk -v n="$n" -v c="$c" 'BEGIN { if (n > 0) printf "%.2fx", c / n; else print "-" }')"
		done
	done
	cat <<EOT

ns per unwound sample: on_cpu_sample's run_time_ns (the kernel counts a tail-called
program's time in the program that started the chain) over the window ($WARM s after the start to
2 s before the end) divided by the samples it did not filter out (counters CTR_SAMPLES -
CTR_FILTERED), so the cheap runs on the other CPU's processes are charged to those runs;
medians over the repeats. Filtered runs cost a few hundred ns and are not subtracted.
EOT
}
