#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The kernels of the test matrix: Debian's cloud kernel packages of bullseye (5.10),
# bookworm (6.1) and bookworm-backports (6.12), fetched with apt through a private
# configuration (the host's own sources stay untouched) and unpacked once under
# /var/cache/ebprof/kernels/VERSION/ (vmlinuz, lib/modules/RELEASE/, release).
# Usage: scripts/kernels.sh list            the matrix's versions, one a line
#        scripts/kernels.sh fetch VERSION   prints the unpacked kernel's directory
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cache=${EBPROF_KERNEL_CACHE:-/var/cache/ebprof/kernels}
declare -A suite=([5.10]=bullseye [6.1]=bookworm [6.12]=bookworm-backports)
matrix="5.10 6.1 6.12"

die() {
	echo "ebprof: kernels: $*" >&2
	exit 1
}

# apt_private SUITE ARGS...: apt-get or apt-cache (first of ARGS) with sources, lists and
# package cache of its own for SUITE; the host's apt.conf.d (proxies) still applies.
apt_private() {
	local s=$1 tool=$2 dir=$cache/apt/$1
	shift 2
	"$tool" -o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State="$dir/state" -o Dir::State::status="$dir/state/status" \
		-o Dir::Cache="$dir/cache" -o APT::Architecture=amd64 \
		-o APT::Architectures=amd64 "$@"
}

apt_setup() { # apt_setup SUITE: writes the private sources and reads the suite's lists
	local s=$1 dir=$cache/apt/$1 mirror
	mirror=$(apt_mirror)
	[ -n "$mirror" ] || die "no Debian archive in this host's apt sources"
	mkdir -p "$dir/state/lists/partial" "$dir/cache/archives/partial"
	: >"$dir/state/status"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $s main" \
		>"$dir/sources.list"
	apt_private "$s" apt-get -qq update >&2 || die "apt-get update of $s failed"
}

# image_package SUITE: the versioned image package the suite's cloud metapackage names.
image_package() {
	apt_private "$1" apt-cache depends linux-image-cloud-amd64 |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}

fetch() { # fetch VERSION: unpacks the kernel once, prints its directory
	local v=$1 s=${suite[$1]:-} dest=$cache/$1 pkg release
	[ -n "$s" ] || die "unknown kernel '$v' (the matrix has: $matrix)"
	if [ -s "$dest/release" ] && [ -f "$dest/vmlinuz" ]; then
		echo "$dest"
		return
	fi
	[ "$(id -u)" -eq 0 ] || die "$dest is missing; run as root to fetch it"
	apt_setup "$s"
	pkg=$(image_package "$s")
	[ -n "$pkg" ] || die "no linux-image-cloud-amd64 in $s"
	work=$(mktemp -d "$cache/.fetch.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	# apt downloads as its sandbox user when there is one: let it write here.
	id _apt >/dev/null 2>&1 && chown _apt "$work"
	echo "ebprof: fetching $pkg ($s) into $dest" >&2
	(cd "$work" && apt_private "$s" apt-get -qq download "$pkg") >&2 ||
		die "apt-get download $pkg failed"
	dpkg-deb -x "$work"/*.deb "$work/root"
	release=$(ls "$work/root/lib/modules")
	mv "$work/root/boot/vmlinuz-$release" "$work/root/vmlinuz"
	echo "$release" >"$work/root/release"
	rm -rf "$dest"
	mv "$work/root" "$dest"
	echo "$dest"
}

case "${1:-}" in
list) printf '%s\n' $matrix ;;
fetch) fetch "${2:?usage: scripts/kernels.sh fetch VERSION}" ;;
*) die "usage: scripts/kernels.sh list | fetch VERSION" ;;
esac
