#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of the .NET walker: (1) the verified instructions and verification time of
# every program of a CPU sample's chain, with the .NET walker and without it
# (EBPROF_RUNTIMES=none: the native walker alone, following rbp through managed code);
# (2) the BPF cost of one sample of a CoreCLR process whose C# stack is DEPTH frames deep
# (bench/dotnet/Deep.cs), with and without the .NET walker, each with bpf_loop and unrolled
# as on kernels before 5.17 (EBPROF_KERNEL_LACKS=bpf_loop), all in one run
# (bench/walker_lib.sh). The runtime is scripts/install-dotnet.sh's. Run as root:
#   sudo bench/dotnet.sh                     # about 6 minutes
#   sudo DNBENCH_REPEAT=1 bench/dotnet.sh    # quick check
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NAME=dotnet
SECS=${DNBENCH_SECONDS:-10}    # each recording of part 2
REPEAT=${DNBENCH_REPEAT:-3}    # repeats (medians)
DEPTHS=${DNBENCH_DEPTHS:-1 50} # C# frames of Deep's stack
WARM=5                         # tables built, the process described, tier-1 code in
NET=${DNBENCH_DOTNET:-/var/cache/ebprof/dotnet/dotnet}
NAMED_RE='Deep\.Spin/1 \('
DEPTH_LABEL="C# depth"
. "$ROOT/bench/walker_lib.sh"
[ -x "$NET/dotnet" ] || die "no $NET/dotnet (scripts/install-dotnet.sh)"
command -v mcs >/dev/null || die "mcs is missing (mono-mcs)"
WORKLOAD=("$NET/dotnet" "$TMP/Deep.exe")

make -s -C "$ROOT" all >"$TMP/build.log" 2>&1 || die "make failed: $(tail -3 "$TMP/build.log")"
mcs -optimize+ -out:"$TMP/Deep.exe" "$ROOT/bench/dotnet/Deep.cs" >/dev/null || die "mcs failed"
printf '%s\n' '{"runtimeOptions": {"framework": {"name": "Microsoft.NETCore.App",' \
	'"version": "8.0.0"}, "rollForward": "LatestMajor"}}' >"$TMP/Deep.runtimeconfig.json"
declare -A BIN=([dotnet]=$ROOT/build/ebprof [native]=$ROOT/build/ebprof)
declare -A ENVS=([dotnet]=EBPROF_RUNTIMES=dotnet [native]=EBPROF_RUNTIMES=none)
ARMS="native dotnet"
bench_unrolled native dotnet # the walkers of kernels without bpf_loop

arm_name() {
	case $1 in
	native) echo "native walker alone" ;;
	dotnet) echo "native + .NET walker" ;;
	esac
}

bench_verify_running 1 120
bench_cost
