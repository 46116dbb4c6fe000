#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Node.js / V8 on every Node the runtime roots hold (scripts/runtimes.sh: Node 12, 18, 20)
# and the host's: discovery from V8's metadata (its version said once, or what it lacks),
# then ebprof record with no flags: a chain of functions the optimizer inlines into a hot
# loop, a chain through zlib.deflateSync into libz, a class method and an arrow function,
# an async function awaiting in a loop, a native addon calling back into JavaScript. Each
# asserts that >= 90 % of the samples reaching its leaf carry the whole expected chain,
# and the leaf's line. A root missing is a SKIP.
. "$(dirname "$0")/lib.sh"

WL=tests/workloads/node
SECS=${NODE_TEST_SECONDS:-6}
# LABEL:ROOT:NODE (ROOT empty: the host)
NODES=("12:$ROOTS/bullseye:/usr/bin/node" "18:$ROOTS/bookworm:/usr/bin/node"
	"20:$ROOTS/trixie:/usr/bin/node")
host=$(host_runtime node) && NODES+=("$host")

# The line of MARKER's comment in a workload's source.
line_of() { marker_line "$WL/$1.js" "$2"; }
# A failing stack shown without what runs every script (node's start, Execution::Call).
EXPECT_TRIM='s/.*Execution::Call[^;]*;//'

# record LABEL ROOT NODE SCRIPT [ARG]: ebprof record of SCRIPT (ARG, then SECS; a file ARG
# is copied next to the script); sets OUT (folded),
# ERR (ebprof's stderr), JS (the script's path as node sees it) and js (its folder as a
# pattern).
record() {
	local l=$1 root=$2 node=$3 script=$4 arg=()
	root_dir "$root" node
	cp "$WL"/*.js "$DIR/"
	JS=$RDIR/$script.js
	if [ -n "${5:-}" ]; then
		cp "$5" "$DIR/"
		arg=("$RDIR/${5##*/}")
	fi
	js=$(printf '%s' "$RDIR" | sed 's/[.]/\\./g') # its folder, as a pattern
	OUT=$TMP/$l-$script
	ERR=$OUT.stderr
	record_in_root "node_${l}_$script" '^  v8' "$root" "$node" "$JS" "${arg[@]}" "$SECS"
}

F='[^;]*' # one frame
suite() {
	local l=$1 root=$2 node=$3 said leaf="(;[^;]*_\[k\])* [0-9]+$"
	record "$l" "$root" "$node" chain
	said=$(grep -E '^ebprof: (warning: )?v8: ' "$ERR")
	echo "$said" | sed "s/^/node_$l: /" >&2
	if [ "$(echo "$said" | grep -c .)" -ne 1 ]; then
		fail "node_${l}_discovery" "want one line about V8, got $(echo "$said" | grep -c .)"
		return
	fi
	if echo "$said" | grep -q 'metadata lacks'; then
		# Node 12's V8 (7.8) exports too little post-mortem metadata: said once, and
		# its processes keep native stacks. Any other Node lacking a field is a
		# regression of ours, not a Node to skip.
		if [ "$l" != 12 ]; then
			fail "node_${l}_discovery" "only Node 12 may lack metadata: $said"
			return
		fi
		pass "node_${l}_discovery"
		echo "SKIP node_${l}_frames: Node 12's metadata lacks $(echo "$said" | sed 's/.*metadata lacks //')"
		return
	fi
	if ! echo "$said" | grep -qE "is V8 [0-9]+\.[0-9]+\.[0-9]+"; then
		fail "node_${l}_discovery" "no V8 version: $said"
		return
	fi
	pass "node_${l}_discovery"

	expect "node_${l}_inlined_chain" "$OUT" "main -> outer -> middle -> leaf at line $(line_of chain LEAF_LINE)" \
		"main \($js/chain\.js:[0-9:]+\);outer \($js/chain\.js:[0-9:]+\);middle \($js/chain\.js:[0-9:]+\);leaf \($js/chain\.js:$(line_of chain LEAF_LINE):[0-9]+\)$leaf" \
		'leaf \(' 40

	record "$l" "$root" "$node" zip
	# compress runs as baseline code, named at its function's start (see
	# docs/ARCHITECTURE.md): its line is not asserted; libz's deflate is the leaf (the
	# host's node links zlib in, where GCC split deflate into deflate.part.0).
	expect "node_${l}_zlib" "$OUT" "main -> compress -> deflateSync -> libz's deflate" \
		"main \($js/zip\.js:[0-9:]+\);compress \($js/zip\.js:[0-9:]+\);($F;)*(deflateSync|syncBufferWrapper) \(node:zlib[^;]*\);($F;)*deflate(\.part\.[0-9]+)?(;|$leaf)" \
		'(^|;)deflate(_[a-z]+)?(;|'"$leaf"')' 40

	record "$l" "$root" "$node" shapes
	expect "node_${l}_method_arrow" "$OUT" "main -> measure (arrow) -> Shape.area at line $(line_of shapes AREA_LINE)" \
		"main \($js/shapes\.js:[0-9:]+\);measure \($js/shapes\.js:[0-9:]+\);area \($js/shapes\.js:$(line_of shapes AREA_LINE):[0-9]+\)$leaf" \
		'area \(' 40

	# A Node-API addon built against this Node's headers (Debian's libnode-dev, the
	# host's own), without libc, so the host's compiler builds it for any root.
	local inc=${root:-}/usr/include/node
	if [ ! -f "$inc/node_api.h" ]; then
		echo "SKIP node_${l}_addon: no $inc/node_api.h (scripts/install-deps.sh test adds it)"
	elif ! ${CC:-cc} -shared -fPIC -O2 -nostdlib -DNODE_GYP_MODULE_NAME=addon -I"$inc" \
		"$WL/addon.c" -o "$TMP/addon.node" 2>"$TMP/addon.log"; then
		fail "node_${l}_addon" "the addon did not build: $(head -3 "$TMP/addon.log")"
	else
		record "$l" "$root" "$node" addon "$TMP/addon.node"
		expect "node_${l}_addon" "$OUT" "main -> the addon's C -> work at line $(line_of addon WORK_LINE)" \
			"main \($js/addon\.js:[0-9:]+\);($F;)*repeat;addon_repeat_calls;($F;)*work \($js/addon\.js:$(line_of addon WORK_LINE):[0-9]+\)$leaf" \
			'work \(' 40
	fi

	record "$l" "$root" "$node" async
	expect "node_${l}_async" "$OUT" "loop (async) -> work at line $(line_of async WORK_LINE)" \
		"loop \($js/async\.js:[0-9:]+\);work \($js/async\.js:$(line_of async WORK_LINE):[0-9]+\)$leaf" \
		'work \(' 40
}

runtime_suites node suite "${NODES[@]}"
