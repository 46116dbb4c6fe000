#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Native stacks without frame pointers: every workload built without them must show its
# full chain, from main (or thread start) to the leaf, in >= 95 % of its samples after
# start-up (lib.sh: STARTUP).
. "$(dirname "$0")/lib.sh"

# These check unwinding, so frames are named from the symbol tables alone (--no-lines);
# inline.sh checks the names and lines DWARF adds.
# expect NAME COMM PATTERN CMD...: record CMD, then count COMM's samples matching PATTERN
expect_chain() {
	local name=$1 comm=$2 pat=$3
	shift 3
	local out=$TMP/$name rc
	case_selected "$name" || return 0
	"$EBPROF" record -v --no-lines -F 199 -o "$out" -- "$@" >"$out.stdout" 2>"$out.stderr"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "$name" "record failed, $(how_ended "$rc" "$out.stderr")"
		return
	fi
	local total chain steady
	steady=$(steady "$out/stacks.folded")
	total=$(folded_count "$steady" "$comm")
	chain=$(folded_match "$steady" "$comm" "$pat")
	echo "$name: $chain of $total samples after start-up match $pat" >&2
	if [ "$total" -lt 30 ]; then
		fail "$name" "only $total samples"
	elif [ "$(pct "$chain" "$total")" -lt 95 ]; then
		fail "$name" "chain in $(pct "$chain" "$total") % of samples, want >= 95"
		echo "$name: the stacks without the chain, most samples first:" >&2
		grep "^$comm;" "$steady" | grep -Ev -- "$pat" |
			awk '{ print $NF " " $0 }' | sort -nr | head -5 | cut -c1-300 >&2
	else
		pass "$name"
	fi
}

# The leaf check: samples whose innermost frame is the named leaf also carry the chain.
expect_leaf() {
	local name=$1 comm=$2 leaf=$3 pat=$4 out=$TMP/$5
	local leaves chain
	case_selected "$5" || return 0
	leaves=$(grep -E ";$leaf [0-9]+\$" "$out/stacks.folded" | awk -v c="$comm" -F';' '$1 == c { n = $NF; sub(/.* /, "", n); s += n } END { printf "%.0f\n", s }')
	chain=$(grep -E ";$leaf [0-9]+\$" "$out/stacks.folded" | grep -E "$pat" | awk -v c="$comm" -F';' '$1 == c { n = $NF; sub(/.* /, "", n); s += n } END { printf "%.0f\n", s }')
	echo "$name: $chain of $leaves samples at $leaf carry $pat" >&2
	if [ "$leaves" -lt 20 ]; then
		fail "$name" "only $leaves samples at $leaf"
	elif [ "$(pct "$chain" "$leaves")" -lt 95 ]; then
		fail "$name" "chain in $(pct "$chain" "$leaves") % of $leaf samples"
	else
		pass "$name"
	fi
}

