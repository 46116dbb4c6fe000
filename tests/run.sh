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
	local out rc start=$SECONDS
	out=$("$@" 2> >(sed 's/^/    /' >&2))
	rc=$?
	echo "== $name: $((SECONDS - start)) s" >&2
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

# The kernel matrix: these tests again inside each kernel of scripts/kernels.sh, one guest
# per kernel (scripts/vm.sh), one after the other, named vm-K/kernel/NAME (test_loader:
# every program within the verifier budget there). They run in the full suite and for
# patterns that name them ("vm-", "vm-6.1/kernel/unwind"), not for "kernel/unwind",
# which means the running kernel's test.
vm_tests="unit/test_loader kernel/record_command kernel/unwind kernel/python kernel/probes
	kernel/teardown"
vm_selected() { # vm_selected NAME: as selected, counting only patterns naming vm- tests
	local p
	[ ${#patterns[@]} -eq 0 ] && return 0
	for p in "${patterns[@]}"; do
		[[ $p == *vm-* && $1 =~ $p ]] && return 0
	done
	return 1
}
run_vm() { # run_vm K: the selected vm-K/kernel/* tests in one guest, then its summary line
	local k=$1 t want=() names=() out rc refusal start=$SECONDS
	for t in $vm_tests; do
		vm_selected "vm-$k/$t" && want+=("$t") && names+=("vm-$k/$t")
	done
	[ ${#want[@]} -eq 0 ] && return 0
	echo "== vm-$k (${want[*]})" >&2
	if [ "$(id -u)" -ne 0 ] || ! command -v qemu-system-x86_64 >/dev/null; then
		printf 'SKIP %s: needs root and qemu (scripts/install-deps.sh test)\n' "${names[@]}" |
			tee -a "$log"
		return 0
	fi
	# In the guest: ebprof's own verdict on the kernel first, then the tests, with one
	# CPython (Debian's) of the two: emulated, a recording takes 10 to 30 s.
	out=$(EBPROF_TEST_TRIXIE=0 scripts/vm.sh "$k" -- bash -c 'build/ebprof check >/tmp/check 2>&1 ||
		{ echo "REFUSED $(uname -r): $(sed -n "s/^[a-z_]*  *no  *//p" /tmp/check | paste -sd";")"; exit 0; }
		tests/run.sh "$@"' vm $(printf "^%s$ " "${want[@]}") 2> >(sed 's/^/    /' >&2))
	rc=$?
	refusal=$(printf '%s\n' "$out" | sed -n 's/^REFUSED //p')
	if [ -n "$refusal" ]; then
		for t in "${names[@]}"; do
			echo "FAIL $t: ebprof refuses Linux $refusal"
		done >"$log.vm"
	else
		# The guest's results, up to the blank line before its summary (which repeats them).
		printf '%s\n' "$out" | sed '/^$/q' | grep -E '^(PASS|FAIL|SKIP) ' |
			sed -E "s#^(PASS|FAIL|SKIP) #\\1 vm-$k/#" >"$log.vm"
	fi
	[ $rc -eq 125 ] && echo "FAIL vm-$k: the guest failed (scripts/vm.sh exit 125)" >>"$log.vm"
	tee -a "$log" <"$log.vm"
	printf 'kernel %-5s %s passed, %s failed, %s skipped in %s s%s\n' "$k" \
		"$(grep -c '^PASS ' "$log.vm")" "$(grep -c '^FAIL ' "$log.vm")" \
		"$(grep -c '^SKIP ' "$log.vm")" $((SECONDS - start)) \
		"${refusal:+ (ebprof refuses Linux $refusal)}" | tee -a "$log.kernels"
	rm -f "$log.vm"
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
	else
		run_vm "$k"
	fi
done

[ -x tests/browser/run.sh ] && run browser/flamegraph tests/browser/run.sh
[ -x tests/otlp/run.sh ] && run otlp/receivers tests/otlp/run.sh
[ -x tests/otlp/transport.sh ] && run otlp/transport tests/otlp/transport.sh
[ -x tests/fuzz/run_elfsym.sh ] && run fuzz/elfsym tests/fuzz/run_elfsym.sh
[ -x tests/fuzz/run_cfi.sh ] && run fuzz/cfi tests/fuzz/run_cfi.sh
[ -x tests/fuzz/run_python.sh ] && run fuzz/python tests/fuzz/run_python.sh
[ -x tests/fuzz/run_dwarfsym.sh ] && run fuzz/dwarfsym tests/fuzz/run_dwarfsym.sh
[ -x tests/fuzz/run_go.sh ] && run fuzz/go tests/fuzz/run_go.sh
[ -x tests/fuzz/run_hotspot.sh ] && run fuzz/hotspot tests/fuzz/run_hotspot.sh
[ -x tests/fuzz/run_v8.sh ] && run fuzz/v8 tests/fuzz/run_v8.sh
[ -x tests/fuzz/run_load_costs.sh ] && run fuzz/load_costs tests/fuzz/run_load_costs.sh
[ -x tests/fuzz/run_otlp_response.sh ] && run fuzz/otlp_response tests/fuzz/run_otlp_response.sh
[ -x tests/fuzz/run_proc.sh ] && run fuzz/proc tests/fuzz/run_proc.sh

[ -x tests/layers/run.sh ] && run layers tests/layers/run.sh

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
cat "$log.kernels" 2>/dev/null
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
