#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Complete stacks on a busy host (issue 35): how many samples of short-lived processes,
# of a program met after the recording started, and of a compiler mapping a 110 MB
# library come out cut, with this build and, with BUSY_BASE=PATH, another ebprof build,
# each scenario alternating the arms, medians of BUSY_REPEAT runs, quiet and then with
# BUSY_HOGS spinning processes added (the loaded run):
#   build  a whole-system `record` over BUSY_ROUNDS rounds of `make -j2` of BUSY_FILES
#          small C files (cc1, as, ld: each lives a fraction of a second) and a run of
#          the program they make, once with -fno-omit-frame-pointer ("fp") and once with
#          -fomit-frame-pointer ("nofp"): the share of cc1's, as's, ld's and the
#          program's samples complete (no [truncated], no [unknown] frame), and of all
#          samples but the hogs' cut;
#   late   a whole-system `record -F 499`; 0.1 s after it samples, a program built
#          without frame pointers runs 3 s: the share of its samples whose stack holds
#          its chain (main > first_second > sort_round, or later), in its first second
#          and overall;
#   clang  `record -- clang -O2 -c big.c` at default settings: the share of clang's
#          samples cut; ebprof's peak RSS; the unwind rows' kernel memory at most.
# Run as root; needs clang, gcc, make and /usr/bin/time.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPEAT=${BUSY_REPEAT:-3}
HOGS=${BUSY_HOGS:-8}
FILES=${BUSY_FILES:-60}
ROUNDS=${BUSY_ROUNDS:-3}
LOADS=${BUSY_LOADS:-quiet loaded}
SCENARIOS=${BUSY_SCENARIOS:-build late clang}
declare -A BIN=([this]=$ROOT/build/ebprof)
ARMS=this
if [ -n "${BUSY_BASE:-}" ]; then
	BIN[base]=$BUSY_BASE
	ARMS="base this"
fi
die() {
	echo "busyhost bench: $*" >&2
	exit 1
}
[ "$(id -u)" -eq 0 ] || die "run as root"
for v in clang gcc make /usr/bin/time; do command -v "$v" >/dev/null || die "$v is missing"; done
TMP=$(mktemp -d /dev/shm/ebprof-busyhost.XXXXXX)
HOG_PIDS=()
REC=
cleanup() {
	[ -n "$REC" ] && kill -INT "$REC" 2>/dev/null
	for p in "${HOG_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", 100 * a / b; else print "-" }'; }

# The late program and the hogs: one source, two names (the folded stacks' first field).
cc -O2 -fomit-frame-pointer -fno-optimize-sibling-calls -o "$TMP/busy_late" "$ROOT/bench/busy_work.c"
cp "$TMP/busy_late" "$TMP/busy_hog"

# gen_file NAME NFUNCS: C functions with loops and switches, a few ms of cc1 each.
gen_file() {
	awk -v n="$2" -v name="$1" 'BEGIN {
		printf "#include <stdint.h>\n#include <string.h>\n";
		for (i = 0; i < n; i++) {
			printf "struct s_%s_%d { int a[%d]; double d; char c[16]; };\n", name, i, 4 + i % 5;
			printf "uint64_t %s_f%d(uint64_t x, const char *p)\n{\n\tstruct s_%s_%d s;\n", name, i, name, i;
			printf "\tuint64_t h = x ^ %d;\n\tmemset(&s, 0, sizeof(s));\n", i * 131 + 7;
			printf "\tfor (int i = 0; p[i %% 7] && i < (int)(x & 63); i++) {\n\t\tswitch ((h + i) %% 5) {\n";
			for (k = 0; k < 5; k++)
				printf "\t\tcase %d: h = h * %d + p[i %% 7] + s.a[i %% 4]; s.a[(i + %d) %% 4] ^= (int)h; break;\n", k, 2 * k + 3 + i, k;
			printf "\t\t}\n\t\ts.d += (double)h / (i + 1);\n\t}\n\treturn h + (uint64_t)s.d;\n}\n";
		}
	}'
}

