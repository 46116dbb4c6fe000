#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The root file system of the arm64 guest (scripts/vm.sh --arch arm64): Debian bookworm
# for arm64 with what the tests run there (ebprof's libraries, bpftool, Debian's python3
# and nodejs, busybox for the guest's initramfs), made once under
# /var/cache/ebprof/arm64/root and kept. This x86-64 host cannot run arm64 programs
# (binfmt_misc is not mounted), so nothing of the root runs here: debootstrap --foreign
# fetches the packages and unpacks the base, every other package is unpacked too, and the
# few files maintainer scripts would have made are written here. The guest only runs
# programs from it, read-only under an overlay; it never installs anything.
# Usage: scripts/arm64-root.sh          (as root; prints the root's directory)
#        EBPROF_ARM64_ROOT=DIR changes where it lives (scripts/vm.sh reads the same).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

root=${EBPROF_ARM64_ROOT:-/var/cache/ebprof/arm64/root}
suite=bookworm
# Bump when the list changes: a root made from another list is made again.
pkgs="python3 nodejs bpftool libbpf1 libelf1 libdw1 zlib1g libprotobuf-c1 libstdc++6
	busybox-static procps libc6-dbg"
stamp=$(echo "$suite" $pkgs | md5sum | cut -c1-12)

die() {
	echo "ebprof: arm64 root: $*" >&2
	exit 1
}

if [ -f "$root/.ebprof-root" ] && [ "$(cat "$root/.ebprof-root")" = "$stamp" ]; then
	echo "$root"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "$root is missing; run as root to make it"
command -v debootstrap >/dev/null || die "debootstrap is missing: scripts/install-deps.sh test"
mirror=$(apt_mirror)
[ -n "$mirror" ] || die "no Debian archive in this host's apt sources"

# fixups DIR: what the skipped maintainer scripts would have left that the tests need.
fixups() {
	local d=$1
	# base-passwd's postinst writes the account files from its masters.
	[ -s "$d/etc/passwd" ] || cp "$d/usr/share/base-passwd/passwd.master" "$d/etc/passwd"
	[ -s "$d/etc/group" ] || cp "$d/usr/share/base-passwd/group.master" "$d/etc/group"
	# update-alternatives' links: awk (mawk).
	[ -e "$d/usr/bin/awk" ] || ln -s mawk "$d/usr/bin/awk"
	# Debian's multiarch library directories, for an ld.so without its cache.
	echo /usr/lib/aarch64-linux-gnu >"$d/etc/ld.so.conf.d/aarch64-linux-gnu.conf"
	mkdir -p "$d/tmp" "$d/proc" "$d/sys" "$d/dev" "$d/run"
	chmod 1777 "$d/tmp"
}

start=$(date +%s)
work=$root.tmp
rm -rf "$work"
mkdir -p "$(dirname "$root")"
echo "ebprof: making $root (debootstrap --foreign arm64 $suite, unpacked)" >&2
debootstrap --foreign --arch=arm64 --variant=minbase --include="$(echo $pkgs | tr ' ' ,)" \
	"$suite" "$work" "$mirror" >"$root.log" 2>&1 || die "debootstrap failed, see $root.log"
# The first stage unpacked the base; the packages it only fetched are unpacked now.
for deb in "$work"/var/cache/apt/archives/*.deb; do
	dpkg-deb -x "$deb" "$work" || die "cannot unpack $deb"
done
fixups "$work"
rm -rf "$work/debootstrap" "$work"/var/cache/apt/archives/*.deb
echo "$stamp" >"$work/.ebprof-root"
rm -rf "$root"
mv "$work" "$root"
echo "ebprof: $root made in $(($(date +%s) - start)) s, $(du -sh "$root" | cut -f1)" >&2
echo "$root"
