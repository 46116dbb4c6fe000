#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of ebprof's in-kernel CFI unwinder, in one run: (1) the BPF cost of one sample of
# on_cpu_sample at about 8, 64 and 256 user frames (kernel BPF stats); (2) the time to
# compile an unwind table and its size per MB of .text, for libc, libstdc++ and a large
# library; (3) ebprof's BPF map memory while recording the whole system; (4) the share of
# complete stacks of the nofp_* workloads, ebprof beside `perf record --call-graph dwarf`.
# Run as root:
#   sudo bench/unwind.sh                                       # about 6-7 minutes
#   sudo UNWIND_REPEAT=1 UNWIND_CMP_REPEAT=1 bench/unwind.sh   # quick check, about 2 minutes
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
EBPROF=$ROOT/build/ebprof
WORKLOADS=$ROOT/build/workloads
SECS=${UNWIND_SECONDS:-7}             # each recording of part 1
REPEAT=${UNWIND_REPEAT:-5}            # repeats of part 1 (medians)
DEPTHS=${UNWIND_DEPTHS:-8 64 256}     # user frames of deep's leaf stack
MEM_SECS=${UNWIND_MEM_SECONDS:-10}    # the whole-system recording of part 3
CMP_SECS=${UNWIND_CMP_SECONDS:-4}     # each workload run of part 4
CMP_REPEAT=${UNWIND_CMP_REPEAT:-3}    # repeats of part 4 (samples pooled)
CMP_HZ=199
KEEP=${UNWIND_KEEP:-0}
NOFP="nofp_qsort nofp_sort nofp_rust nofp_threads nofp_signal nofp_dlopen"
# Outermost frames of a whole stack: the program's entry or a thread's start.
ROOTS='^(_start|__libc_start_main|__libc_start_main_impl|__libc_start_call_main|start_thread|(__GI_)?(__)?clone3?)$'

die() {
	echo "unwind bench: $*" >&2
	exit 1
}

is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }

check_host() {
	local v
	[ "$(id -u)" -eq 0 ] || die "run as root (it loads BPF programs and reads kernel BPF stats)"
	for v in "$SECS" "$REPEAT" "$MEM_SECS" "$CMP_SECS" "$CMP_REPEAT" $DEPTHS; do
		if ! is_uint "$v" || [ "$v" -lt 1 ]; then
			die "'$v' is not a positive integer (UNWIND_*)"
		fi
	done
	[ "$SECS" -ge 5 ] || die "UNWIND_SECONDS must be at least 5 (1 s is skipped at each end)"
	[ "$MEM_SECS" -ge 5 ] || die "UNWIND_MEM_SECONDS must be at least 5"
	for v in $DEPTHS; do [ "$v" -ge 6 ] || die "UNWIND_DEPTHS: $v < 6 (main needs 5 frames)"; done
	for v in bpftool jq perf cc make sysctl; do
		command -v "$v" >/dev/null || die "$v is missing"
	done
	perf --version >/dev/null 2>&1 || die "perf does not run: $(perf --version 2>&1 | head -1)"
	[ -r /proc/sys/kernel/bpf_stats_enabled ] || die "no kernel.bpf_stats_enabled (kernel < 5.8?)"
}

# make and the compiles of bench/unwind/ may fail while another engineer's file is mid-edit:
# retry twice, a minute apart.
retry() {
	local i
	for i in 1 2 3; do
		"$@" >"$TMP/build.log" 2>&1 && return 0
		echo "unwind bench: '$*' failed (attempt $i): $(tail -3 "$TMP/build.log")" >&2
		[ "$i" -lt 3 ] && sleep 60
	done
	die "cannot build: $*"
}

build() {
	retry make -s -C "$ROOT" all workloads
	retry cc -O2 -Wall -fomit-frame-pointer -fno-optimize-sibling-calls \
		"$ROOT/bench/unwind/deep.c" -o "$TMP/deep"
	retry cc -O2 -std=gnu11 -Wall -D_GNU_SOURCE -I"$ROOT/src" -I"$ROOT/bpf" \
		"$ROOT/bench/unwind/tablecost.c" "$ROOT/src/unwind/cfi.c" "$ROOT/src/elf/elf_file.c" \
		"$ROOT/src/util/hmap.c" -lelf -ldw -lz \
		-o "$TMP/tablecost"
	for w in $NOFP; do [ -x "$WORKLOADS/$w" ] || die "$WORKLOADS/$w is missing (make workloads)"; done
}

