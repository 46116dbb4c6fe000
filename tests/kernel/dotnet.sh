#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# .NET (CoreCLR 8, scripts/install-dotnet.sh) from the outside: no DOTNET_PerfMapEnabled,
# no agent. tests/workloads/dotnet/Chain.cs, compiled by mcs, runs its workloads together
# under one recording: Outer -> Middle -> Leaf four ways (tiered compilation's way, tier-0
# code only, fully optimized code only: frameless small methods; W^X off: the JIT's code in
# anonymous memory, not the memfd's double mapping), Array.Sort with a managed
# comparer (CoreLib's code between C# frames), libc's qsort called by P/Invoke with a C#
# comparer (managed, libc, managed again), two threads. Each asserts that >= 90 % of the
# samples reaching its leaf carry the whole chain from the process's first frame (main,
# or start_thread). The runtime is said once with its version; a runtime whose folder says
# another major version (a hard-linked copy named 9.0.0) is said once to be untested, its
# frames walked all the same. The tier-0 chain again with the walker of kernels without
# bpf_loop. pprof keeps the chain apart, frame by frame, and the flame graph names the leaf;
# `ebprof agent` sends the chain as OTLP frames of type dotnet. No runtime or no mcs: a SKIP.
. "$(dirname "$0")/lib.sh"

WL=tests/workloads/dotnet
NET=${EBPROF_DOTNET:-/var/cache/ebprof/dotnet/dotnet}
SECS=$(secs "${DOTNET_TEST_SECONDS:-8}")
if [ ! -x "$NET/dotnet" ]; then
	echo "SKIP dotnet: no $NET/dotnet (scripts/install-deps.sh test installs it)"
	exit 0
fi
if ! command -v mcs >/dev/null; then
	echo "SKIP dotnet: no mcs (scripts/install-deps.sh test installs mono-mcs)"
	exit 0
fi
# The program, and the runtimeconfig.json that runs it on CoreCLR (any 8.0 or later).
mcs -optimize+ -out:"$TMP/Chain.exe" "$WL/Chain.cs" >"$TMP/mcs.log" 2>&1 || {
	fail dotnet_build "mcs failed: $(head -3 "$TMP/mcs.log" | tr '\n' ' ')"
	exit 0
}
printf '%s\n' '{"runtimeOptions": {"framework": {"name": "Microsoft.NETCore.App",' \
	'"version": "8.0.0"}, "rollForward": "LatestMajor"}}' >"$TMP/Chain.runtimeconfig.json"
# A runtime whose folder names another version: hard links to the same files but for
# libcoreclr.so, a copy (ebprof knows a file by its inode: a link would be the 8's).
NET9=$TMP/net9
R9=$NET9/shared/Microsoft.NETCore.App/9.0.0
cp -al "$(readlink -f "$NET")" "$NET9" 2>/dev/null &&
	mv "$NET9"/shared/Microsoft.NETCore.App/8.* "$R9" &&
	cp "$R9/libcoreclr.so" "$R9/libcoreclr.so.copy" &&
	mv "$R9/libcoreclr.so.copy" "$R9/libcoreclr.so" || {
	echo "SKIP dotnet_untested: no hard-linked copy of $NET under $TMP (another file system?)"
	NET9=
}

batch_new
batch_add chain "" "$NET/dotnet" "$TMP/Chain.exe" chain "$SECS"
batch_add tier0 "" env DOTNET_TC_CallCounting=0 DOTNET_TC_OnStackReplacement=0 \
	"$NET/dotnet" "$TMP/Chain.exe" chain "$SECS"
batch_add tier1 "" env DOTNET_TieredCompilation=0 "$NET/dotnet" "$TMP/Chain.exe" chain "$SECS"
batch_add wxoff "" env DOTNET_EnableWriteXorExecute=0 "$NET/dotnet" "$TMP/Chain.exe" chain "$SECS"
batch_add sort "" "$NET/dotnet" "$TMP/Chain.exe" sort "$SECS"
batch_add qsort "" "$NET/dotnet" "$TMP/Chain.exe" qsort "$SECS"
batch_add threads "" "$NET/dotnet" "$TMP/Chain.exe" threads "$SECS"
[ -n "$NET9" ] && batch_add net9 "" "$NET9/dotnet" "$TMP/Chain.exe" chain 2
batch_record dotnet_record '^  dotnet:' || exit 0

said=$(grep -cE "^ebprof: dotnet: .*/8\.0\.[0-9]+/libcoreclr\.so is \.NET 8\.0\.[0-9]+ \(CoreCLR 8\.0\.[0-9.]+, pid [0-9]+\)$" "$BATCH/stderr")
check dotnet_discovery "ebprof said $said times that a CoreCLR 8 runs, want 1" test "$said" -eq 1
if [ -n "$NET9" ]; then
	said=$(grep -cE "^ebprof: warning: dotnet: $NET9/.*/libcoreclr\.so is \.NET 9\.0\.0 .*not tested" "$BATCH/stderr")
	check dotnet_untested "ebprof said $said times that .NET 9.0.0 is not tested, want 1" \
		test "$said" -eq 1
fi

