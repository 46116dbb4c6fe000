#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Start-up benchmark: how long `ebprof record` takes from exec to its first sample, by
# phase, and the BPF load phase in three arms (sequential, concurrent in build order,
# concurrent longest-first) beside its lower bound max(longest job, total work / CPUs),
# on 1 and 2 CPUs (taskset). Medians of BENCH_RUNS runs (default 5), all in one run.
# Usage: sudo bench/startup.sh
#        sudo KERNEL=6.1 bench/startup.sh   the same inside another kernel (5.10, 6.1, 6.12
#        or a vmlinuz: scripts/vm.sh), for each program's verified instructions there;
#        times under an emulated guest (TCG) are slower than the host's, counts are exact
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${BENCH_RUNS:-5}
BUILD=${BUILD:-build}
make -s all >/dev/null
if [ -n "${KERNEL:-}" ] && [ -z "${EBPROF_VM:-}" ]; then
	exec scripts/vm.sh "$KERNEL" -- bench/startup.sh
fi
mkdir -p "$BUILD/bench"
gcc -O2 -o "$BUILD/bench/exec_clock" bench/exec_clock.c
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run CPUS ARGS...: one recording; appends "key=value" lines to $TMP/runs/<arm>
one_run() {
	local cpus=$1 out=$2
	shift 2
	taskset -c "$cpus" "$BUILD/bench/exec_clock" "$BUILD/ebprof" record -v -d 0.05 -o "$TMP/out" "$@" \
		>/dev/null 2>"$TMP/err"
	local exec first
	grep '^ebprof: startup_ms' "$TMP/err" | tr ' ' '\n' | grep '=' >"$TMP/kv"
	exec=$(sed -n 's/^exec=//p' "$TMP/kv")
	first=$(sed -n 's/^first_sample=//p' "$TMP/kv")
	echo "exec_to_main=$exec" >>"$out"
	echo "exec_to_first=$(awk -v a="$exec" -v f="$first" 'BEGIN { printf "%.2f", a + f }')" >>"$out"
	grep -v '^exec=' "$TMP/kv" >>"$out"
	grep '^ebprof: program ' "$TMP/err" | sed 's/^ebprof: program //' >>"$out.programs"
}

med() { grep "^$2=" "$1" | cut -d= -f2 | median; }

declare -A arm_args=(
	[sequential]="--load-jobs 1"
	[build-order]="--load-order build"
	[longest-first]="--load-order longest"
)
arms="sequential build-order longest-first"
mkdir -p "$TMP/runs"
# Warm the cost cache so longest-first has measured costs, as it would after one run.
"$BUILD/ebprof" record -d 0.05 -o "$TMP/out" >/dev/null 2>&1
for r in $(seq "$RUNS"); do
	for cpus in 0 0,1; do
		for arm in $arms; do
			# shellcheck disable=SC2086
			one_run "$cpus" "$TMP/runs/$arm@$cpus" ${arm_args[$arm]}
		done
	done
done

echo "ebprof start-up, $(uname -r)${EBPROF_VM:+ (guest: $EBPROF_VM)}, $(nproc) CPUs, median of $RUNS runs ($(date -u +%F))"
echo
echo "Phases of the default configuration (longest-first, all CPUs), ms from exec:"
f=$TMP/runs/longest-first@0,1
printf '  %-34s %8s\n' "exec to main (dynamic loading)" "$(med "$f" exec_to_main)"
printf '  %-34s %8s\n' "host checks, output directory" "$(med "$f" checked)"
printf '  %-34s %8s\n' "objects opened (main to prepared)" "$(med "$f" prepared)"
printf '  %-34s %8s\n' "map creation (owners, incl. BTF)" "$(med "$f" maps)"
printf '  %-34s %8s\n' "program verification (pool)" "$(med "$f" verify)"
printf '  %-34s %8s\n' "attached (main to attached)" "$(med "$f" attached)"
printf '  %-34s %8s\n' "first sample (main to first)" "$(med "$f" first_sample)"
printf '  %-34s %8s\n' "exec to first sample" "$(med "$f" exec_to_first)"
echo "  kernel symbols: not on the start-up path (read once, when the report is built)"
echo
echo "Load phase (maps + verification), ms:"
printf '  %-6s %12s %12s %14s %12s\n' CPUs sequential build-order longest-first "lower bound"
for cpus in 0 0,1; do
	n=$(echo "$cpus" | tr ',' '\n' | wc -l)
	row=""
	for arm in $arms; do
		f=$TMP/runs/$arm@$cpus
		row="$row $(paste -d' ' <(grep '^maps=' "$f" | cut -d= -f2) <(grep '^verify=' "$f" | cut -d= -f2) | awk '{ print $1 + $2 }' | median)"
	done
	# Lower bound from the sequential arm's per-job times: max(longest, total / CPUs),
	# plus the map phase, which no arm parallelises.
	f=$TMP/runs/sequential@$cpus
	jobs_per_run=$(($(wc -l <"$f.programs") / RUNS))
	bound=$(awk -v n="$n" -v k="$jobs_per_run" '
		{ for (i = 1; i <= NF; i++) if ($i ~ /^verify_ms=/) { split($i, a, "="); v = a[2] } }
		{ run = int((NR - 1) / k); tot[run] += v; if (v > mx[run]) mx[run] = v }
		END { for (r in tot) { b = tot[r] / n; if (mx[r] > b) b = mx[r]; print b } }' "$f.programs" | median)
	maps=$(med "$f" maps)
	printf '  %-6s %12s %12s %14s %12s\n' "$n" $row "$(awk -v a="$bound" -v b="$maps" 'BEGIN { printf "%.2f", a + b }')"
done
echo
echo "Per program (sequential arm, 1 CPU): verified instructions, verification ms (median)"
f=$TMP/runs/sequential@0.programs
for name in $(sed 's/.*name=\([^ ]*\).*/\1/' "$f" | sort -u); do
	insns=$(grep "name=$name " "$f" | sed 's/.*verified_insns=\([0-9]*\).*/\1/' | median)
	ms=$(grep "name=$name " "$f" | sed 's/.*verify_ms=\([0-9.]*\).*/\1/' | median)
	printf '  %-32s %10s insns %10s ms\n' "$name" "$insns" "$ms"
done
