#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of `ebprof record` against `perf record -g -a`, whole system, at 99 and 999 Hz:
# each profiler's own CPU time (user+sys) and peak RSS over a D-second recording, and the
# throughput of a fixed CPU-bound workload (bench/cpu_work.c, both CPUs) run alone and inside
# each recording. Arms are interleaved and repeated; figures are medians. Run as root:
#   sudo bench/run.sh                     # D=30 s, 4 repeats (10 to 13 minutes)
#   sudo BENCH_SECONDS=8 BENCH_REPEAT=1 bench/run.sh   # quick check
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=${BENCH_SECONDS:-30}
REPEAT=${BENCH_REPEAT:-4}
FREQS=${BENCH_FREQS:-99 999}
KEEP=${BENCH_KEEP:-0}
EBPROF=$ROOT/build/ebprof
START_DELAY=2 # seconds between starting a profiler and starting the workload
CLK_TCK=$(getconf CLK_TCK)

die() {
	echo "bench: $*" >&2
	exit 1
}

is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }

check_host() {
	[ "$(id -u)" -eq 0 ] || die "run as root (it loads BPF programs and records the whole system)"
	if ! is_uint "$D" || [ "$D" -lt 6 ]; then
		die "BENCH_SECONDS must be an integer >= 6, not '$D'"
	fi
	if ! is_uint "$REPEAT" || [ "$REPEAT" -lt 1 ]; then
		die "BENCH_REPEAT must be an integer >= 1, not '$REPEAT'"
	fi
	for f in $FREQS; do is_uint "$f" || die "BENCH_FREQS: '$f' is not a frequency"; done
	[ -x /usr/bin/time ] || die "/usr/bin/time is missing: apt-get install time"
	command -v perf >/dev/null || die "perf is missing: apt-get install linux-perf"
	perf --version >/dev/null 2>&1 || die "perf does not run: $(perf --version 2>&1 | head -1)"
	command -v cc >/dev/null || die "a C compiler (cc) is needed for bench/cpu_work.c"
}

# make may fail while another engineer's file is mid-edit: retry twice, a minute apart.
build() {
	local i
	for i in 1 2 3; do
		if make -s -C "$ROOT" all >"$TMP/make.log" 2>&1; then
			return 0
		fi
		echo "bench: build failed (attempt $i), log: $(tail -3 "$TMP/make.log")" >&2
		[ "$i" -lt 3 ] && sleep 60
	done
	die "ebprof does not build: make -C $ROOT all"
}

# The profiler this script is running (and its /usr/bin/time), to stop on an early exit;
# emptied once they are waited for, so no reused PID is ever signalled.
RUNNING=()
cleanup() {
	local p
	for p in "${RUNNING[@]}"; do kill "$p" 2>/dev/null || true; done
	if [ "$KEEP" = 1 ]; then
		echo "bench: raw files kept in $TMP"
	else
		rm -rf "$TMP"
	fi
}

