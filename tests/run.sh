#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the whole suite: unit tests, kernel tests (root), the kernel matrix, browser and
# OTLP tests, fuzzing, format check. Every test prints "PASS name", "FAIL name: why" or
# "SKIP name: why"; this script counts them and ends with the ten slowest test programs
# and one line "tests: N passed, N failed, N skipped".
# Usage: tests/run.sh [-j N] [PATTERN...]
#   PATTERN: only the test programs whose name (unit/test_cfi, kernel/python,
#   vm-6.1/kernel/unwind, otlp/transport, fuzz/cfi, browser/flamegraph, format) matches
#   one of the extended regular expressions; no pattern runs all.
#   -j N: N test programs side by side (default: the CPU count); each one's output is
#   printed whole when it ends. A kernel test whose header says "# suite: alone" runs
#   with nothing beside it; the kernel matrix's guests run one after another.
set -u
cd "$(dirname "$0")/.."
export BUILD=${BUILD:-build}
# The machine's Go build cache, where `go tool pprof` (built on first use since Go 1.24)
# and the Go workloads are compiled once (scripts/install-go.sh fills it).
gocache=${EBPROF_GO_CACHE:-/var/cache/ebprof/go}/build-cache
if [ -z "${EBPROF_GOCACHE:-}" ] && mkdir -p "$gocache" 2>/dev/null && [ -w "$gocache" ]; then
	export EBPROF_GOCACHE=$gocache
fi
jobs=$(nproc 2>/dev/null || echo 1)
while getopts j: opt; do
	case $opt in
	j) jobs=$OPTARG ;;
	*) sed -n '7,13s/^# \{0,1\}//p' "$0" >&2 && exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "tests/run.sh: -j wants a positive number" >&2; exit 2; }
work=$(mktemp -d)
log=$work/results
: >"$log"
# How long each program took last time (NAME SECONDS), to start the longest first.
times=$BUILD/tests/durations

