#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The runtimes the kernel tests profile, three releases each from three Debian suites: one
# minimal debootstrap root per suite under /var/cache/ebprof/, made once and kept; a root
# that lacks a package a runtime's list gained gets it installed in place, and what a
# runtime builds from source into a root (src/interp/NAME/build-root.sh) is built once.
# Usage: scripts/runtimes.sh [SUITE...]   (default: every suite; run as root)
#        EBPROF_ROOTS=DIR changes where the roots live (tests read the same variable).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

roots=${EBPROF_ROOTS:-/var/cache/ebprof}
# Each runtime lists its own packages in its folder, src/interp/NAME/packages.list: lines
# "SUITE PACKAGE...", # comments. One root per suite serves every runtime.
declare -A pkgs=([bullseye]="" [bookworm]="" [trixie]="")
for list in "$(dirname "$0")"/../src/interp/*/packages.list; do
	while read -r suite names; do
		case $suite in '' | '#'*) continue ;; esac
		if [ -z "${pkgs[$suite]+set}" ]; then
			echo "ebprof: $list names suite '$suite', which has no root" >&2
			exit 1
		fi
		pkgs[$suite]+=" $names"
	done <"$list"
done
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(bullseye bookworm trixie)


# slim ROOT: drops what no test runs: downloaded packages, and the JDKs' jmods (only jlink
# reads them; JDK 25's are 337 MB).
slim() {
	rm -rf "$1/var/cache/apt/archives/"*.deb "$1/usr/lib/jvm/"*/jmods
}

# missing ROOT PKG...: prints the packages not installed in ROOT.
missing() {
	local root=$1 p
	shift
	for p in "$@"; do
		chroot "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || echo "$p"
	done
}

# make_root SUITE: debootstraps ROOT with its packages into a temporary directory, renamed
# only when complete, so an interrupted run leaves nothing that looks made.
make_root() {
	local suite=$1 root=$roots/$1 mirror start
	mirror=$(apt_mirror)
	start=$(date +%s)
	echo "ebprof: creating $root (debootstrap $suite with ${pkgs[$suite]})" >&2
	rm -rf "$root.tmp"
	mkdir -p "$roots"
	debootstrap --variant=minbase --include="$(echo ${pkgs[$suite]} | tr ' ' ,)" "$suite" "$root.tmp" \
		$mirror >"$root.log" 2>&1 || {
		echo "ebprof: debootstrap $suite failed, see $root.log" >&2
		return 1
	}
	slim "$root.tmp"
	mv "$root.tmp" "$root"
	echo "ebprof: $root made in $(($(date +%s) - start)) s, $(du -sh "$root" | cut -f1)" >&2
}

# top_up SUITE: installs into an existing root the packages its list gained since.
top_up() {
	local root=$roots/$1 want start
	want=$(missing "$root" ${pkgs[$1]})
	[ -n "$want" ] || return 0
	start=$(date +%s)
	echo "ebprof: adding to $root:" $want >&2
	in_root "$root" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends "$@" && apt-get clean' sh $want \
		>>"$root.log" 2>&1 || {
		echo "ebprof: installing into $root failed, see $root.log" >&2
		return 1
	}
	slim "$root"
	echo "ebprof: $root topped up in $(($(date +%s) - start)) s, $(du -sh "$root" | cut -f1)" >&2
}

if [ "$(id -u)" -ne 0 ]; then
	echo "ebprof: making the runtime roots needs root" >&2
	exit 1
fi
err=0
for s in "${suites[@]}"; do
	if [ -z "${pkgs[$s]+set}" ]; then
		echo "ebprof: no runtime root is defined for suite '$s'" >&2
		err=1
		continue
	elif [ -x "$roots/$s/usr/bin/dpkg" ]; then
		top_up "$s" || { err=1; continue; }
	else
		make_root "$s" || { err=1; continue; }
	fi
	# What a runtime needs that Debian does not package, built from Debian's source in the
	# root by the runtime's own src/interp/NAME/build-root.sh (each skips what is built).
	for build in "$(dirname "$0")"/../src/interp/*/build-root.sh; do
		[ -x "$build" ] || continue
		"$build" "$s" "$roots/$s" || err=1
	done
done
exit $err