# The profiler this script started, to stop on an early exit; emptied once waited for, so
# no reused PID is ever signalled.
RUNNING=()
STATS_BEFORE=
cleanup() {
	local p
	for p in "${RUNNING[@]}"; do kill "$p" 2>/dev/null || true; done
	[ -n "$STATS_BEFORE" ] && sysctl -qw kernel.bpf_stats_enabled="$STATS_BEFORE"
	if [ "$KEEP" = 1 ]; then echo "unwind bench: raw files kept in $TMP"; else rm -rf "$TMP"; fi
}

median() { # median of the numbers on stdin, one per line; "-" when there are none
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

range() { # "min-max" of the numbers on stdin, printf format $1
	sort -g | awk -v f="$1" '{ v[NR] = $1 } END {
		if (NR == 0) { print "-"; exit }
		printf f "-" f "\n", v[1], v[NR] }'
}

now() { echo "$EPOCHREALTIME"; }

sleep_until() { # sleep_until T0 S: sleeps until S seconds after the instant T0
	local left
	left=$(awk -v t="$1" -v n="$(now)" "BEGIN { d = t + $2 - n; print (d > 0 ? d : 0) }")
	sleep "$left"
}

# ---- BPF objects of one ebprof process, found through its file descriptors ----

fd_ids() { # fd_ids PID prog_id|map_id: the ids of the BPF objects PID holds open
	cat /proc/"$1"/fdinfo/* 2>/dev/null | awk -v k="$2:" '$1 == k { print $2 }' | sort -un ||
		true
}

named() { # named PID prog|map NAME: the id of PID's program or map called NAME
	local ids id
	ids=$(fd_ids "$1" "$2_id" | jq -sc .)
	id=$(bpftool "$2" show -j 2>/dev/null | jq -r --argjson ids "$ids" --arg n "$3" \
		'.[] | select(.name == $n and (.id as $i | $ids | index([$i]))) | .id' | head -1)
	[ -n "$id" ] && echo "$id"
}

# Starts a profiler in the background (stdout/stderr to OUT.stdout/.stderr): sets EP.
start_ebprof() {
	local out=$1
	shift
	"$EBPROF" "$@" >"$out.stdout" 2>"$out.stderr" &
	EP=$!
	RUNNING=("$EP")
}

finish_ebprof() { # waits for EP; dies with its stderr when it failed
	if ! wait "$EP"; then
		RUNNING=()
		die "ebprof failed: $(tail -3 "$1.stderr")"
	fi
	RUNNING=()
}

# When process $1 started, as an $EPOCHREALTIME instant: its start time since boot
# (/proc/PID/stat field 22, counted after the ")" that closes the command name) against
# the time since boot now (/proc/uptime).
started_at() {
	local s f up
	s=$(cat "/proc/$1/stat") || return 1
	read -ra f <<<"${s##*) }"
	read -r up _ </proc/uptime
	awk -v n="$(now)" -v up="$up" -v st="${f[19]}" -v hz="$CLK_TCK" \
		'BEGIN { printf "%.6f", n - (up - st / hz) }'
}

# Waits until EP samples: until its child runs the command NAME (ebprof starts the command
# once sampling is attached), or without NAME until on_cpu_sample is loaded. Sets READY
# (when the command started, or the program was seen), PROG and CTRS (the program's
# counters map). Returns 1 if EP exits first.
wait_sampling() {
	local i child=''
	PROG=''
	for i in $(seq 1000); do
		kill -0 "$EP" 2>/dev/null || return 1
		if [ -n "${1:-}" ]; then
			child=$(pgrep -P "$EP" -x "$1") && break
		else
			PROG=$(named "$EP" prog on_cpu_sample) && break
		fi
		sleep 0.01
	done
	READY=$(now)
	[ -z "$child" ] || READY=$(started_at "$child") || return 1
	[ -n "$PROG" ] || PROG=$(named "$EP" prog on_cpu_sample) || return 1
	CTRS=$(named "$EP" map counters)
}

# "run_time_ns run_cnt samples filtered": the program's BPF stats, then its counters
# CTR_SAMPLES (id 0) and CTR_FILTERED (id 1) summed over CPUs (bpf/ebprof_shared.h).
snapshot() {
	local p c
	if ! p=$(bpftool prog show id "$PROG" -j | jq -r '"\(.run_time_ns // 0) \(.run_cnt // 0)"') ||
		! c=$(bpftool map dump id "$CTRS" -j | jq -r '
			def sum(k): [.[].formatted | select(.key == k) | .values[].value] | add // 0;
			"\(sum(0)) \(sum(1))"'); then
		die "ebprof's program $PROG or map $CTRS is gone: did the command end early?"
	fi
	echo "$p $c"
}

delta() { # delta "A1 A2 A3 A4" "B1 B2 B3 B4": B - A field by field, tab-separated
	awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, " "); split(b, y, " ")
		for (i = 1; i <= n; i++) printf "%s%d", (i > 1 ? "\t" : ""), y[i] - x[i]; print "" }'
}

# ---- 1. BPF cost per sample ----

fit() { # "slope intercept" of the least-squares line through the "x y" lines on stdin
	awk '{ n++; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2 }
		END { d = n * sxx - sx * sx
			if (n < 2 || d == 0) { print "- -"; exit }
			b = (n * sxy - sx * sy) / d; printf "%.0f %.0f\n", b, (sy - b * sx) / n }'
}

# "frames root complete%" of deep's samples in a folded file: the user frames and the root
# frame of its most frequent stack, and the share of samples whose root is _start.
deep_shape() {
	awk '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line); k = split(line, f, ";")
		if (f[1] != "deep") next
		u = 0
		for (i = 2; i <= k; i++) if (f[i] !~ /_\[k\]$/ && f[i] != "[truncated]") u++
		tot += n
		if (f[2] == "_start") ok += n
		if (n > best) { best = n; bu = u; br = f[2] } }
		END { printf "%d\t%s\t%.1f\n", bu, br, tot ? ok * 100 / tot : 0 }' "$1"
}

# run_cost ARM REP: one recording of deep at ARM frames (or of `sleep`, whose samples the
# process filter all drops, for ARM "filtered"); appends to $COST the fields
#  1 arm  2 rep  3 run_time_ns  4 run_cnt  5 samples  6 filtered (deltas over the window)
#  7 frames  8 root  9 complete%  10 lost
run_cost() {
	local arm=$1 rep=$2 out=$TMP/cost.$1.$2 a b shape=$'-\t-\t-' lost cmd
	if [ "$arm" = filtered ]; then
		cmd=(sleep "$SECS")
	else
		cmd=("$TMP/deep" "$arm" "$SECS" "$PROCS")
	fi
	start_ebprof "$out" record -F 999 -o "$out" -- "${cmd[@]}"
	wait_sampling "${cmd[0]##*/}" || die "ebprof did not start sampling: $(tail -3 "$out.stderr")"
	# The window skips the first second (tables being built, processes being described)
	# and ends 1.5 s before the command does, so that ebprof still runs.
	sleep_until "$READY" 1
	a=$(snapshot)
	sleep_until "$READY" "$SECS - 1.5"
	b=$(snapshot)
	finish_ebprof "$out"
	[ "$arm" = filtered ] || shape=$(deep_shape "$out/stacks.folded")
	lost=$(sed -n 's/.*samples: [0-9]* taken, \([0-9]*\) lost.*/\1/p' "$out.stdout")
	local -a d e
	read -ra d <<<"$(delta "$a" "$b")"
	read -ra e <<<"$b"
	[ "${d[1]}" -gt 0 ] || die "no BPF runs counted: was kernel.bpf_stats_enabled turned off?"
	printf '%s\t%s\t%s\t%s\t%s\n' "$arm" "$rep" "$(delta "$a" "$b")" "$shape" "${lost:-?}" \
		>>"$COST"
	printf '  %-8s rep %d: %s ns over %s runs (%s samples, %s filtered); since load %s ns/run;' \
		"$arm" "$rep" "${d[@]}" "$(awk -v t="${e[0]}" -v n="${e[1]}" 'BEGIN { printf "%.0f", t / n }')"
	printf ' stack %s; lost %s\n' "$(echo "$shape" | tr '\t' ' ')" "${lost:-?}"
	[ "$KEEP" = 1 ] || rm -rf "$out"
}

