#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of the HotSpot walker: (1) the verified instructions and verification time
# of every program of a CPU sample's chain, with the HotSpot walker and without it
# (EBPROF_RUNTIMES=none: the native walker alone); (2) the BPF cost of one sample of a
# JVM whose Java stack is DEPTH frames deep (bench/hotspot/Deep.java), with and without
# the HotSpot walker, each with bpf_loop and unrolled as on kernels before 5.17
# (EBPROF_KERNEL_LACKS=bpf_loop), all in one run (bench/walker_lib.sh). Run as root:
#   sudo bench/hotspot.sh                     # about 6 minutes
#   sudo HSBENCH_REPEAT=1 bench/hotspot.sh    # quick check
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NAME=hotspot
SECS=${HSBENCH_SECONDS:-10}        # each recording of part 2
REPEAT=${HSBENCH_REPEAT:-3}        # repeats (medians)
DEPTHS=${HSBENCH_DEPTHS:-1 50}     # Java frames of Deep's stack
WARM=5                             # tables built, the JVM described, the JIT warm
JAVA=${HSBENCH_JAVA:-java}
JAVAC=${HSBENCH_JAVAC:-javac}
NAMED_RE='Deep\.spin \('
DEPTH_LABEL="Java depth"
. "$ROOT/bench/walker_lib.sh"
for v in "$JAVA" "$JAVAC"; do command -v "$v" >/dev/null || die "$v is missing"; done
WORKLOAD=("$JAVA" -cp "$TMP" Deep)

make -s -C "$ROOT" all >"$TMP/build.log" 2>&1 || die "make failed: $(tail -3 "$TMP/build.log")"
"$JAVAC" -d "$TMP" "$ROOT/bench/hotspot/Deep.java" || die "javac failed"
declare -A BIN=([hotspot]=$ROOT/build/ebprof [native]=$ROOT/build/ebprof)
declare -A ENVS=([hotspot]=EBPROF_RUNTIMES=hotspot [native]=EBPROF_RUNTIMES=none)
ARMS="native hotspot"
bench_unrolled native hotspot # the walkers of kernels without bpf_loop

arm_name() {
	case $1 in
	native) echo "native walker alone" ;;
	hotspot) echo "native + HotSpot walker" ;;
	esac
}

bench_verify_running 1 120
bench_cost
