#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ebprof built with AddressSanitizer, UndefinedBehaviorSanitizer and LeakSanitizer
# records what reaches most of its userspace at once: the whole system with a Python
# process calling through a C extension, threads and a dlopen'ed library without frame
# pointers, a syscall loop, a sleeper for off-CPU time and a probe; then a command
# under --alloc, and a usage error. Any sanitizer report fails, with its first lines.
# The build goes to $BUILD/asan (gcc's sanitizers, installed with gcc).
. "$(dirname "$0")/lib.sh"

ASAN_BUILD=$BUILD/asan
SAN_FLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer"
if ! CFLAGS="$SAN_FLAGS" LDLIBS="-fsanitize=address,undefined" \
	make -s -j"$(nproc)" BUILD="$ASAN_BUILD" all >"$TMP/build.log" 2>&1; then
	fail sanitized_build "$(grep -m3 -E 'error|cannot find' "$TMP/build.log")"
	exit 0
fi
SAN=$PWD/$ASAN_BUILD/ebprof
mkdir -p "$TMP/reports"
export ASAN_OPTIONS=detect_leaks=1:log_path=$TMP/reports/asan
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$TMP/reports/ubsan

# sanitized NAME WANT_STATUS CMD...: runs CMD, then fails on a wrong status or any report.
sanitized() {
	local name=$1 want=$2 rc reports
	shift 2
	"$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
	reports=$(ls "$TMP/reports" 2>/dev/null)
	if [ -n "$reports" ]; then
		fail "$name" "sanitizer report: $(cat "$TMP"/reports/* | grep -m6 -E 'ERROR|SUMMARY|runtime error|#[0-9] .* in [a-z]' | tr '\n' ' ')"
		cat "$TMP"/reports/* | head -60 >&2
		rm -f "$TMP"/reports/*
	elif [ "$rc" -ne "$want" ]; then
		fail "$name" "exit $rc, want $want: $(tail -3 "$TMP/$name.err" | tr '\n' ' ')"
	else
		pass "$name"
	fi
}

"$W/syscall_loop" 5 &
pids=($!)
"$W/nofp_threads" 5 &
pids+=($!)
"$W/nofp_dlopen" 5 &
pids+=($!)
"$W/offcpu_sleep" 20 200 >/dev/null &
pids+=($!)
/usr/bin/python3 tests/workloads/python/cext.py 5 &
pids+=($!)
sleep 0.3
sanitized sanitized_system 0 "$SAN" record -d 3 --off-cpu --probe tracepoint:sched:sched_process_fork \
	-o "$TMP/system"
kill "${pids[@]}" 2>/dev/null
wait "${pids[@]}" 2>/dev/null
check sanitized_system_python "no Python frame of cext.py in the profile" \
	grep -q 'hook (cext\.py:' "$TMP/system/stacks.folded"

sanitized sanitized_alloc 0 "$SAN" record --alloc=64K -o "$TMP/alloc" -- "$W/alloc_sites"
sanitized sanitized_usage 2 "$SAN" record -p 1 --probe uprobe:/bin/true:main -- true
