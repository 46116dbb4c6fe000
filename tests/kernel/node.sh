#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Node.js / V8 on every Node the runtime roots hold (scripts/runtimes.sh: Node 12, 18, 20)
# and the host's: discovery from V8's metadata (its version said once, or what it lacks),
# then ebprof record with no flags: a chain of functions the optimizer inlines into a hot
# loop, a chain through zlib.deflateSync into libz, a class method and an arrow function,
# an async function awaiting in a loop, a native addon calling back into JavaScript. Each
# asserts that >= 90 % of the samples reaching its leaf carry the whole expected chain,
# and the leaf's line. Each Node's workloads run in one recording (lib.sh: batch_new).
# A root missing is a SKIP.
. "$(dirname "$0")/lib.sh"

WL=tests/workloads/node
# A node started with extra CA certificates parses them all first (a CI image's setting):
# a second of CPU each, for workloads that open no connection.
unset NODE_EXTRA_CA_CERTS
SECS=$(secs "${NODE_TEST_SECONDS:-8}")
# LABEL:ROOT:NODE (ROOT empty: the host)
NODES=("12:$ROOTS/bullseye:/usr/bin/node" "18:$ROOTS/bookworm:/usr/bin/node"
	"20:$ROOTS/trixie:/usr/bin/node")
host=$(host_runtime node) && NODES+=("$host")

# The line of MARKER's comment in a workload's source.
line_of() { marker_line "$WL/$1.js" "$2"; }
# at_line FILE MARKER DECL: the leaf's line in a pattern, MARKER's. Baseline (Sparkplug)
# code is named at its function's start (src/interp/v8/README.md), a tier a function
# passes in milliseconds on the host and for seconds under emulation (a TCG guest): there
# the line of the function's declaration (the first line matching the ERE DECL) counts
# too; any other line still fails.
at_line() {
	local l
	l=$(line_of "$1" "$2")
	[[ ${EBPROF_VM:-} == *tcg* ]] && l="($l|$(grep -nE "$3" "$WL/$1.js" | head -1 | cut -d: -f1))"
	echo "$l"
}
# A failing stack shown without what runs every script (node's start, Execution::Call).
EXPECT_TRIM='s/.*Execution::Call[^;]*;//'
# Samples taken before ebprof described the process as V8's are not counted: a native
# leaf (libz's deflate) is reached before that, for seconds when a batch's processes
# start on a loaded host. Those have no frame of V8's walker (a described process's
# stack into JavaScript has V8:EntryFrame at least), where the JS entry reads
# Builtins_JSEntry in an unstripped libnode and an address in a stripped one (trixie's).
EXPECT_ONLY='V8:'

F='[^;]*' # one frame
LEAF="(;[^;]*_\[k\])* [0-9]+$"
# After a JavaScript leaf: the count, the kernel's frames, or what the leaf called into:
# V8's runtime (an on-stack replacement compiling the leaf's loop, the collector), which
# a loaded or emulated host spends seconds in; the chain above is whole all the same.
BELOW="(;|$LEAF)"
WORKLOADS="chain zip shapes addon async"
# Each workload's case (its result's name after node_LABEL_): one EBPROF_TEST_CASES leaves
# out is not run (the arm64 guest's batch: zlib alone, beside discovery).
declare -A CASE=([chain]=inlined_chain [zip]=zlib [shapes]=method_arrow [addon]=addon
	[async]=async)

