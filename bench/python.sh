#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of the Python walker: (1) the verified instructions and verification time
# of every program of a CPU sample's chain, with the Python walker and without it
# (EBPROF_RUNTIMES=none: the native walker alone); (2) the BPF cost of one sample of a
# Python process whose stack is DEPTH Python frames deep (bench/python/deep.py), with
# and without the Python walker, and with PYBENCH_BASE=REV also of the ebprof built
# from that git revision (before/after a change), all in one run (bench/walker_lib.sh).
# Run as root:
#   sudo bench/python.sh                     # about 3 minutes
#   sudo PYBENCH_REPEAT=1 bench/python.sh    # quick check
#   sudo PYBENCH_BASE=main~3 bench/python.sh # beside an older build
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NAME=python
SECS=${PYBENCH_SECONDS:-8}         # each recording of part 2
REPEAT=${PYBENCH_REPEAT:-3}        # repeats (medians)
DEPTHS=${PYBENCH_DEPTHS:-1 50}     # Python frames of deep.py's stack
WARM=2                             # tables built, the process described
PY=${PYBENCH_PYTHON:-/usr/bin/python3}
WORKLOAD=("$PY" "$ROOT/bench/python/deep.py")
NAMED_RE='spin \(deep\.py'
DEPTH_LABEL="Python depth"
. "$ROOT/bench/walker_lib.sh"
command -v "$PY" >/dev/null || die "$PY is missing"

make -s -C "$ROOT" all >"$TMP/build.log" 2>&1 || die "make failed: $(tail -3 "$TMP/build.log")"
declare -A BIN=([python]=$ROOT/build/ebprof [native]=$ROOT/build/ebprof)
declare -A ENVS=([python]= [native]=EBPROF_RUNTIMES=none)
ARMS="native python"
if [ -n "${PYBENCH_BASE:-}" ]; then
	bench_base "$PYBENCH_BASE" base
	ENVS[base]= ARMS="base native python"
fi

arm_name() {
	case $1 in
	native) echo "native walker alone" ;;
	python) echo "native + Python walker" ;;
	base) echo "build of $PYBENCH_BASE" ;;
	esac
}

bench_verify
bench_cost
