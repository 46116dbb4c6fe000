#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# HotSpot JVMs on every JDK the runtime roots hold (scripts/runtimes.sh: OpenJDK 11, 17,
# 21, 25) and the host's: discovery from the JVM's own tables (version, complete layout);
# the walker's step on a live JVM sampled with ptrace (tests/hotspot/hotspot_walk: the
# walk's logic without BPF); then ebprof record: a chain of static methods the JIT inlines
# into a hot loop, a chain through java.util.zip.Deflater into libz, two threads with
# their own chains, a lambda/stream pipeline, each under the native frames that started
# it. Each asserts that >= 90 % of the samples reaching its leaf carry the whole expected
# chain and that the leaf's line is right; and a leaf the interpreter runs (-Xint) has
# the lines of its loop, not the one where it was entered. JVMs warm up together: every JDK's Chain for
# discovery and the step, then each JDK's workloads under one recording (lib.sh:
# batch_new). A JDK whose root is missing is a SKIP.
. "$(dirname "$0")/lib.sh"

WL=tests/workloads/java
WARM=$(secs "${HOTSPOT_WARMUP_SECONDS:-4}")
SAMPLES=${HOTSPOT_SAMPLES:-150}
SECS=$(secs "${HOTSPOT_TEST_SECONDS:-5}")
INSPECT=$BUILD/tests/hotspot_inspect
WALK=$BUILD/tests/hotspot_walk
# LABEL:ROOT:JAVA (ROOT empty: the host)
JDKS=("11:$ROOTS/bullseye:/usr/lib/jvm/java-11-openjdk-amd64/bin/java"
	"17:$ROOTS/bookworm:/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
	"21:$ROOTS/trixie:/usr/lib/jvm/java-21-openjdk-amd64/bin/java"
	"25:$ROOTS/trixie:/usr/lib/jvm/java-25-openjdk-amd64/bin/java")
host=$(host_runtime java) && JDKS+=("$host")

# The line of MARKER's comment in a workload's source.
line_of() { marker_line "$WL/$1.java" "$2"; }
# Samples taken before ebprof described the process as a JVM are not counted: the native
# walker unwinds them without a description, through Java's frames by their frame pointers,
# where the call stub that enters Java (a described JVM's [jvm stub: ...]) is unnamed. A
# native leaf (libz's deflate under Deflater) is reached before that, for seconds when a
# batch's JVMs start together on a loaded host.
EXPECT_IGNORE='JavaCalls::call_helper[^;]*;\[unknown\];'
# A failing stack shown from the call stub that enters Java.
EXPECT_TRIM='s/.*\[jvm stub: StubRoutines[^;]*\];//'