part_cost() {
	local rep arms i
	echo
	echo "== 1. BPF cost of on_cpu_sample per sample (ebprof record -F 999 -- deep N $SECS $PROCS)"
	STATS_BEFORE=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -qw kernel.bpf_stats_enabled=1
	read -ra arms <<<"filtered $DEPTHS"
	for rep in $(seq "$REPEAT"); do
		# The order rotates between repeats, so no arm always runs first.
		for i in $(seq 0 $((${#arms[@]} - 1))); do
			run_cost "${arms[$(((i + rep - 1) % ${#arms[@]}))]}" "$rep"
		done
	done
	sysctl -qw kernel.bpf_stats_enabled="$STATS_BEFORE"
	STATS_BEFORE=
	summarize_cost
}

# The cost of one unwound sample: the window's run time less what the filtered runs in it
# cost (runs x filtered share x F, F measured by the "filtered" arm), over the other runs.
summarize_cost() {
	local f d raw phi c frames c_first c_last
	f=$(awk -F'\t' '$1 == "filtered" && $4 > 0 { print $3 / $4 }' "$COST" | median)
	echo
	echo "Medians of $REPEAT recordings (min-max); window of $(awk -v s="$SECS" 'BEGIN { print s - 2.5 }') s per recording;" \
		"$PROCS deep processes."
	echo
	printf '| %-13s | %-31s | %-19s | %-16s | %-27s | %-9s |\n' "user frames" \
		"deep's stack" "ns per run, all" "filtered runs" "ns per unwound sample" "vs row 1"
	echo "|---------------|---------------------------------|---------------------|------------------|-----------------------------|----------:|"
	printf '| %-13s | %-31s | %-19s | %-16s | %-27s | %-9s |\n' "filtered only" "-" \
		"$(printf '%.0f' "$f") ($(awk -F'\t' '$1 == "filtered" && $4 > 0 { print $3 / $4 }' \
			"$COST" | range '%.0f'))" "100%" "-" "-"
	for d in $DEPTHS; do
		raw=$(awk -F'\t' -v d="$d" '$1 == d && $4 > 0 { print $3 / $4 }' "$COST")
		phi=$(awk -F'\t' -v d="$d" '$1 == d && $5 > 0 { print $6 / $5 * 100 }' "$COST")
		c=$(awk -F'\t' -v d="$d" -v f="$f" '$1 == d && $5 > $6 {
			phi = $6 / $5; print ($3 - $4 * phi * f) / ($4 * (1 - phi)) }' "$COST")
		frames=$(awk -F'\t' -v d="$d" '$1 == d { print $7 " from " $8 ", " $9 "% whole" }' \
			"$COST" | sort | uniq -c | sort -nr | head -1 | sed 's/^ *[0-9]* //')
		echo "$d $(echo "$c" | median) $(echo "$c" | sort -g | head -1)" >>"$TMP/cost.medians"
		[ -n "${c_first:-}" ] || c_first=$(echo "$c" | median)
		c_last=$(echo "$c" | median)
		printf '| %-13s | %-31s | %-19s | %-16s | %-27s | %-9s |\n' "$d" "$frames" \
			"$(echo "$raw" | median | xargs printf '%.0f') ($(echo "$raw" | range '%.0f'))" \
			"$(echo "$phi" | median | xargs printf '%.1f')% ($(echo "$phi" | range '%.0f'))" \
			"$(echo "$c" | median | xargs printf '%.0f') ns ($(echo "$c" | range '%.0f'))" \
			"$(awk -v a="$c_last" -v b="$c_first" 'BEGIN { printf "%.2fx", a / b }')"
	done
	echo
	# Straight lines (least squares) of the cost against the depth: through every recording,
	# and through each depth's cheapest recording (noise on a shared machine only adds).
	read -r COST_PER_FRAME COST_FIXED < <(awk -F'\t' -v f="$f" '$1 != "filtered" && $5 > $6 {
		phi = $6 / $5; print $1, ($3 - $4 * phi * f) / ($4 * (1 - phi)) }' "$COST" | fit)
	read -r MIN_PER_FRAME MIN_FIXED < <(awk '{ print $1, $3 }' "$TMP/cost.medians" | fit)
	echo "Least-squares line through all recordings: $COST_FIXED ns + $COST_PER_FRAME ns per user" \
		"frame;"
	echo "through each depth's minimum: $MIN_FIXED ns + $MIN_PER_FRAME ns per user frame."
	cat <<-'EOF'
		ns per run, all: run_time_ns / run_cnt of on_cpu_sample over the window, every run.
		filtered runs: share of runs that only dropped another process's sample (the -- CMD
		  filter; counters CTR_FILTERED / CTR_SAMPLES). ns per unwound sample: the window's
		  run time less filtered runs at the "filtered only" cost, over the remaining runs.
		deep's stack: user frames and root of deep's most frequent stack, and the share of
		  deep's samples whose root is _start.
	EOF
}

# ---- 2. Table build time and size ----

table_files() {
	local big
	if [ -n "${UNWIND_TABLE_FILES:-}" ]; then
		echo "$UNWIND_TABLE_FILES"
		return
	fi
	echo /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libstdc++.so.6
	for big in /usr/lib/x86_64-linux-gnu/libLLVM-15.so.1 /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1; do
		[ -r "$big" ] && { echo "$big"; return; }
	done
	# Else the largest shared library in the system's library directories.
	find /usr/lib /lib -xdev -name '*.so*' -type f -printf '%s %p\n' 2>/dev/null | sort -nr |
		head -1 | cut -d' ' -f2-
}

part_tables() {
	echo
	echo "== 2. Unwind table compile time and size (unwind_table__build, median of 5 builds)"
	echo
	# shellcheck disable=SC2046
	"$TMP/tablecost" $(table_files) | tee "$TMP/tables.txt"
	cat <<-'EOF'

		build ms: median of 5 builds (page cache warm); first ms: the first build of the run.
		ms/MB: build ms per MB of .text. B/MB text: table bytes (rows x 16) per MB of .text.
		tbl/eh: table bytes over .eh_frame bytes. MB = 10^6 bytes.
	EOF
}

# ---- 3. BPF map memory, whole system ----

part_memory() {
	local out=$TMP/mem
	echo
	echo "== 3. BPF map memory of ebprof recording the whole system (record -F 99 -d $MEM_SECS)"
	bpftool map show -j | jq '[.[].id]' >"$TMP/ids.before"
	start_ebprof "$out" record -F 99 -d "$MEM_SECS" -o "$out"
	wait_sampling || die "ebprof did not start sampling: $(tail -3 "$out.stderr")"
	# Near the end, once every process has been described.
	sleep_until "$READY" $((MEM_SECS - 2))
	bpftool map show -j >"$TMP/maps.during"
	fd_ids "$EP" map_id | jq -s . >"$TMP/ids.mine"
	finish_ebprof "$out"
	bpftool map show -j | jq '[.[].id]' >"$TMP/ids.after"
	# New maps: present during the recording, absent before and after it; and whether this
	# ebprof holds them (other tenants may load BPF maps at the same time).
	jq -r --slurpfile b "$TMP/ids.before" --slurpfile a "$TMP/ids.after" \
		--slurpfile m "$TMP/ids.mine" '.[] | select(.id as $i | ($b[0] | index([$i]) | not)
			and ($a[0] | index([$i]) | not)) |
		[.id, .name, .type, .max_entries, .bytes_value, .bytes_memlock,
		 (if (.id as $i | $m[0] | index([$i])) then "yes" else "no" end)] | @tsv' \
		"$TMP/maps.during" | sort -n >"$TMP/maps.new"
	echo
	printf '| %-18s | %-13s | %11s | %10s | %12s | %8s |\n' map type max_entries value_size \
		bytes_memlock MiB
	echo "|--------------------|---------------|------------:|-----------:|-------------:|---------:|"
	awk -F'\t' '$7 == "yes" { printf "| %-18s | %-13s | %11s | %10s | %12s | %8.2f |\n",
		$2, $3, $4, $5, $6, $6 / 1048576; s += $6 }
		END { printf "| %-18s | %-13s | %11s | %10s | %12d | %8.2f |\n", "total", "", "", "",
		s, s / 1048576 }' "$TMP/maps.new"
	MEM_ALL=$(awk -F'\t' '{ s += $6 } END { print s + 0 }' "$TMP/maps.new")
	MEM_MINE=$(awk -F'\t' '$7 == "yes" { s += $6 } END { print s + 0 }' "$TMP/maps.new")
	echo
	awk -F'\t' -v a="$MEM_ALL" '$7 == "no" { n++; s += $6 } END {
		printf "Maps that appeared and went with the recording: %.1f MiB in all;", a / 1048576
		if (n) printf " %d of them (%.1f MiB) are held by other processes (another ebprof" \
			" or tool started meanwhile), not counted above.\n", n, s / 1048576
		else print " all of them held by this ebprof (its /proc/PID/fdinfo)." }' "$TMP/maps.new"
	sed -n 's/^ *\(unwinder: .*\)/ebprof: \1/p; s/^ *\(samples: .*\)/ebprof: \1/p' "$out.stdout"
	MEM_USED=$(sed -n 's/.* \([0-9]*\) of \([0-9]*\) rows used.*/\1 \2/p' "$out.stdout")
	[ -n "$MEM_USED" ] && awk -v u="${MEM_USED% *}" -v n="${MEM_USED#* }" 'BEGIN {
		printf "Row pool: %d of %d rows used (%.1f%%): %.1f MiB of tables in a %.0f MiB" \
			" array.\n", u, n, u * 100 / n, u * 16 / 1048576, n * 16 / 1048576 }'
	rm -rf "$out"
}

