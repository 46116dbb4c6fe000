# SPDX-License-Identifier: Apache-2.0
# Helpers the scripts share (sourced): where this host's Debian packages come from, and
# running a command in a runtime root.

# apt_mirror: the Debian archive apt already uses here (deb822 or one-line sources), not
# its security archive; prints nothing when apt has none (and never fails).
apt_mirror() {
	{
		cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '$1 == "URIs:" { print $2 }'
		awk '$1 == "deb" { print ($2 ~ /^\[/ ? $3 : $2) }' \
			/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null
	} | grep -v security | grep -i debian | head -1 || true
}

# in_root ROOT CMD...: CMD chrooted in ROOT with a /proc of its own mount namespace (Java's
# installers run java, which needs /proc); nothing stays mounted afterwards.
in_root() {
	unshare -m --propagation private sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$@"
}

# arm64_guest: true when the suite runs its arm64 guest (tests/run.sh: vm-arm64), so
# install-deps.sh test installs the cross build's packages, the guest's root and kernel,
# and make test cross-builds: on an x86-64 host unless EBPROF_VM_ARM64 is 0 (by default
# EBPROF_VM_MATRIX's setting, which leaves every guest out).
arm64_guest() {
	[ "$(uname -m)" = x86_64 ] && [ "${EBPROF_VM_ARM64:-${EBPROF_VM_MATRIX:-1}}" != 0 ]
}
