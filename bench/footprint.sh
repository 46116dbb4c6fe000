#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ebprof's own footprint (issue 17), beside perf and libbpf-tools' profile in one run:
# record's peak RSS at 99 and 999 Hz, the agent's RSS and CPU at 20 Hz with three busy
# processes, the wall time of `record -d 0.2`, the allocation sampler's instructions per
# malloc(64)/free (callgrind) and the kernel memory of the BPF maps; where each goes (by
# owner, by thread, by phase); then one table of every figure beside its goal. ebprof's
# warm-up run fills its debug cache (/var/cache/ebprof/debug), as any first run does; the
# short runs' "cold" arm shows a first run's cost, with an empty one. As root:
#   sudo bench/footprint.sh                                      # about 6 minutes
#   sudo FOOTPRINT_BASELINE=/path/to/old/ebprof bench/footprint.sh  # adds a "before" column
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
EBPROF=${FOOTPRINT_EBPROF:-$ROOT/build/ebprof}
BASE=${FOOTPRINT_BASELINE:-}
D=${FOOTPRINT_SECONDS:-10}
AGENT_D=${FOOTPRINT_AGENT_SECONDS:-60}
RUNS=${FOOTPRINT_RUNS:-5}
KEEP=${FOOTPRINT_KEEP:-0}
PORT=${FOOTPRINT_PORT:-24319}
TRIXIE=${EBPROF_TRIXIE_ROOT:-/var/cache/ebprof/trixie}
LBT=/var/cache/ebprof/libbpf-tools
FP="python3 $ROOT/bench/footprint_mem.py"