# ---- 4. Complete stacks: ebprof beside perf --call-graph dwarf ----

# "samples complete_main complete_root unmarked" of workload $1 in folded file $2:
# complete_main: not [truncated] and a frame is main, start_thread or clone3;
# complete_root: not [truncated] and the root frame is an entry or thread start ($ROOTS);
# unmarked: not [truncated] yet without main or thread start, and not rooted in the dynamic
# loader (whose entry point, before main exists, has no symbol): incomplete, unflagged.
ebprof_counts() {
	awk -v w="$1" -v roots="$ROOTS" '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		k = split(line, f, ";")
		if (f[1] != w) next
		tot += n; tr = f[2] == "[truncated]"; m = 0
		for (i = 2; i <= k; i++)
			if (f[i] == "main" || f[i] == "start_thread" || f[i] == "clone3") m = 1
		if (!tr && m) cm += n
		if (!tr && f[2] ~ roots) cr += n
		if (!tr && !m && f[2] !~ /^ld-linux/) un += n }
		END { printf "%d\t%d\t%d\t%d\n", tot, cm, cr, un }' "$2"
}

# The same from `perf script -F comm,ip,sym`: complete_root is the brief's rule for perf
# (the outermost frame is an entry or thread start), complete_main that a frame is main,
# start_thread or clone3.
perf_counts() {
	perf script -i "$2" -F comm,ip,sym 2>/dev/null | awk -v w="$1" -v roots="$ROOTS" '
		function flush() { if (c == w) { tot++; if (last ~ roots) cr++; if (m) cm++ }; c = "" }
		/^[^\t]/ && NF { flush(); c = $1; m = 0; last = ""; next }
		/^\t/ { s = $0; sub(/^\t *[0-9a-f]+ /, "", s); last = s
			if (s == "main" || s == "start_thread" || s == "clone3") m = 1 }
		END { flush(); printf "%d\t%d\t%d\t-\n", tot, cm, cr }'
}

