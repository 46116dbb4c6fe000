#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Go stacks for every installed toolchain (tests/workloads/go/build.sh: Debian's 1.19,
# backports' 1.21-1.23, the module proxy's 1.24 and newest), plain and stripped, all four
# binaries of a version in one recording: the chain with its inlined middle function and
# lines, cgo's Go -> C -> Go callback with the C frames in call order and the whole stack
# continuous across the switch to the system stack, the collector's marking on the
# system stack (systemstack) and stack growth's (morestack) joined to their goroutines,
# and pprof labels set with pprof.Do on one goroutine's samples and not on the other's.
# EBPROF_GO_VERSIONS='go1.19 go1.24' limits the versions.
. "$(dirname "$0")/lib.sh"

SECS=$(secs "${GO_TEST_SECONDS:-3}")
# The workloads sleep this long before their work, so that ebprof has described them
# (their tables built) when it begins: 0.6 s on the host, more in an emulated guest,
# where seven Go processes described at once took over a second (vm-6.1's cgo and chain
# checks at 82-88 %, their first samples cut). The samples before a process's
# description are issue 35's (bench/busyhost.sh), not these walkers'.
export EBPROF_WL_SETTLE=0.6
[[ ${EBPROF_VM:-} == *tcg* ]] && EBPROF_WL_SETTLE=$(secs 1.5)
SRC=tests/workloads/go
line() { grep -n "// line:$2\$" "$SRC/$1/main.go" | cut -d: -f1; }
PARSE=$(line chain parse)
SERVE=$(line chain serve)

# expect NAME WHAT COMM PATTERN OF: of COMM's samples matching OF (at least 10), >= 90 %
# must match PATTERN.
expect() {
	local name=$1 what=$2 comm=$3 pat=$4 of=$5 total hit
	total=$(folded_match "$OUT/stacks.folded" "$comm" "$of")
	hit=$(folded_match "$OUT/stacks.folded" "$comm" "$pat")
	echo "$name: $hit of $total samples ($what)" >&2
	if [ "$total" -lt 10 ]; then
		fail "$name" "only $total samples of $comm matching $of"
		grep "^$comm;" "$OUT/stacks.folded" | head -3 | cut -c1-600 >&2
	elif [ "$(pct "$hit" "$total")" -lt 90 ]; then
		fail "$name" "$what in $(pct "$hit" "$total") % of samples, want >= 90"
		grep "^$comm;" "$OUT/stacks.folded" | grep -E "$of" | grep -vE "$pat" |
			awk '{ print $NF, $0 }' | sort -nr | head -3 | cut -d' ' -f2- | cut -c1-900 >&2
	else
		pass "$name"
	fi
}

# Go frames read "function (file.go:LINE)"; the chain from runtime.main to the leaf.
CHAIN="runtime\.main \([^;]*\);main\.main \(main\.go:[0-9]+\);main\.serve \(main\.go:$SERVE\);"
CHAIN+="main\.parse \(main\.go:$PARSE\) \[inlined\];main\.scan \(main\.go:[0-9]+\)( |;[^;]*_\[k\])"
# goLeaf called back from C: the callback's Go frames, crosscall2, the C frames (named
# or not, stripped), asmcgocall.
CALLBACK="runtime\.asmcgocall \([^;]*\);([^;]*;){2,4}crosscall2 \([^;]*\);"
CALLBACK+="runtime\.cgocallback \([^;]*\);.*main\.goLeaf \(main\.go:[0-9]+\)( |;[^;]*_\[k\])"
# The whole stack in call order, across the switch to the system stack: from the root
# (runtime.goexit) through the Go caller and asmcgocall to C (the cgo wrapper, named or
# not, stripped), and from there either the C leaf (c_spin) or the callback (crosscall2
# ... goLeaf). END: the leaf frame's end (the count, or the kernel's frames).
END="( [0-9]+\$|;[^;]*_\[k\])"
CGO_ROOT="^[^;]*;runtime\.goexit \([^;]*\);runtime\.main \([^;]*\);main\.main \([^;]*\);"
CGO_ROOT+="main\.goLoop \([^;]*\);main\._Cfunc_c_spin \([^;]*\);runtime\.cgocall \([^;]*\);"
CGO_ROOT+="runtime\.asmcgocall \([^;]*\);[^;]*;"
GO_LEAF="main\.goLeaf \(main\.go:[0-9]+\)$END"
CONTINUOUS="$CGO_ROOT([^;]*$END|([^;]*;){1,3}crosscall2 \([^;]*\);runtime\.cgocallback .*$GO_LEAF)"
# The leaf samples: in goLeaf, or in the C function asmcgocall called (two frames below it).
CGO_LEAVES="$GO_LEAF|runtime\.asmcgocall \([^;]*\);[^;]*;[^;]*$END"

