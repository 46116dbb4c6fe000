#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of the Ruby walker: (1) the verified instructions and verification time of
# every program of a CPU sample's chain, with the Ruby walker and without it
# (EBPROF_RUNTIMES=none: the native walker alone); (2) the BPF cost of one sample of a
# Ruby process whose stack is DEPTH Ruby frames deep (bench/ruby/deep.rb), with and without
# the Ruby walker, all in one run (bench/walker_lib.sh). The ruby is a runtime root's
# (scripts/runtimes.sh; RBBENCH_SUITE, default bookworm's 3.1), RBBENCH_ARGS its options
# (--yjit). Run as root:
#   sudo bench/ruby.sh                          # about 3 minutes
#   sudo RBBENCH_REPEAT=1 bench/ruby.sh         # quick check
#   sudo RBBENCH_ARGS=--yjit bench/ruby.sh      # YJIT's code on the stack
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NAME=ruby
SECS=${RBBENCH_SECONDS:-8}         # each recording of part 2
REPEAT=${RBBENCH_REPEAT:-3}        # repeats (medians)
DEPTHS=${RBBENCH_DEPTHS:-3 50}     # Ruby frames of deep.rb's stack
WARM=3                             # tables built, the process described
SUITE_ROOT=${EBPROF_ROOTS:-/var/cache/ebprof}/${RBBENCH_SUITE:-bookworm}
NAMED_RE='spin \(deep\.rb'
DEPTH_LABEL="Ruby depth"
. "$ROOT/bench/walker_lib.sh"
[ -x "$SUITE_ROOT/usr/bin/ruby" ] || die "no $SUITE_ROOT/usr/bin/ruby (scripts/runtimes.sh makes it)"

# The workload where the root's ruby sees it, removed with the library's TMP.
WDIR=$(mktemp -d "$SUITE_ROOT/tmp/ebprof-rbbench.XXXXXX")
trap 'rm -rf "$WDIR"; bench_cleanup' EXIT
cp "$ROOT/bench/ruby/deep.rb" "$WDIR/"
# shellcheck disable=SC2206 # RBBENCH_ARGS is a list of options
WORKLOAD=(chroot "$SUITE_ROOT" /usr/bin/ruby ${RBBENCH_ARGS:-} "${WDIR#"$SUITE_ROOT"}/deep.rb")

make -s -C "$ROOT" all >"$TMP/build.log" 2>&1 || die "make failed: $(tail -3 "$TMP/build.log")"
declare -A BIN=([ruby]=$ROOT/build/ebprof [native]=$ROOT/build/ebprof)
declare -A ENVS=([ruby]=EBPROF_RUNTIMES=ruby [native]=EBPROF_RUNTIMES=none)
ARMS="native ruby"

arm_name() {
	case $1 in
	native) echo "native walker alone" ;;
	ruby) echo "native + Ruby walker" ;;
	esac
}

bench_verify_running 3 120
bench_cost
