# SPDX-License-Identifier: Apache-2.0
# Helpers for the kernel tests (sourced): result lines, a scratch directory, and
# readings of the kernel's BPF objects for the leak checks.
set -u
BUILD=${BUILD:-build}
EBPROF=${EBPROF:-$BUILD/ebprof}
W=$BUILD/workloads
TMP=$(mktemp -d /tmp/ebprof-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

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
# contain the pattern $3 (an ERE on the whole line).
folded_count() { awk -v c="$2" -F';' '$1 == c { n = $NF; sub(/.* /, "", n); s += n } END { print s + 0 }' "$1"; }
folded_match() {
	grep -E "$3" "$1" | awk -v c="$2" -F';' '$1 == c { n = $NF; sub(/.* /, "", n); s += n } END { print s + 0 }'
}
# L follows a native function's name in patterns on folded stacks: the source line DWARF
# gives it, " (file.c:42)", when the binary has debug info: ";main$L;work$L;".
L='( \([^;]*\))?'
# I: any frames inlined at that call, each marked " [inlined]": ";work$L;$I(__)?read".
I='([^;]* \[inlined\];)*'
# ratio A B: prints 100*A/B as an integer (0 when B is 0).
pct() { [ "$2" -gt 0 ] && echo $((100 * $1 / $2)) || echo 0; }

# wait_sampling PID: waits (up to 60 s) until process PID, an ebprof recording, holds a
# perf event: the sampler opens and attaches one per CPU at once, so from then on it
# samples, however long a loaded machine took to verify its programs.
wait_sampling() {
	for _ in $(seq 600); do
		ls -l /proc/"$1"/fd 2>/dev/null | grep -q 'perf_event\]' && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# The ids of every BPF program, map and link in the kernel, one line each.
bpf_ids() { bpftool prog show -j 2>/dev/null | tr ',' '\n' | grep -E '^\[?\{"id"' | tr -dc '0-9\n'
	echo maps
	bpftool map show -j 2>/dev/null | tr ',' '\n' | grep -E '^\[?\{"id"' | tr -dc '0-9\n'
	echo links
	bpftool link show -j 2>/dev/null | tr ',' '\n' | grep -E '^\[?\{"id"' | tr -dc '0-9\n'; }

# settled IDS: true once the kernel's BPF ids equal IDS again. Freed programs and maps
# leave the id tables after an RCU grace period, so allow up to two seconds.
settled() {
	for _ in $(seq 20); do
		[ "$1" = "$(bpf_ids)" ] && return 0
		sleep 0.1
	done
	return 1
}
