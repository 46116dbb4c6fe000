#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Python frames in mixed stacks, for Debian's python3 (3.11) and the python3.13 of a
# minimal Debian trixie root (scripts/install-deps.sh test makes it; SKIP without it):
# a pure Python chain with lines, Python -> C extension -> Python with the extension's
# frames in between, and two threads that each show their own stack; every workload of
# every interpreter in one recording (lib.sh: batch_new). More interpreters can be named
# in EBPROF_TEST_PYTHONS="LABEL=/path/to/python3.X ..." (run as they are).
. "$(dirname "$0")/lib.sh"

WL=tests/workloads/python
SECS=${PYTHON_TEST_SECONDS:-5}
TRIXIE=${EBPROF_TRIXIE_ROOT:-$ROOTS/trixie}
# Python frames have "(file.py:LINE)"; one native (or kernel) frame has no "(", or the
# source line DWARF gives it, in a file that is not Python's.
NATIVE='([^;(]*( \([^;]*[^y;]:[0-9]+\)( \[inlined\])?)?;)*'

# expect NAME WHAT PATTERN TOTAL_PATTERN MIN: of the samples of $COMM in $OUT after
# start-up (lib.sh: STARTUP) matching TOTAL_PATTERN (at least MIN), >= 90 % must match
# PATTERN; nothing for a case EBPROF_TEST_CASES leaves out.
expect() {
	local name=$1 what=$2 pat=$3 of=$4 min=$5 total hit steady
	case_selected "$name" || return 0
	steady=$(steady "$OUT")
	total=$(folded_match "$steady" "$COMM" "$of")
	hit=$(folded_match "$steady" "$COMM" "$pat")
	echo "$name: $hit of $total samples ($what)" >&2
	if [ "$total" -lt "$min" ]; then
		fail "$name" "only $total samples matching $of"
		sort -t' ' -k2 -nr "$OUT" | head -3 | cut -c1-400 >&2
	elif [ "$(pct "$hit" "$total")" -lt 90 ]; then
		fail "$name" "$what in $(pct "$hit" "$total") % of samples, want >= 90"
		grep -vE "$pat" "$steady" | sort -t' ' -k2 -nr | head -3 | cut -c1-600 >&2
	else
		pass "$name"
	fi
}

# pprof_list NAME: pprof knows a Python function by its name, file and line, apart (the
# text outputs' "leaf (chain.py:9)" is not a function name): go tool pprof -list finds
# leaf's source file where the interpreter ran it and prints its lines with their samples.
pprof_list() {
	local name=$1 out
	if ! command -v go >/dev/null; then
		echo "SKIP $name: no go to run go tool pprof"
		return 0
	fi
	out=$(HOME=$TMP GOCACHE=$GO_TOOL_CACHE PPROF_TMPDIR=$TMP GOTOOLCHAIN=local GOPROXY=off \
		go tool pprof -symbolize=none -list '^leaf$' "$BATCH/out/profile.pb.gz" 2>&1)
	if echo "$out" | grep -q "ROUTINE =* leaf in $PWD/$WL/chain.py" &&
		echo "$out" | grep -qE '^ +[0-9.]+[a-z]* +[0-9.]+[a-z]* +[0-9]+: +total \+= i \* i % 7'; then
		pass "$name"
	else
		fail "$name" "go tool pprof -list leaf shows no source of chain.py: $(echo "$out" | head -5)"
	fi
}