die() {
	echo "footprint: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "run as root (it loads BPF programs)"
for t in /usr/bin/time perf valgrind python3 cc; do
	command -v "$t" >/dev/null || die "$t is missing (Debian: time, linux-perf, valgrind)"
done
[[ $D =~ ^[0-9]+$ ]] && [ "$D" -ge 3 ] || die "FOOTPRINT_SECONDS must be an integer >= 3"
[[ $AGENT_D =~ ^[0-9]+$ ]] && [ "$AGENT_D" -ge 20 ] || die "FOOTPRINT_AGENT_SECONDS must be >= 20"
make -s -C "$ROOT" all workloads >/dev/null || die "ebprof does not build"
[ -z "$BASE" ] || [ -x "$BASE" ] || die "FOOTPRINT_BASELINE=$BASE is not an executable"

TMP=$(mktemp -d /dev/shm/ebprof-footprint.XXXXXX)
PIDS=()
STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"
	if [ "$KEEP" = 1 ]; then echo "raw files kept in $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

# libbpf-tools' profile: bookworm's libbpf-tools (0.26) has none, trixie's (0.31) has
# profile-libbpf. It is taken from trixie's package with the trixie root that
# scripts/install-deps.sh test makes, and run with that root's loader and libc.
PROFILE=()
find_profile() {
	local dl
	if [ ! -x "$LBT/usr/sbin/profile-libbpf" ] && [ -x "$TRIXIE/usr/bin/apt-get" ]; then
		dl=$TRIXIE/tmp/ebprof-lbt
		rm -rf "$dl" && mkdir -p "$dl" "$LBT"
		if chroot "$TRIXIE" sh -c 'cd /tmp/ebprof-lbt && apt-get -qq download libbpf-tools libelf1t64' \
			>/dev/null 2>&1; then
			for deb in "$dl"/*.deb; do dpkg-deb -x "$deb" "$LBT"; done
		fi
		rm -rf "$dl"
	fi
	[ -x "$LBT/usr/sbin/profile-libbpf" ] || return 0
	PROFILE=("$TRIXIE/lib64/ld-linux-x86-64.so.2" --library-path
		"$LBT/usr/lib/x86_64-linux-gnu:$TRIXIE/usr/lib/x86_64-linux-gnu:$TRIXIE/lib/x86_64-linux-gnu"
		"$LBT/usr/sbin/profile-libbpf")
}
find_profile

# run LABEL STEADY CMD...: runs CMD under /usr/bin/time with footprint_mem.py polling it;
# leaves LABEL.time ("wall user sys maxrss_kib") and LABEL.fp.
run() {
	local label=$1 steady=$2 tp pid
	shift 2
	/usr/bin/time -f "%e %U %S %M" -o "$TMP/$label.time" "$@" >"$TMP/$label.out" 2>"$TMP/$label.err" &
	tp=$!
	for _ in $(seq 100); do
		pid=$(pgrep -P "$tp" | head -1) && [ -n "$pid" ] && break
		sleep 0.01
	done
	[ -n "$pid" ] && $FP "$pid" --steady-after "$steady" --label "$label" >"$TMP/$label.fp" 2>&1 || true
	wait "$tp" || echo "footprint: $label failed: $(tail -2 "$TMP/$label.err")" >&2
}
fpv() { sed -nE "s/.*fp: $1 .*\b$2=([0-9.]+).*/\1/p" "$TMP/$1.fp" | head -1; }
timev() { awk -v f="$2" '{ print $f }' "$TMP/$1.time" 2>/dev/null; }
mib() { awk -v k="$1" 'BEGIN { if (k == "") print "-"; else printf "%.1f", k / 1024 }'; }
# BPF ns per run of the perf_event program (the sampler) from LABEL.fp
bpf_ns() {
	awk -v l="$1" '$0 ~ "fp: " l " prog" && /type=7 / {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (v["run_cnt"] > 0) printf "%.0f", v["run_time_ns"] / v["run_cnt"] }' "$TMP/$1.fp"
}

ARMS=(ebprof)
[ -n "$BASE" ] && ARMS+=(before)
ARMS+=(perf)
[ ${#PROFILE[@]} -gt 0 ] && ARMS+=(profile)
bin_of() { [ "$1" = before ] && echo "$BASE" || echo "$EBPROF"; }

record_arm() { # ARM HZ SECONDS LABEL
	case $1 in
	ebprof | before) run "$4" 1 "$(bin_of "$1")" record -v -F "$2" -d "$3" -o "$TMP/$4.d" ;;
	perf) run "$4" 1 perf --buildid-dir "$TMP/buildid" record -q -g -a -F "$2" \
		-o "$TMP/$4.data" -- sleep "$3" ;;
	profile) run "$4" 1 "${PROFILE[@]}" -F "$2" -f "$3" ;;
	esac
}

echo "footprint: $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); arms: ${ARMS[*]}"
[ ${#PROFILE[@]} -gt 0 ] || echo "footprint: no libbpf-tools profile (needs $TRIXIE from install-deps.sh test)"

# 1. record, whole system. One unmeasured short run of each warms caches (load costs,
# minimal BTF, page cache, perf's build-id cache).
for a in "${ARMS[@]}"; do record_arm "$a" 99 2 "warm-$a"; done
sysctl -qw kernel.bpf_stats_enabled=1
for hz in 99 999; do
	for a in "${ARMS[@]}"; do record_arm "$a" "$hz" "$D" "rec$hz-$a"; done
done
sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"

# 2. the agent at 20 Hz while three programs loop in their own processes.
for w in nofp_sort nofp_rust nofp_qsort; do
	[ -x "$ROOT/build/workloads/$w" ] || continue
	(while :; do "$ROOT/build/workloads/$w" 5 >/dev/null 2>&1 || sleep 1; done) &
	PIDS+=($!)
done
python3 "$ROOT/bench/otlp_sink.py" "$PORT" "$TMP/sink" &
PIDS+=($!)
sleep 1
agent_arm() { # ARM LABEL
	case $1 in
	ebprof | before) run "$2" 10 "$(bin_of "$1")" agent -v -F 20 -d "$AGENT_D" \
		--protocol http/protobuf --endpoint "http://127.0.0.1:$PORT" ;;
	perf) run "$2" 10 perf --buildid-dir "$TMP/buildid" record -q -g -a -F 20 \
		-o "$TMP/$2.data" -- sleep "$AGENT_D" ;;
	profile) run "$2" 10 "${PROFILE[@]}" -F 20 -f "$AGENT_D" ;;
	esac
}
for a in "${ARMS[@]}"; do agent_arm "$a" "agent-$a"; done
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
PIDS=()