expect_chain unwind_c_qsort nofp_qsort ';main;sort_rounds( |;)' "$W/nofp_qsort" "$(secs 2)"
expect_leaf unwind_c_qsort_leaf nofp_qsort by_key ';main;sort_rounds;qsort(_r)?;.*by_key ' unwind_c_qsort
# The walker's own look-ups of the kernel's VMAs in that recording (-v, "unwinding:"): a
# plain C program's pcs are each in a VMA the walker finds, of a file whose table it finds
# but for the few met before the table was built. A VMA walk that misreads the kernel's
# tree, or files the kernel names otherwise than /proc/PID/maps (overlayfs from 6.8 on),
# show here as pcs in no VMA, in files without a table, or frames left to frame pointers.
vma_lookups() {
	local line walks missed unknown notable
	line=$(grep -m1 '^  unwinding:' "$TMP/unwind_c_qsort.stderr")
	walks=$(sed -nE 's/.* ([0-9]+) pcs placed through the kernel.s VMAs.*/\1/p' <<<"$line")
	missed=$(sed -nE 's/.*VMAs \(([0-9]+) in none.*/\1/p' <<<"$line")
	unknown=$(sed -nE 's/.* ([0-9]+) in files without a table yet.*/\1/p' <<<"$line")
	notable=$(sed -nE 's/.* ([0-9]+) frames without a table.*/\1/p' <<<"$line")
	echo "unwind_vma_lookups: ${walks:-?} VMA look-ups, ${missed:-?} in none, ${unknown:-?} in files without a table, ${notable:-?} frames without one" >&2
	if [ -z "$walks" ] || [ -z "$missed" ] || [ -z "$unknown" ] || [ -z "$notable" ]; then
		fail unwind_vma_lookups "no unwinding counters in the -v summary"
	elif [ "$walks" -lt 30 ]; then
		fail unwind_vma_lookups "only $walks VMA look-ups"
	elif [ "$(pct $((missed + unknown + notable)) "$walks")" -gt 10 ]; then
		fail unwind_vma_lookups "$(pct $((missed + unknown + notable)) "$walks") % of $walks VMA look-ups found no VMA or no table, want <= 10"
	else
		pass unwind_vma_lookups
	fi
}
if case_selected unwind_c_qsort; then
	vma_lookups
fi
# The same program run from an overlayfs mount, as in a container or the kernel matrix's
# guests: from Linux 6.8 /proc/PID/maps names its file by the overlay's identity while its
# VMAs hold the layer's file below, and the walker finds the table under the latter once
# the tracker has seen the walker's first notice (src/unwind/README.md, "Files, not
# processes"). Below 6.8 both say the layer's.
overlay() {
	local dir=$TMP/overlay
	mkdir -p "$dir/upper" "$dir/work" "$dir/merged"
	if ! mount -t overlay overlay -o "lowerdir=$W,upperdir=$dir/upper,workdir=$dir/work" \
		"$dir/merged" 2>"$dir/mount.err"; then
		echo "SKIP unwind_overlay: no overlayfs mount here: $(head -1 "$dir/mount.err")"
		return
	fi
	expect_chain unwind_overlay nofp_qsort ';main;sort_rounds( |;)' "$dir/merged/nofp_qsort" "$(secs 2)"
	grep -m1 '^  unwinder:' "$TMP/unwind_overlay.stderr" | grep -oE '[0-9]+ files the kernel knows[^;)]*' >&2
	umount -l "$dir/merged" # lazily: a file of it may be open a moment longer
}
if case_selected unwind_overlay; then
	overlay
fi
expect_chain unwind_cpp_sort nofp_sort ';main;sort_rounds' "$W/nofp_sort" "$(secs 2)"
expect_chain unwind_threads nofp_threads ';(start_thread|clone3?);.*thread_main;thread_work' "$W/nofp_threads" "$(secs 2)"
expect_chain unwind_signal nofp_signal ';main;interrupted_work' "$W/nofp_signal" "$(secs 2)"
expect_leaf unwind_signal_leaf nofp_signal handler_leaf ';main;interrupted_work;.*in_handler;handler_leaf ' unwind_signal
# A process of 20,000 VMAs: the walker finds each pc's VMA in a tree several levels deep.
# Its samples while it maps them (main;__mprotect) are complete stacks too. A copy of the
# program runs first for a moment (another name: not counted), so libc is a file the
# recording has met: on an overlay root from Linux 6.8 (the 6.12 guest's) a file's first
# sight costs a notice and its answer (src/unwind/README.md), the business of
# unwind_new_process, while this process's mapping storm makes every sample of it count.
if case_selected unwind_many_maps; then
	cp "$W/nofp_maps" "$TMP/warm_maps"
fi
expect_chain unwind_many_maps nofp_maps ';main;(sort_rounds|__mprotect)( |;)' \
	sh -c '"$1" 0.3 100; exec "$2" "$3"' sh "$TMP/warm_maps" "$W/nofp_maps" "$(secs 2)"
