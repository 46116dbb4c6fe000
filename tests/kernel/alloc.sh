#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `record --alloc` and `--alloc-kernel` on a workload with known allocation sites: each
# site's estimated bytes and objects lie within sampling error of the truth, the in-use
# profile holds exactly the blocks still live at exit, bad flags are refused, an
# existing LD_PRELOAD is kept, and nothing stays loaded.
#
# Tolerance: with Poisson byte sampling (mean M) each block of s bytes is sampled on its
# own with probability p = 1 - exp(-s/M) and weighs s/p, so a site of n such blocks has
# an unbiased estimate with standard deviation s * sqrt(n (1 - p) / p) (objects: the same
# without s). A site passes within 6 standard deviations (plus 0.1 % for rounding): a
# correct profiler fails that with probability about 2e-9 per check.
. "$(dirname "$0")/lib.sh"

MEAN=65536
track_bpf

# site_value FILE SITE: the summed value of the stacks that pass through SITE (the leaf
# with the preloaded library, whose own frames are left out; under malloc in kernel mode).
site_value() { folded_match "$1" alloc_sites ";$2(\\.[a-z0-9.]*)?$L( |;)"; }

# within NAME EST N SIZE SCALE: |EST - N*SCALE| <= 6 sd, sd from N blocks of SIZE bytes;
# SCALE is SIZE for bytes, 1 for objects.
within() {
	awk -v est="$2" -v n="$3" -v s="$4" -v k="$5" -v m=$MEAN -v name="$1" 'BEGIN {
		p = 1 - exp(-s / m); truth = n * k; sd = k * sqrt(n * (1 - p) / p)
		tol = 6 * sd + truth / 1000
		d = est - truth; if (d < 0) d = -d
		printf "%s: estimated %d, truth %d, 6 sd = %d\n", name, est, truth, 6 * sd > "/dev/stderr"
		exit !(d <= tol) }'
}

check_sites() { # check_sites PREFIX DIR
	local p=$1 d=$2
	for f in alloc_space alloc_objects; do
		if [ ! -s "$d/stacks.$f.folded" ]; then
			fail "${p}_outputs" "no stacks.$f.folded"
			return
		fi
	done
	pass "${p}_outputs"
	check "${p}_small_bytes" "site_small bytes off" \
		within "$p small bytes" "$(site_value "$d/stacks.alloc_space.folded" site_small)" 262144 256 256
	check "${p}_medium_bytes" "site_medium bytes off" \
		within "$p medium bytes" "$(site_value "$d/stacks.alloc_space.folded" site_medium)" 4096 16384 16384
	check "${p}_kept_bytes" "site_kept bytes off" \
		within "$p kept bytes" "$(site_value "$d/stacks.alloc_space.folded" site_kept)" 32 1048576 1048576
	check "${p}_small_objects" "site_small objects off" \
		within "$p small objects" "$(site_value "$d/stacks.alloc_objects.folded" site_small)" 262144 256 1
}

out=$TMP/preload
if "$EBPROF" record --alloc=64K -o "$out" -- "$W/alloc_sites" >"$TMP/stdout" 2>"$TMP/stderr"; then
	pass alloc_preload_runs
	check_sites alloc_preload "$out"
	# Blocks of 1 MiB are sampled for certain (p = 1 - e^-16): in use is exactly the
	# 16 kept; everything the other sites allocated was freed and reported.
	lib=$(grep -c 'ebprof_alloc_sample\|sample_slow' "$out/stacks.alloc_space.folded")
	check alloc_preload_no_library_frames "$lib stacks show the library's own frames" \
		[ "$lib" -eq 0 ]
	kept=$(site_value "$out/stacks.inuse_space.folded" site_kept)
	freed=$(folded_match "$out/stacks.inuse_space.folded" alloc_sites ";site_(small|medium)$L;")
	echo "in use: site_kept $kept bytes, freed sites $freed" >&2
	check alloc_preload_inuse_kept "site_kept in use $kept, want 16777216" [ "$kept" -eq 16777216 ]
	check alloc_preload_inuse_freed "freed sites in use $freed, want 0" [ "$freed" -eq 0 ]
	kobj=$(site_value "$out/stacks.inuse_objects.folded" site_kept)
	check alloc_preload_inuse_objects "site_kept in-use objects $kobj, want 16" [ "$kobj" -eq 16 ]
	check alloc_preload_summary "no allocation line in the summary" \
		grep -qE '^  alloc: [0-9]+ samples, [0-9]+ alloc_objects, [0-9.]+ [KMG]iB alloc_space' "$TMP/stderr"
else
	fail alloc_preload_runs "exit $?: $(head -3 "$TMP/stderr")"
fi

out=$TMP/kernel
if "$EBPROF" record --alloc-kernel=64K -o "$out" -- "$W/alloc_sites" >"$TMP/stdout" 2>"$TMP/stderr"; then
	pass alloc_kernel_runs
	check_sites alloc_kernel "$out"
	check alloc_kernel_no_inuse "kernel-only mode wrote an in-use profile" \
		[ ! -e "$out/stacks.inuse_space.folded" ]
else
	fail alloc_kernel_runs "exit $?: $(head -3 "$TMP/stderr")"
fi

# The command sees the user's LD_PRELOAD and the library after it.
libm=$(ldconfig -p | awk '/libm\.so\.6 .*x86-64/ { print $NF; exit }')
LD_PRELOAD=$libm "$EBPROF" record --alloc -o "$TMP/env" -- sh -c 'echo "$LD_PRELOAD"' \
	>"$TMP/stdout" 2>"$TMP/stderr"
check alloc_keeps_ld_preload "LD_PRELOAD was: $(grep libebprof "$TMP/stdout")" \
	grep -qx "$libm:.*/libebprof-alloc.so" "$TMP/stdout"

"$EBPROF" record --alloc=lots -- true >/dev/null 2>"$TMP/stderr"
rc=$?
check alloc_bad_mean "exit $rc: $(head -1 "$TMP/stderr")" [ $rc -eq 2 ]
"$EBPROF" record --alloc --alloc-kernel -- true >/dev/null 2>"$TMP/stderr"
rc=$?
check alloc_modes_exclusive "exit $rc" [ $rc -eq 2 ]
EBPROF_ALLOC_LIB=/nonexistent/lib.so "$EBPROF" record --alloc -o "$TMP/x" -- true >/dev/null 2>"$TMP/stderr"
rc=$?
missing_lib_refused() { [ $rc -eq 1 ] && grep -q 'EBPROF_ALLOC_LIB' "$TMP/stderr"; }
check alloc_missing_lib "exit $rc: $(head -1 "$TMP/stderr")" missing_lib_refused

bpf_gone alloc_nothing_left
