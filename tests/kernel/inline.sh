#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Inline frames and source lines from DWARF: the inline_chain workload (two always-inline
# levels between two noinline functions) shows its whole chain with the right lines in
# folded stacks and pprof, from its own DWARF, from a debug file under
# /usr/lib/debug/.build-id once stripped (compressed too, through the debug cache), and
# from a local debuginfod serving only that file; the switches turn it off; a C++ template and a Rust iterator chain show inlined.
. "$(dirname "$0")/lib.sh"

SRC=tests/workloads/inline_chain.c
line() { grep -n "call:$1 " "$SRC" | cut -d: -f1; }
L_LEAF=$(line leaf_hash) L_WORD=$(line mix_word) L_BLOCK=$(line mix_block) L_MAIN=$(line outer_work)
CHAIN="main \\(inline_chain.c:$L_MAIN\\);outer_work \\(inline_chain.c:$L_BLOCK\\);mix_block \\(inline_chain.c:$L_WORD\\) \\[inlined\\];mix_word \\(inline_chain.c:$L_LEAF\\) \\[inlined\\];leaf_hash \\(inline_chain.c:[0-9]+\\)( |;)"

# record NAME BINARY [FLAGS...]: records BINARY for 2 s into $TMP/NAME; false on failure.
record() {
	local name=$1 bin=$2 rc
	shift 2
	"$EBPROF" record -F 199 "$@" -o "$TMP/$name" -- "$bin" 2 >"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
	[ $rc -eq 0 ] && return 0
	fail "$name" "record failed, $(how_ended "$rc" "$TMP/$name.err")"
	return 1
}

# expect_leaf NAME COMM LEAF PATTERN: >= 95 % of the samples at LEAF carry PATTERN.
expect_leaf() {
	local name=$1 comm=$2 f=$TMP/$1/stacks.folded leaves chain
	leaves=$(folded_match "$f" "$comm" "$3")
	chain=$(folded_match "$f" "$comm" "$4")
	echo "$name: $chain of $leaves samples at $3 carry the chain" >&2
	if [ "$leaves" -lt 30 ]; then
		fail "$name" "only $leaves samples at $3"
	elif [ "$(pct "$chain" "$leaves")" -lt 95 ]; then
		fail "$name" "chain in $(pct "$chain" "$leaves") % of the leaf's samples, want >= 95"
		grep -E -- "$3" "$f" | grep -Ev -- "$4" | sort -t' ' -k2 -nr | head -3 | cut -c1-400 >&2
	else
		pass "$name"
	fi
}

# The chain from the binary's own DWARF, in folded stacks and in pprof.
if record inline_c "$W/inline_chain" -v; then
	expect_leaf inline_c inline_chain ';leaf_hash \(' "$CHAIN"
	if command -v go >/dev/null; then
		export HOME=$TMP GOCACHE=$GO_TOOL_CACHE PPROF_TMPDIR=$TMP
		go tool pprof -lines -top -symbolize=none "$TMP/inline_c/profile.pb.gz" >"$TMP/top" 2>&1
		cat "$TMP/top" >&2
		check inline_pprof_lines "go tool pprof -lines lacks the inlined functions at their lines" \
			grep -qE "mix_word .*inline_chain.c:$L_LEAF \\(inline\\)" "$TMP/top"
		check inline_pprof_outer "go tool pprof -lines lacks outer_work at its line" \
			grep -qE "outer_work .*inline_chain.c:$L_BLOCK\$" "$TMP/top"
	fi
	check inline_summary "the summary does not report the DWARF indexes" \
		grep -q '^  debug info: DWARF of' "$TMP/inline_c.err"
fi

# --no-inline: lines, the function the code belongs to, no inlined frames.
if record inline_off "$W/inline_chain" --no-inline; then
	expect_leaf inline_off inline_chain ';leaf_hash \(' \
		";outer_work \\(inline_chain.c:$L_BLOCK\\);leaf_hash \\(inline_chain.c:[0-9]+\\)( |;)"
	check inline_off_none "--no-inline still shows inlined frames" \
		bash -c "! grep -q 'inlined\\]' '$TMP/inline_off/stacks.folded'"
fi
# --no-lines: the names of the symbol tables, as before DWARF.
if record lines_off "$W/inline_chain" --no-lines; then
	expect_leaf lines_off inline_chain ';leaf_hash( |;)' ';main;outer_work;leaf_hash( |;)'
fi

# Stripped, its debug file where the system keeps them, found by build id.
BID=$(readelf -n "$W/inline_chain" | awk '/Build ID/ { print $3 }')
DBG=/usr/lib/debug/.build-id/${BID:0:2}/${BID:2}.debug
mkdir -p "$TMP/bin"
cp "$W/inline_chain" "$TMP/bin/inline_chain"
objcopy --only-keep-debug "$TMP/bin/inline_chain" "$TMP/inline_chain.debug"
strip --strip-all "$TMP/bin/inline_chain"
trap 'rm -f "$DBG"; rm -rf "$TMP"' EXIT
if [ -z "$BID" ] || [ -e "$DBG" ]; then
	fail inline_stripped "no build id, or $DBG exists already"