# run_cmp TOOL WORKLOAD REP: appends "tool workload rep samples main root unmarked" to $CMP.
run_cmp() {
	local tool=$1 w=$2 rep=$3 out=$TMP/cmp.$1.$2 r
	if [ "$tool" = ebprof ]; then
		"$EBPROF" record -F "$CMP_HZ" -o "$out" -- "$WORKLOADS/$w" "$CMP_SECS" \
			>"$out.stdout" 2>"$out.stderr" || die "ebprof $w failed: $(tail -3 "$out.stderr")"
		r=$(ebprof_counts "$w" "$out/stacks.folded")
		[ "$KEEP" = 1 ] && cp "$out/stacks.folded" "$out.$rep.folded"
		rm -rf "$out"
	else
		perf record -q -N -F "$CMP_HZ" --call-graph dwarf -o "$out.data" -- \
			"$WORKLOADS/$w" "$CMP_SECS" >"$out.stdout" 2>"$out.stderr" ||
			die "perf record $w failed: $(tail -3 "$out.stderr")"
		r=$(perf_counts "$w" "$out.data")
		[ "$KEEP" = 1 ] && perf script -i "$out.data" -F comm,ip,sym >"$out.$rep.script" 2>/dev/null
		rm -f "$out.data"
	fi
	printf '%s\t%s\t%s\t%s\n' "$tool" "$w" "$rep" "$r" >>"$CMP"
}