# The project: FILES files of 3 functions, a main that calls them all for a while.
mkdir -p "$TMP/proj"
for i in $(seq "$FILES"); do gen_file "m$i" 3 >"$TMP/proj/m$i.c"; done
{
	echo '#include <stdint.h>'
	echo '#include <stdlib.h>'
	echo '#include <time.h>'
	for i in $(seq "$FILES"); do echo "uint64_t m${i}_f0(uint64_t, const char *);"; done
	echo 'static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }'
	echo '__attribute__((noinline)) static uint64_t run_all(uint64_t x) { uint64_t h = 0;'
	for i in $(seq "$FILES"); do echo "h += m${i}_f0(x + h, \"abcdefgh\");"; done
	echo 'return h; }'
	echo 'volatile uint64_t sink;'
	echo 'int main(int argc, char **argv) { double end = now() + (argc > 1 ? atof(argv[1]) : 0.3); uint64_t h = 0;'
	echo 'for (uint64_t x = 1; now() < end; x++) h += run_all(x); sink = h; return 0; }'
} >"$TMP/proj/main.c"
cat >"$TMP/proj/Makefile" <<'EOF'
OBJS := $(patsubst %.c,%.o,$(wildcard *.c))
prog: $(OBJS)
	$(CC) -o $@ $(OBJS)
%.o: %.c
	$(CC) $(CFLAGS) -c $< -o $@
EOF
gen_file big 250 >"$TMP/big.c"