# add LABEL ROOT PYTHON: the three workloads, run by PYTHON in ROOT ("": the host), join
# the batch; LABELS lists the interpreters that run, MINOR and COMM say what each is.
declare -A MINOR COMMS ROOTOF
LABELS=()
add() {
	local l=$1 root=$2 py=$3 minor where
	if ! minor=$( (in_root "$root" "$py" -c 'import sys; print(sys.version_info[1])') 2>&1); then
		fail "python_$l" "the interpreter does not run: $minor"
		return
	fi
	LABELS+=("$l")
	MINOR[$l]=$minor
	COMMS[$l]=$(basename "$py" | cut -c1-15)
	echo "python_$l: CPython 3.$minor, comm ${COMMS[$l]}" >&2
	ROOTOF[$l]=$root
	if [ -n "$root" ]; then
		root_dir "$root" python
		cp "$WL"/*.py "$DIR/"
	else
		RDIR=$PWD/$WL
	fi
	# The chain's check counts all its samples, the first, cut ones too (the interpreter's
	# unwind table is built after exec, later when the batch's processes all start at
	# once, or in an emulated guest: lib.sh, secs): twice as long, they weigh less.
	# Only the workloads of the cases EBPROF_TEST_CASES selects (the arm64 guest's batch:
	# the chain alone), so fewer interpreters share an emulated guest's CPUs.
	case_selected "python_${l}_chain" &&
		batch_add "$l-chain" "$root" "$py" "$RDIR/chain.py" "$(secs $((2 * SECS)))"
	case_selected "python_${l}_cext" &&
		batch_add "$l-cext" "$root" "$py" "$RDIR/cext.py" "$SECS"
	{ case_selected "python_${l}_threads_a" || case_selected "python_${l}_threads_b"; } &&
		batch_add "$l-threads" "$root" "$py" "$RDIR/threads.py" "$SECS"
	return 0
}

# check_suite LABEL: the chains in the stacks of that interpreter's workloads.
check_suite() {
	local l=$1 minor=${MINOR[$1]} chain
	COMM=${COMMS[$l]}
	# From 3.11 on, Python-to-Python calls stay in one eval loop: nothing between.
	chain="outer \(chain\.py:[0-9]+\);middle \(chain\.py:[0-9]+\);leaf \(chain\.py:[0-9]+\)"
	[ "$minor" -ge 11 ] || chain="outer \(chain\.py:[0-9]+\);${NATIVE}middle \(chain\.py:[0-9]+\);${NATIVE}leaf \(chain\.py:[0-9]+\)"
	OUT=$(batch_stacks "$l-chain")
	expect "python_${l}_chain" "outer -> middle -> leaf with lines" "$chain" '' 100
	# The host's interpreter runs the scripts where they are: pprof finds leaf's source.
	[ -z "${ROOTOF[$l]}" ] && case_selected "python_${l}_pprof_list" &&
		pprof_list "python_${l}_pprof_list"
	# The C encoder (the _json module, built in or not) calls hook through
	# PyObject_CallOneArg (inlined before 3.11, where encoder_listencode_obj shows):
	# a named native frame of its own between the two Python ones.
	local c_enc="([^;(]*_json[^;(]*|PyObject_CallOneArg|encoder_[^;(]*)"
	OUT=$(batch_stacks "$l-cext")
	expect "python_${l}_cext" "the C encoder's frames between iterencode and hook" \
		"iterencode \(encoder\.py:[0-9]+\);${NATIVE}${c_enc};${NATIVE}hook \(cext\.py:[0-9]+\)" \
		'hook \(cext\.py' 30
	# Each thread's Python frames under its own native start, nothing of the other's.
	local run="^${COMM};${NATIVE}(Thread\.)?_bootstrap \(threading\.py:[0-9]+\);${NATIVE}(Thread\.)?_bootstrap_inner \(threading\.py:[0-9]+\);${NATIVE}(Thread\.)?run \(threading\.py:[0-9]+\);${NATIVE}"
	OUT=$(batch_stacks "$l-threads")
	expect "python_${l}_threads_a" "a_hook in its thread, under json's encoder" \
		"${run}a_main \(threads\.py:[0-9]+\);${NATIVE}dumps \(__init__\.py:[0-9]+\);.*\(encoder\.py:[0-9]+\);${NATIVE}${c_enc};${NATIVE}a_hook \(threads\.py:[0-9]+\)" \
		'a_hook \(' 30
	expect "python_${l}_threads_b" "b_leaf in its thread, under b_main" \
		"${run}b_main \(threads\.py:[0-9]+\);${NATIVE}b_leaf \(threads\.py:[0-9]+\)" \
		'b_leaf \(' 30
}

# Every interpreter's three workloads in one recording.
batch_new
add debian '' /usr/bin/python3
if [ "${EBPROF_TEST_TRIXIE:-1}" = 0 ]; then
	echo "SKIP python_trixie: EBPROF_TEST_TRIXIE=0 (the kernel matrix runs one interpreter per kernel)"
elif [ -x "$TRIXIE/usr/bin/python3.13" ]; then
	add trixie "$TRIXIE" /usr/bin/python3.13
else
	echo "SKIP python_trixie: no $TRIXIE (scripts/install-deps.sh test creates it)"
fi
for spec in ${EBPROF_TEST_PYTHONS:-}; do
	add "${spec%%=*}" '' "${spec#*=}"
done
[ ${#LABELS[@]} -gt 0 ] || exit 0
batch_record python "^  python" || exit 0
for l in "${LABELS[@]}"; do
	check_suite "$l"
done
