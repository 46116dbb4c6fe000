#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# HotSpot JVMs on every JDK the runtime roots hold (scripts/runtimes.sh: OpenJDK 11, 17,
# 21, 25) and the host's: discovery from the JVM's own tables (version, complete layout);
# the walker's step on a live JVM sampled with ptrace (tests/hotspot/hotspot_walk: the
# walk's logic without BPF); then ebprof record: a chain of static methods the JIT inlines
# into a hot loop, a chain through java.util.zip.Deflater into libz, two threads with
# their own chains, a lambda/stream pipeline, each under the native frames that started
# it. Each asserts that >= 90 % of the samples reaching its leaf carry the whole expected
# chain and that the leaf's line is right. A JDK whose root is missing is a SKIP.
. "$(dirname "$0")/lib.sh"

WL=tests/workloads/java
ROOTS=${EBPROF_ROOTS:-/var/cache/ebprof}
WARM=${HOTSPOT_WARMUP_SECONDS:-4}
SAMPLES=${HOTSPOT_SAMPLES:-150}
SECS=${HOTSPOT_TEST_SECONDS:-5}
INSPECT=$BUILD/tests/hotspot_inspect
WALK=$BUILD/tests/hotspot_walk
# LABEL:ROOT:JAVA (ROOT empty: the host)
JDKS=("11:$ROOTS/bullseye:/usr/lib/jvm/java-11-openjdk-amd64/bin/java"
	"17:$ROOTS/bookworm:/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
	"21:$ROOTS/trixie:/usr/lib/jvm/java-21-openjdk-amd64/bin/java"
	"25:$ROOTS/trixie:/usr/lib/jvm/java-25-openjdk-amd64/bin/java")
host_java=$(readlink -f "$(command -v java 2>/dev/null)" 2>/dev/null || true)
[ -x "$host_java" ] && JDKS+=("host::$host_java")

# in_root ROOT CMD...: CMD chrooted in ROOT (the host when empty) with a /proc of its own
# mount namespace (the JVM finds its libraries through /proc/self/exe). Execs: the
# caller's $! is CMD's pid.
in_root() {
	local root=$1
	shift
	[ -n "$root" ] || exec "$@"
	exec unshare -m --propagation private sh -c \
		'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$root" "$@"
}

# The line of MARKER's comment in a workload's source.
line_of() { grep -n "// $2\$" "$WL/$1.java" | cut -d: -f1; }