# wait_sampling PID: until recording PID holds its perf events: it samples from then on.
wait_sampling() {
	for _ in $(seq 600); do
		[ -n "$(ls -l /proc/"$1"/fd 2>/dev/null | grep 'perf_event\]')" ] && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# sum FOLDED [AWK-CONDITION]: samples of the folded stacks (line: stack count) matching.
sum() { awk "${2:-1} { s += \$NF } END { print s + 0 }" "$1"; }

# record_system ARM OUT CMD...: a whole-system recording while CMD runs (started once
# the recording samples, after CMD's own wait), stopped when CMD ends.
record_system() {
	local arm=$1 out=$2
	shift 2
	"${BIN[$arm]}" record "${REC_OPTS[@]}" -d 0 -o "$out" >"$out.stdout" 2>"$out.stderr" &
	REC=$!
	wait_sampling "$REC" || die "$arm: recording did not start: $(tail -3 "$out.stderr")"
	"$@"
	kill -INT "$REC"
	wait "$REC" || die "$arm: recording failed: $(tail -3 "$out.stderr")"
	REC=
}

build_rounds() {
	for _ in $(seq "$ROUNDS"); do
		rm -f "$TMP"/proj/*.o "$TMP/proj/prog"
		make -s -C "$TMP/proj" -j2 CC=gcc CFLAGS="-O2 $BUILD_FLAGS" >/dev/null
		"$TMP/proj/prog" 0.3
	done
}

# Each scenario appends "LOAD SCENARIO ARM FIGURE VALUE" lines to $TMP/runs.
put() { echo "$LOAD $1 $ARM $2 $3" >>"$TMP/runs"; }

complete_re='!/\[truncated\]|\[unknown\]/'
run_build() {
	local variant=$1 out=$TMP/out-build
	REC_OPTS=()
	BUILD_FLAGS=$([ "$variant" = fp ] && echo -fno-omit-frame-pointer || echo -fomit-frame-pointer)
	rm -rf "$out"
	record_system "$ARM" "$out" build_rounds
	local f=$out/stacks.folded all cut
	for c in cc1 as ld prog; do
		put "build-$variant" "$c" "$(pct "$(sum "$f" "/^$c;/ && $complete_re")" "$(sum "$f" "/^$c;/")")"
	done
	put "build-$variant" tools "$(pct "$(sum "$f" "/^(cc1|as|ld);/ && $complete_re")" "$(sum "$f" '/^(cc1|as|ld);/')")"
	all=$(sum "$f" '!/^busy_hog;/')
	cut=$(sum "$f" '!/^busy_hog;/ && /\[truncated\]/')
	put "build-$variant" cut "$(pct "$cut" "$all")"
	put "build-$variant" samples "$all"
}

late_program() {
	sleep 0.1
	"$TMP/busy_late" late 3
}

run_late() {
	local out=$TMP/out-late first rest
	REC_OPTS=(-F 499)
	rm -rf "$out"
	record_system "$ARM" "$out" late_program
	local f=$out/stacks.folded
	first=$(sum "$f" '/^busy_late;/')
	rest=$(sum "$f" '/^busy_late_rest;/')
	put late first "$(pct "$(sum "$f" '/^busy_late;.*;main[^;]*;first_second[^;]*;sort_round/ && !/\[truncated\]/')" "$first")"
	put late overall "$(pct "$(sum "$f" '/^busy_late(_rest)?;.*;main[^;]*;(first_second|later)[^;]*;sort_round/ && !/\[truncated\]/')" "$((first + rest))")"
	put late samples "$((first + rest))"
}

run_clang() {
	local out=$TMP/out-clang
	rm -rf "$out"
	/usr/bin/time -f '%M' -o "$out.time" "${BIN[$ARM]}" record -v -o "$out" -- clang -O2 -c "$TMP/big.c" -o "$TMP/big.o" \
		>"$out.stdout" 2>"$out.stderr" || die "$ARM: clang recording failed: $(tail -3 "$out.stderr")"
	local f=$out/stacks.folded
	put clang cut "$(pct "$(sum "$f" '/^clang;/ && /\[truncated\]/')" "$(sum "$f" '/^clang;/')")"
	put clang samples "$(sum "$f" '/^clang;/')"
	put clang rss_mib "$(awk '{ printf "%.0f", $1 / 1024 }' "$out.time")"
	# -v's unwinder line: "kernel memory N MiB now, M MiB at most".
	put clang rows_mib "$(sed -nE 's/.* ([0-9.]+) MiB at most.*/\1/p' "$out.stderr" | head -1)"
	cp "$out.stdout" "$TMP/clang-$LOAD-$ARM.stdout"
}

start_hogs() {
	for _ in $(seq "$HOGS"); do
		"$TMP/busy_hog" hog &
		HOG_PIDS+=($!)
	done
}

stop_hogs() {
	for p in "${HOG_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${HOG_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	HOG_PIDS=()
}

# One unmeasured recording per arm first: the page cache, the BTF and load-cost caches.
for ARM in $ARMS; do
	"${BIN[$ARM]}" record -d 1 -o "$TMP/warm" >/dev/null 2>&1 || die "$ARM: ebprof record failed"
done
for LOAD in $LOADS; do
	[ "$LOAD" = loaded ] && start_hogs
	for r in $(seq "$REPEAT"); do
		for sc in $SCENARIOS; do
			for ARM in $ARMS; do
				case $sc in
				build)
					run_build fp
					run_build nofp
					;;
				late) run_late ;;
				clang) run_clang ;;
				esac
				echo "  $LOAD run $r $sc $ARM: $(awk -v l="$LOAD" -v a="$ARM" '$1 == l && $3 == a' "$TMP/runs" | tail -8 | awk '{ printf "%s/%s=%s ", $2, $4, $5 }')" >&2
			done
		done
	done
	echo "$LOAD: load average $(cut -d' ' -f1-3 /proc/loadavg) at the end" >>"$TMP/loads"
	[ "$LOAD" = loaded ] && stop_hogs
done

echo "busyhost bench, $(uname -r), $(nproc) CPUs, medians of $REPEAT runs ($FILES files x $ROUNDS rounds; $HOGS hogs when loaded)"
cat "$TMP/loads"
printf '%-11s %-8s' scenario figure
for LOAD in $LOADS; do for ARM in $ARMS; do printf ' %14s' "$LOAD/$ARM"; done; done
echo
awk '{ print $2, $4 }' "$TMP/runs" | awk '!seen[$0]++' | while read -r sc fig; do
	printf '%-11s %-8s' "$sc" "$fig"
	for LOAD in $LOADS; do
		for ARM in $ARMS; do
			printf ' %14s' "$(awk -v l="$LOAD" -v s="$sc" -v a="$ARM" -v f="$fig" '$1 == l && $2 == s && $3 == a && $4 == f { print $5 }' "$TMP/runs" | median)"
		done
	done
	echo
done
for f in "$TMP"/clang-*.stdout; do
	[ -e "$f" ] || continue
	echo "--- ${f##*/} (last run):"
	grep -E 'unwind|cut|stacks' "$f" | cut -c1-400
done
