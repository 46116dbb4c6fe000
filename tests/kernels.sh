#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The kernel tests (tests/run.sh kernel/) on the running kernel and inside each kernel of
# the matrix (scripts/kernels.sh, booted by scripts/vm.sh), then one summary line per
# kernel. Exit status 0 only when every kernel passed.
# Usage: tests/kernels.sh [PATTERN]   (default kernel/: the kernel tests, anchored at the start)
set -u
cd "$(dirname "$0")/.."
pattern="^${1:-kernel/}"
[ "$(id -u)" -eq 0 ] || { echo "tests/kernels.sh: needs root" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# summarize NAME LOG SECONDS: the kernel's line: its release, run.sh's closing line, and
# ebprof's own verdict where it refuses the kernel.
summarize() {
	local release why
	release=$(sed -n 's/^kernel  *yes  *//p' "$2.check" 2>/dev/null)
	why=$(sed -n 's/^[a-z_]*  *no  *//p' "$2.check" 2>/dev/null | paste -sd';')
	printf '%-8s %-26s %s (%ss)%s\n' "$1" "${release:-?}" \
		"$(grep '^tests: ' "$2" | tail -1 | grep . || echo 'no result')" "$3" "${why:+; ebprof check: $why}"
}

fail=0
for k in running $(scripts/kernels.sh list); do
	echo "== $k" >&2
	start=$(date +%s)
	if [ "$k" = running ]; then
		build/ebprof check >"$TMP/$k.check" 2>&1
		tests/run.sh "$pattern" >"$TMP/$k" 2> >(sed 's/^/    /' >&2)
	else
		scripts/vm.sh "$k" -- bash -c 'build/ebprof check >&2; tests/run.sh -j 1 "$1"' vm "$pattern" \
			>"$TMP/$k" 2> >(tee "$TMP/$k.check" | sed 's/^/    /' >&2)
	fi
	grep -q '^tests: [0-9]* passed, 0 failed' "$TMP/$k" || fail=1
	summarize "$k" "$TMP/$k" $(($(date +%s) - start)) >>"$TMP/summary"
done
echo
cat "$TMP/summary"
exit $fail
