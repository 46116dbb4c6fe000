#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Browser test of the HTML flame graph: installs the pinned playwright-core (never a browser;
# Debian's chromium is used), writes the fixture page with the flame graph unit test binary,
# and checks it in headless Chromium. Needs: make build/tests/test_flamegraph, node, chromium.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD:-build}
case $build in
/*) ;;
*) build=$root/$build ;;
esac
bin=$build/tests/test_flamegraph

if [ ! -x "$bin" ]; then
	echo "FAIL flamegraph_browser: $bin not built (make $bin)"
	exit 1
fi
if [ ! -d "$here/node_modules/playwright-core" ]; then
	(cd "$here" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund) >&2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! EBPROF_FLAMEGRAPH_FIXTURE=$tmp/flamegraph.html "$bin" >"$tmp/unit.log" 2>&1 ||
	[ ! -s "$tmp/flamegraph.html" ]; then
	cat "$tmp/unit.log" >&2
	echo "FAIL flamegraph_browser: could not write the fixture page"
	exit 1
fi
node "$here/flamegraph.test.mjs" "$tmp/flamegraph.html" "$@"
