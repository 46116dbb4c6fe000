# SPDX-License-Identifier: Apache-2.0
# Helpers the scripts share (sourced): where this host's Debian packages come from.

# apt_mirror: the Debian archive apt already uses here (deb822 or one-line sources), not
# its security archive; prints nothing when apt has none (and never fails).
apt_mirror() {
	{
		cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '$1 == "URIs:" { print $2 }'
		awk '$1 == "deb" { print ($2 ~ /^\[/ ? $3 : $2) }' \
			/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null
	} | grep -v security | grep -i debian | head -1 || true
}
