#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of the Perl walker: (1) the verified instructions and verification time of
# every program of a CPU sample's chain, with the Perl walker and without it
# (EBPROF_RUNTIMES=none: the native walker alone); (2) the BPF cost of one sample of a
# perl process whose stack is DEPTH Perl frames deep (bench/perl/deep.pl), with and
# without the Perl walker, all in one run (bench/walker_lib.sh). Run as root:
#   sudo bench/perl.sh                      # about 3 minutes
#   sudo PLBENCH_REPEAT=1 bench/perl.sh     # quick check
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NAME=perl
SECS=${PLBENCH_SECONDS:-8}         # each recording of part 2
REPEAT=${PLBENCH_REPEAT:-3}        # repeats (medians)
DEPTHS=${PLBENCH_DEPTHS:-1 50}     # Perl frames of deep.pl's stack
WARM=2                             # tables built, the process described
PERL=${PLBENCH_PERL:-/usr/bin/perl}
NAMED_RE='main::spin \(deep\.pl'
DEPTH_LABEL="Perl depth"
. "$ROOT/bench/walker_lib.sh"
command -v "$PERL" >/dev/null || die "$PERL is missing"
WORKLOAD=("$PERL" "$ROOT/bench/perl/deep.pl" 6) # 6: deep.pl's EXTRA seconds

make -s -C "$ROOT" all >"$TMP/build.log" 2>&1 || die "make failed: $(tail -3 "$TMP/build.log")"
declare -A BIN=([perl]=$ROOT/build/ebprof [native]=$ROOT/build/ebprof)
declare -A ENVS=([perl]=EBPROF_RUNTIMES=perl [native]=EBPROF_RUNTIMES=none)
ARMS="native perl"

arm_name() {
	case $1 in
	native) echo "native walker alone" ;;
	perl) echo "native + Perl walker" ;;
	esac
}

# The Perl walker itself: a runtime's walker is verified once a process of it is found,
# which a one-second system-wide recording may not reach on a busy host; a recording of a
# perl command verifies it before the command runs.
walker_verify() {
	: >"$TMP/verify.walker"
	for _ in $(seq "$REPEAT"); do
		EBPROF_RUNTIMES=perl "$ROOT/build/ebprof" record -v -o "$TMP/w" -- \
			"${WORKLOAD[@]}" 1 1 2>&1 >/dev/null |
			sed -n 's/.*name=\(perl[^ ]*\) .*verified_insns=\([0-9]*\) .*verify_ms=\([0-9.]*\).*/\1 \2 \3/p' \
				>>"$TMP/verify.walker"
	done
	[ -s "$TMP/verify.walker" ] || die "no verifier figures of the Perl walker"
	printf '| %-28s | %-34s | %14s | %16s |\n' "native + Perl walker" perl/perl_walk_perf \
		"$(awk '{ print $2 }' "$TMP/verify.walker" | median)" \
		"$(awk '{ print $3 }' "$TMP/verify.walker" | median)"
}

bench_verify
walker_verify
bench_cost
