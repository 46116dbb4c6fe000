#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Allocation profiling cost: a victim doing malloc(64)/free in a tight loop, run bare
# (baseline), under `ebprof record --alloc` (the preloaded sampler), under
# `ebprof record --alloc-kernel` (uprobes on libc's malloc/free with sampling in BPF) and
# under bpftrace with a ustack uprobe on malloc (when installed). Arms are interleaved in
# each of BENCH_REPEAT rounds (default 5); the table shows each arm's median throughput
# and its ratio to the baseline's. Run as root from the repository.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SECONDS_PER_RUN=${BENCH_SECONDS:-3}
REPEAT=${BENCH_REPEAT:-5}
T=$(mktemp -d /tmp/ebprof-bench-alloc.XXXXXX)
trap 'rm -rf "$T"' EXIT

make -s all >/dev/null || exit 1
cc -O2 -g bench/alloc_victim.c -o "$T/victim" || exit 1
LIBC=$(ldd "$T/victim" | awk '/libc\.so/ { print $3 }')
if command -v bpftrace >/dev/null; then
	HAVE_BPFTRACE=1
else
	HAVE_BPFTRACE=0
	echo "bpftrace arm skipped: bpftrace is not installed (Debian package bpftrace)" >&2
fi

ips() { awk '/^iterations_per_second/ { print $2 }' "$1"; }

run_arm() { # run_arm ARM ROUND: appends "ARM ips" to results
	local arm=$1 r=$2 out=$T/$1.$2
	case $arm in
	baseline) "$T/victim" "$SECONDS_PER_RUN" >"$out" ;;
	alloc) "$BUILD/ebprof" record --alloc -o "$T/prof-alloc" -- "$T/victim" "$SECONDS_PER_RUN" >"$out" 2>"$out.err" ;;
	alloc-kernel) "$BUILD/ebprof" record --alloc-kernel -o "$T/prof-kernel" -- "$T/victim" "$SECONDS_PER_RUN" >"$out" 2>"$out.err" ;;
	bpftrace) bpftrace -e "uprobe:$LIBC:malloc /pid == cpid/ { @[ustack] = count(); }" \
		-c "$T/victim $SECONDS_PER_RUN" >"$out" 2>"$out.err" ;;
	esac
	echo "$arm $(ips "$out")" >>"$T/results"
}

arms="baseline alloc alloc-kernel"
[ $HAVE_BPFTRACE = 1 ] && arms="$arms bpftrace"
for r in $(seq "$REPEAT"); do
	for arm in $arms; do
		run_arm "$arm" "$r"
	done
	echo "round $r: $(tail -n "$(echo $arms | wc -w)" "$T/results" | tr '\n' ' ')" >&2
done

median() { grep "^$1 " "$T/results" | awk '$2 != "" { print $2 }' | sort -n |
	awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
# Per round, each arm over that round's baseline: drift on a shared machine hits arms run
# a few seconds apart alike, so the median of these ratios is steadier than a ratio of
# medians.
ratio() { paste -d' ' <(grep "^baseline " "$T/results" | awk '{ print $2 }') \
	<(grep "^$1 " "$T/results" | awk '{ print $2 }') |
	awk '$1 > 0 && $2 != "" { print 100 * $2 / $1 }' | sort -n |
	awk '{ v[NR] = $1 } END { if (NR) printf "%.1f%%", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
base=$(median baseline)
echo
echo "malloc(64)/free loop, $SECONDS_PER_RUN s per run, median of $REPEAT runs"
printf '| %-14s | %14s | %9s | %16s | %10s |\n' arm "iterations/s" "vs base" "per-round ratio" "ns/iter"
printf '|%s|%s|%s|%s|%s|\n' "----------------" "----------------" "-----------" "------------------" "------------"
for arm in $arms; do
	m=$(median "$arm")
	[ -z "$m" ] && { printf '| %-14s | %14s | %9s | %16s | %10s |\n' "$arm" failed - - -; continue; }
	awk -v a="$arm" -v m="$m" -v b="$base" -v r="$(ratio "$arm")" 'BEGIN {
		printf "| %-14s | %14.0f | %8.1f%% | %16s | %10.1f |\n", a, m, 100 * m / b, r, 1e9 / m }'
done
echo
# The profile must name the victim's allocation site.
if grep -q victim_alloc_site "$T/prof-alloc/stacks.alloc_space.folded" 2>/dev/null; then
	echo "--alloc profile names victim_alloc_site:"
	grep victim_alloc_site "$T/prof-alloc/stacks.alloc_space.folded" | sort -t' ' -k2 -nr | head -3
else
	echo "--alloc profile does NOT name victim_alloc_site"
fi
grep -h 'allocations:' "$T"/alloc.*.err "$T"/alloc.*[0-9] 2>/dev/null | tail -1