part_compare() {
	local rep w order t
	echo
	echo "== 4. Complete stacks of the nofp_* workloads (${CMP_SECS} s each at $CMP_HZ Hz," \
		"$CMP_REPEAT repeats)"
	echo "   ebprof record -F $CMP_HZ -- W $CMP_SECS  beside  perf record -F $CMP_HZ" \
		"--call-graph dwarf -- W $CMP_SECS"
	for rep in $(seq "$CMP_REPEAT"); do
		order="ebprof perf"
		[ $((rep % 2)) -eq 0 ] && order="perf ebprof"
		for w in $NOFP; do
			for t in $order; do run_cmp "$t" "$w" "$rep"; done
		done
		echo "  repeat $rep/$CMP_REPEAT done"
	done
	summarize_compare
}

pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f%%", a * 100 / b; else print "-" }'; }

# pooled TOOL WORKLOAD FIELD: the sum of a field over the repeats ("" workload: all)
pooled() {
	awk -F'\t' -v t="$1" -v w="$2" -v c="$3" '$1 == t && (w == "" || $2 == w) { s += $c }
		END { print s + 0 }' "$CMP"
}

per_rep() { # per_rep TOOL WORKLOAD FIELD: "min-max" of FIELD / samples over the repeats
	awk -F'\t' -v t="$1" -v w="$2" -v c="$3" '$1 == t && $2 == w && $4 > 0 {
		print $c * 100 / $4 }' "$CMP" | range '%.0f'
}

