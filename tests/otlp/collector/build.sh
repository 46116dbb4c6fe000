#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Builds ebprof-otelcol (this folder's collector) once per machine and prints the path of
# the binary. The build is kept under $EBPROF_CACHE (/var/cache/ebprof) in a folder named
# for a hash of go.mod, go.sum, the Go sources and the Go version, so a change to any of
# them builds again and an unchanged tree never does. Modules come from the Go module
# proxy, checked against go.sum. Usage: tests/otlp/collector/build.sh [-v]
set -eu

here=$(cd "$(dirname "$0")" && pwd)
cache=${EBPROF_CACHE:-/var/cache/ebprof}/otelcol
verbose=${1:-}

# go_version GO: its version as MAJOR*1000+MINOR (go1.26.8 -> 1026), 0 when unusable.
go_version() {
	"$1" env GOVERSION 2>/dev/null | sed -nE 's/^go([0-9]+)\.([0-9]+).*/\1 \2/p' |
		awk '{ print $1 * 1000 + $2 }' | grep . || echo 0
}

# The Go that go.mod asks for, as above, and as written there (go 1.26.0).
want_text=$(sed -nE 's/^go ([0-9.]+)$/\1/p' "$here/go.mod")
want=$(echo "$want_text" | awk -F. '{ print $1 * 1000 + $2 }')

# A Go new enough: the one on PATH, else the machine image's /usr/local/go (Debian's
# golang-go is older than the collector's modules allow). With only a Go from 1.21 on
# but older, the go command fetches go$want_text from the module proxy (GOTOOLCHAIN).
go=
toolchain=local
for g in "$(command -v go 2>/dev/null || true)" /usr/local/go/bin/go; do
	[ -n "$g" ] && [ -x "$g" ] || continue
	v=$(go_version "$g")
	if [ "$v" -ge "$want" ]; then
		go=$g toolchain=local
		break
	fi
	if [ "$v" -ge 1021 ] && [ -z "$go" ]; then
		go=$g toolchain=go$want_text
	fi
done
if [ -z "$go" ]; then
	echo "ebprof-otelcol: no Go >= 1.21 found (need $want_text, or 1.21+ to fetch it)" >&2
	exit 1
fi

key=$({
	cat "$here/go.mod" "$here/go.sum" "$here"/*.go
	echo "$toolchain $(GOTOOLCHAIN=$toolchain "$go" env GOVERSION GOOS GOARCH)"
} | sha256sum | cut -c1-16)
bin=$cache/$key/ebprof-otelcol
if [ -x "$bin" ]; then
	echo "$bin"
	exit 0
fi

mkdir -p "$cache"
# One build at a time (install-deps.sh and a test may both ask); the second one waits
# and then finds the binary.
exec 9>"$cache/.lock"
flock 9
if [ ! -x "$bin" ]; then
	rm -rf "$cache/$key.tmp"
	mkdir -p "$cache/$key.tmp"
	start=$(date +%s)
	[ -n "$verbose" ] && echo "ebprof-otelcol: building with $go ($toolchain) into $bin" >&2
	(cd "$here" && GOTOOLCHAIN=$toolchain GOFLAGS="-mod=readonly -buildvcs=false" CGO_ENABLED=0 \
		"$go" build -trimpath -ldflags='-s -w' -o "$cache/$key.tmp/ebprof-otelcol" .) \
		>"$cache/$key.log" 2>&1 || {
		cat "$cache/$key.log" >&2
		echo "ebprof-otelcol: the build failed (log: $cache/$key.log)" >&2
		exit 1
	}
	mv "$cache/$key.tmp" "$cache/$key"
	# Builds of other trees are not needed any more (34 MB each).
	find "$cache" -mindepth 1 -maxdepth 1 ! -name "$key" ! -name "$key.log" ! -name .lock \
		-exec rm -rf {} +
	[ -n "$verbose" ] && echo "ebprof-otelcol: built in $(($(date +%s) - start)) s" >&2
fi
echo "$bin"