# 3. record -d 0.2, exec to exit, interleaved; -v gives the phases.
# cold: ebprof on its first run, with an empty debug cache (it inflates compressed DWARF
# and writes the copies); the ebprof arm reads the copies the warm-up runs made.
short=(ebprof)
[ -n "$BASE" ] && short+=(before)
"$EBPROF" record --help 2>/dev/null | grep -q -- --debug-cache && short+=(cold)
for i in $(seq "$RUNS"); do
	for a in "${short[@]}" perf; do
		t0=$(date +%s%N)
		if [ "$a" = perf ]; then
			perf --buildid-dir "$TMP/buildid" record -q -g -a -F 99 -o "$TMP/short.data" \
				-- sleep 0.2 >/dev/null 2>&1
		elif [ "$a" = cold ]; then
			"$EBPROF" record -v --debug-cache "$TMP/cold$i" -d 0.2 -o "$TMP/short.d" \
				>/dev/null 2>"$TMP/short-$a.$i.err"
		else
			"$(bin_of "$a")" record -v -d 0.2 -o "$TMP/short.d" >/dev/null 2>"$TMP/short-$a.$i.err"
		fi
		echo $((($(date +%s%N) - t0) / 1000)) >>"$TMP/short-$a.us"
	done
done
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
phase() { # ARM KEY FIELD: median of KEY's FIELD over the runs
	cat "$TMP"/short-"$1".*.err 2>/dev/null | sed -nE "s/.*ebprof: $2 .*\b$3=([-0-9.]+).*/\1/p" | median
}

# 4. the allocation sampler alone, no ebprof running: instructions per iteration.
cc -O2 -o "$TMP/alloc_count" "$ROOT/bench/alloc_count.c"
ir() { # PRELOAD N
	LD_PRELOAD=$1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$TMP/alloc_count" "$2" 2>&1 |
		sed -nE 's/.*I +refs: +([0-9,]+).*/\1/p' | tr -d ,
}
per_iter() { echo $((($(ir "$1" 2000000) - $(ir "$1" 1000000)) / 10000)); } # x100
native=$(per_iter "")
alloc_now=$(per_iter "$(dirname "$EBPROF")/libebprof-alloc.so")
alloc_base=""
[ -n "$BASE" ] && [ -f "$(dirname "$BASE")/libebprof-alloc.so" ] &&
	alloc_base=$(per_iter "$(dirname "$BASE")/libebprof-alloc.so")

# Where it goes.
echo
echo "== Where the memory goes (resident set at its largest, by owner; BPF kernel memory)"
for l in rec99-ebprof rec999-ebprof agent-ebprof; do [ -f "$TMP/$l.fp" ] && grep -v "fp: " "$TMP/$l.fp"; done
[ -f "$TMP/rec99-profile.fp" ] && grep -v "fp: " "$TMP/rec99-profile.fp" | head -8
echo
echo "== Where record's CPU goes (main thread by phase: poll = drain and ingest, report = symbolize, write = encode and write)"
for l in rec99-ebprof rec999-ebprof; do
	printf '  %s: %s; process %s s user, %s s sys\n' "$l" \
		"$(sed -n 's/^ebprof: record_cpu_ms //p' "$TMP/$l.err" | head -1)" "$(timev "$l" 2)" "$(timev "$l" 3)"
	sed -nE "s/.*fp: $l thread name=([^ ]+) cpu_s=([0-9.]+)/    thread \1: \2 s/p" "$TMP/$l.fp"
