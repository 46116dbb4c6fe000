#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Ruby 3.3 with YJIT, built in the trixie root from Debian's own source tarball: Debian builds
# its ruby3.3 with --disable-yjit, so without this no test would cross YJIT's code on 3.3's
# layout. Stripped of .symtab as Debian's packages are. scripts/runtimes.sh runs it after each
# root is made or topped up; it does nothing when the build is there or the suite is not trixie.
# Usage: build-root.sh SUITE ROOT
set -euo pipefail
. "$(dirname "$0")/../../../scripts/lib.sh"

suite=$1 root=$2
[ "$suite" = trixie ] || exit 0
version=3.3.8
# The sha256 of the orig tarball as trixie's Sources index lists it (ruby3.3 3.3.8-2).
sha256=e2e1233ad275b7623a05edf23a01192626d1da454bdfe353a28a87acd8ef015c
prefix=/opt/ruby-3.3-yjit
# What the build needs in the root; those the root lacked are taken out again after it. The
# extensions no test loads are left out (openssl alone is a good part of the build).
deps=(gcc make libc6-dev rustc zlib1g-dev)

[ -f "$root$prefix/.complete" ] && exit 0

log=$root.ruby-yjit.log
start=$(date +%s)
echo "ebprof: building Ruby $version with YJIT in $root (log: $log)" >&2
src=$root/tmp/ruby-yjit
rm -rf "$src" "$root$prefix"
mkdir -p "$src"
mirror=$(apt_mirror)
curl -fsS -o "$src/ruby.tar.xz" \
	"${mirror:-http://deb.debian.org/debian}/pool/main/r/ruby3.3/ruby3.3_$version.orig.tar.xz"
echo "$sha256  $src/ruby.tar.xz" | sha256sum -c --quiet - || {
	echo "ebprof: Ruby $version's tarball does not match its sha256" >&2
	exit 1
}
tar -C "$src" -xJf "$src/ruby.tar.xz"
added=()
for p in "${deps[@]}"; do
	chroot "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		added+=("$p")
done
if ! in_root "$root" sh -c '
	set -e
	apt-get update -qq
	[ $# -eq 0 ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
	cd /tmp/ruby-yjit/ruby-*/
	./configure --prefix='"$prefix"' --enable-shared --enable-yjit --disable-install-doc \
		--disable-install-rdoc --disable-install-capi --without-gmp \
		--with-out-ext=openssl,psych,fiddle,ripper,readline,dbm,gdbm
	make -j"$(nproc)"
	# Without a base ruby, install takes the bundled gems from the tarball, not rubygems.org.
	make install HAVE_BASERUBY=no
	strip --strip-unneeded '"$prefix"'/bin/ruby '"$prefix"'/lib/libruby.so.*.*
	'"$prefix"'/bin/ruby --yjit -e "exit(RubyVM::YJIT.enabled? ? 0 : 1)"
	[ $# -eq 0 ] || DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq --autoremove "$@"
	apt-get clean' sh "${added[@]}" >"$log" 2>&1; then
	echo "ebprof: building Ruby $version with YJIT failed, see $log" >&2
	rm -rf "$src" "$root$prefix"
	exit 1
fi
rm -rf "$src"
touch "$root$prefix/.complete"
echo "ebprof: Ruby $version with YJIT built in $(($(date +%s) - start)) s" >&2
