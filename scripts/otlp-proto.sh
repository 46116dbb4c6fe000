#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The OTLP .proto files ebprof's encoder is generated from: the official ones of one
# pinned opentelemetry-proto release, taken from the release's artifact on Maven Central
# (the .proto files ride in its jar) and checked by hash, so the wire contract is the
# specification's own text, never a copy retyped here.
# Usage: scripts/otlp-proto.sh DEST   (the build runs it: DEST is build/proto)
set -euo pipefail

VERSION=1.10.0-alpha # OTLP 1.10: Sample.values = 4, the collector's v1development
SHA256=931e84b0802d77ae963e26c6ad6129b4ad0f2510fe907f019f5c988c2a869c3a
URL=https://repo1.maven.org/maven2/io/opentelemetry/proto/opentelemetry-proto/$VERSION/opentelemetry-proto-$VERSION.jar
# What the encoder needs: the profiles service and the messages it imports.
FILES=(
	opentelemetry/proto/collector/profiles/v1development/profiles_service.proto
	opentelemetry/proto/profiles/v1development/profiles.proto
	opentelemetry/proto/common/v1/common.proto
	opentelemetry/proto/resource/v1/resource.proto
)

dest=${1:?usage: scripts/otlp-proto.sh DEST}
jar=$dest/opentelemetry-proto-$VERSION.jar

[ "$(cat "$dest/VERSION" 2>/dev/null)" = "$VERSION" ] && exit 0
mkdir -p "$dest"
for tool in curl unzip sha256sum; do
	command -v "$tool" >/dev/null || {
		echo "ebprof: $tool is needed to fetch the OTLP .proto files (scripts/install-deps.sh)" >&2
		exit 1
	}
done
if ! echo "$SHA256  $jar" | sha256sum -c --quiet >/dev/null 2>&1; then
	curl -sSfL --retry 3 -o "$jar.tmp" "$URL" || {
		echo "ebprof: cannot download $URL" >&2
		exit 1
	}
	if ! echo "$SHA256  $jar.tmp" | sha256sum -c --quiet; then
		echo "ebprof: $URL does not have the pinned hash $SHA256" >&2
		rm -f "$jar.tmp"
		exit 1
	fi
	mv "$jar.tmp" "$jar"
fi
unzip -qo "$jar" "${FILES[@]}" -d "$dest"
echo "$VERSION" >"$dest/VERSION"