patterns=("$@")
selected() { # selected NAME: true when no pattern was given or one matches NAME
	[ ${#patterns[@]} -eq 0 ] && return 0
	for p in "${patterns[@]}"; do
		[[ $1 =~ $p ]] && return 0
	done
	return 1
}

# ---- The queue: each test program with its lane: "" (beside anything), "alone" (with
# nothing beside it) or "vm" (beside anything but another guest).
queue=()
declare -A cmd lane
add() { # add NAME LANE CMD...: queues a test program when selected
	local name=$1
	selected "$name" || return 0
	queue+=("$name")
	lane[$name]=$2
	shift 2
	cmd[$name]=$(printf '%q ' "$@")
}

# collect NAME OUT ERR RC SECONDS: prints the program's stderr indented under its name
# (ERR empty: it was shown as it ran), then its result lines, and keeps them in the log.
collect() {
	local name=$1 out=$2 err=$3 rc=$4 secs=$5
	[ -n "$err" ] && { echo "== $name" && sed 's/^/    /' "$err"; } >&2
	echo "== $name: $secs s" >&2
	echo "$secs $name" >>"$work/durations"
	grep -E '^(PASS|FAIL|SKIP) ' "$out" | tee -a "$log"
	if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
		echo "FAIL $name: exited with status $rc" | tee -a "$log"
	fi
	if ! grep -qE '^(PASS|FAIL|SKIP) ' "$out"; then
		echo "FAIL $name: reported no result" | tee -a "$log"
	fi
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] && add "unit/$(basename "$t")" "" "$t"
done

if [ "$(id -u)" -eq 0 ]; then
	for t in tests/kernel/*.sh; do
		[ "$(basename "$t")" = lib.sh ] && continue
		l=
		grep -q '^# suite: alone' "$t" && l=alone
		add "kernel/$(basename "$t" .sh)" "$l" bash "$t"
	done
elif selected kernel/; then
	echo "SKIP kernel: the kernel tests need root" | tee -a "$log"
fi

# The kernel matrix: these tests again inside each kernel of scripts/kernels.sh, one guest
# per kernel (scripts/vm.sh), one after the other, named vm-K/kernel/NAME (test_loader:
# every program within the verifier budget there). They run in the full suite and for
# patterns that name them ("vm-", "vm-6.1/kernel/unwind"), not for "kernel/unwind",
# which means the running kernel's test.
vm_tests="unit/test_loader kernel/record_command kernel/unwind kernel/python kernel/probes
	kernel/teardown"
# The walking runtimes' chains too, in the kernel without bpf_loop (5.10, whose walkers
# are unrolled and tail-call themselves) and the oldest with it (6.1), one version each
# (EBPROF_TEST_VERSIONS, EBPROF_GO_VERSIONS below): about 4 minutes a guest under TCG.
# EBPROF_VM_RUNTIMES=0 leaves them out.
vm_runtime_tests="kernel/hotspot kernel/node kernel/go"
vm_runtime_kernels="5.10 6.1"
# The live views (top, dump) in the oldest kernel the suite boots with every walker's
# bpf_loop: what they promise there is what a user of an LTS distribution kernel gets.
vm_view_tests="kernel/top kernel/dump"
vm_view_kernels="6.1"
vm_tests_of() { # vm_tests_of K: the tests of kernel K's guest
	echo "$vm_tests"
	[[ " $vm_view_kernels " == *" $1 "* ]] && echo "$vm_view_tests"
	[ "${EBPROF_VM_RUNTIMES:-1}" = 1 ] && [[ " $vm_runtime_kernels " == *" $1 "* ]] &&
		echo "$vm_runtime_tests"
	return 0
}
vm_selected() { # vm_selected NAME: as selected, counting only patterns naming vm- tests
	local p
	[ ${#patterns[@]} -eq 0 ] && return 0
	for p in "${patterns[@]}"; do
		[[ $p == *vm-* && $1 =~ $p ]] && return 0
	done
	return 1
}
vm_want() { # vm_want TAG [TESTS]: the selected tests of guest TAG (vm-6.1, vm-arm64)
	local t
	for t in ${2:-$vm_tests}; do
		vm_selected "$1/$t" && echo "$t"
	done
}
# The arm64 guest (scripts/vm.sh --arch arm64: Debian's arm64 kernel under TCG on its own
# root, ebprof from the cross build in build-arm64), where an emulated CPU of another
# architecture runs a recording in tens of seconds to minutes: a few cases of a few tests
# (EBPROF_TEST_CASES, lib.sh: case_selected). The full suite and patterns naming it ("vm-",
# "vm-arm64/kernel/unwind") run a small batch: the C qsort chain and its leaf, the C++
# sort, a signal handler's leaf, Debian's CPython chain, Node's zlib chain, a teardown.
# EBPROF_VM_ARM64=0 leaves it out (as EBPROF_VM_MATRIX=0 does, unless EBPROF_VM_ARM64=1);
# EBPROF_VM_ARM64=all runs more of each test (make test-arm64; tests/README.md: its time).
arm64_setting=${EBPROF_VM_ARM64:-${EBPROF_VM_MATRIX:-1}}
arm64_tests="kernel/unwind kernel/python kernel/node kernel/teardown"
arm64_cases='^(unwind_(c_qsort|cpp_sort|signal)|python_debian_chain|node_host_(discovery|zlib)|teardown_success)'
if [ "$arm64_setting" = all ]; then
	arm64_tests="unit/test_loader kernel/record_command kernel/unwind kernel/python kernel/node
	kernel/probes kernel/teardown"
	arm64_cases='^(record_command|unwind_c_qsort|unwind_cpp_sort|unwind_signal|unwind_vdso|python_debian_|node_|probe|teardown_(success|sigint|tracked|crash))'
fi
# run_vm K [arm64]: the selected tests of kernel K (or of the arm64 guest) in one guest;
# prints their results (and keeps the guest's summary line for the end).
run_vm() {
	local k=$1 arch=${2:-amd64} tag=vm-$1 build=$BUILD tests=$(vm_tests_of "$1") cases= qemu=qemu-system-x86_64
	local want names out rc refusal start=$SECONDS
	local versions=${EBPROF_TEST_VERSIONS:-'^(hotspot_17|node_18)$'} go=${EBPROF_GO_VERSIONS:-go1.24}
	if [ "$arch" = arm64 ]; then
		tag=vm-arm64 build=build-arm64 tests=$arm64_tests qemu=qemu-system-aarch64
		cases=${EBPROF_TEST_CASES:-$arm64_cases} versions=${EBPROF_TEST_VERSIONS:-} go=
	fi
	want=($(vm_want "$tag" "$tests"))
	names=("${want[@]/#/$tag/}")
	echo "$tag: ${want[*]}" >&2
	if [ "$(id -u)" -ne 0 ] || ! command -v $qemu >/dev/null; then
		printf 'SKIP %s: needs root and qemu (scripts/install-deps.sh test)\n' "${names[@]}"
		return 0
	fi
	if [ ! -x "$build/ebprof" ]; then
		printf "SKIP %s: no $build/ebprof (make ARCH=$arch all unit-bins workloads)\n" "${names[@]}"
		return 0
	fi
	# The Go workloads are built here, where the Go build cache can be written: the
	# guest sees the checkout's copy but keeps what it writes to itself.
	if [[ " ${want[*]} " == *" kernel/go "* ]]; then
		EBPROF_GO_VERSIONS=$go BUILD=$build tests/workloads/go/build.sh >/dev/null
	fi
	# In the guest: ebprof's own verdict on the kernel first, then the tests one by one,
	# with one CPython (Debian's) of the two, one JDK, one Node and one Go: emulated, a
	# recording takes 10 to 30 s.
	out=$(BUILD=$build EBPROF_TEST_TRIXIE=0 EBPROF_TEST_CASES=$cases \
		EBPROF_TEST_VERSIONS=$versions EBPROF_GO_VERSIONS=$go \
		scripts/vm.sh --arch "$arch" "$k" -- bash -c '"$BUILD"/ebprof check >/tmp/check 2>&1 ||
		{ echo "REFUSED $(uname -r): $(sed -n "s/^[a-z_]*  *no  *//p" /tmp/check | paste -sd";")"; exit 0; }
		tests/run.sh -j 1 "$@"' vm $(printf "^%s$ " "${want[@]}"))
	rc=$?
	refusal=$(printf '%s\n' "$out" | sed -n 's/^REFUSED //p')
	if [ -n "$refusal" ]; then
		printf "FAIL %s: ebprof refuses Linux $refusal\n" "${names[@]}"
	else
		# The guest's results, up to the blank line before its summary (which repeats them).
		printf '%s\n' "$out" | sed '/^$/q' | grep -E '^(PASS|FAIL|SKIP) ' |
			sed -E "s#^(PASS|FAIL|SKIP) #\\1 $tag/#"
	fi >"$work/$tag"
	[ $rc -eq 125 ] && echo "FAIL $tag: the guest failed (scripts/vm.sh exit 125)" >>"$work/$tag"
	cat "$work/$tag"
	printf 'kernel %-5s %s passed, %s failed, %s skipped in %s s%s\n' "$k${2:+ $2}" \
		"$(grep -c '^PASS ' "$work/$tag")" "$(grep -c '^FAIL ' "$work/$tag")" \
		"$(grep -c '^SKIP ' "$work/$tag")" $((SECONDS - start)) \
		"${refusal:+ (ebprof refuses Linux $refusal)}" >>"$work/kernels"
}
# The full suite runs the matrix (about 10 minutes under emulation, where this host's
# KVM cannot boot the kernels); EBPROF_VM_MATRIX=0 leaves it out, one SKIP per kernel, for
# a quick run on the running kernel only. A pattern naming vm- tests runs them whatever
# the setting.
matrix=${EBPROF_VM_MATRIX:-1}
[ ${#patterns[@]} -gt 0 ] && matrix=1
for k in $(scripts/kernels.sh list); do
	if [ "$matrix" = 0 ]; then
		vm_selected "vm-$k/" &&
			echo "SKIP vm-$k: EBPROF_VM_MATRIX=0 leaves the kernel matrix out" |
			tee -a "$log"
	elif [ -n "$(vm_want "vm-$k" "$(vm_tests_of "$k")")" ]; then
		queue+=("vm-$k")
		lane[vm-$k]=vm
		cmd[vm-$k]="run_vm $k"
	fi
done
# After the matrix in the guests' lane (a fresh checkout's order: last), where the run's
# other programs have mostly ended; as the matrix, a pattern naming it runs it whatever
# the setting.
if [ "$arm64_setting" = 0 ] && [ ${#patterns[@]} -eq 0 ]; then
	echo "SKIP vm-arm64: EBPROF_VM_ARM64=0 (or EBPROF_VM_MATRIX=0) leaves the arm64 guest out" |
		tee -a "$log"
elif [ -n "$(vm_want vm-arm64 "$arm64_tests")" ]; then
	queue+=(vm-arm64)
	lane[vm-arm64]=vm
	cmd[vm-arm64]="run_vm 6.1 arm64"
fi

[ -x tests/browser/run.sh ] && add browser/flamegraph "" tests/browser/run.sh
[ -x tests/otlp/run.sh ] && add otlp/receivers "" tests/otlp/run.sh
[ -x tests/otlp/transport.sh ] && add otlp/transport "" tests/otlp/transport.sh
for t in tests/fuzz/run_*.sh; do
	b=$(basename "$t" .sh)
	[ -x "$t" ] && add "fuzz/${b#run_}" "" "$t"
done
format() {
	if make -s check-format >/dev/null 2>&1; then
		echo "PASS format: clang-format clean"
	else
		echo "FAIL format: run 'make format' (clang-format --dry-run reports differences)"
	fi
}
add format "" format
[ -x tests/layers/run.sh ] && add layers "" tests/layers/run.sh

# ---- The order: the programs that run alone first (nothing else is running yet), then
# the longest first by the last run's times (a fresh checkout: the guests, the kernel
# tests, then the rest as listed).
last() { awk -v n="$1" '$1 == n { s = $2 } END { print s + 0 }' "$times" 2>/dev/null || echo 0; }
guess() {
	case $1 in
	vm-*) echo 1000 ;;
	kernel/*) echo 100 ;;
	*) echo 1 ;;
	esac
}
order=()
i=0
for name in "${queue[@]}"; do
	secs=$(last "$name")
	[ "$secs" = 0 ] && secs=$(guess "$name")
	[ "${lane[$name]}" = alone ] && secs=$((secs + 1000000))
	printf '%s %s %s\n' "$secs" "$i" "$name"
	i=$((i + 1))
done | sort -k1,1nr -k2,2n >"$work/order"
order=($(cut -d' ' -f3 "$work/order"))

# ---- Running: up to $jobs programs at once, each one's output printed whole when it
# ends. One program, or -j 1: one after the other, their output shown as they run.
declare -A pid_of started
running=()
stop_all() {
	local p
	for p in "${running[@]}"; do
		kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null
	done
	rm -rf "$work"
}
trap stop_all EXIT
trap 'exit 143' TERM INT HUP

run_one() { # run_one NAME: runs the program; its files under $work/job.NAME
	local f=$work/job.${1//\//_}
	eval "${cmd[$1]}" >"$f.out" 2>"$f.err" </dev/null
	echo $? >"$f.rc"
}
finish() { # finish NAME: prints what the ended program said
	local f=$work/job.${1//\//_}
	collect "$1" "$f.out" "$f.err" "$(cat "$f.rc" 2>/dev/null || echo 1)" \
		$((SECONDS - started[$1]))
}

if [ "$jobs" -eq 1 ] || [ ${#order[@]} -le 1 ]; then
	for name in "${order[@]}"; do
		f=$work/job.${name//\//_}
		start=$SECONDS
		echo "== $name" >&2
		eval "${cmd[$name]}" >"$f.out" 2> >(sed 's/^/    /' >&2) </dev/null
		collect "$name" "$f.out" "" $? $((SECONDS - start))
	done
else
	set -m # each program in a process group of its own, so a stop takes all of it along
	pending=("${order[@]}")
	while [ ${#pending[@]} -gt 0 ] || [ ${#running[@]} -gt 0 ]; do
		alone=0 guest=0
		for p in "${running[@]}"; do
			[ "${lane[${pid_of[$p]}]}" = alone ] && alone=1
			[ "${lane[${pid_of[$p]}]}" = vm ] && guest=1
		done
		rest=()
		for name in "${pending[@]}"; do
			if [ $alone = 1 ] || [ ${#running[@]} -ge "$jobs" ] ||
				{ [ "${lane[$name]}" = alone ] && [ ${#running[@]} -gt 0 ]; } ||
				{ [ "${lane[$name]}" = vm ] && [ $guest = 1 ]; }; then
				rest+=("$name")
				continue
			fi
			started[$name]=$SECONDS
			run_one "$name" &
			pid_of[$!]=$name
			running+=("$!")
			[ "${lane[$name]}" = alone ] && alone=1
			[ "${lane[$name]}" = vm ] && guest=1
		done
		pending=("${rest[@]}")
		[ ${#running[@]} -gt 0 ] || continue
		wait -n -p done_pid "${running[@]}"
		still=()
		for p in "${running[@]}"; do
			[ "$p" = "$done_pid" ] || still+=("$p")
		done
		running=("${still[@]}")
		finish "${pid_of[$done_pid]}"
	done
	set +m
fi

# ---- The end: this run's times kept for the next run's order, the slowest ten, and the
# counts.
if [ -s "$work/durations" ]; then
	mkdir -p "$(dirname "$times")"
	{ cat "$work/durations"; awk '{ print $2, $1 }' "$times" 2>/dev/null; } |
		awk 'NF == 2 && $1 ~ /^[0-9]+$/ { if (!($2 in s)) s[$2] = $1 } END { for (n in s) print n, s[n] }' |
		sort >"$times.tmp" 2>/dev/null && mv "$times.tmp" "$times" 2>/dev/null
fi
pass=$(grep -c '^PASS ' "$log")
fail=$(grep -c '^FAIL ' "$log")
skip=$(grep -c '^SKIP ' "$log")
echo
grep '^FAIL ' "$log" || true
cat "$work/kernels" 2>/dev/null
if [ "$(wc -l <"$work/durations" 2>/dev/null || echo 0)" -gt 1 ]; then
	echo "slowest:"
	sort -nr "$work/durations" | head -10 | awk '{ printf "  %5d s  %s\n", $1, $2 }'
fi
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
