# SPDX-License-Identifier: Apache-2.0
# Helpers for the kernel tests (sourced): result lines, a scratch directory, the leak
# checks, and the runtime roots.
set -u
BUILD=${BUILD:-build}
EBPROF=${EBPROF:-$BUILD/ebprof}
W=$BUILD/workloads
TMP=$(mktemp -d /tmp/ebprof-test.XXXXXX)
# Go 1.24 and later build `go tool pprof` on first use, into GOCACHE: the machine's Go
# build cache (EBPROF_GOCACHE, set by tests/run.sh, filled by scripts/install-go.sh), else
# one under the build folder for every test, so it is built once, not once per test.
GO_TOOL_CACHE=${EBPROF_GOCACHE:-$(realpath -m "$BUILD/go-tool-cache")}
# Directories a test made elsewhere (in a runtime root, below), removed at exit too.
CLEAN=()
trap 'rm -rf "$TMP" "${CLEAN[@]}"' EXIT

# case_selected NAME: whether the test case NAME (its result's name, or the prefix of a
# group of results) runs: every case, or with EBPROF_TEST_CASES (an extended regular
# expression) those whose name it matches, as the arm64 guest runs a few of each file
# (tests/run.sh). A case left out prints nothing, as a test file tests/run.sh leaves out.
case_selected() { [ -z "${EBPROF_TEST_CASES:-}" ] || [[ $1 =~ $EBPROF_TEST_CASES ]]; }

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
check() { # check NAME DESCRIPTION CMD...
	local name=$1 what=$2
	shift 2
	if "$@"; then pass "$name"; else fail "$name" "$what"; fi
}

# how_ended RC STDERR_FILE: why a command failed, in one line: its exit status or the
# signal that killed it, and its last words (ebprof's crash report and the top of its
# backtrace when it crashed).
how_ended() {
	local why="exit $1" words
	[ "$1" -gt 128 ] && why="killed by SIG$(kill -l $(($1 - 128)) 2>/dev/null || echo $(($1 - 128)))"
	words=$(grep -A5 '^ebprof: crashed' "$2" || tail -2 "$2")
	echo "$why: $(echo "$words" | tr '\n' ' ')"
}

# Samples in a folded file whose first field is comm ($2), and how many of them
# contain the pattern $3 (an ERE on the whole line). Sums print with %.0f: mawk prints
# one past 2^31 (off-CPU nanoseconds) as 2.36809e+09, which test -eq refuses.
folded_count() { awk -v c="$2" -F';' '$1 == c { n = $NF; sub(/.* /, "", n); s += n } END { printf "%.0f\n", s }' "$1"; }
folded_match() {
	grep -E "$3" "$1" | awk -v c="$2" -F';' '$1 == c { n = $NF; sub(/.* /, "", n); s += n } END { printf "%.0f\n", s }'
}
# L follows a native function's name in patterns on folded stacks: the source line DWARF
# gives it, " (file.c:42)", when the binary has debug info: ";main$L;work$L;".
L='( \([^;]*\))?'
# I: any frames inlined at that call, each marked " [inlined]": ";work$L;$I(__)?read".
I='([^;]* \[inlined\];)*'
# STARTUP: stacks of a process's start-up, before its own code runs: the dynamic loader's
# (rooted at ld.so's entry point: unnamed, or _start;_dl_start where its debug file names
# it, as on arm64) and CPython's initialization. They are complete but belong to no
# workload's chain; under emulation (scripts/vm.sh without KVM) they are a tenth of a
# short run, so the chain checks count the samples after them (steady()).
STARTUP='^[^;]*;(ld-linux[^;]*;|_start;_dl_start;|.*;Py_InitializeFromConfig;)'
# steady FOLDED: the folded file without its start-up stacks (a new file, printed).
steady() { grep -Ev "$STARTUP" "$1" >"$1.steady"; echo "$1.steady"; }
# secs N: N seconds of a workload, times EBPROF_TEST_TIME_SCALE (3 in an emulated guest,
# where each library's unwind table takes ~10 times longer to build after exec, so a
# short run's first, cut stacks weigh more; 1 elsewhere).
TIME_SCALE=${EBPROF_TEST_TIME_SCALE:-1}
[[ ${EBPROF_VM:-} == *tcg* ]] && TIME_SCALE=${EBPROF_TEST_TIME_SCALE:-3}
secs() { awk -v n="$1" -v k="$TIME_SCALE" 'BEGIN { print n * k }'; }
# named_runtime NAME: record's flags for a test of runtime NAME. In an emulated guest a
# walker's verification takes seconds, a tenth of a short run the host never sees: there
# the runtime is named (--runtimes), its walker verified before the workloads start.
named_runtime() { [[ ${EBPROF_VM:-} == *tcg* ]] && echo "--runtimes $1"; }
# ratio A B: prints 100*A/B as an integer (0 when B is 0).
pct() { [ "$2" -gt 0 ] && echo $((100 * $1 / $2)) || echo 0; }