cmp_row() { # cmp_row WORKLOAD (empty: all workloads)
	local w=$1 es em er eu ps pr pm
	es=$(pooled ebprof "$w" 4) em=$(pooled ebprof "$w" 5) er=$(pooled ebprof "$w" 6)
	eu=$(pooled ebprof "$w" 7)
	ps=$(pooled perf "$w" 4) pr=$(pooled perf "$w" 6) pm=$(pooled perf "$w" 5)
	printf '| %-12s | %7s | %-16s | %7s | %-16s | %11s | %9s | %8s | %8s |\n' "${w:-all}" "$es" \
		"$(pct "$em" "$es")${w:+ ($(per_rep ebprof "$w" 5))}" "$ps" \
		"$(pct "$pr" "$ps")${w:+ ($(per_rep perf "$w" 6))}" \
		"$(awk -v a="$em" -v b="$es" -v c="$pr" -v d="$ps" 'BEGIN {
			if (b && d && c) printf "%.2fx", (a / b) / (c / d); else print "-" }')" \
		"$(pct "$eu" "$es")" "$(pct "$er" "$es")" "$(pct "$pm" "$ps")"
	if [ -z "$w" ]; then
		CMP_EBPROF=$(pct "$em" "$es") CMP_PERF=$(pct "$pr" "$ps")
	fi
}