# The collector's marking (gcDrain, on g0's stack) under systemstack, joined to the
# goroutine that switched (a mark worker, or an allocation's assist): its root is goexit.
GC_DRAIN="runtime\.gcDrainN? \("
SYSTEMSTACK="^[^;]*;runtime\.goexit \(.*;runtime\.systemstack \([^;]*\);.*$GC_DRAIN"
# Stack growth (newstack copying the stack, on g0's) under morestack, joined to the
# goroutine whose prologue called it.
COPYSTACK="runtime\.newstack \([^;]*\);runtime\.copystack \("
MORESTACK="^[^;]*;runtime\.goexit \([^;]*\);main\.grow\.func[0-9]+ \(.*;main\.deep \([^;]*\);"
MORESTACK+="runtime\.morestack \([^;]*\);$COPYSTACK"

# labels NAME PROFILE GO: in go tool pprof's traces, the weight of main.labeled's and
# main.unlabeled's stacks with and without tenant=acme (and endpoint=/v1/orders).
labels() {
	local name=$1 with without other
	read -r with without other < <("$3" tool pprof -traces "$2" 2>/dev/null | awk '
		/^-----/ { flush(); next }
		{ blk = blk "\n" $0 }
		$1 ~ /^[0-9.]+(ms|s)$/ && w == "" { w = $1 + 0; if ($1 !~ /ms$/) w *= 1000 }
		END { flush(); printf "%d %d %d\n", l1, l0, u1 }
		function flush() {
			lab = blk ~ /tenant: +acme/ && blk ~ /endpoint: +\/v1\/orders/
			if (blk ~ /main\.labeled/) { if (lab) l1 += w; else l0 += w }
			if (blk ~ /main\.unlabeled/ && blk ~ /tenant:/) u1 += w
			blk = ""; w = ""
		}')
	echo "$name: labelled goroutine ${with:-0} ms with labels, ${without:-0} ms without;" \
		"the other ${other:-0} ms with" >&2
	if [ "${with:-0}" -lt 50 ]; then
		fail "$name" "only ${with:-0} ms of the labelled goroutine carry its labels"
	elif [ "$(pct "$with" $((with + without)))" -lt 90 ] || [ "${other:-1}" -ne 0 ]; then
		fail "$name" "labels on $(pct "$with" $((with + without))) % of the labelled" \
			"goroutine's samples (want >= 90) and on ${other:-?} ms of the other's (want 0)"
	else
		pass "$name"
	fi
}

versions=$(tests/workloads/go/build.sh) || { fail go_build "tests/workloads/go/build.sh failed"; exit 0; }
[ -n "$versions" ] || { echo "SKIP go: no Go toolchain (scripts/install-deps.sh test)"; exit 0; }
while read -r v dir go; do
	n=${v#go}
	n=${n%.*} # 1.23
	OUT=$TMP/$v
	ln -sf "$dir/chain.stripped" "$TMP/golabels" # a comm of its own for the labels run
	ln -sf "$dir/chain.stripped" "$TMP/gogc"     # ... and for the collector's
	ln -sf "$dir/chain.stripped" "$TMP/gogrow"   # ... and for stack growth
	"$EBPROF" record -F 199 $(named_runtime go) -o "$OUT" -- sh -c "'$dir/chain' chain $SECS & '$dir/chain.stripped' \
		chain $SECS & '$dir/cgo' $SECS & '$dir/cgo.stripped' $SECS & \
		'$TMP/golabels' labels $SECS & '$TMP/gogc' gc $SECS & '$TMP/gogrow' grow $SECS & \
		wait" \
		>"$TMP/$v.stdout" 2>"$TMP/$v.stderr"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "go_record_$n" "record failed, $(how_ended "$rc" "$TMP/$v.stderr")"
		continue
	fi
	for comm in chain chain.stripped; do
		expect "go_inlined_chain_${n}_$comm" "the whole chain, parse inlined" "$comm" "$CHAIN" \
			'main\.scan \(main\.go:[0-9]+\)( |;[^;]*_\[k\])'
	done
	for comm in cgo cgo.stripped; do
		expect "go_cgo_callback_${n}_$comm" "C frames between Go and the callback" "$comm" \
			"$CALLBACK" "main\.goLeaf \(main\.go:[0-9]+\)( |;[^;]*_\[k\])"
		expect "go_cgo_continuous_${n}_$comm" "Go -> C (-> Go) whole, in call order" "$comm" \
			"$CONTINUOUS" "$CGO_LEAVES"
	done
	expect "go_systemstack_$n" "the collector's g0 frames under their goroutine" gogc \
		"$SYSTEMSTACK" "$GC_DRAIN"
	expect "go_morestack_$n" "stack growth's g0 frames under their goroutine" gogrow \
		"$MORESTACK" "$COPYSTACK"
	labels "go_labels_$n" "$OUT/profile.pb.gz" "$go"
done <<<"$versions"