else
	mkdir -p "$(dirname "$DBG")"
	cp "$TMP/inline_chain.debug" "$DBG"
	if record inline_stripped "$TMP/bin/inline_chain"; then
		expect_leaf inline_stripped inline_chain ';leaf_hash \(' "$CHAIN"
	fi
	# The debug file compressed, as Debian ships them: the first run keeps an inflated
	# copy in the debug cache, the second reads it; both show the whole chain.
	objcopy --compress-debug-sections=zlib "$TMP/inline_chain.debug" "$DBG"
	inodes=""
	for run in made reused; do
		record "inline_cache_$run" "$TMP/bin/inline_chain" -v --debug-cache "$TMP/dcache" &&
			expect_leaf "inline_cache_$run" inline_chain ';leaf_hash \(' "$CHAIN"
		inodes+=" $(stat -c %i "$TMP/dcache/$BID.debug" 2>/dev/null)"
	done
	check inline_cache_copy "no inflated copy named by the build id" \
		test -s "$TMP/dcache/$BID.debug"
	check inline_cache_served "the runs did not read the copy, or the second made it again" \
		bash -c "grep -q 'DWARF of [0-9]* files ([1-9][0-9]* from the debug cache)' \
			'$TMP/inline_cache_reused.err' && [ \$(echo $inodes | tr ' ' '\n' | sort -u | wc -l) = 1 ]"
	rm -f "$DBG"
fi

# Stripped again, the debug file only on a debuginfod on the loopback: fetched, cached,
# and not looked for at all when DEBUGINFOD_URLS is unset.
if ! command -v debuginfod >/dev/null; then
	echo "SKIP inline_debuginfod: no debuginfod (Debian package debuginfod)"
else
	mkdir -p "$TMP/served"
	cp "$TMP/inline_chain.debug" "$TMP/served/"
	port=$((20000 + RANDOM % 20000))
	debuginfod -p "$port" -d "$TMP/dfd.sqlite" -F "$TMP/served" -t 0 -g 0 >"$TMP/dfd.log" 2>&1 &
	dfd=$!
	export DEBUGINFOD_CACHE_PATH=$TMP/dfd-cache
	ready=0
	# A fresh cache each try: libdebuginfod remembers a miss (before the scan) for minutes.
	for i in $(seq 100); do
		DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$TMP/probe-cache$i \
			debuginfod-find debuginfo "$BID" >/dev/null 2>&1 && { ready=1; break; }
		sleep 0.2
	done
	if [ $ready -ne 1 ]; then
		fail inline_debuginfod "the local debuginfod never served $BID: $(tail -2 "$TMP/dfd.log")"
	elif DEBUGINFOD_URLS=http://127.0.0.1:$port record inline_dfd "$TMP/bin/inline_chain" -v; then
		expect_leaf inline_dfd inline_chain ';leaf_hash \(' "$CHAIN"
		check inline_dfd_counted "the summary does not count the fetch" \
			grep -q '^  debuginfod: 1 debug files fetched' "$TMP/inline_dfd.err"
		check inline_dfd_cached "nothing in libdebuginfod's cache" \
			test -s "$DEBUGINFOD_CACHE_PATH/$BID/debuginfo"
	fi
	kill "$dfd" 2>/dev/null
	wait "$dfd" 2>/dev/null
	if record inline_dfd_off "$TMP/bin/inline_chain"; then
		check inline_dfd_off "lines without a debug file or debuginfod" \
			bash -c "! grep -q 'inline_chain.c' '$TMP/inline_dfd_off/stacks.folded'"
		check inline_dfd_off_quiet "debuginfod used without DEBUGINFOD_URLS" \
			bash -c "! grep -q 'debuginfod' '$TMP/inline_dfd_off.out'"
	fi
fi

# C++: a class template's method inlined between two noinline template functions.
if record inline_cpp "$W/inline_template"; then
	expect_leaf inline_cpp inline_template ';unsigned long churn<unsigned long>\(unsigned long\) \(' \
		'run_rounds<Mixer<unsigned long> >\(Mixer<unsigned long>&, double\) \(inline_template.cc:[0-9]+\);Mixer<unsigned long>::step\(unsigned long\) \(inline_template.cc:[0-9]+\) \[inlined\];unsigned long churn<unsigned long>\(unsigned long\) \(inline_template.cc:[0-9]+\)( |;)'
fi
# Rust: the iterator adapters and closures inlined into sum_rounds, above churn.
if [ -x "$W/inline_rust" ] && record inline_rust "$W/inline_rust"; then
	expect_leaf inline_rust inline_rust ';inline_rust::churn \(' \
		'inline_rust::sum_rounds \(inline_rust.rs:[0-9]+\);([^;]* \[inlined\];)*[^;]*core::iter[^;]* \[inlined\];([^;]* \[inlined\];)*inline_rust::sum_rounds::\{[^;]*closure[^;]*\} \(inline_rust.rs:[0-9]+\) \[inlined\];inline_rust::churn \(inline_rust.rs:[0-9]+\)( |;)'
elif [ ! -x "$W/inline_rust" ]; then
	echo "SKIP inline_rust: rustc missing"
fi