C='Ebprof\.Workload\.Chain'
M=' \(Chain\.exe\)'
CORELIB=' \(System\.Private\.CoreLib\.dll\)'
# From the process's first frame through the host and the runtime to Main.
ROOT="^[^;]*;.*__libc_start_call_main[^;]*;.*;coreclr_execute_assembly;([^;]*;)*$C\.Main/1$M"
LEAF='(;[^;]*_\[k\])* [0-9]+$' # kernel frames may follow the leaf (an interrupt)
# Samples before the walker was in, or of a process not described yet: the JIT's code
# unnamed (a few hundred milliseconds of each start).
EXPECT_IGNORE='memfd:doublemapper|\[\.NET JIT code\]|\[unknown\]'
chain="$ROOT;$C\.ChainLoop/0$M;$C\.Outer/1$M;$C\.Middle/1$M;$C\.Leaf/1$M$LEAF"
for w in chain tier0 tier1 wxoff; do
	f=$(batch_stacks $w)
	echo "dotnet_$w: $(grep -E "$EXPECT_IGNORE" "$f" | awk '{ s += $NF } END { print s + 0 }') of" \
		"$(awk '{ s += $NF } END { print s + 0 }' "$f") samples not counted (not yet described)" >&2
	expect "dotnet_$w" "$(batch_stacks $w)" "Main -> ChainLoop -> Outer -> Middle -> Leaf from main" \
		"$chain" ";$C\.Leaf/1 " 100
done
# CoreLib's sort runs its ready-to-run code (generic instantiations over int) until
# tiered compilation replaces it: named either way.
expect dotnet_sort "$(batch_stacks sort)" "SortLoop -> Array.Sort -> CoreLib's sort -> Descending.Compare" \
	"$ROOT;$C\.SortLoop/0$M;System\.Array\.Sort/[0-9]+$CORELIB(;System\.Collections\.Generic\.[^;]*$CORELIB)+;$C\+Descending\.Compare/2$M$LEAF" \
	";$C\+Descending\.Compare/2 " 100
expect dotnet_pinvoke "$(batch_stacks qsort)" "QsortLoop -> libc's qsort -> the IL stub -> ByteCompare" \
	"$ROOT;$C\.QsortLoop/0$M;([^;]*;)*__qsort_r[^;]*;(msort_with_tmp[^;]*;)+\[\.NET stub: IL stub\];$C\.ByteCompare/2$M(;[^;]*)* [0-9]+$" \
	";$C\.ByteCompare/2 " 100
for t in A B; do
	expect "dotnet_thread_$t" "$(batch_stacks threads)" "start_thread -> Thread$t -> Spin$t -> Leaf" \
		"^[^;]*;([^;]*;)*start_thread[^;]*;([^;]*;)*$C\.Thread$t/0$M;$C\.Spin$t/1$M;$C\.Leaf/1$M$LEAF" \
		";$C\.Spin$t/1 " 50
done
if [ -n "$NET9" ]; then
	# No layout for 9: its frames are walked, named by where their code lies.
	n=$(grep -cE "coreclr_execute_assembly;([^;]*;)*\[\.NET JIT code\];\[\.NET JIT code\];\[\.NET JIT code\]" "$(batch_stacks net9)")
	check dotnet_untested_walked "no stack of the .NET 9.0.0 process walked through 3 JIT frames" \
		test "$n" -gt 0
fi

# The walker of kernels without bpf_loop (before 5.17), which scans no stack window: the
# chain of tier-0 code, where every method has its rbp frame.
if case_selected dotnet_unrolled; then
	OUT=$TMP/unrolled
	EBPROF_KERNEL_LACKS=bpf_loop "$EBPROF" record -F 199 -o "$OUT" -- env DOTNET_TC_CallCounting=0 \
		DOTNET_TC_OnStackReplacement=0 "$NET/dotnet" "$TMP/Chain.exe" chain "$(secs 5)" \
		>"$OUT.stdout" 2>"$OUT.stderr"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail dotnet_unrolled "record failed, $(how_ended "$rc" "$OUT.stderr")"
	else
		expect dotnet_unrolled "$OUT/stacks.folded" "the tier-0 chain, walked without bpf_loop" \
			"$chain" ";$C\.Leaf/1 " 100
	fi
fi

# pprof: the chain's frames are functions of their own, innermost first in a trace.
if command -v go >/dev/null; then
	HOME=$TMP GOCACHE=$GO_TOOL_CACHE PPROF_TMPDIR=$TMP GOTOOLCHAIN=local GOPROXY=off \
		go tool pprof -symbolize=none -traces "$BATCH/out/profile.pb.gz" >"$TMP/traces" 2>&1
	n=$(awk '/Chain\.Leaf\/1$/ { l = NR } /Chain\.Middle\/1$/ && NR == l + 1 { m = NR }
		/Chain\.Outer\/1$/ && NR == m + 1 && m { n++ } END { print n + 0 }' "$TMP/traces")
	check dotnet_pprof "no pprof trace holds Leaf, Middle, Outer in a row: $(grep -m3 Chain "$TMP/traces" | tr '\n' ' ')" \
		test "$n" -gt 0
else
	echo "SKIP dotnet_pprof: no go to run go tool pprof"
fi

# The flame graph of the same recording names the managed leaf too.
check dotnet_flamegraph "the flame graph lacks Chain.Leaf/1" \
	grep -q 'Chain\.Leaf/1' "$BATCH/out/flamegraph.html"

# `ebprof agent` sends the chain over OTLP as frames of type dotnet.
"$NET/dotnet" "$TMP/Chain.exe" chain 30 >/dev/null 2>&1 &
pid=$!
sleep 2
n=Ebprof.Workload.Chain
agent_sends dotnet_otlp "$pid" dotnet "$n.Leaf/1" "$n.Middle/1" "$n.Outer/1" "$n.ChainLoop/0"
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null || true
