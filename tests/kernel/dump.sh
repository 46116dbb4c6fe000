#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `ebprof dump -p PID`: a Python process with a thread spinning in a Python chain, one
# blocked in read() on a pipe and one asleep prints all three stacks whole, kernel frames
# of the sleeps included; afterwards the read goes on waiting (it was restarted, not
# failed), no thread is left traced and no BPF object is left; --json says the same as
# JSON; a Java thread asleep in Thread.sleep and one running compiled code show their
# Java chains; 500 threads are all dumped; a process that exits during the dump is one
# line; a kernel thread shows
# its kernel stack; wrong arguments are one line.
. "$(dirname "$0")/lib.sh"

PY=tests/workloads/python/dump_target.py
line_of() { grep -n "# $2\$" "$1" | cut -d: -f1; }

# section FILE TID-LINE-PATTERN: the lines of the thread whose header matches, up to the
# next thread.
section() {
	awk -v p="$2" '/^thread / { on = ($0 ~ p) } on' "$1"
}

# in_order FILE PATTERN...: the patterns match lines of FILE in this order, each the line
# right after the last's match.
in_order() {
	local file=$1
	shift
	awk -v pats="$(printf '%s\n' "$@")" '
		BEGIN { n = split(pats, p, "\n"); if (p[n] == "") n-- }
		found { next }
		k > 0 && $0 ~ p[k + 1] { if (++k == n) found = 1; next }
		{ k = 0 }
		$0 ~ p[1] { k = 1; if (n == 1) found = 1 }
		END { exit !found }' "$file"
}