# compile: the workloads, once, by the oldest JDK's javac (class files every JDK runs).
compile() {
	local javac out=$TMP/classes
	mkdir -p "$out"
	if [ -x "$ROOTS/bullseye/usr/bin/javac" ]; then
		root_dir "$ROOTS/bullseye" javac
		cp "$WL"/*.java "$DIR/"
		(in_root "$ROOTS/bullseye" javac -d "$RDIR" \
			$(cd "$DIR" && ls *.java | sed "s|^|$RDIR/|")) >"$TMP/javac.log" 2>&1
		cp "$DIR"/*.class "$out/" 2>/dev/null
	elif javac=$(command -v javac); then
		"$javac" --release 11 -d "$out" "$WL"/*.java >"$TMP/javac.log" 2>&1
	fi
	ls "$out"/Chain.class >/dev/null 2>&1
}

# start LABEL ROOT JAVA CLASS: runs CLASS for a minute in the JVM, in the background; sets
# JPID[LABEL]. stop_all stops them.
declare -A JPID
start() {
	local l=$1 root=$2 java=$3 class=$4
	root_dir "$root" java
	cp "$TMP/classes"/*.class "$DIR/"
	(in_root "$root" "$java" -cp "$RDIR" "$class" 60 >/dev/null 2>"$TMP/$l-$class.err") &
	JPID[$l]=$!
}
stop_all() {
	local p
	for p in "${JPID[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}

# live LABEL ROOT JAVA: on the running JVM JPID[LABEL], discovery (the JDK's version and a
# complete layout) and the walker's step on ptrace samples; true when discovery passed.
live() {
	local l=$1 want=${1%%[!0-9]*} out
	out=$("$INSPECT" "${JPID[$l]}" 2>&1)
	echo "$out" | sed "s/^/hotspot_$l: /" >&2
	if ! echo "$out" | grep -qE "^version ${want:-[0-9]+}[.+][^ ]* \(feature ${want:-[0-9]+}\): layout complete"; then
		fail "hotspot_${l}_discovery" "not JDK ${want:-?} with a complete layout: $(echo "$out" | tail -1)"
		return 1
	fi
	pass "hotspot_${l}_discovery"
	# The step is host C over ptrace samples: no kernel's part, the host's run checks it.
	# An emulated guest's ptrace stops catch the JVM outside Java code (its clock read,
	# its safepoints) in all but a few dozen of thousands.
	if [[ ${EBPROF_VM:-} == *tcg* ]]; then
		echo "SKIP hotspot_${l}_step_chain: the walker's step without BPF runs on the host"
		return 0
	fi
	OUT=$TMP/$l-Chain.folded
	"$WALK" "${JPID[$l]}" "$SAMPLES" java >"$OUT" 2>"$TMP/$l-Chain.walk" ||
		fail "hotspot_${l}_step_chain" "hotspot_walk failed: $(tail -1 "$TMP/$l-Chain.walk")"
	tail -1 "$TMP/$l-Chain.walk" >&2
	expect "hotspot_${l}_step_chain" "$OUT" "main -> outer -> middle -> leaf, leaf at line $(line_of Chain LEAF_LINE)" \
		"Chain\.main \(Chain\.java:[0-9]+\);Chain\.outer \(Chain\.java:[0-9]+\);Chain\.middle \(Chain\.java:[0-9]+\);Chain\.leaf \(Chain\.java:$(line_of Chain LEAF_LINE)\) [0-9]+$" \
		'Chain\.leaf \(' 30
}

# add LABEL ROOT JAVA: the recorded workloads, run by JAVA in ROOT, join the batch.
CLASSES="Chain Zip Threads Stream"
add() {
	local l=$1 root=$2 java=$3 class
	root_dir "$root" java
	cp "$TMP/classes"/*.class "$DIR/"
	for class in $CLASSES; do
		batch_add "$l-$class" "$root" "$java" -cp "$RDIR" "$class" "$SECS"
	done
	batch_add "$l-Interp" "$root" "$java" -Xint -cp "$RDIR" Interp "$SECS"
}

# interp_lines LABEL: of the interpreted leaf's samples (at least 20), each of its three
# loop lines has >= 5 % and the three half (the loop's header has the rest): the line is the interpreter's register's, not the frame's
# stale copy (which names one line, where the method was entered).
interp_lines() {
	local name=hotspot_$1_interp_lines f total a b c
	f=$(batch_stacks "$1-Interp")
	total=$(grep -E 'Interp\.leaf \(' "$f" | awk '{ s += $NF } END { printf "%.0f\n", s }')
	a=$(grep -E "Interp\.leaf \(Interp\.java:$(line_of Interp LINE_A)\)" "$f" | awk '{ s += $NF } END { printf "%.0f\n", s }')
	b=$(grep -E "Interp\.leaf \(Interp\.java:$(line_of Interp LINE_B)\)" "$f" | awk '{ s += $NF } END { printf "%.0f\n", s }')
	c=$(grep -E "Interp\.leaf \(Interp\.java:$(line_of Interp LINE_C)\)" "$f" | awk '{ s += $NF } END { printf "%.0f\n", s }')
	echo "$name: of $total samples of the interpreted leaf, lines A $a, B $b, C $c" >&2
	if [ "$total" -lt 20 ]; then
		fail "$name" "only $total samples of Interp.leaf"
	elif [ "$(pct "$a" "$total")" -lt 5 ] || [ "$(pct "$b" "$total")" -lt 5 ] ||
		[ "$(pct "$c" "$total")" -lt 5 ] || [ "$(pct $((a + b + c)) "$total")" -lt 50 ]; then
		fail "$name" "lines A $a, B $b, C $c of $total samples, want >= 5 % each, 50 % together"
		grep -E 'Interp\.leaf \(' "$f" | sed 's/.*;Interp\.main/Interp.main/' | sort -t' ' -k2 -nr | head -5 >&2
	else
		pass "$name"
	fi
}

J='[^;]*' # one frame
# at_line FILE MARKER: the leaf's ":LINE" in a pattern. Under emulation (a TCG guest) a
# JVM spends seconds in the JIT's transitions (interpreter to compiled code, on-stack
# replacement, deoptimization), where a leaf's pc can have no bytecode index or debug
# point: there the leaf may also be named without a line (counted on -v's hotspot line);
# a wrong line still fails, and interp_lines checks lines there.
at_line() {
	local l=":$(line_of "$1" "$2")"
	[[ ${EBPROF_VM:-} == *tcg* ]] && l="($l)?"
	echo "$l"
}
check_suite() {
	local l=$1
	# Java frames sit between the native frames that called them: Java is entered
	# through the call stub from JavaCalls::call_helper.
	local entry="JavaCalls::call_helper[^;]*;\[jvm stub: [^;]*\];" leaf="(;[^;]*_\[k\])* [0-9]+$"
	# After a Java leaf: the count, the kernel's frames, or what the leaf called into: the
	# JVM's runtime (a counter overflow asking for a compile, a deoptimization), which a
	# loaded or emulated host spends seconds in; the chain above is whole all the same.
	local below="(;|$leaf)"
	expect "hotspot_${l}_inlined_chain" "$(batch_stacks "$l-Chain")" "call_helper -> main -> outer -> middle -> leaf at line $(line_of Chain LEAF_LINE)" \
		"${entry}Chain\.main \(Chain\.java:[0-9]+\);Chain\.outer \(Chain\.java:[0-9]+\);Chain\.middle \(Chain\.java:[0-9]+\);Chain\.leaf \(Chain\.java$(at_line Chain LEAF_LINE)\)$below" \
		'Chain\.leaf \(' 20
	expect "hotspot_${l}_jni" "$(batch_stacks "$l-Zip")" "compress at line $(line_of Zip COMPRESS_LINE) -> Deflater -> its JNI function -> libz's deflate" \
		"${entry}Zip\.main \(Zip\.java:[0-9]+\);Zip\.compress \(Zip\.java:$(line_of Zip COMPRESS_LINE)\);($J;)*java\.util\.zip\.Deflater\.deflateBytes[A-Za-z]*[^;]*;Java_java_util_zip_Deflater_deflateBytes[A-Za-z]*;($J;)*deflate(;|$leaf)" \
		'Java_java_util_zip_Deflater_deflateBytes' 20
	OUT=$(batch_stacks "$l-Threads")
	expect "hotspot_${l}_thread_alpha" "$OUT" "Thread.run -> alphaMain -> alphaWork" \
		"${entry}java\.lang\.Thread\.run \(Thread\.java:[0-9]+\);($J;)*Threads\.alphaMain \(Threads\.java:[0-9]+\);Threads\.alphaWork \(Threads\.java$(at_line Threads ALPHA_LINE)\)$below" \
		'alphaWork \(' 20
	expect "hotspot_${l}_thread_beta" "$OUT" "Thread.run -> betaMain -> betaStep -> betaWork" \
		"${entry}java\.lang\.Thread\.run \(Thread\.java:[0-9]+\);($J;)*Threads\.betaMain \(Threads\.java:[0-9]+\);Threads\.betaStep \(Threads\.java:[0-9]+\);Threads\.betaWork \(Threads\.java$(at_line Threads BETA_LINE)\)$below" \
		'betaWork \(' 20
	expect "hotspot_${l}_stream" "$(batch_stacks "$l-Stream")" "main -> run -> the stream library -> the lambda -> mix" \
		"${entry}Stream\.main \(Stream\.java:[0-9]+\);Stream\.run \(Stream\.java:[0-9]+\);java\.util\.stream\.LongPipeline\.sum \(LongPipeline\.java:[0-9]+\);($J;)*Stream\.mix \(Stream\.java$(at_line Stream MIX_LINE)\)$below" \
		'Stream\.mix \(' 20
	interp_lines "$l"
}

if [ ! -x "$WALK" ] || [ ! -x "$INSPECT" ]; then
	fail hotspot "no $WALK or $INSPECT: make unit-bins"
	exit 0
fi
if ! compile; then
	echo "SKIP hotspot: no javac (scripts/install-deps.sh test makes the runtime roots)"
	cat "$TMP/javac.log" >&2 2>/dev/null
	exit 0
fi
# First every JDK's Chain at once, warmed together, for discovery and the walker's step;
# then each JDK's workloads in one recording (one per JDK, not one for all: twenty JVMs
# starting at once outran ebprof's description of them on a loaded 2-CPU host). A JDK
# ebprof does not discover is not recorded.
SPECS=()
starting() { start "$@" Chain && SPECS+=("$1:$2:$3"); }
runtime_suites hotspot starting "${JDKS[@]}"
[ ${#SPECS[@]} -gt 0 ] || exit 0
sleep "$WARM"
LIVE=()
for spec in "${SPECS[@]}"; do
	live "${spec%%:*}" && LIVE+=("$spec")
done
stop_all
for spec in "${LIVE[@]}"; do
	IFS=: read -r l root java <<<"$spec"
	batch_new
	add "$l" "$root" "$java"
	batch_record "hotspot_$l" '^  hotspot' $(named_runtime hotspot) && check_suite "$l"
done
