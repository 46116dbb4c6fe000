#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The layer check: every #include "..." of src/ must point down (or across, within a
# folder), in the order written once below, so layers stay one way as the tree grows.
# Also: a runtime's folder (src/interp/NAME/) includes no other runtime's, the registry
# (src/interp/*.[ch]) includes no runtime's folder, and a walker's skeleton (NAME.skel.h)
# is included only beside its NAME.bpf.c (the sampler's: by src/loader/).
# Usage: tests/layers/check.sh [SRC_DIR]   prints PASS/FAIL lines; exit 1 on a violation.
set -u
src=${1:-src}

# src/'s folders, lowest first; folders on one line are peers and include none of each
# other. Includes without a folder (bpf/'s shared headers, generated skeletons and protos)
# are the ABI beneath every layer.
layers=(
	"util arch preload"
	"elf"
	"proc"
	"symbol"
	"loader"
	"profile"
	"interp"
	"unwind"
	"alloc export"
	"cli"
)

declare -A rank
for i in "${!layers[@]}"; do
	for d in ${layers[$i]}; do
		rank[$d]=$i
	done
done

# Every folder of src/ has a place in the order.
unranked=$(find "$src" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | while read -r d; do
	[ -n "${rank[$d]:-}" ] || echo "$d"
done)

# One line per include: FILE INCLUDED (paths relative to src/).
violations=$(grep -rHo --include='*.c' --include='*.h' '^#include "[^"]*"' "$src" |
	sed -E "s#^$src/##; s#:\#include \"# #; s#\"\$##" |
	while read -r file inc; do
		from=${file%%/*}
		to=${inc%%/*}
		base=${inc##*/}
		case $file in
		*.bpf.c) continue ;; # kernel side: its own tree of includes
		esac
		# A skeleton beside its walker (or the sampler's in the loader).
		if [[ $inc == *.skel.h ]]; then
			walker=${base%.skel.h}
			if [ "$walker" = sample ]; then
				[ "$from" = loader ] || echo "$file includes $inc: only src/loader/ loads the sampler's object"
			elif [ ! -e "$src/${file%/*}/$walker.bpf.c" ]; then
				echo "$file includes $inc: a walker's skeleton is its runtime's folder's own"
			fi
			continue
		fi
		[ "$to" = "$inc" ] && continue # bpf/'s shared headers, generated protos
		if [ -z "${rank[$to]:-}" ]; then
			[ -e "$src/$inc" ] && echo "$file includes $inc: src/$to/ has no place in the layer order"
			continue
		fi
		if [ "$from" != "$to" ] && [ "${rank[$to]}" -ge "${rank[$from]}" ]; then
			echo "$file includes $inc: $from/ (layer ${rank[$from]}) may include only layers below it; $to/ is layer ${rank[$to]}"
		fi
		# Runtimes: src/interp/NAME/ may include the registry and itself only.
		if [ "$to" = interp ]; then
			fdir=${file#interp/}
			tdir=${inc#interp/}
			frt= trt=
			[[ $fdir == */* ]] && frt=${fdir%%/*}
			[[ $tdir == */* ]] && trt=${tdir%%/*}
			if [ -n "$trt" ] && [ "$trt" != "$frt" ]; then
				if [ -z "$frt" ] && [ "$from" = interp ]; then
					echo "$file includes $inc: the registry names no runtime's files"
				elif [ "$from" = interp ]; then
					echo "$file includes $inc: a runtime includes no other runtime's files"
				else
					echo "$file includes $inc: outside src/interp/, only the registry (interp/runtime.h) is known"
				fi
			fi
		fi
	done)

fail=0
if [ -n "$unranked" ]; then
	echo "FAIL layers_order: folders of $src/ missing from tests/layers/check.sh's order: $(echo $unranked)"
	fail=1
fi
if [ -n "$violations" ]; then
	echo "FAIL layers_includes: $(echo "$violations" | wc -l) include(s) climb a layer:"
	echo "$violations" | sed 's/^/    /'
	fail=1
fi
[ $fail = 0 ] && echo "PASS layers: every include of $src/ points down the order"
exit $fail
