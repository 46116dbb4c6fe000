#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of the V8 walker: (1) the verified instructions and verification time of
# every program of a CPU sample's chain, with the V8 walker and without it
# (EBPROF_RUNTIMES=none: the native walker alone); (2) the BPF cost of one sample of a
# Node.js process whose JavaScript stack is DEPTH frames deep (bench/node/deep.js), with
# and without the V8 walker, each with bpf_loop and unrolled as on kernels before 5.17
# (EBPROF_KERNEL_LACKS=bpf_loop), all in one run (bench/walker_lib.sh). Run as root:
#   sudo bench/node.sh                      # about 4 minutes
#   sudo V8BENCH_REPEAT=1 bench/node.sh     # quick check
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NAME=node
SECS=${V8BENCH_SECONDS:-10}        # each recording of part 2
REPEAT=${V8BENCH_REPEAT:-3}        # repeats (medians)
DEPTHS=${V8BENCH_DEPTHS:-1 50}     # JavaScript frames of deep.js's stack
WARM=5                             # tables built, the process described, the JIT warm
NODE=${V8BENCH_NODE:-node}
NAMED_RE='spin \('
DEPTH_LABEL="JS depth"
. "$ROOT/bench/walker_lib.sh"
command -v "$NODE" >/dev/null || die "$NODE is missing"
WORKLOAD=("$NODE" "$ROOT/bench/node/deep.js")

make -s -C "$ROOT" all >"$TMP/build.log" 2>&1 || die "make failed: $(tail -3 "$TMP/build.log")"
declare -A BIN=([v8]=$ROOT/build/ebprof [native]=$ROOT/build/ebprof)
declare -A ENVS=([v8]=EBPROF_RUNTIMES=v8 [native]=EBPROF_RUNTIMES=none)
ARMS="native v8"
bench_unrolled native v8 # the walkers of kernels without bpf_loop

arm_name() {
	case $1 in
	native) echo "native walker alone" ;;
	v8) echo "native + V8 walker" ;;
	esac
}

bench_verify_running 1 120
bench_cost
