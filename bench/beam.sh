#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of the BEAM walker: (1) the verified instructions and verification time of
# every program of a CPU sample's chain, with the BEAM walker and without it
# (EBPROF_RUNTIMES=none: the native walker alone); (2) the BPF cost of one sample of a
# BEAM process whose stack is DEPTH Erlang frames deep (bench/beam/deep.erl, run in a
# runtime root's OTP 25 by bench/beam/run.sh; DEPTH "50bif": the same, spinning in
# erlang:term_to_binary/1, whose callers the walker finds from the stack pointer the JIT
# saved), with and without the BEAM walker, each with
# bpf_loop and unrolled as on kernels before 5.17 (EBPROF_KERNEL_LACKS=bpf_loop), all in
# one run (bench/walker_lib.sh). Run as root:
#   sudo bench/beam.sh                        # about 5 minutes
#   sudo BEAMBENCH_REPEAT=1 bench/beam.sh     # quick check
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NAME=beam
SECS=${BEAMBENCH_SECONDS:-8}     # each recording of part 2
REPEAT=${BEAMBENCH_REPEAT:-3}    # repeats (medians)
DEPTHS=${BEAMBENCH_DEPTHS:-1 50 50bif} # Erlang frames of deep.erl's stack
WARM=2                           # tables built, the process described
NAMED_RE='deep:spin/3 \(deep\.erl'
DEPTH_LABEL="Erlang depth"
. "$ROOT/bench/walker_lib.sh"

WORKLOAD=("$ROOT/bench/beam/run.sh")

make -s -C "$ROOT" all >"$TMP/build.log" 2>&1 || die "make failed: $(tail -3 "$TMP/build.log")"
declare -A BIN=([beam]=$ROOT/build/ebprof [native]=$ROOT/build/ebprof)
declare -A ENVS=([beam]=EBPROF_RUNTIMES=beam [native]=EBPROF_RUNTIMES=none)
ARMS="native beam"
bench_unrolled native beam # the walkers of kernels without bpf_loop

arm_name() {
	case $1 in
	native) echo "native walker alone" ;;
	beam) echo "native + BEAM walker" ;;
	esac
}

# The BEAM walker itself: a runtime's walker is verified once a process of it is found,
# which a one-second system-wide recording may not reach on a busy host; a recording of a
# command running erl verifies it before the command runs.
walker_verify() {
	: >"$TMP/verify.walker"
	for _ in $(seq "$REPEAT"); do
		EBPROF_RUNTIMES=beam "$ROOT/build/ebprof" record -v -o "$TMP/w" -- \
			"${WORKLOAD[@]}" 1 1 2>&1 >/dev/null |
			sed -n 's/.*name=\(beam[^ ]*\) .*verified_insns=\([0-9]*\) .*verify_ms=\([0-9.]*\).*/\1 \2 \3/p' \
				>>"$TMP/verify.walker"
	done
	[ -s "$TMP/verify.walker" ] || die "no verifier figures of the BEAM walker"
	printf '| %-28s | %-34s | %14s | %16s |\n' "native + BEAM walker" beam/beam_walk_perf \
		"$(awk '{ print $2 }' "$TMP/verify.walker" | median)" \
		"$(awk '{ print $3 }' "$TMP/verify.walker" | median)"
}

bench_verify
walker_verify
bench_cost