# add LABEL ROOT NODE: the workloads, run by NODE in ROOT ("": the host), join the batch;
# JS[LABEL] is their folder as a pattern. A Node-API addon is built against this Node's
# headers (Debian's libnode-dev, the host's own), without libc, so the host's compiler
# builds it for any root.
declare -A JS ADDON ROOT NODE
add() {
	local l=$1 root=$2 node=$3 w inc=${2:-}/usr/include/node
	ROOT[$l]=$root
	NODE[$l]=$node
	root_dir "$root" node
	cp "$WL"/*.js "$DIR/"
	JS[$l]=$(printf '%s' "$RDIR" | sed 's/[.]/\\./g')
	ADDON[$l]=
	if [ ! -f "$inc/node_api.h" ]; then
		ADDON[$l]="no $inc/node_api.h (scripts/install-deps.sh test adds it)"
	elif ! ${CC:-cc} -shared -fPIC -O2 -nostdlib -DNODE_GYP_MODULE_NAME=addon -I"$inc" \
		"$WL/addon.c" -o "$DIR/addon.node" 2>"$TMP/addon-$l.log"; then
		ADDON[$l]="the addon did not build: $(head -3 "$TMP/addon-$l.log")"
	fi
	for w in $WORKLOADS; do
		case_selected "node_${l}_${CASE[$w]}" || continue
		if [ "$w" = addon ]; then
			[ -z "${ADDON[$l]}" ] && batch_add "$l-$w" "$root" "$node" "$RDIR/$w.js" "$RDIR/addon.node" "$SECS"
		else
			batch_add "$l-$w" "$root" "$node" "$RDIR/$w.js" "$SECS"
		fi
	done
}

# discovery LABEL: true when V8 was found in that Node's processes, said once, with its
# version (a Node whose metadata is not enough: said once, its processes keep native
# stacks, and its frames' checks are SKIPs). ebprof speaks once per V8 file, naming the
# first process it saw map it: the line about this Node names its file in its root (or
# its binary, on the host) or one of its workloads (another node on the host may come
# first).
discovery() {
	local l=$1 w pids=" " said
	for w in $WORKLOADS; do
		pids+="$(batch_pids "$l-$w") "
	done
	said=$(grep -E '^ebprof: (warning: )?v8: ' "$BATCH/stderr" | while read -r line; do
		p=$(echo "$line" | sed -nE 's/.*pid ([0-9]+)\).*/\1/p')
		f=$(echo "$line" | sed -nE 's/^ebprof: (warning: )?v8: ([^ ]*) .*/\2/p')
		if [[ $pids == *" $p "* ]] || { [ -z "${ROOT[$l]}" ] && [ "$f" = "${NODE[$l]}" ]; } ||
			{ [ -n "${ROOT[$l]}" ] && [[ $f == "${ROOT[$l]}"/* ]]; }; then
			echo "$line"
		fi
	done)
	echo "$said" | sed "s/^/node_$l: /" >&2
	if [ "$(echo "$said" | grep -c .)" -ne 1 ]; then
		fail "node_${l}_discovery" "want one line about V8, got $(echo "$said" | grep -c .)"
		grep -E '^ebprof: (warning: )?v8: ' "$BATCH/stderr" | sed "s/^/node_$l: all: /" >&2
		return 1
	fi
	if echo "$said" | grep -q 'metadata lacks'; then
		# Node 12's V8 (7.8) exports too little post-mortem metadata: said once, and
		# its processes keep native stacks. Any other Node lacking a field is a
		# regression of ours, not a Node to skip.
		if [ "$l" != 12 ]; then
			fail "node_${l}_discovery" "only Node 12 may lack metadata: $said"
			return 1
		fi
		pass "node_${l}_discovery"
		echo "SKIP node_${l}_frames: Node 12's metadata lacks $(echo "$said" | sed 's/.*metadata lacks //')"
		return 1
	fi
	if ! echo "$said" | grep -qE "is V8 [0-9]+\.[0-9]+\.[0-9]+"; then
		fail "node_${l}_discovery" "no V8 version: $said"
		return 1
	fi
	pass "node_${l}_discovery"
}

check_suite() {
	local l=$1 js=${JS[$1]}
	discovery "$l" || return 0
	expect "node_${l}_inlined_chain" "$(batch_stacks "$l-chain")" "main -> outer -> middle -> leaf at line $(line_of chain LEAF_LINE)" \
		"main \($js/chain\.js:[0-9:]+\);outer \($js/chain\.js:[0-9:]+\);middle \($js/chain\.js:[0-9:]+\);leaf \($js/chain\.js:$(at_line chain LEAF_LINE "^function leaf\\("):[0-9]+\)$BELOW" \
		'leaf \(' 40
	# compress runs as baseline code, named at its function's start (see
	# src/interp/v8/README.md): its line is not asserted; libz's deflate is the leaf (the
	# host's node links zlib in, where GCC split deflate into deflate.part.0).
	expect "node_${l}_zlib" "$(batch_stacks "$l-zip")" "main -> compress -> deflateSync -> libz's deflate" \
		"main \($js/zip\.js:[0-9:]+\);compress \($js/zip\.js:[0-9:]+\);($F;)*(deflateSync|syncBufferWrapper) \(node:zlib[^;]*\);($F;)*deflate(\.part\.[0-9]+)?(;|$LEAF)" \
		'(^|;)deflate(_[a-z]+)?(;|'"$LEAF"')' 40
	expect "node_${l}_method_arrow" "$(batch_stacks "$l-shapes")" "main -> measure (arrow) -> Shape.area at line $(line_of shapes AREA_LINE)" \
		"main \($js/shapes\.js:[0-9:]+\);measure \($js/shapes\.js:[0-9:]+\);area \($js/shapes\.js:$(at_line shapes AREA_LINE "^  area\\("):[0-9]+\)$BELOW" \
		'area \(' 40
	if ! case_selected "node_${l}_addon"; then
		:
	elif [ -n "${ADDON[$l]}" ]; then
		echo "SKIP node_${l}_addon: ${ADDON[$l]}"
	else
		expect "node_${l}_addon" "$(batch_stacks "$l-addon")" "main -> the addon's C -> work at line $(line_of addon WORK_LINE)" \
			"main \($js/addon\.js:[0-9:]+\);($F;)*repeat;addon_repeat_calls;($F;)*work \($js/addon\.js:$(at_line addon WORK_LINE "^function work\\("):[0-9]+\)$BELOW" \
			'work \(' 40
	fi
	expect "node_${l}_async" "$(batch_stacks "$l-async")" "loop (async) -> work at line $(line_of async WORK_LINE)" \
		"loop \($js/async\.js:[0-9:]+\);work \($js/async\.js:$(at_line async WORK_LINE "^function work\\("):[0-9]+\)$BELOW" \
		'work \(' 40
}

# suite LABEL ROOT NODE: that Node's workloads in one recording (their warm-ups overlap),
# then their checks. One recording per Node, not one for all: twenty processes starting
# at once outran ebprof's description of them on a loaded 2-CPU host.
suite() {
	batch_new
	add "$@"
	batch_record "node_$1" '^  v8' $(named_runtime v8) && check_suite "$1"
}
runtime_suites node suite "${NODES[@]}"
