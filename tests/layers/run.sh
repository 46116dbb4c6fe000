#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the layer check (check.sh) on src/, then proves it can fail: on a copy of src/
# with an include that climbs a layer, and one that reaches into another runtime.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tests/layers/check.sh src

# inject NAME FILE LINE: a copy of src/ with LINE added to FILE; the check must fail.
inject() {
	local name=$1 file=$2 line=$3 out
	rm -rf "$tmp/src"
	cp -r src "$tmp/src"
	printf '%s\n' "$line" >>"$tmp/src/$file"
	if out=$(tests/layers/check.sh "$tmp/src"); then
		echo "FAIL $name: the check passed $file with $line"
	elif grep -q "$file includes" <<<"$out"; then
		echo "PASS $name: the check refuses $line in $file"
	else
		echo "FAIL $name: the check failed without naming $file: $(head -3 <<<"$out")"
	fi
}

inject layers_refuse_upward util/log.c '#include "cli/session.h"'
inject layers_refuse_across interp/python/python.c '#include "interp/v8/v8_meta.h"'
inject layers_refuse_skeleton export/pprof.c '#include "python.skel.h"'
