#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of the PHP walker: (1) the verified instructions and verification time of
# every program of a CPU sample's chain, with the PHP walker and without it
# (EBPROF_RUNTIMES=none: the native walker alone); (2) the BPF cost of one sample of a
# PHP process whose stack is DEPTH PHP frames deep (bench/php/deep.php), with and without
# the PHP walker, all in one run (bench/walker_lib.sh). PHP is a runtime root's
# (scripts/runtimes.sh), with opcache's JIT in PHPBENCH_JIT's mode when it is set. Run as
# root:
#   sudo bench/php.sh                          # about 3 minutes
#   sudo PHPBENCH_REPEAT=1 bench/php.sh        # quick check
#   sudo PHPBENCH_JIT=tracing bench/php.sh     # JIT code's frames
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NAME=php
SECS=${PHPBENCH_SECONDS:-8}                        # each recording of part 2
REPEAT=${PHPBENCH_REPEAT:-3}                       # repeats (medians)
DEPTHS=${PHPBENCH_DEPTHS:-1 50}                    # PHP frames of deep.php's stack
WARM=2                                             # tables built, the process described
PHPROOT=${PHPBENCH_ROOT:-/var/cache/ebprof/bookworm} # a runtime root
PHP=${PHPBENCH_PHP:-php8.2}                        # the CLI in it
NAMED_RE='spin( \[jit\])? \(deep\.php'
DEPTH_LABEL="PHP depth"
. "$ROOT/bench/walker_lib.sh"
[ -x "$PHPROOT/usr/bin/$PHP" ] || die "no $PHPROOT/usr/bin/$PHP (scripts/runtimes.sh makes it)"

WDIR=$(mktemp -d "$PHPROOT/tmp/ebprof-phpbench.XXXXXX")
BG=
trap '[ -z "$BG" ] || kill "$BG" 2>/dev/null || true; rm -rf "$WDIR"; bench_cleanup' EXIT
cp "$ROOT/bench/php/deep.php" "$WDIR/"
OPTS=(-n)
[ -n "${PHPBENCH_JIT:-}" ] && OPTS+=(-d zend_extension=opcache.so -d opcache.enable_cli=1
	-d "opcache.jit=$PHPBENCH_JIT" -d opcache.jit_buffer_size=32M)
# walker_lib appends DEPTH and SECS and reads its window's end 2 s before SECS from when
# it found the program, which takes seconds on a loaded host: the workload runs 5 s longer.
WORKLOAD=(bash -c 'n=$#; exec "$0" "${@:1:n-2}" "${@:n-1:1}" $((${@:n:1} + 5))' chroot "$PHPROOT"
	"$PHP" "${OPTS[@]}" "${WDIR#"$PHPROOT"}/deep.php")

make -s -C "$ROOT" all >"$TMP/build.log" 2>&1 || die "make failed: $(tail -3 "$TMP/build.log")"
declare -A BIN=([php]=$ROOT/build/ebprof [native]=$ROOT/build/ebprof)
declare -A ENVS=([php]=EBPROF_RUNTIMES=php [native]=EBPROF_RUNTIMES=none)
ARMS="native php"

arm_name() {
	case $1 in
	native) echo "native walker alone" ;;
	php) echo "native + PHP walker" ;;
	esac
}

# Part 1 records the whole system: a PHP process running has the PHP walker verified
# (walkers are verified only once their runtime is found).
"${WORKLOAD[@]}" 1 $((REPEAT * 10 + 30)) &
BG=$!
bench_verify
kill "$BG" 2>/dev/null || true
wait "$BG" 2>/dev/null || true
BG=
bench_cost