expect_chain unwind_dlopen nofp_dlopen ';main;(call_plugin;plugin_outer|usleep|clock_nanosleep|__nanosleep|dlopen)' "$W/nofp_dlopen" "$(secs 2)"
expect_leaf unwind_dlopen_leaf nofp_dlopen plugin_leaf ';main;call_plugin;plugin_outer;plugin_leaf ' unwind_dlopen
# All of its time is in libc and the vDSO, so each sample until libc's table is built
# (built when exec asks for it: src/unwind/README.md, "Files, not processes") is cut: a longer run.
expect_chain unwind_vdso nofp_vdso ';main;time_loop' "$W/nofp_vdso" "$(secs 4)"
# The vDSO names it __vdso_clock_gettime on x86-64, __kernel_clock_gettime on arm64.
if case_selected unwind_vdso; then
	n=$(grep -cE '__(vdso|kernel)_clock_gettime' "$TMP/unwind_vdso/stacks.folded")
	check unwind_vdso_frames "no sample named a vDSO function" [ "$n" -gt 0 ]
fi
if ! case_selected unwind_rust; then
	:
elif [ -x "$W/nofp_rust" ]; then
	expect_chain unwind_rust nofp_rust ';main;.*nofp_rust::sort_rounds' "$W/nofp_rust" "$(secs 2)"
else
	echo "SKIP unwind_rust: rustc missing"
fi

# A process's exit: once do_exit has let its memory go, the kernel's teardown of it
# (exit_mmap) is sampled in a process without memory to walk; those samples carry the user
# stack walked when the exit began (bpf/sample.bpf.c: exit_stacks), where the kernel traces
# that before the memory goes (sched_process_exit before exit_mm: 6.18, not 6.12; -v counts
# the exits traced without it). nofp_exit gives back 1 GiB from main -> leave -> exit,
# without frame pointers.
exit_stacks() {
	local out=$TMP/exit total chain given late
	"$EBPROF" record -v --no-lines -F 499 -o "$out" -- "$W/nofp_exit" "$(secs 1)" 1024 \
		>"$out.stdout" 2>"$out.stderr" || {
		fail unwind_exit "record failed: $(tail -2 "$out.stderr")"
		return
	}
	given=$(sed -nE 's/.* ([0-9]+) of exits given the stack they began with \(([0-9]+) exits.*/\1 \2/p' "$out.stderr")
	read -r given late <<<"${given:-x x}"
	if [ "$given" = 0 ] && [ "$late" != x ] && [ "$late" -gt 0 ]; then
		echo "SKIP unwind_exit: this kernel traces an exit after its memory is gone (exits: $late)"
		return
	fi
	grep -E '^nofp_exit;.*;exit_mmap_\[k\]' "$out/stacks.folded" >"$out.teardown"
	total=$(folded_count "$out.teardown" nofp_exit)
	chain=$(folded_match "$out.teardown" nofp_exit ';main;leave;exit;')
	echo "unwind_exit: $chain of $total samples in exit_mmap carry ;main;leave;exit" >&2
	grep -v ';main;leave;exit;' "$out.teardown" | awk '{ print $NF " " $0 }' | sort -nr |
		head -3 | cut -c1-300 >&2
	check unwind_exit "the exit's stack in $(pct "$chain" "$total") % of $total teardown samples, want >= 90 of >= 10" \
		[ "$total" -ge 10 -a "$(pct "$chain" "$total")" -ge 90 ]
}
if case_selected unwind_exit; then
	exit_stacks
fi