median() { # median of the numbers on stdin, one per line; "-" when there are none
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# "TICKS SWITCHES" of a process: utime + stime in clock ticks from /proc/PID/stat (fields 14
# and 15, counted after the ")" that closes the command name, which may contain spaces), and
# the voluntary context switches (times it slept and was woken) of all its threads.
proc_sample() {
	local s sw f
	s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo "-1 -1"; return; }
	sw=$(cat /proc/"$1"/task/*/status 2>/dev/null |
		awk '/^voluntary_ctxt_switches/ { n += $2 } END { print n + 0 }')
	read -ra f <<<"${s##*) }"
	echo "$((f[11] + f[12])) $sw"
}

workload() { # runs cpu_work, prints "wall_seconds iterations_per_s iterations_per_cpu_s"
	"$TMP/cpu_work" "$ITER" 2 |
		sed -n 's|.* in \([0-9.]*\) s wall.*: \([0-9]*\) iterations/s, \([0-9]*\) .*|\1 \2 \3|p'
}

calibrate() {
	local target=$1 secs rate cpu_rate
	"$TMP/cpu_work" 100000000 2 >/dev/null
	read -r secs rate cpu_rate < <(ITER=500000000 workload)
	# per-thread iterations for the target duration, rounded to millions
	ITER=$(awk -v r="$rate" -v t="$target" 'BEGIN { printf "%d", r / 2 * t / 1e6 }')000000
}

profiler_cmd() { # profiler_cmd PROF FREQ OUT: sets CMD
	case $1 in
	ebprof) CMD=("$EBPROF" record -F "$2" -d "$D" -o "$3") ;;
	perf) CMD=(perf --buildid-dir "$TMP/buildid" record -g -a -F "$2" -o "$3" -- sleep "$D") ;;
	esac
}

# Which processes and threads the profiler had while the workload ran.
process_shape() {
	local pid=$1 threads kids
	threads=$(ps -o nlwp= -p "$pid" 2>/dev/null | tr -d ' ')
	kids=$(ps -o comm= --ppid "$pid" 2>/dev/null | sort | tr '\n' ',' | sed 's/,$//')
	echo "threads=${threads:-?};children=${kids:-none}"
}

samples_of() { # samples_of PROF OUT: prints "taken lost"
	local prof=$1 out=$2 taken lost
	if [ "$prof" = ebprof ]; then
		sed -n 's/.*samples: \([0-9]*\) taken, \([0-9]*\) lost.*/\1 \2/p' "$out.stdout"
		return
	fi
	taken=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$out.stderr")
	# per-event sections of --stats count LOST_SAMPLES in samples (the aggregate counts records)
	lost=$(perf report -i "$out" --stats 2>/dev/null | awk '
		/ stats:$/ { per_event = ($0 !~ /^Aggregated/) }
		per_event && /LOST_SAMPLES events:/ { n += $3 }
		END { print n + 0 }')
	echo "${taken:-?} $lost"
}

ratio() { # ratio A B, or "-" when the run is not comparable
	if [ "$3" = 1 ]; then echo -; else awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; fi
}

# run_arm ARM PROF FREQ REP: one measurement, appended to $RESULTS as the fields
#  1 arm  2 prof  3 freq  4 rep  5 cpu_s  6 rss_kib  7 wall_s  8 steady_pct  9 rate
#  10 rate/baseline  11 taken  12 lost  13 late  14 shape  15 cpu_rate  16 cpu_rate/baseline
#  17 wakeups_per_s
# The baseline of the block is in BASE_RATE and BASE_CPU_RATE.
run_arm() {
	local arm=$1 prof=$2 freq=$3 rep=$4 out=$TMP/run.$1.$4
	local tpid ppid="" t0 t1 w0 w1 secs rate cpu_rate late=0 shape="-" cpu=- rss=- wall=- steady=-
	local launched
	local wakeups=-
	local taken=- lost=- u s m e

	if [ "$prof" = none ]; then
		read -r secs rate cpu_rate < <(workload)
		BASE_RATE=$rate
		BASE_CPU_RATE=$cpu_rate
	else
		profiler_cmd "$prof" "$freq" "$out"
		launched=$EPOCHREALTIME
		/usr/bin/time -o "$out.time" -f '%U %S %M %e' "${CMD[@]}" \
			>"$out.stdout" 2>"$out.stderr" &
		tpid=$!
		RUNNING=("$tpid")
		for _ in $(seq 100); do
			ppid=$(pgrep -P "$tpid" | head -1) && [ -n "$ppid" ] && break
			sleep 0.02
		done
		[ -n "$ppid" ] || die "$arm: the profiler did not start ($(cat "$out.stderr"))"
		RUNNING+=("$ppid")
		sleep "$START_DELAY"
		read -r t0 w0 < <(proc_sample "$ppid")
		read -r secs rate cpu_rate < <(workload)
		read -r t1 w1 < <(proc_sample "$ppid")
		shape=$(process_shape "$ppid")
		# The recording ends D s after it starts, a little after launch: a workload that
		# ended later than that may have run partly unprofiled.
		late=$(awk -v a="$launched" -v b="$EPOCHREALTIME" -v d="$D" 'BEGIN { print (b - a > d) ? 1 : 0 }')
		if ! wait "$tpid"; then
			RUNNING=()
			die "$arm: the profiler failed: $(tail -3 "$out.stderr")"
		fi
		RUNNING=()
		read -r u s m e < <(tail -1 "$out.time")
		cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
		rss=$m
		wall=$e
		if [ "$t0" -ge 0 ] && [ "$t1" -ge 0 ]; then
			steady=$(awk -v d=$((t1 - t0)) -v hz="$CLK_TCK" -v w="$secs" \
				'BEGIN { printf "%.2f", d / hz / w * 100 }')
			wakeups=$(awk -v d=$((w1 - w0)) -v w="$secs" 'BEGIN { printf "%.0f", d / w }')
		fi
		read -r taken lost < <(samples_of "$prof" "$out")
		[ "$prof" = ebprof ] && sed -n 's/^ *\(samples:.*\)/    ebprof \1/p' "$out.stdout"
		rm -rf "$out" "$out.old"
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$arm" "$prof" \
		"$freq" "$rep" "$cpu" "$rss" "$wall" "$steady" "$rate" \
		"$(ratio "$rate" "$BASE_RATE" "$late")" "$taken" "$lost" "$late" "$shape" "$cpu_rate" \
		"$(ratio "$cpu_rate" "$BASE_CPU_RATE" "$late")" "$wakeups" >>"$RESULTS"
	printf '  %-11s rep %d: workload %6.2f s, %.4g it/s, %.4g it/CPU-s;' "$arm" "$rep" "$secs" \
		"$rate" "$cpu_rate"
	if [ "$prof" != none ]; then
		printf ' profiler %s s CPU, %s KiB, %s s wall, steady %s%%, %s wakeups/s, samples %s,' \
			"$cpu" "$rss" "$wall" "$steady" "$wakeups" "$taken"
		printf ' lost %s' "$lost"
		[ "$late" = 1 ] && printf ' LATE: the workload outlived the recording, not compared'
	fi
	echo
}

# One block per repeat and frequency: the baseline, then both profilers, whose order
# alternates between repeats so neither always runs right after the baseline.
run_all() {
	local rep f order
	for rep in $(seq "$REPEAT"); do
		for f in $FREQS; do
			echo "repeat $rep/$REPEAT, $f Hz"
			run_arm baseline none - "$rep"
			order="ebprof perf"
			[ $((rep % 2)) -eq 0 ] && order="perf ebprof"
			for p in $order; do run_arm "$p-$f" "$p" "$f" "$rep"; done
		done
	done
}

col() { # col ARM FIELD: the values of one field (numbered as in run_arm) for one arm
	awk -F'\t' -v a="$1" -v c="$2" '$1 == a && $c != "-" && $c != "?" { print $c }' "$RESULTS"
}

# calc EXPR VALUE...: EXPR over v1, v2...; "-" when a value is missing
calc() {
	local expr=$1 i=1 args=()
	shift
	for v in "$@"; do
		[ "$v" = - ] && { echo -; return; }
		args+=(-v "v$i=$v")
		i=$((i + 1))
	done
	awk "${args[@]}" "BEGIN { $expr }"
}

vs_baseline() { # vs_baseline ARM FIELD: "median% (min-max)" of a ratio column
	col "$1" "$2" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.1f%% (%.1f-%.1f)", m * 100, v[1] * 100, v[NR] * 100 }'
}

row() {
	printf '| %-10s | %8s | %9s | %8s | %-21s | %-21s | %8s | %9s | %-13s |\n' "$@"
}

summarize() {
	local arm cpu rss f p base base_cpu late
	base=$(col baseline 9 | median)
	base_cpu=$(col baseline 15 | median)
	late=$(awk -F'\t' '$13 == 1' "$RESULTS" | wc -l)
	echo
	echo "Medians of $REPEAT repeats; recordings of $D s; workload 2 threads x $ITER iterations;"
	echo "workload vs baseline: median (min-max) of each run over its block's baseline."
	echo
	row arm "prof CPU s" "% of 1 CPU" "peak RSS" "workload vs baseline" "workload vs baseline" \
		"steady %" "wakeups" "samples"
	row "" "user+sys" "CPU s / D" "MiB" "per wall second" "per workload CPU-s" "of 1 CPU" \
		"per s" "(lost)"
	echo "|------------|---------:|----------:|---------:|-----------------------|-----------------------|---------:|----------:|---------------|"
	row baseline - - - "$(calc 'printf "%.4g it/s", v1' "$base")" \
		"$(calc 'printf "%.4g it/CPU-s", v1' "$base_cpu")" - - -
	for f in $FREQS; do
		for p in ebprof perf; do
			arm=$p-$f
			cpu=$(col "$arm" 5 | median)
			rss=$(col "$arm" 6 | median)
			row "$arm" "$(calc 'printf "%.2f", v1' "$cpu")" \
				"$(calc 'printf "%.2f%%", v1 / v2 * 100' "$cpu" "$D")" \
				"$(calc 'printf "%.1f", v1 / 1024' "$rss")" \
				"$(vs_baseline "$arm" 10)" "$(vs_baseline "$arm" 16)" \
				"$(calc 'printf "%.2f%%", v1' "$(col "$arm" 8 | median)")" \
				"$(col "$arm" 17 | median)" \
				"$(col "$arm" 11 | median) ($(col "$arm" 12 | median))"
		done
	done
	echo
	for f in $FREQS; do
		printf 'ebprof/perf at %s Hz: CPU %s, peak RSS %s, samples %s\n' "$f" \
			"$(calc 'printf "%.2fx", v1 / v2' "$(col "ebprof-$f" 5 | median)" \
				"$(col "perf-$f" 5 | median)")" \
			"$(calc 'printf "%.2fx", v1 / v2' "$(col "ebprof-$f" 6 | median)" \
				"$(col "perf-$f" 6 | median)")" \
			"$(calc 'printf "%.2fx", v1 / v2' "$(col "ebprof-$f" 11 | median)" \
				"$(col "perf-$f" 11 | median)")"
	done
	echo
	echo "Profiler processes while the workload ran (runs: threads; children):"
	awk -F'\t' '$2 != "none" { print $2 ": " $14 }' "$RESULTS" | sort | uniq -c
	[ "$late" -eq 0 ] ||
		echo "WARNING: in $late runs the workload outlived the recording; their workload" \
			"figures are left out (the machine was slower than at calibration)."
}

main() {
	local t_start rate_before rate_after
	check_host
	TMP=$(mktemp -d /dev/shm/ebprof-bench.XXXXXX)
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	RESULTS=$TMP/results.tsv
	: >"$RESULTS"
	t_start=$(date +%s)
	build
	cc -O2 -Wall -pthread "$ROOT/bench/cpu_work.c" -o "$TMP/cpu_work"
	mkdir -p "$TMP/buildid"
	rate_before=$(cat /proc/sys/kernel/perf_event_max_sample_rate)

	echo "ebprof record benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "host: $(uname -sr), $(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1))"
	echo "ebprof: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?') plus the working" \
		"tree as built (binary sha256 $(sha256sum "$EBPROF" | cut -c1-12));" \
		"perf: $(perf --version 2>&1)"
	# The workload starts START_DELAY s into each recording and, on the machine as it is
	# now, lasts 40% of what remains: it still fits if the machine gets 2.5 times busier.
	calibrate "$(awk -v d="$D" -v s="$START_DELAY" 'BEGIN { print (d - s) * 0.4 }')"
	echo "workload: 2 threads x $ITER iterations each"
	# Warm the page cache and perf's build-id cache so the first measured runs pay no
	# first-time costs the later ones do not.
	"$EBPROF" record -d 2 -o "$TMP/warm" >/dev/null
	perf --buildid-dir "$TMP/buildid" record -q -g -a -o "$TMP/warm.data" -- sleep 2 \
		>/dev/null 2>&1
	rm -rf "$TMP/warm" "$TMP/warm.data"

	run_all
	summarize
	rate_after=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	if [ "$rate_after" != "$rate_before" ]; then
		echo "NOTE: the kernel lowered perf_event_max_sample_rate from $rate_before to" \
			"$rate_after during the run (samples took too long): high-rate arms were throttled."
	fi
	echo "total time: $(($(date +%s) - t_start)) s"
}

main "$@"