done
echo
echo "== Where the agent's CPU goes"
grep -h "agent_cpu_ms" "$TMP/agent-ebprof.err" | sed 's/^ebprof: /main thread by phase, /' || true
sed -nE 's/.*fp: agent-ebprof thread name=([^ ]+) cpu_s=([0-9.]+)/  thread \1: \2 s/p' "$TMP/agent-ebprof.fp"
echo
echo "== record -d 0.2 (median of $RUNS), ms"
for a in "${short[@]}"; do
	printf '  %-7s wall %s; from main: checked %s, loaded %s (verify %s), attached %s, first sample %s\n' "$a" \
		"$(median <"$TMP/short-$a.us" | awk '{ printf "%.0f", $1 / 1000 }')" "$(phase "$a" startup_ms checked)" \
		"$(phase "$a" startup_ms loaded)" "$(phase "$a" startup_ms verify)" "$(phase "$a" startup_ms attached)" \
		"$(phase "$a" startup_ms first_sample)"
	printf '          from the stop: drained %s, tracker %s, released %s, ksyms %s, reported %s, written %s, freed %s\n' \
		"$(phase "$a" exit_ms drained)" "$(phase "$a" exit_ms tracker)" "$(phase "$a" exit_ms released)" \
		"$(phase "$a" exit_ms ksyms)" "$(phase "$a" exit_ms reported)" "$(phase "$a" exit_ms written)" \
		"$(phase "$a" exit_ms freed)"
done
printf '  perf    wall %s\n' "$(median <"$TMP/short-perf.us" | awk '{ printf "%.0f", $1 / 1000 }')"

# The table.
cell() { # FIGURE ARM
	local a=$2
	case $1 in
	rss99) mib "$(timev "rec99-$a" 4)" ;;
	rss999) mib "$(timev "rec999-$a" 4)" ;;
	agent_rss) mib "$(timev "agent-$a" 4)" ;;
	agent_cpu) fpv "agent-$a" steady_pct | awk '{ printf "%.2f", $1 }' ;;
	agent_all) awk '{ printf "%.2f", 100 * ($2 + $3) / $1 }' "$TMP/agent-$a.time" 2>/dev/null ;;
	short) [ -f "$TMP/short-$a.us" ] && median <"$TMP/short-$a.us" | awk '{ printf "%.2f", $1 / 1e6 }' ;;
	short_cold) [ "$a" = ebprof ] && cell short cold ;;
	bpfmem) v=$(fpv "rec99-$a" memlock_kib) && [ -n "$v" ] && [ "$v" -gt 0 ] && mib "$v" ;;
	bpfns) bpf_ns "rec99-$a" ;;
	esac
}
echo
echo "== Goals (issue 17), measured in this run"
hdr="| figure | goal |"
sep="|---|---|"
for a in "${ARMS[@]}"; do hdr+=" $a |"; sep+="---:|"; done
echo "$hdr"
echo "$sep"
row() { # NAME GOAL FIGURE
	local line="| $1 | $2 |"
	for a in "${ARMS[@]}"; do line+=" $(cell "$3" "$a" || true) |"; done
	echo "$line"
}
row "record peak RSS MiB, 99 Hz, ${D}s" "<= 25, <= perf" rss99
row "record peak RSS MiB, 999 Hz, ${D}s" "<= 25, <= perf" rss999
row "agent peak RSS MiB, 20 Hz, 3 busy processes" "<= 25" agent_rss
row "agent CPU % of one CPU, steady (after 10 s)" "<= 0.25" agent_cpu
row "agent CPU % of one CPU, whole ${AGENT_D}s run" "-" agent_all
row "record -d 0.2 wall s (median of $RUNS)" "<= 0.35" short
[[ " ${short[*]} " == *" cold "* ]] && row "record -d 0.2 wall s, debug cache empty (first run)" "-" short_cold
row "kernel memory of BPF maps MiB (record 99 Hz)" "<= 8" bpfmem
row "BPF ns per sample (perf_event program, 99 Hz)" "-" bpfns
printf '| alloc sampler instructions per malloc(64)/free | <= 1.15x native (%s) | %s |' \
	"$(awk -v n="$native" 'BEGIN { printf "%.1f", n / 100 }')" \
	"$(awk -v n="$native" -v a="$alloc_now" 'BEGIN { printf "%.1f (%.3fx)", a / 100, a / n }')"
[ -n "$BASE" ] && printf ' %s |' "$(awk -v n="$native" -v a="$alloc_base" 'BEGIN { if (a) printf "%.1f (%.3fx)", a / 100, a / n; else print "-" }')"
printf ' - |'
[ ${#PROFILE[@]} -gt 0 ] && printf ' - |'
echo
