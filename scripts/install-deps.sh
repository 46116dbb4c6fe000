#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs ebprof's build and test dependencies from Debian's packages when missing.
# Usage: scripts/install-deps.sh [build|test]   (test also installs what the suite needs)
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
	qemu-system-x86 busybox-static cpio xz-utils)

want=("${build_pkgs[@]}")
[ "${1:-build}" = test ] && want+=("${test_pkgs[@]}")

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
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The runtimes the kernel tests profile (each runtime's src/interp/NAME/packages.list):
# one minimal Debian root per suite under /var/cache/ebprof/, made once and kept.
if [ "${1:-build}" = test ]; then
	"$(dirname "$0")/runtimes.sh"
fi

# The kernels of the test matrix (tests/run.sh's vm-* entries, make test-kernels).
if [ "${1:-build}" = test ]; then
	for k in $("$(dirname "$0")/kernels.sh" list); do
		"$(dirname "$0")/kernels.sh" fetch "$k" >/dev/null
	done
fi

# The OpenTelemetry Collector that tests/kernel/collector.sh runs, built from the
# collector's Go modules (the Go module proxy) by the Go the machine carries, once per
# machine: tests/otlp/collector/build.sh keeps it under /var/cache/ebprof/otelcol.
# A failed build fails that test alone, not every other one.
if [ "${1:-build}" = test ] && ! "$(dirname "$0")/../tests/otlp/collector/build.sh" -v >/dev/null; then
	echo "ebprof: warning: the collector did not build; tests/kernel/collector.sh will fail" >&2
fi
# Go toolchains for the Go tests: bookworm-backports' 1.21-1.23 and the module proxy's.
if [ "${1:-build}" = test ]; then
	"$(dirname "$0")/install-go.sh"
fi
