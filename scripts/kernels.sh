#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The kernels of the test matrix: Debian's cloud kernel packages of bullseye (5.10),
# bookworm (6.1) and bookworm-backports (6.12), fetched with apt through a private
# configuration (the host's own sources stay untouched) and unpacked once under
# /var/cache/ebprof/kernels/VERSION/ (vmlinuz, lib/modules/RELEASE/, release); arm64's
# under /var/cache/ebprof/kernels/arm64/VERSION/, with its BTF (vmlinux.btf) cut out of
# the image for the cross build's vmlinux.h.
# Usage: scripts/kernels.sh list [ARCH]            the matrix's versions, one a line
#        scripts/kernels.sh fetch VERSION [ARCH]   prints the unpacked kernel's directory
#        scripts/kernels.sh btf VERSION ARCH       prints the path of the kernel's BTF
#   ARCH: amd64 (the default) or arm64, as Debian names them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cache=${EBPROF_KERNEL_CACHE:-/var/cache/ebprof/kernels}
declare -A suite=([5.10]=bullseye [6.1]=bookworm [6.12]=bookworm-backports)
declare -A matrix=([amd64]="5.10 6.1 6.12" [arm64]="6.1")

die() {
	echo "ebprof: kernels: $*" >&2
	exit 1
}

# apt_dir SUITE ARCH: the private apt state of SUITE for ARCH (amd64's where it always was).
apt_dir() { [ "$2" = amd64 ] && echo "$cache/apt/$1" || echo "$cache/apt/$1-$2"; }

# apt_private SUITE ARCH ARGS...: apt-get or apt-cache (first of ARGS) with sources, lists
# and package cache of its own for SUITE and ARCH; the host's apt.conf.d (proxies) still
# applies.
apt_private() {
	local s=$1 a=$2 tool=$3 dir
	dir=$(apt_dir "$1" "$2")
	shift 3
	"$tool" -o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State="$dir/state" -o Dir::State::status="$dir/state/status" \
		-o Dir::Cache="$dir/cache" -o APT::Architecture="$a" \
		-o APT::Architectures="$a" "$@"
}

apt_setup() { # apt_setup SUITE ARCH: writes the private sources and reads the suite's lists
	local s=$1 dir mirror
	dir=$(apt_dir "$1" "$2")
	mirror=$(apt_mirror)
	[ -n "$mirror" ] || die "no Debian archive in this host's apt sources"
	mkdir -p "$dir/state/lists/partial" "$dir/cache/archives/partial"
	: >"$dir/state/status"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $s main" \
		>"$dir/sources.list"
	apt_private "$s" "$2" apt-get -qq update >&2 || die "apt-get update of $s ($2) failed"
}

# image_package SUITE ARCH: the versioned image package the suite's cloud metapackage names.
image_package() {
	apt_private "$1" "$2" apt-cache depends "linux-image-cloud-$2" |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}

kernel_dir() { [ "$2" = amd64 ] && echo "$cache/$1" || echo "$cache/$2/$1"; }

fetch() { # fetch VERSION ARCH: unpacks the kernel once, prints its directory
	local v=$1 a=$2 s=${suite[$1]:-} dest pkg release
	dest=$(kernel_dir "$v" "$a")
	[ -n "${matrix[$a]:-}" ] || die "unknown architecture '$a' (amd64 or arm64)"
	[ -n "$s" ] || die "unknown kernel '$v' (the matrix has: ${!suite[*]})"
	if [ -s "$dest/release" ] && [ -f "$dest/vmlinuz" ]; then
		echo "$dest"
		return
	fi
	[ "$(id -u)" -eq 0 ] || die "$dest is missing; run as root to fetch it"
	apt_setup "$s" "$a"
	pkg=$(image_package "$s" "$a")
	[ -n "$pkg" ] || die "no linux-image-cloud-$a in $s"
	work=$(mktemp -d "$cache/.fetch.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	# apt downloads as its sandbox user when there is one: let it write here.
	id _apt >/dev/null 2>&1 && chown _apt "$work"
	echo "ebprof: fetching $pkg ($s) into $dest" >&2
	(cd "$work" && apt_private "$s" "$a" apt-get -qq download "$pkg") >&2 ||
		die "apt-get download $pkg failed"
	dpkg-deb -x "$work"/*.deb "$work/root"
	release=$(ls "$work/root/lib/modules")
	mv "$work/root/boot/vmlinuz-$release" "$work/root/vmlinuz"
	echo "$release" >"$work/root/release"
	rm -rf "$dest"
	mkdir -p "$(dirname "$dest")"
	mv "$work/root" "$dest"
	echo "$dest"
}

# btf VERSION ARCH: the kernel's BTF as a file of its own (bpftool reads raw BTF), cut once
# out of the image: the .BTF section's bytes lie in it whole, from their header (magic
# 0xeb9f, version 1, a 24-byte header) to the end of the string section it gives.
btf() {
	local dir out img off hdr
	dir=$(fetch "$1" "$2") || exit 1
	out=$dir/vmlinux.btf
	if [ -s "$out" ]; then
		echo "$out"
		return
	fi
	img=$(mktemp)
	# An arm64 vmlinuz is a gzipped Image; an x86 bzImage holds its payload compressed
	# inside (extract-vmlinux's work, not needed here: x86 builds read the running BTF).
	gzip -dc "$dir/vmlinuz" >"$img" 2>/dev/null || cp "$dir/vmlinuz" "$img"
	for off in $(LC_ALL=C grep -obUaP '\x9f\xeb\x01\x00\x18\x00\x00\x00' "$img" | cut -d: -f1); do
		# hdr: magic+version+flags, hdr_len, type_off, type_len, str_off, str_len; the
		# kernel's strings follow its types.
		read -r -a hdr < <(od -An -tu4 -w24 -j "$off" -N 24 "$img")
		[ "${hdr[2]}" = 0 ] && [ "${hdr[4]}" = "${hdr[3]}" ] || continue
		dd if="$img" of="$out.tmp" bs=64K iflag=skip_bytes,count_bytes skip="$off" \
			count=$((24 + hdr[4] + hdr[5])) status=none
		if bpftool btf dump file "$out.tmp" >/dev/null 2>&1; then
			mv "$out.tmp" "$out"
			break
		fi
	done
	rm -f "$img" "$out.tmp"
	[ -s "$out" ] || die "no BTF found in $dir/vmlinuz"
	echo "$out"
}

arch=amd64
case "${1:-}" in
list) printf '%s\n' ${matrix[${2:-amd64}]:?unknown architecture ${2:-}} ;;
fetch) fetch "${2:?usage: scripts/kernels.sh fetch VERSION [ARCH]}" "${3:-$arch}" ;;
btf) btf "${2:?usage: scripts/kernels.sh btf VERSION ARCH}" "${3:-$arch}" ;;
*) die "usage: scripts/kernels.sh list [ARCH] | fetch VERSION [ARCH] | btf VERSION ARCH" ;;
esac
