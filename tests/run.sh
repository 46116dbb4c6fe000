#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the whole suite: unit tests, kernel tests (root), browser test, fuzzing, format
# check. Every test prints "PASS name", "FAIL name: why" or "SKIP name: why"; this script
# counts them and ends with one line "tests: N passed, N failed, N skipped".
# Usage: tests/run.sh [PATTERN...]   only the test programs whose name (unit/test_cfi,
#        kernel/python, vm-6.1/kernel/unwind, otlp/transport, fuzz/cfi, browser/flamegraph,
#        format) matches one of the extended regular expressions; no pattern runs all.
set -u
cd "$(dirname "$0")/.."
export BUILD=${BUILD:-build}
log=$(mktemp -d)/results
: >"$log"

patterns=("$@")
selected() { # selected NAME: true when no pattern was given or one matches NAME
	[ ${#patterns[@]} -eq 0 ] && return 0
	for p in "${patterns[@]}"; do
		[[ $1 =~ $p ]] && return 0
	done
	return 1
}

run() { # run NAME CMD...: runs one test program, keeps its result lines
	local name=$1
	shift
	selected "$name" || return 0
	echo "== $name" >&2
	local out rc
	out=$("$@" 2> >(sed 's/^/    /' >&2))
	rc=$?
	printf '%s\n' "$out" | grep -E '^(PASS|FAIL|SKIP) ' | tee -a "$log"
	if [ $rc -ne 0 ] && ! printf '%s\n' "$out" | grep -q '^FAIL '; then
		echo "FAIL $name: exited with status $rc" | tee -a "$log"
	fi
	if ! printf '%s\n' "$out" | grep -qE '^(PASS|FAIL|SKIP) '; then
		echo "FAIL $name: reported no result" | tee -a "$log"
	fi
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] && run "unit/$(basename "$t")" "$t"
done

if [ "$(id -u)" -eq 0 ]; then
	for t in tests/kernel/*.sh; do
		[ "$(basename "$t")" = lib.sh ] && continue
		run "kernel/$(basename "$t" .sh)" bash "$t"
	done
elif selected kernel/; then
	echo "SKIP kernel: the kernel tests need root" | tee -a "$log"
fi

# The kernel matrix: these kernel tests again inside each kernel of scripts/kernels.sh,
# one guest per kernel (scripts/vm.sh) running those selected, named vm-K/kernel/NAME.
vm_tests="record_command unwind python probes teardown"
# Kernels ebprof does not support yet: its own refusal there is a SKIP that quotes it, not
# a FAIL. Anywhere else a refusal fails.
vm_refusal_skips="5.10"
run_vm() { # run_vm K: the selected vm-K/kernel/* tests in one guest
	local k=$1 t want=() names=() out rc refusal
	for t in $vm_tests; do
		selected "vm-$k/kernel/$t" && want+=("$t") && names+=("vm-$k/kernel/$t")
	done
	[ ${#want[@]} -eq 0 ] && return 0
	echo "== vm-$k (${want[*]})" >&2
	if [ "$(id -u)" -ne 0 ] || ! command -v qemu-system-x86_64 >/dev/null; then
		printf 'SKIP %s: needs root and qemu (scripts/install-deps.sh test)\n' "${names[@]}" |
			tee -a "$log"
		return 0
	fi
	# In the guest: ebprof's own verdict on the kernel first, then the tests.
	out=$(scripts/vm.sh "$k" -- bash -c 'build/ebprof check >/tmp/check 2>&1 ||
		{ echo "REFUSED $(uname -r): $(sed -n "s/^[a-z_]*  *no  *//p" /tmp/check | paste -sd";")"; exit 0; }
		tests/run.sh "$@"' vm $(printf "^kernel/%s$ " "${want[@]}") 2> >(sed 's/^/    /' >&2))
	rc=$?
	refusal=$(printf '%s\n' "$out" | sed -n 's/^REFUSED //p')
	if [ -n "$refusal" ]; then
		local verdict=FAIL
		[[ " $vm_refusal_skips " == *" $k "* ]] && verdict=SKIP
		for t in "${names[@]}"; do
			echo "$verdict $t: ebprof refuses Linux $refusal"
		done | tee -a "$log"
		return 0
	fi
	# The guest's results, up to the blank line before its summary (which repeats them).
	printf '%s\n' "$out" | sed '/^$/q' | grep -E '^(PASS|FAIL|SKIP) ' |
		sed -E "s#^(PASS|FAIL|SKIP) #\\1 vm-$k/#" | tee -a "$log"
	if [ $rc -eq 125 ]; then
		echo "FAIL vm-$k: the guest failed (scripts/vm.sh exit 125)" | tee -a "$log"
	fi
}
# The matrix is not green yet on 6.1 and 6.12 (signal frames, the vDSO's syscall
# fallback and TCG's slowness: docs/ARCHITECTURE.md, Kernel floor), so the full suite
# runs it only when asked: EBPROF_VM_MATRIX=1, or a pattern naming vm- tests.
for k in $(scripts/kernels.sh list); do
	if [ "${EBPROF_VM_MATRIX:-0}" = 1 ] || [ ${#patterns[@]} -gt 0 ]; then
		run_vm "$k"
	else
		echo "SKIP vm-$k: the kernel matrix runs with EBPROF_VM_MATRIX=1 (make test-kernels)" |
			tee -a "$log"
	fi
done

[ -x tests/browser/run.sh ] && run browser/flamegraph tests/browser/run.sh
[ -x tests/otlp/run.sh ] && run otlp/receivers tests/otlp/run.sh
[ -x tests/otlp/transport.sh ] && run otlp/transport tests/otlp/transport.sh
[ -x tests/fuzz/run_elfsym.sh ] && run fuzz/elfsym tests/fuzz/run_elfsym.sh
[ -x tests/fuzz/run_cfi.sh ] && run fuzz/cfi tests/fuzz/run_cfi.sh
[ -x tests/fuzz/run_python.sh ] && run fuzz/python tests/fuzz/run_python.sh
[ -x tests/fuzz/run_dwarfsym.sh ] && run fuzz/dwarfsym tests/fuzz/run_dwarfsym.sh
[ -x tests/fuzz/run_gopclntab.sh ] && run fuzz/gopclntab tests/fuzz/run_gopclntab.sh
[ -x tests/fuzz/run_hotspot.sh ] && run fuzz/hotspot tests/fuzz/run_hotspot.sh
[ -x tests/fuzz/run_v8.sh ] && run fuzz/v8 tests/fuzz/run_v8.sh

if ! selected format; then
	:
elif make -s check-format >/dev/null 2>&1; then
	echo "PASS format: clang-format clean" | tee -a "$log"
else
	echo "FAIL format: run 'make format' (clang-format --dry-run reports differences)" | tee -a "$log"
fi

pass=$(grep -c '^PASS ' "$log")
fail=$(grep -c '^FAIL ' "$log")
skip=$(grep -c '^SKIP ' "$log")
echo
grep '^FAIL ' "$log" || true
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