# wait_sampling PID: waits (up to 60 s) until process PID, an ebprof recording, holds a
# perf event and a BPF program: the sampler opens and attaches one event per CPU once its
# programs are loaded, so from then on it samples, however long a loaded machine took to
# verify them. A perf event alone is not enough: the start-up check (cli/host.c) opens
# one for a moment before anything is loaded.
wait_sampling() {
	local fds
	for _ in $(seq 600); do
		fds=$(ls -l /proc/"$1"/fd 2>/dev/null)
		grep -q 'perf_event\]' <<<"$fds" && grep -q 'bpf-prog' <<<"$fds" && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# usage_errors NAME VERB ARGS...: each ARGS (one word list per argument) given to
# `ebprof VERB` exits 2 with one line besides "Try ...": checks NAME_1, NAME_2...
usage_errors() {
	local name=$1 verb=$2 args rc lines i=0
	shift 2
	for args in "$@"; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		"${EBPROF_UNTRACKED:-$EBPROF}" "$verb" $args >"$TMP/usage.out" 2>"$TMP/usage.err"
		rc=$?
		lines=$(grep -vc '^Try ' "$TMP/usage.err")
		check "${name}_$i" "exit $rc and $lines lines besides 'Try' for '$args'" \
			[ "$rc" -eq 2 -a "$lines" -eq 1 ]
	done
}

# ---- Leak checks: only ebprof's own objects, never a diff of the kernel's lists, which
# any other BPF user on the host changes (an agent, systemd, another test).

# track_bpf: from here on $EBPROF runs with tests/leaks/bpf_log.c preloaded, which logs
# the id of every BPF program, map, link and BTF object and every perf event it creates
# into BPF_LOG (started afresh); bpf_gone checks that exactly those are gone.
# The wrapper lives outside TMP (mode 0700), so ebprof run as another user finds it too.
track_bpf() {
	local lib dir
	lib=$(readlink -f "$BUILD/tests/libbpf_log.so")
	EBPROF_UNTRACKED=${EBPROF_UNTRACKED:-$EBPROF}
	dir=$(mktemp -d /tmp/ebprof-tracked.XXXXXX) && chmod 755 "$dir" && CLEAN+=("$dir")
	BPF_LOG=$dir/objects
	: >"$BPF_LOG"
	[ -f "$lib" ] || return 0 # bpf_gone says so
	EBPROF=$dir/ebprof
	# The library removes itself from LD_PRELOAD: ebprof and its children see the caller's.
	printf '#!/bin/sh\nLD_PRELOAD=%q${LD_PRELOAD:+:$LD_PRELOAD} EBPROF_BPF_LOG=%q exec %q "$@"\n' \
		"$lib" "$BPF_LOG" "$(readlink -f "$EBPROF_UNTRACKED")" >"$EBPROF"
	chmod +x "$EBPROF"
}

# bpf_gone NAME: PASS when every object the tracked runs of ebprof created is gone (within
# thirty seconds: see tests/leaks/bpf_gone.c), else FAIL naming what is left and who holds it. Nothing logged is a FAIL too: every
# test that checks has ebprof load something.
bpf_gone() {
	local out
	if [ ! -x "$BUILD/tests/bpf_gone" ] || [ "$EBPROF" = "${EBPROF_UNTRACKED:-$EBPROF}" ]; then
		fail "$1" "no $BUILD/tests/bpf_gone or libbpf_log.so: make unit-bins"
	elif ! [ -s "$BPF_LOG" ]; then
		fail "$1" "ebprof logged no BPF object (is $BUILD/tests/libbpf_log.so preloaded?)"
	elif out=$("$BUILD/tests/bpf_gone" "$BPF_LOG"); then
		echo "$1: $out" >&2
		pass "$1"
	else
		fail "$1" "$(echo "$out" | paste -sd';')"
	fi
}

# ---- Runtime roots: the Debian releases scripts/runtimes.sh unpacks (bullseye, bookworm,
# trixie), each holding its own runtimes, so one host tests every release's JVM and Node.

ROOTS=${EBPROF_ROOTS:-/var/cache/ebprof}

# in_root ROOT CMD...: CMD chrooted in ROOT (the host when empty) with a /proc of its own
# mount namespace (a JVM finds its libraries through /proc/self/exe). Execs: the caller's
# $! is CMD's pid.
in_root() {
	local root=$1
	shift
	[ -n "$root" ] || exec "$@"
	exec unshare -m --propagation private sh -c \
		'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$root" "$@"
}

# agent_start NAME ARGS...: `ebprof agent` run 4 s (reporting every second, at 99 Hz; ARGS
# come last and may change that) against the gRPC test receiver, in the background
# (agent_pid; agent_check waits for it). False after a SKIP line (no node or the receivers'
# npm packages) or a FAIL line (the receiver did not start).
agent_start() {
	local name=$1
	shift
	OTLP_DIR=$PWD/tests/otlp
	. tests/otlp/lib.sh
	if ! command -v node >/dev/null || ! otlp_node_modules; then
		echo "SKIP $name: node or the receivers' npm packages are missing (scripts/install-deps.sh test)"
		return 1
	fi
	if ! otlp_receiver "$TMP" "$name" grpc 0 2>"$TMP/$name.receiver"; then
		fail "$name" "the gRPC receiver did not start: $(tail -2 "$TMP/$name.receiver")"
		return 1
	fi
	agent_receiver=$receiver_pid
	"$EBPROF" agent -F 99 --endpoint "127.0.0.1:$receiver_port" --insecure \
		--report-interval 1s -d 4 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	agent_pid=$!
}

# agent_check NAME ARGS...: waits for agent_start's agent, stops the receiver, and checks
# what it received with tests/otlp/check.mjs ARGS: FAIL when the agent failed or the check
# does.
agent_check() {
	local name=$1 rc
	shift
	wait "$agent_pid"
	rc=$?
	kill "$agent_receiver" 2>/dev/null
	wait "$agent_receiver" 2>/dev/null
	if [ "$rc" -ne 0 ]; then
		fail "$name" "agent failed, $(how_ended "$rc" "$TMP/$name.err")"
		return
	fi
	node tests/otlp/check.mjs "$TMP/$name.jsonl" "$@" >"$TMP/$name.check" 2>&1
	rc=$?
	check "$name" "$(tail -3 "$TMP/$name.check" | paste -sd' ')" [ "$rc" -eq 0 ]
}

# cpu_ticks PID: the CPU time PID has had, in clock ticks (0 when it is gone).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# agent_sends NAME PID TYPE FUNCTION...: `ebprof agent -p PID` must send PID's samples with
# a location of profile.frame.type TYPE and every FUNCTION in a sampled stack within PID's
# own resource. The agent runs until PID has had 1.5 s of CPU since sampling began (at
# least 3 s, at most 30: a runtime started a moment ago on a busy host may spend seconds
# getting to its code), then SIGTERM sends what it holds. A SKIP without node or the
# receivers' npm packages. The caller starts PID and ends it.
agent_sends() {
	local name=$1 pid=$2 type=$3 fn args=() start
	shift 3
	agent_start "$name" -p "$pid" -d 30 || return 0
	wait_sampling "$agent_pid"
	start=$(cpu_ticks "$pid")
	sleep 3
	for _ in $(seq 270); do
		[ $(($(cpu_ticks "$pid") - start)) -ge $((150 * $(getconf CLK_TCK) / 100)) ] && break
		kill -0 "$agent_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -TERM "$agent_pid" 2>/dev/null
	for fn in "$@"; do args+=(--function "$fn"); done
	agent_check "$name" --pid "$pid" --frame-type "$type" "${args[@]}"
}

# host_runtime CMD: "host::PATH" when the host has CMD (the spec of runtime_suites), else
# nothing.
host_runtime() {
	local path
	path=$(readlink -f "$(command -v "$1" 2>/dev/null)" 2>/dev/null || true)
	[ -x "$path" ] && echo "host::$path"
}

# root_dir ROOT NAME: a new directory under ROOT's /tmp (the host's when ROOT is empty),
# removed at exit; sets DIR to it as the host sees it and RDIR as the root's programs do.
root_dir() {
	DIR=$(mktemp -d "${1:-}/tmp/ebprof-$2.XXXXXX")
	CLEAN+=("$DIR")
	RDIR=${DIR#"$1"}
}

# marker_line FILE MARKER: the line of a workload's "// MARKER" comment.
marker_line() { grep -n "// $2\$" "$1" | cut -d: -f1; }

# record_in_root NAME STATS ROOT CMD...: ebprof record -F 199 of CMD run in ROOT, into
# $OUT (set by the caller); prints the summary lines of its stderr matching STATS. Sets
# OUT to the folded stacks, or to /dev/null after a FAIL line when record failed.
record_in_root() {
	local name=$1 stats=$2 rc
	shift 2
	"$EBPROF" record -F 199 -o "$OUT" -- bash -c "$(declare -f in_root); in_root \"\$@\"" \
		in_root "$@" >"$OUT.stdout" 2>"$OUT.stderr"
	rc=$?
	grep -E "$stats" "$OUT.stderr" >&2
	if [ "$rc" -ne 0 ]; then
		fail "$name" "record failed, $(how_ended "$rc" "$OUT.stderr")"
		OUT=/dev/null
		return
	fi
	OUT=$OUT/stacks.folded
}

# ---- One recording, many checks: a runtime's test starts the workloads of every version
# (or of several runtimes) together under one `ebprof record`, so their start-ups and JIT
# warm-ups overlap and ebprof starts once, then checks each workload's own stacks. Each
# workload writes down its pid; ebprof writes "comm-PID" in the folded stacks
# (EBPROF_FOLDED_PID=1), and batch_stacks keeps one workload's lines, as plain folded
# stacks again.
#   batch_new                       an empty batch (BATCH: its directory)
#   batch_add KEY ROOT CMD...       workload KEY: CMD run in ROOT (in_root; "": the host)
#   batch_record NAME STATS [OPT...] ebprof record [OPT...] of them all (below); prints the
#                                   summary lines matching STATS; FAIL NAME and false if
#                                   it failed
#   batch_stacks KEY                prints the path of KEY's folded stacks
#   batch_pids KEY                  prints KEY's pid
# Many workloads share the CPUs during a batch, each getting a fraction of the time it had
# recorded alone at 199 Hz: a batch samples at 499 Hz, so each still gets the samples its
# checks count. Their runtimes' unwind tables are all in the kernel at once (four Node
# builds are 1.8 M rows, 28 MiB): 128 MiB for them, where record's default is 32.
BATCH_HZ=${EBPROF_TEST_BATCH_HZ:-499}
BATCH_UNWIND=${EBPROF_TEST_BATCH_UNWIND:-128M}
batch_new() {
	BATCH=$(mktemp -d "$TMP/batch.XXXXXX")
	{
		echo 'set -u'
		declare -f in_root
		# workload PIDFILE ROOT CMD...: in_root execs, so CMD keeps this subshell's pid.
		echo 'workload() { echo $BASHPID >"$1"; shift; in_root "$@"; }'
	} >"$BATCH/run.sh"
}
batch_add() {
	local key=$1
	shift
	printf 'workload %q' "$BATCH/$key.pid" >>"$BATCH/run.sh"
	printf ' %q' "$@" >>"$BATCH/run.sh"
	printf ' >%q 2>&1 </dev/null &\n' "$BATCH/$key.log" >>"$BATCH/run.sh"
}
batch_record() {
	local name=$1 stats=$2 rc
	shift 2
	echo wait >>"$BATCH/run.sh"
	EBPROF_FOLDED_PID=1 "$EBPROF" record -F "$BATCH_HZ" --unwind-memory "$BATCH_UNWIND" "$@" \
		-o "$BATCH/out" -- bash "$BATCH/run.sh" \
		>"$BATCH/stdout" 2>"$BATCH/stderr"
	rc=$?
	cat "$BATCH/stdout" "$BATCH/stderr" | grep -E "$stats" >&2
	[ "$rc" -eq 0 ] && return 0
	fail "$name" "record failed, $(how_ended "$rc" "$BATCH/stderr")"
	return 1
}
batch_pids() { cat "$BATCH/$1.pid" 2>/dev/null; }
batch_stacks() {
	local f=$BATCH/$1.folded
	awk -v pid="$(batch_pids "$1")" -F';' '{
		n = split($1, c, "-")
		if (n < 2 || c[n] != pid) next
		sub("-" pid "$", "", $1)
		print
	}' OFS=';' "$BATCH/out/stacks.folded" >"$f" 2>/dev/null
	echo "$f"
}

# expect NAME FOLDED WHAT PATTERN OF MIN: of the stacks matching OF (at least MIN), >= 90 %
# must match PATTERN. MIN only says the leaf was reached at all. On failure the heaviest
# stacks are shown, with what EXPECT_TRIM (a sed expression) cuts from them. Stacks that
# match EXPECT_IGNORE (an ERE: a runtime's marks of a process not described yet) are not
# counted, nor, when EXPECT_ONLY is set (an ERE: a mark every stack of a described process
# has), those that do not match it. A case EBPROF_TEST_CASES leaves out prints nothing.
expect() {
	local name=$1 f=$2 what=$3 pat=$4 of=$5 min=$6 total hit
	case_selected "$name" || return 0
	if [ -n "${EXPECT_IGNORE:-}" ]; then
		grep -vE "$EXPECT_IGNORE" "$f" >"$f.counted"
		f=$f.counted
	fi
	if [ -n "${EXPECT_ONLY:-}" ]; then
		grep -E "$EXPECT_ONLY" "$f" >"$f.only"
		f=$f.only
	fi
	total=$(grep -E "$of" "$f" | awk '{ s += $NF } END { printf "%.0f\n", s }')
	hit=$(grep -E "$pat" "$f" | awk '{ s += $NF } END { printf "%.0f\n", s }')
	echo "$name: $hit of $total samples ($what)" >&2
	if [ "$total" -lt "$min" ]; then
		fail "$name" "only $total samples matching $of"
		sort -k2 -t' ' -nr "$f" | head -3 | cut -c1-600 >&2
	elif [ "$(pct "$hit" "$total")" -lt 90 ]; then
		fail "$name" "$what in $(pct "$hit" "$total") % of samples, want >= 90"
		expect_misses "$f" "$of" "$pat" 3 >&2
	else
		pass "$name"
		# A thin margin: what takes it, for the log.
		[ "$(pct "$hit" "$total")" -lt 95 ] &&
			expect_misses "$f" "$of" "$pat" 2 | sed 's/^/  (margin) /' >&2
	fi
	return 0
}
# expect_misses FOLDED OF PATTERN N: the N heaviest stacks matching OF but not PATTERN,
# trimmed by EXPECT_TRIM.
expect_misses() {
	grep -E "$2" "$1" | grep -vE "$3" | awk '{ print $NF, $0 }' | sort -nr |
		head -"$4" | cut -d' ' -f2- | sed "${EXPECT_TRIM:-}" | cut -c1-900
}

# runtime_suites PREFIX SUITE SPEC...: SUITE LABEL ROOT PATH for each SPEC "LABEL:ROOT:PATH"
# (ROOT empty: the host) whose program is there; a SKIP line for each that is not, or
# whose PREFIX_LABEL EBPROF_TEST_VERSIONS (an extended regular expression; the kernel
# matrix runs one version of each runtime) leaves out.
runtime_suites() {
	local prefix=$1 suite=$2 spec label root path
	shift 2
	for spec in "$@"; do
		IFS=: read -r label root path <<<"$spec"
		if [ -n "${EBPROF_TEST_VERSIONS:-}" ] && ! [[ ${prefix}_$label =~ $EBPROF_TEST_VERSIONS ]]; then
			echo "SKIP ${prefix}_$label: EBPROF_TEST_VERSIONS leaves it out"
			continue
		fi
		if [ -n "$root" ] && [ ! -x "$root$path" ]; then
			echo "SKIP ${prefix}_$label: no $root$path (scripts/install-deps.sh test makes it)"
			continue
		fi
		"$suite" "$label" "$root" "$path"
	done
}