summarize_compare() {
	local w
	echo
	echo "Samples of the workload's own comm, pooled over the repeats; complete % (per-repeat min-max)."
	echo
	printf '| %-12s | %7s | %-16s | %7s | %-16s | %11s | %9s | %8s | %8s |\n' workload \
		"ebprof" "ebprof complete" "perf" "perf complete" "ebprof/perf" "unmarked" "eb root" \
		"perf main"
	echo "|--------------|--------:|------------------|--------:|------------------|------------:|----------:|---------:|---------:|"
	for w in $NOFP; do cmp_row "$w"; done
	cmp_row ""
	cat <<-'EOF'

		ebprof complete: not marked [truncated] and a frame is main (start_thread or clone3
		  for threads). perf complete: the outermost frame is _start, __libc_start_call_main,
		  start_thread or clone3. ebprof/perf: ratio of the two shares.
		unmarked: ebprof samples NOT marked [truncated] that lack main/thread start and are
		  not rooted in ld.so (start-up): incomplete stacks the profile presents as whole.
		eb root: ebprof by perf's rule (root frame _start/.../clone3, not [truncated]).
		perf main: perf by ebprof's rule (some frame is main/start_thread/clone3).
	EOF
}

main() {
	local t_start rate_before rate_after
	check_host
	TMP=$(mktemp -d /dev/shm/ebprof-unwind-bench.XXXXXX)
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	COST=$TMP/cost.tsv CMP=$TMP/cmp.tsv
	: >"$COST"
	: >"$CMP"
	PROCS=$(nproc)
	CLK_TCK=$(getconf CLK_TCK)
	t_start=$(date +%s)
	build
	rate_before=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	echo "ebprof unwinder benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "host: $(uname -sr), $(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo |
		head -1)), load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "ebprof: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?') plus the" \
		"working tree as built (binary sha256 $(sha256sum "$EBPROF" | cut -c1-12)); $(perf --version)"
	# Warm the page cache and ebprof's caches (BTF, load costs).
	"$EBPROF" record -d 1 -o "$TMP/warm" >/dev/null 2>&1 || die "ebprof does not record"
	rm -rf "$TMP/warm"

	part_cost
	part_tables
	part_memory
	part_compare

	echo
	echo "== Summary"
	echo "BPF cost per unwound sample, median (min): $(awk '{ printf "%s%s frames %.1f us (%.1f)", \
		(NR > 1 ? ", " : ""), $1, $2 / 1000, $3 / 1000 }' "$TMP/cost.medians")"
	echo "  line through the minima: $MIN_FIXED ns + $MIN_PER_FRAME ns per frame (all" \
		"recordings: $COST_FIXED ns + $COST_PER_FRAME ns)"
	awk -F'|' 'NR > 2 && NF > 10 { gsub(/ /, "", $2); gsub(/ /, "", $3); gsub(/ /, "", $7)
		gsub(/ /, "", $10); printf "Table for %s: %s ms to build, %s MB (%s bytes per MB of .text)\n",
		$2, $3, $7, $10 }' "$TMP/tables.txt"
	awk -v m="$MEM_MINE" 'BEGIN { printf "BPF map memory while recording the whole system:" \
		" %.1f MiB\n", m / 1048576 }'
	echo "Complete stacks over all nofp_* workloads: ebprof $CMP_EBPROF, perf --call-graph dwarf $CMP_PERF"
	rate_after=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	[ "$rate_after" = "$rate_before" ] || echo "NOTE: the kernel lowered" \
		"perf_event_max_sample_rate from $rate_before to $rate_after during the run."
	echo "total time: $(($(date +%s) - t_start)) s"
}

main "$@"
