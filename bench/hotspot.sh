#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of the HotSpot walker: (1) the verified instructions and verification time
# of every program of a CPU sample's chain, with the HotSpot walker and without it
# (EBPROF_RUNTIMES=none: the native walker alone); (2) the BPF cost of one sample of a
# JVM whose Java stack is DEPTH frames deep (bench/hotspot/Deep.java), with and without
# the HotSpot walker, all in one run. Run as root:
#   sudo bench/hotspot.sh                     # about 3 minutes
#   sudo HSBENCH_REPEAT=1 bench/hotspot.sh    # quick check
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SECS=${HSBENCH_SECONDS:-10}        # each recording of part 2
REPEAT=${HSBENCH_REPEAT:-3}        # repeats (medians)
DEPTHS=${HSBENCH_DEPTHS:-1 50}     # Java frames of Deep's stack
JAVA=${HSBENCH_JAVA:-java}
JAVAC=${HSBENCH_JAVAC:-javac}

die() {
	echo "hotspot bench: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "run as root (it loads BPF programs and reads BPF stats)"
for v in bpftool jq make "$JAVA" "$JAVAC"; do command -v "$v" >/dev/null || die "$v is missing"; done
[ "$SECS" -ge 8 ] || die "HSBENCH_SECONDS must be at least 8 (the JIT warms up first)"

TMP=$(mktemp -d /dev/shm/ebprof-hotspot-bench.XXXXXX)
STATS_BEFORE=$(sysctl -n kernel.bpf_stats_enabled)
EP=
cleanup() {
	[ -n "$EP" ] && kill "$EP" 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled="$STATS_BEFORE"
	rm -rf "$TMP"
}
trap cleanup EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Arms: as built, and without the HotSpot walker.
make -s -C "$ROOT" all >"$TMP/build.log" 2>&1 || die "make failed: $(tail -3 "$TMP/build.log")"
"$JAVAC" -d "$TMP" "$ROOT/bench/hotspot/Deep.java" || die "javac failed"
declare -A BIN=([hotspot]=$ROOT/build/ebprof [native]=$ROOT/build/ebprof)
declare -A ENVS=([hotspot]=EBPROF_RUNTIMES=hotspot [native]=EBPROF_RUNTIMES=none)
ARMS="native hotspot"

arm_name() {
	case $1 in
	native) echo "native walker alone" ;;
	hotspot) echo "native + HotSpot walker" ;;
	esac
}

# ---- 1. verification ----
echo "== 1. verification of a CPU sample's programs (ebprof record -v -d 1, $REPEAT runs each)"
printf '| %-28s | %-34s | %14s | %16s |\n' arm program "verified insns" "verify ms (med)"
echo "|------------------------------|------------------------------------|---------------:|-----------------:|"
for b in $ARMS; do
	: >"$TMP/verify.$b"
	for _ in $(seq "$REPEAT"); do
		env ${ENVS[$b]} "${BIN[$b]}" record -v -d 1 -o "$TMP/v" 2>&1 >/dev/null |
			sed -n 's/.*name=\([^ ]*\) .*verified_insns=\([0-9]*\) .*verify_ms=\([0-9.]*\).*/\1 \2 \3/p' |
			grep -E 'on_cpu_sample|_perf ' >>"$TMP/verify.$b"
	done
	[ -s "$TMP/verify.$b" ] || die "no verifier figures from the $b arm"
	for p in $(cut -d' ' -f1 "$TMP/verify.$b" | sort -u); do
		printf '| %-28s | %-34s | %14s | %16s |\n' "$(arm_name $b)" "$p" \
			"$(awk -v p="$p" '$1 == p { print $2 }' "$TMP/verify.$b" | median)" \
			"$(awk -v p="$p" '$1 == p { print $3 }' "$TMP/verify.$b" | median)"
	done
done

# ---- 2. BPF cost per sample ----
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
# "run_time_ns run_cnt samples filtered" (counters 0 and 1 of bpf/ebprof_shared.h)
snapshot() {
	echo "$(bpftool prog show id "$1" -j | jq -r '"\(.run_time_ns) \(.run_cnt)"')" \
		"$(bpftool map dump id "$2" -j | jq -r 'def s(k): [.[].formatted | select(.key == k) | .values[].value] | add // 0; "\(s(0)) \(s(1))"')"
}

echo
echo "== 2. BPF cost of one sample (ebprof record -F 999 -- $JAVA Deep DEPTH $SECS)"
sysctl -qw kernel.bpf_stats_enabled=1
: >"$TMP/cost"
for rep in $(seq "$REPEAT"); do
	for d in $DEPTHS; do
		for b in $ARMS; do
			env ${ENVS[$b]} "${BIN[$b]}" record -F 999 -o "$TMP/out" -- "$JAVA" -cp "$TMP" Deep \
				"$d" "$SECS" >"$TMP/out.log" 2>&1 &
			EP=$!
			prog='' map=''
			for _ in $(seq 300); do
				prog=$(prog_of) && [ -n "$prog" ] && map=$(map_of "$prog") && break
				sleep 0.02
			done
			[ -n "$map" ] || die "ebprof did not load: $(tail -3 "$TMP/out.log")"
			sleep 5 # tables built, the JVM described, the JIT warm
			a=$(snapshot "$prog" "$map")
			sleep $((SECS - 7))
			z=$(snapshot "$prog" "$map")
			wait "$EP" || die "ebprof failed: $(tail -3 "$TMP/out.log")"
			EP=
			# The window's run time over the runs that unwound (not filtered out).
			line=$(awk -v a="$a" -v z="$z" -v d="$d" -v b="$b" 'BEGIN { split(a, x); split(z, y)
				t = y[1] - x[1]; n = y[2] - x[2]; s = y[3] - x[3]; f = y[4] - x[4]
				if (s - f > 0) printf "%s %s %.0f %d\n", d, b, t / (s - f), s - f }')
			py=$( (grep -E 'Deep\.spin \(' "$TMP/out/stacks.folded" || true) | awk '{ s += $NF } END { print s + 0 }')
			if [ -n "$line" ]; then
				echo "$line" >>"$TMP/cost"
				read -r _ _ c n <<<"$line"
				echo "  rep $rep depth $d $b: $c ns per unwound sample ($n samples; $py with Deep.spin named)"
			else
				echo "  rep $rep depth $d $b: no unfiltered sample in the window (snapshots: '$a' / '$z')"
			fi
		done
	done
done
echo
printf '| %-12s | %-28s | %-16s | %-16s |\n' "Java depth" arm "ns per sample" "vs native alone"
echo "|--------------|------------------------------|------------------|------------------|"
for d in $DEPTHS; do
	n=$(awk -v d="$d" '$1 == d && $2 == "native" { print $3 }' "$TMP/cost" | median)
	for b in $ARMS; do
		c=$(awk -v d="$d" -v b="$b" '$1 == d && $2 == b { print $3 }' "$TMP/cost" | median)
		printf '| %-12s | %-28s | %-16s | %-16s |\n' "$d" "$(arm_name $b)" "$c" \
			"$(awk -v n="$n" -v c="$c" 'BEGIN { if (n > 0) printf "%.2fx", c / n; else print "-" }')"
	done
done
cat <<'EOT'

ns per unwound sample: on_cpu_sample's run_time_ns (the kernel counts a tail-called
program's time in the program that started the chain) over the window (5 s after the start to
2 s before the end) divided by the samples it did not filter out (counters CTR_SAMPLES -
CTR_FILTERED), so the cheap runs on the other CPU's processes are charged to those runs;
medians over the repeats. Filtered runs cost a few hundred ns and are not subtracted.
EOT
