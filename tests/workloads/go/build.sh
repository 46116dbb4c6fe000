#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the Go workloads (chain, cgo) with every Go toolchain scripts/install-go.sh
# installed, plain and stripped (-ldflags=-s -w), once per toolchain and source: later runs
# reuse them. Prints one line per toolchain: "VERSION DIR GO" (GOVERSION, the directory
# holding chain, chain.stripped, cgo, cgo.stripped, and that toolchain's go).
# Usage: tests/workloads/go/build.sh [OUTDIR]      (default: $BUILD/go, BUILD=build)
#        EBPROF_GO_VERSIONS='go1.19 go1.23' tests/workloads/go/build.sh   (only those)
set -euo pipefail
src=$(cd "$(dirname "$0")" && pwd)
out=${1:-${BUILD:-build}/go}
mkdir -p "$out" && out=$(cd "$out" && pwd)
cache=${EBPROF_GO_CACHE:-/var/cache/ebprof/go}
# The machine's Go build cache (content-addressed, safe to share): a fresh checkout links
# the workloads instead of compiling six toolchains' standard libraries again. Without
# the right to write there, one of the checkout's own.
gocache=$cache/build-cache
mkdir -p "$gocache" 2>/dev/null && [ -w "$gocache" ] || gocache=$out/cache
# One build at a time: the unit and the kernel tests both ask, side by side.
exec 9>"$out/.lock"
flock 9

# Debian's toolchains, then the module proxy's (in install-go.sh's module cache).
toolchains() {
	local g
	for g in /usr/lib/go-1.*/bin/go "$cache"/mod/golang.org/toolchain@v0.0.1-go*.linux-amd64/bin/go; do
		[ -x "$g" ] && echo "$g"
	done
}

# build GO VERSION DIR: (re)builds DIR's binaries when the sources or the toolchain changed.
build() {
	local go=$1 v=$2 dir=$3 stamp p
	stamp=$( (echo "$go"; cat "$src"/chain/* "$src"/cgo/* "$0") | sha256sum | cut -c1-16)
	[ -f "$dir/stamp" ] && [ "$(cat "$dir/stamp")" = "$stamp" ] && return 0
	mkdir -p "$dir"
	for p in chain cgo; do
		(cd "$src/$p" &&
			export GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=mod GOCACHE="$gocache" \
				CGO_ENABLED=$([ $p = cgo ] && echo 1 || echo 0) &&
			"$go" build -o "$dir/$p" . &&
			"$go" build -ldflags='-s -w' -o "$dir/$p.stripped" .) >"$dir/build.log" 2>&1 ||
			{ echo "go workloads: $v failed to build $p, see $dir/build.log" >&2; return 1; }
	done
	echo "$stamp" >"$dir/stamp"
}

seen=" "
for go in $(toolchains); do
	v=$("$go" env GOVERSION 2>/dev/null) || continue
	case "$seen" in *" $v "*) continue ;; esac
	seen="$seen$v "
	if [ -n "${EBPROF_GO_VERSIONS:-}" ]; then
		case " $EBPROF_GO_VERSIONS " in *" ${v%.*} "* | *" $v "*) ;; *) continue ;; esac
	fi
	build "$go" "$v" "$out/$v" && echo "$v $(cd "$out/$v" && pwd) $go"
done
