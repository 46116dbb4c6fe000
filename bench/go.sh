#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of the Go walker: (1) the verified instructions and verification time of
# every program of a CPU sample's chain, with the Go walker and without it
# (EBPROF_RUNTIMES=none: the native walker alone); (2) the BPF cost of one sample of a
# goroutine running under two pprof labels (tests/workloads/go's chain, mode labels), with
# and without the Go walker, each with bpf_loop and unrolled as on kernels before 5.17
# (EBPROF_KERNEL_LACKS=bpf_loop), all in one run (bench/walker_lib.sh). Run as root:
#   sudo bench/go.sh                        # about 3 minutes
#   sudo GOBENCH_REPEAT=1 bench/go.sh       # quick check
#   GOBENCH_GO=go1.19 selects the toolchain (tests/workloads/go/build.sh; default go1.24,
#   whose labels are a slice; up to 1.23 they are a map)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NAME=go
SECS=${GOBENCH_SECONDS:-10}   # each recording of part 2
REPEAT=${GOBENCH_REPEAT:-3}   # repeats (medians)
DEPTHS=2                      # the labels the labelled goroutine carries
WARM=5                        # tables built, the process described
NAMED_RE='main\.labeled'
DEPTH_LABEL="labels"
. "$ROOT/bench/walker_lib.sh"

make -s -C "$ROOT" all >"$TMP/build.log" 2>&1 || die "make failed: $(tail -3 "$TMP/build.log")"
read -r _ dir _ < <(EBPROF_GO_VERSIONS=${GOBENCH_GO:-go1.24} "$ROOT/tests/workloads/go/build.sh" \
	"$ROOT/build/go" | head -1) || true
[ -x "${dir:-}/chain" ] || die "no Go workload for ${GOBENCH_GO:-go1.24} (scripts/install-deps.sh test)"
# The library appends DEPTH and SECS; the workload takes its mode and SECS.
WORKLOAD=(sh -c 'exec "$0" labels "$2"' "$dir/chain")
declare -A BIN=([go]=$ROOT/build/ebprof [native]=$ROOT/build/ebprof)
declare -A ENVS=([go]=EBPROF_RUNTIMES=go [native]=EBPROF_RUNTIMES=none)
ARMS="native go"
bench_unrolled native go # the walkers of kernels without bpf_loop

arm_name() {
	case $1 in
	native) echo "native walker alone" ;;
	go) echo "native + Go walker" ;;
	esac
}

bench_verify_running 2 120
bench_cost