# untraced PID: no thread of PID has a tracer.
untraced() {
	! grep -h '^TracerPid:' /proc/"$1"/task/*/status | grep -qv '[[:space:]]0$'
}

start_python() {
	mkfifo "$TMP/in"
	exec 3<>"$TMP/in" # held open for writing: the reader blocks, no end of file
	/usr/bin/python3 "$PY" "$(secs 60)" <"$TMP/in" >"$TMP/py.out" 2>&1 &
	PID=$!
	for _ in $(seq 300); do
		grep -q ready "$TMP/py.out" 2>/dev/null && return 0
		sleep 0.1
	done
	fail dump_python "the workload never said ready: $(tail -2 "$TMP/py.out")"
	return 1
}

python_text() {
	local rc out=$TMP/dump.txt read nap s
	read=$(line_of "$PY" READ_LINE)
	nap=$(line_of "$PY" NAP_LINE)
	"$EBPROF" dump -p "$PID" >"$out" 2>"$TMP/dump.err"
	rc=$?
	cat "$out" >&2
	if [ "$rc" -ne 0 ]; then
		fail dump_python "dump failed, $(how_ended "$rc" "$TMP/dump.err")"
		return
	fi
	check dump_python_threads "$(grep -c '^thread ' "$out") threads, want 4" \
		[ "$(grep -c '^thread ' "$out")" -eq 4 ]
	section "$out" 'running' >"$TMP/spin"
	# Its leaf is spin_leaf, time.monotonic() or spin_middle itself between the calls.
	check dump_python_spinner "no running thread in spin_middle < spin_outer" \
		in_order "$TMP/spin" '^    spin_middle \(dump_target.py:[0-9]+\)  \[python\]' \
		'^    spin_outer \(dump_target.py:[0-9]+\)  \[python\]'
	section "$out" 'sleeping in read\(0\)' >"$TMP/read"
	check dump_python_reader_kernel "the reader's kernel stack has no pipe read over read's entry" \
		grep -qE '^    (anon_)?pipe_read  \[kernel\]' "$TMP/read"
	check dump_python_reader "no thread in read(0) with libc's read < wait_for_input ($PY:$read) < reader_main" \
		in_order "$TMP/read" "^    wait_for_input \\(dump_target.py:$read\\)  \\[python\\]" \
		'^    reader_main \(dump_target.py:[0-9]+\)  \[python\]'
	s=$(grep -cE '^    (__)?(libc_)?read[^ ]* .*\[native libc' "$TMP/read")
	check dump_python_reader_libc "no libc read frame in the reader's stack" [ "$s" -gt 0 ]
	section "$out" 'sleeping in (clock_nanosleep|nanosleep|select|pselect6)' >"$TMP/nap"
	check dump_python_sleeper "no thread asleep in nap ($PY:$nap) < sleeper_main" \
		in_order "$TMP/nap" "^    nap \\(dump_target.py:$nap\\)  \\[python\\]" \
		'^    sleeper_main \(dump_target.py:[0-9]+\)  \[python\]'
	for s in spin read nap; do
		check "dump_python_whole_$s" "the $s thread's stack ends in $(grep . "$TMP/$s" | tail -1), not its root" \
			grep -qE "^    (clone3?|start_thread) " <(grep . "$TMP/$s" | tail -1)
	done
	check dump_python_main "the main thread's <module> frame is missing" \
		grep -qE '^    <module> \(dump_target.py:[0-9]+\)  \[python\]' "$out"
	check dump_python_stderr "ebprof said: $(paste -sd'|' "$TMP/dump.err")" \
		[ ! -s "$TMP/dump.err" ]
}

python_json() {
	local rc
	"$EBPROF" dump -p "$PID" --json >"$TMP/dump.json" 2>"$TMP/json.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail dump_json "dump --json failed, $(how_ended "$rc" "$TMP/json.err")"
		return
	fi
	/usr/bin/python3 - "$TMP/dump.json" "$PID" >"$TMP/json.check" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["pid"] == int(sys.argv[2]), d["pid"]
threads = d["threads"]
assert len(threads) == 4, len(threads)
def names(t):
    return [f["name"] for f in t["frames"] if f["kind"] == "python"]
def chain(t, *want):
    n = names(t)
    return any(n[i:i + len(want)] == list(want) for i in range(len(n)))
spin = [t for t in threads if chain(t, "spin_middle", "spin_outer")]
assert spin and spin[0]["state"] == "running", [names(t) for t in threads]
reader = [t for t in threads if t.get("syscall") == "read"]
assert reader and chain(reader[0], "wait_for_input", "reader_main"), reader
assert any("pipe_read" in k for k in reader[0]["kernel"]), reader[0]["kernel"]
leaf = [f for f in spin[0]["frames"] if f["name"] == "spin_middle"][0]
assert leaf["file"].endswith("dump_target.py") and leaf["line"] > 0, leaf
native = [f for f in reader[0]["frames"] if f["kind"] == "native"]
assert native and all("mapping" in f for f in native), native
print("ok: %d threads" % len(threads))
EOF
	check dump_json "$(tail -2 "$TMP/json.check" | paste -sd' ')" grep -q '^ok' "$TMP/json.check"
}

python_after() {
	check dump_python_untraced "a thread of $PID is still traced after the dump" untraced "$PID"
	printf x >&3
	for _ in $(seq 50); do
		grep -qE '^read ([0-9]|failed)' "$TMP/py.out" && break
		sleep 0.1
	done
	check dump_python_restarted "the reader, given a byte after the dumps, said: $(grep -E '^read ([0-9]|failed)' "$TMP/py.out" || echo nothing)" \
		grep -q '^read 1$' "$TMP/py.out"
	check dump_python_alive "the workload ended during the dumps" kill -0 "$PID"
}

python_cases() {
	start_python || return
	case_selected dump_python && python_text
	case_selected dump_json && python_json
	case_selected dump_python && python_after
	kill "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null
	exec 3>&-
	bpf_gone dump_no_leftovers
}

java_cases() {
	local root=$ROOTS/bookworm rc out=$TMP/java.txt jpid nap
	[ -x "$root/usr/bin/javac" ] || root=
	if [ -z "$root" ] && ! command -v javac >/dev/null; then
		echo "SKIP dump_java: no JDK (scripts/install-deps.sh test)"
		return
	fi
	root_dir "$root" dump-java
	cp tests/workloads/java/Dump.java "$DIR/"
	if ! (in_root "$root" javac -d "$RDIR" "$RDIR/Dump.java") >"$TMP/javac.log" 2>&1; then
		fail dump_java "javac failed: $(tail -2 "$TMP/javac.log")"
		return
	fi
	(in_root "$root" java -cp "$RDIR" Dump "$(secs 60)") >"$TMP/java.out" 2>&1 &
	for _ in $(seq 600); do
		grep -q ready "$TMP/java.out" 2>/dev/null && break
		sleep 0.1
	done
	jpid=$(pgrep -f "Dump $(secs 60)\$" | head -1)
	# Compiled code for spinLeaf: a second of spinning is not always enough on a busy host.
	sleep "$(secs 2)"
	"$EBPROF" dump -p "$jpid" >"$out" 2>"$TMP/java.err"
	rc=$?
	kill "$jpid" 2>/dev/null
	wait 2>/dev/null
	cat "$out" >&2
	if [ "$rc" -ne 0 ]; then
		fail dump_java "dump failed, $(how_ended "$rc" "$TMP/java.err")"
		return
	fi
	nap=$(marker_line tests/workloads/java/Dump.java NAP_LINE)
	section "$out" '"sleeper"' >"$TMP/sleeper"
	check dump_java_sleeper "no sleeper thread in Thread.sleep < Dump.nap (Dump.java:$nap) < Dump.napMain" \
		in_order "$TMP/sleeper" '^    java\.lang\.Thread\.sleep[0-9]* .*\[jvm\]' \
		"^    Dump\\.nap \\(Dump\\.java:$nap\\)  \\[jvm\\]" '^    Dump\.napMain \(Dump\.java:[0-9]+\)  \[jvm\]'
	check dump_java_sleeper_native "the sleeper shows no libc wait under the JVM's sleep" \
		grep -qE '^    .*(futex|cond_timedwait|cond_wait|nanosleep).*\[native libc' "$TMP/sleeper"
	section "$out" '"spinner"' >"$TMP/spinner"
	# Its leaf is spinLeaf, System.nanoTime() or spinMiddle itself between the calls.
	check dump_java_spinner "no spinner thread in spinMiddle < spinOuter" \
		in_order "$TMP/spinner" '^    Dump\.spinMiddle \(Dump\.java:[0-9]+\)  \[jvm\]' \
		'^    Dump\.spinOuter \(Dump\.java:[0-9]+\)  \[jvm\]'
}

# A process killed while ebprof prepares to dump it: ebprof is held (SIGSTOP) as soon as
# it holds a BPF program (it is loading them), the process killed and reaped, ebprof let
# go. A dump that was already over by
# then is whole and exits 0; the case is tried again, three times at most.
exits() {
	local try rc pid epid lines said
	for try in 1 2 3; do
		/usr/bin/python3 -c 'import time; time.sleep(60)' &
		pid=$!
		sleep 0.5
		"$EBPROF_UNTRACKED" dump -p "$pid" >"$TMP/exit.out" 2>"$TMP/exit.err" &
		epid=$!
		for _ in $(seq 3000); do
			ls -l /proc/"$epid"/fd 2>/dev/null | grep -q bpf-prog && break
			kill -0 "$epid" 2>/dev/null || break
			sleep 0.01
		done
		kill -STOP "$epid" 2>/dev/null
		kill -9 "$pid"
		wait "$pid" 2>/dev/null
		kill -CONT "$epid" 2>/dev/null
		wait "$epid"
		rc=$?
		if [ "$rc" -eq 0 ] && [ "$(grep -c '^thread ' "$TMP/exit.out")" -eq 1 ]; then
			echo "dump_exit: try $try: the dump was over before the kill" >&2
			continue
		fi
		lines=$(wc -l <"$TMP/exit.err")
		said=$(grep -cE "^ebprof: (error: )?process $pid exited during the dump\$" "$TMP/exit.err")
		check dump_exit "try $try: exit $rc, stderr: $(paste -sd'|' "$TMP/exit.err")" \
			[ "$rc" -eq 1 -a "$lines" -eq 1 -a "$said" -eq 1 ]
		return
	done
	fail dump_exit "three dumps were over before their process was killed"
}

# A process of 500 threads asleep on one Event: every one's stack, none lost (the ring
# buffer holds a stack of every thread at once; the stops are reaped without a scan each).
many_threads() {
	local pid rc n whole
	/usr/bin/python3 -c '
import threading, time
ev = threading.Event()
for _ in range(500):
    threading.Thread(target=ev.wait, daemon=True).start()
print("ready", flush=True)
time.sleep(600)' >"$TMP/many.out" 2>&1 &
	pid=$!
	for _ in $(seq 300); do
		grep -q ready "$TMP/many.out" && break
		sleep 0.1
	done
	"$EBPROF_UNTRACKED" dump -p "$pid" >"$TMP/many.txt" 2>"$TMP/many.err"
	rc=$?
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	n=$(grep -c '^thread ' "$TMP/many.txt")
	whole=$(grep -c '^    Event.wait (threading.py:[0-9]*)  \[python\]' "$TMP/many.txt")
	grep -m3 'user stack not read' "$TMP/many.txt" >&2
	check dump_many_threads "exit $rc, $n threads, $whole with Event.wait in Python" \
		[ "$rc" -eq 0 -a "$n" -eq 501 -a "$whole" -eq 500 ]
}

# A kernel thread (kthreadd, pid 2): its kernel stack, and no ptrace tried.
kernel_thread() {
	local rc said
	"$EBPROF_UNTRACKED" dump -p 2 >"$TMP/kthread.out" 2>"$TMP/kthread.err"
	rc=$?
	said=$(grep -c 'a kernel thread has none' "$TMP/kthread.out")
	check dump_kernel_thread "exit $rc: $(head -4 "$TMP/kthread.out" | paste -sd'|') $(paste -sd'|' "$TMP/kthread.err")" \
		[ "$rc" -eq 0 -a "$said" -ge 1 ]
}

bad_args() {
	usage_errors dump_bad_args dump "" "-p 1,2" "-p 999999999" "-p 1 extra" "--wait x -p 1"
}

track_bpf
case_selected dump_python || case_selected dump_json && python_cases
case_selected dump_java && java_cases
case_selected dump_exit && exits
case_selected dump_many_threads && many_threads
case_selected dump_kernel_thread && kernel_thread
case_selected dump_bad_args && bad_args
true # the last case may be left out
