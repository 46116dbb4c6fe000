#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Go toolchains the Go tests build their workloads with: Debian's golang-go
# (1.19 on bookworm), golang-1.21/1.22/1.23 from bookworm-backports, and two toolchains
# from the Go module proxy (1.24, and the newest release when this was written), and the
# pprof tool of the go on PATH.
# Called by scripts/install-deps.sh test; root only. Usage: scripts/install-go.sh
set -euo pipefail

# The proxy's toolchains, kept in a module cache of our own (tests/workloads/go/build.sh
# finds them there). GO_NEWEST was the newest release the proxy served; bump it here.
GO_PROXY_TOOLCHAINS=(go1.24.13 go1.27.4)
cache=${EBPROF_GO_CACHE:-/var/cache/ebprof/go}
backports=(golang-1.21-go golang-1.22-go golang-1.23-go)

codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")

has_candidate() { # has_candidate PKG: apt knows an installable version
	apt-cache policy "$1" 2>/dev/null |
		awk '$1 == "Candidate:" && $2 != "(none)" { ok = 1 } END { exit !ok }'
}

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# bookworm-backports, in the format and from the mirror apt already uses.
add_backports() {
	local mirror list=/etc/apt/sources.list.d/ebprof-bookworm-backports.sources
	[ -f "$list" ] && return 0
	mirror=$(awk '$1 == "URIs:" { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -v security | head -1 || true)
	[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' \
		/etc/apt/sources.list 2>/dev/null || true)
	[ -n "$mirror" ] || return 1
	printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\n' "$mirror" \
		>"$list"
	printf 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' >>"$list"
	apt-get -o DPkg::Lock::Timeout=600 update -qq
}

install_backports() {
	local missing=() p
	[ "$codename" = bookworm ] || return 0
	for p in "${backports[@]}"; do
		installed "$p" || missing+=("$p")
	done
	[ ${#missing[@]} -gt 0 ] || return 0
	has_candidate "${missing[0]}" || add_backports ||
		{ echo "ebprof: cannot add bookworm-backports for ${missing[*]}" >&2; return 1; }
	echo "ebprof: installing ${missing[*]} (bookworm-backports)" >&2
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
		--no-install-recommends \
		-t bookworm-backports "${missing[@]}" >/dev/null
}

# A go that knows GOTOOLCHAIN (1.21+) fetches the others from the module proxy.
install_proxy_toolchains() {
	local go="" g v
	for g in /usr/lib/go-1.2[1-9]/bin/go /usr/lib/go/bin/go; do
		[ -x "$g" ] && "$g" env GOTOOLCHAIN >/dev/null 2>&1 &&
			[ -n "$("$g" env GOTOOLCHAIN)" ] && go=$g
	done
	[ -n "$go" ] || { echo "ebprof: no go >= 1.21 to fetch toolchains with" >&2; return 1; }
	mkdir -p "$cache"
	for v in "${GO_PROXY_TOOLCHAINS[@]}"; do
		[ -x "$cache/mod/golang.org/toolchain@v0.0.1-$v.linux-amd64/bin/go" ] && continue
		echo "ebprof: fetching the $v toolchain from the Go module proxy" >&2
		(cd "$cache" && GOMODCACHE="$cache/mod" GOPATH="$cache/path" GOFLAGS=-modcacherw \
			GOTOOLCHAIN="$v" "$go" version >/dev/null)
	done
}

# `go tool pprof`, which the tests run and Go 1.24 on builds on first use, built once into
# the machine's Go build cache (tests/run.sh points the tests there: EBPROF_GOCACHE).
build_pprof() {
	command -v go >/dev/null || return 0
	mkdir -p "$cache/build-cache"
	GOCACHE="$cache/build-cache" GOTOOLCHAIN=local go tool pprof -h >/dev/null 2>&1 || true
}

install_backports
install_proxy_toolchains
build_pprof