# compile: the workloads, once, by the oldest JDK's javac (class files every JDK runs).
compile() {
	local javac out=$TMP/classes
	mkdir -p "$out"
	if [ -x "$ROOTS/bullseye/usr/bin/javac" ]; then
		local dir
		dir=$(mktemp -d "$ROOTS/bullseye/tmp/ebprof-javac.XXXXXX")
		cp "$WL"/*.java "$dir/"
		(in_root "$ROOTS/bullseye" javac -d "${dir#"$ROOTS/bullseye"}" \
			$(cd "$dir" && ls *.java | sed "s|^|${dir#"$ROOTS/bullseye"}/|")) >"$TMP/javac.log" 2>&1
		cp "$dir"/*.class "$out/" 2>/dev/null
		rm -rf "$dir"
	elif javac=$(command -v javac); then
		"$javac" --release 11 -d "$out" "$WL"/*.java >"$TMP/javac.log" 2>&1
	fi
	ls "$out"/Chain.class >/dev/null 2>&1
}

# start LABEL ROOT JAVA CLASS: runs CLASS for a minute in the JVM; sets JPID, and CP (the
# class path where the JVM sees it). The caller stops it.
start() {
	local root=$2 java=$3 class=$4 dir
	dir=$(mktemp -d "${root:-}/tmp/ebprof-java.XXXXXX")
	cp "$TMP/classes"/*.class "$dir/"
	CLEAN+=("$dir")
	(in_root "$root" "$java" -cp "${dir#"$root"}" "$class" 60 >/dev/null 2>"$TMP/$1-$class.err") &
	JPID=$!
	sleep "$WARM"
}
stop() { kill "$JPID" 2>/dev/null; wait "$JPID" 2>/dev/null; }

# expect NAME FOLDED WHAT PATTERN OF MIN: of the stacks matching OF (at least MIN), >= 90 %
# must match PATTERN. MIN only says the leaf was reached at all: a 5 s recording gets 40 to
# 300 leaf samples here, fewer when other work shares the CPUs.
expect() {
	local name=$1 f=$2 what=$3 pat=$4 of=$5 min=$6 total hit
	total=$(grep -E "$of" "$f" | awk '{ s += $NF } END { print s + 0 }')
	hit=$(grep -E "$pat" "$f" | awk '{ s += $NF } END { print s + 0 }')
	echo "$name: $hit of $total samples ($what)" >&2
	if [ "$total" -lt "$min" ]; then
		fail "$name" "only $total samples matching $of"
		sort -k2 -t' ' -nr "$f" | head -3 | cut -c1-600 >&2
	elif [ "$(pct "$hit" "$total")" -lt 90 ]; then
		fail "$name" "$what in $(pct "$hit" "$total") % of samples, want >= 90"
		grep -E "$of" "$f" | grep -vE "$pat" | sort -k2 -t' ' -nr | head -3 | cut -c1-600 >&2
	else
		pass "$name"
	fi
}

# walk LABEL ROOT JAVA CLASS COMM...: samples CLASS's threads; sets OUT (folded stacks).
walk() {
	local l=$1 root=$2 java=$3 class=$4
	shift 4
	OUT=$TMP/$l-$class.folded
	start "$l" "$root" "$java" "$class"
	"$WALK" "$JPID" "$SAMPLES" "$@" >"$OUT" 2>"$TMP/$l-$class.walk" ||
		fail "hotspot_${l}_$class" "hotspot_walk failed: $(tail -1 "$TMP/$l-$class.walk")"
	tail -1 "$TMP/$l-$class.walk" >&2
	stop
}

J='[^;]*' # one frame
suite() {
	local l=$1 root=$2 java=$3 want=${1%%[!0-9]*} out
	start "$l" "$root" "$java" Chain
	out=$("$INSPECT" "$JPID" 2>&1)
	stop
	echo "$out" | sed "s/^/hotspot_$l: /" >&2
	if ! echo "$out" | grep -qE "^version ${want:-[0-9]+}[.+][^ ]* \(feature ${want:-[0-9]+}\): layout complete"; then
		fail "hotspot_${l}_discovery" "not JDK ${want:-?} with a complete layout: $(echo "$out" | tail -1)"
		return
	fi
	pass "hotspot_${l}_discovery"

	walk "$l" "$root" "$java" Chain java
	expect "hotspot_${l}_step_chain" "$OUT" "main -> outer -> middle -> leaf, leaf at line $(line_of Chain LEAF_LINE)" \
		"Chain\.main \(Chain\.java:[0-9]+\);Chain\.outer \(Chain\.java:[0-9]+\);Chain\.middle \(Chain\.java:[0-9]+\);Chain\.leaf \(Chain\.java:$(line_of Chain LEAF_LINE)\) [0-9]+$" \
		'Chain\.leaf \(' 30

	# Java frames sit between the native frames that called them: Java is entered
	# through the call stub from JavaCalls::call_helper.
	local entry="JavaCalls::call_helper[^;]*;\[jvm stub: [^;]*\];" leaf="(;[^;]*_\[k\])* [0-9]+$"
	record "$l" "$root" "$java" Chain
	expect "hotspot_${l}_inlined_chain" "$OUT" "call_helper -> main -> outer -> middle -> leaf at line $(line_of Chain LEAF_LINE)" \
		"${entry}Chain\.main \(Chain\.java:[0-9]+\);Chain\.outer \(Chain\.java:[0-9]+\);Chain\.middle \(Chain\.java:[0-9]+\);Chain\.leaf \(Chain\.java:$(line_of Chain LEAF_LINE)\)$leaf" \
		'Chain\.leaf \(' 20

	record "$l" "$root" "$java" Zip
	expect "hotspot_${l}_jni" "$OUT" "compress at line $(line_of Zip COMPRESS_LINE) -> Deflater -> its JNI function -> libz's deflate" \
		"${entry}Zip\.main \(Zip\.java:[0-9]+\);Zip\.compress \(Zip\.java:$(line_of Zip COMPRESS_LINE)\);($J;)*java\.util\.zip\.Deflater\.deflateBytes[A-Za-z]*[^;]*;Java_java_util_zip_Deflater_deflateBytes[A-Za-z]*;($J;)*deflate(;|$leaf)" \
		'Java_java_util_zip_Deflater_deflateBytes' 20

	record "$l" "$root" "$java" Threads
	expect "hotspot_${l}_thread_alpha" "$OUT" "Thread.run -> alphaMain -> alphaWork" \
		"${entry}java\.lang\.Thread\.run \(Thread\.java:[0-9]+\);($J;)*Threads\.alphaMain \(Threads\.java:[0-9]+\);Threads\.alphaWork \(Threads\.java:$(line_of Threads ALPHA_LINE)\)$leaf" \
		'alphaWork \(' 20
	expect "hotspot_${l}_thread_beta" "$OUT" "Thread.run -> betaMain -> betaStep -> betaWork" \
		"${entry}java\.lang\.Thread\.run \(Thread\.java:[0-9]+\);($J;)*Threads\.betaMain \(Threads\.java:[0-9]+\);Threads\.betaStep \(Threads\.java:[0-9]+\);Threads\.betaWork \(Threads\.java:$(line_of Threads BETA_LINE)\)$leaf" \
		'betaWork \(' 20

	record "$l" "$root" "$java" Stream
	expect "hotspot_${l}_stream" "$OUT" "main -> run -> the stream library -> the lambda -> mix" \
		"${entry}Stream\.main \(Stream\.java:[0-9]+\);Stream\.run \(Stream\.java:[0-9]+\);java\.util\.stream\.LongPipeline\.sum \(LongPipeline\.java:[0-9]+\);($J;)*Stream\.mix \(Stream\.java:$(line_of Stream MIX_LINE)\)$leaf" \
		'Stream\.mix \(' 20
}

# record LABEL ROOT JAVA CLASS: ebprof record of CLASS run for SECS; sets OUT (folded).
record() {
	local l=$1 root=$2 java=$3 class=$4 dir rc
	dir=$(mktemp -d "${root:-}/tmp/ebprof-java.XXXXXX")
	cp "$TMP/classes"/*.class "$dir/"
	CLEAN+=("$dir")
	OUT=$TMP/$l-$class-rec
	"$EBPROF" record -F 199 -o "$OUT" -- bash -c "$(declare -f in_root); in_root \"\$@\"" in_root \
		"$root" "$java" -cp "${dir#"$root"}" "$class" "$SECS" >"$OUT.stdout" 2>"$OUT.stderr"
	rc=$?
	grep -E '^  hotspot' "$OUT.stdout" >&2
	if [ "$rc" -ne 0 ]; then
		fail "hotspot_${l}_$class" "record failed, $(how_ended "$rc" "$OUT.stderr")"
		OUT=/dev/null
		return
	fi
	OUT=$OUT/stacks.folded
}

CLEAN=()
trap 'rm -rf "$TMP" "${CLEAN[@]}"' EXIT
if [ ! -x "$WALK" ] || [ ! -x "$INSPECT" ]; then
	fail hotspot "no $WALK or $INSPECT: make unit-bins"
	exit 0
fi
if ! compile; then
	echo "SKIP hotspot: no javac (scripts/install-deps.sh test makes the runtime roots)"
	cat "$TMP/javac.log" >&2 2>/dev/null
	exit 0
fi
for spec in "${JDKS[@]}"; do
	IFS=: read -r label root java <<<"$spec"
	if [ -n "$root" ] && [ ! -x "$root$java" ]; then
		echo "SKIP hotspot_$label: no $root$java (scripts/install-deps.sh test makes it)"
		continue
	fi
	suite "$label" "$root" "$java"
done