# A process started while a whole-system recording runs needs no description: the walker
# places its pcs in their files itself, libc's table was built before sampling started,
# and its executable's on the notice of its first sample. The workload starts as soon as
# ebprof samples (start-up takes seconds in an emulated guest), while its first scan of
# the running processes is under way, and the recording ends when it does (not at the
# default 10 s, which an emulated guest's start-up takes most of). Without the runtimes:
# the first process of a runtime the scan meets has its walker verified on the tracker's
# thread, seconds on a loaded host, and the notices of the new process's files wait
# behind it (bench/README.md, "a busy host"); this checks the native path.
new_process() {
	EBPROF_RUNTIMES=none "$EBPROF" record --no-lines -F 199 -d 0 -o "$TMP/late" >/dev/null 2>"$TMP/late.err" &
	rec=$!
	wait_sampling $rec && "$W/nofp_qsort" "$(secs 2)"
	kill -INT $rec 2>/dev/null
	wait $rec
	late=$(steady "$TMP/late/stacks.folded")
	total=$(folded_count "$late" nofp_qsort)
	chain=$(folded_match "$late" nofp_qsort ';main;sort_rounds( |;)')
	echo "unwind_new_process: $chain of $total samples after start-up match ;main;sort_rounds" >&2
	grep '^nofp_qsort;' "$late" | grep -Ev ';main;sort_rounds( |;)' | awk '{ print $NF " " $0 }' |
		sort -nr | head -5 | cut -c1-300 >&2
	check unwind_new_process "chain in $(pct "$chain" "$total") % of $total samples of a process started mid-recording" \
		[ "$total" -ge 30 -a "$(pct "$chain" "$total")" -ge 95 ]
}
if case_selected unwind_new_process; then
	new_process
fi

# The table budget: with 256 KiB (one chunk of 16 Ki rows) the C++ sort's tables do not
# all fit on x86-64 (libstdc++'s alone takes 17.7 k in compact rows): the counter says so,
# the kernel memory stays within the budget, the recording still has its stacks, and the
# summary names the cause of the stacks it cut and what to do about it. arm64's CFI takes
# fewer rows: there they may all fit, and nothing is evicted to check.
budget() {
	local out=$TMP/budget rc nofit kmem used cap room_re
	"$EBPROF" record -v -F 199 --unwind-memory 256K -o "$out" -- "$W/nofp_sort" 2 >"$out.stdout" 2>"$out.stderr"
	rc=$?
	nofit=$(sed -nE 's/^  unwinder limits: .* ([0-9]+) did not fit.*/\1/p' "$out.stderr")
	kmem=$(sed -nE 's/^  unwinder: .*, ([0-9]+) MiB at most;.*/\1/p' "$out.stderr")
	read -r used cap < <(sed -nE 's/^  unwinder: .* ([0-9]+) of ([0-9]+) rows used.*/\1 \2/p' "$out.stderr")
	echo "unwind_budget: rc $rc, ${nofit:-?} tables did not fit, ${used:-?} of ${cap:-?} rows used, ${kmem:-?} MiB of kernel memory at most" >&2
	if [ "$rc" -eq 0 ] && [ "${nofit:-0}" -eq 0 ] && [ "${used:-0}" -gt 0 ] && [ "${used:-0}" -lt "${cap:-0}" ]; then
		echo "SKIP unwind_budget: nofp_sort's tables fit 256K here ($used of $cap rows): nothing to evict"
		return
	fi
	check unwind_budget "a 256K budget: rc $rc, ${nofit:-no} tables counted as not fitting, ${kmem:-?} MiB of rows" \
		[ "$rc" -eq 0 -a "${nofit:-0}" -ge 1 -a "${kmem:-99}" -le 0 -a "$(folded_count "$out/stacks.folded" nofp_sort)" -ge 30 ]
	# -v lists every cause: the line is there whenever a sample landed in a file that did
	# not fit, which the sort's hot path (inlined into its executable) may not do.
	room_re='^    [0-9]+ in files whose unwind tables did not fit the unwind memory'
	if ! grep -qE "$room_re" "$out.stderr"; then
		echo "SKIP unwind_budget_cause: no sample landed in a file whose table did not fit"
		return
	fi
	check unwind_budget_cause "stacks blamed on the unwind memory, with --unwind-memory as the remedy" \
		grep -qE "$room_re: raise --unwind-memory" "$out.stderr"
}
if case_selected unwind_budget; then
	budget
fi
