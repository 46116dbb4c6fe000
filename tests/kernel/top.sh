#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `ebprof top`: --batch over four runtimes' three-function chains (native, Python, Java,
# Node) shows each one's leaf in the first rows within three intervals; the interactive
# view, driven through a pseudo-terminal (script(1)) with keys, sorts, groups, filters
# and quits, leaving the terminal's settings as they were; wrong arguments are one line.
. "$(dirname "$0")/lib.sh"

ROWS=12

# The Java chain: a root's JDK (the one the suite installs), else the host's; none: no
# Java row is expected.
java_chain() {
	local root=$ROOTS/bookworm secs=$1
	[ -x "$root/usr/bin/javac" ] || root=
	if [ -z "$root" ] && ! command -v javac >/dev/null; then
		echo "SKIP top_batch_java: no JDK (scripts/install-deps.sh test)"
		return 1
	fi
	root_dir "$root" top-java
	cp tests/workloads/java/Chain.java "$DIR/"
	(in_root "$root" javac -d "$RDIR" "$RDIR/Chain.java") >"$TMP/javac.log" 2>&1 || {
		fail top_batch_java "javac failed: $(tail -2 "$TMP/javac.log")"
		return 1
	}
	start java in_root "$root" java -cp "$RDIR" Chain "$secs"
}

# in_tables NAME PATTERN: a row matching PATTERN is among the first ROWS of a table.
in_tables() {
	local n
	n=$(awk -v rows="$ROWS" '/^ebprof top / { row = 0; next } /^   SELF/ { next }
		NF { row++; if (row <= rows) print }' "$TMP/batch.out" | grep -cE -- "$2")
	check "$1" "no row matching '$2' among the first $ROWS of any table" [ "$n" -gt 0 ]
}

# start NAME CMD...: CMD in the background, its stderr kept as NAME's; adds its pid to
# PIDS.
declare -A NAME_OF CMD_OF
PIDS=
start() {
	local name=$1
	shift
	CMD_OF[$name]=$(printf '%q ' "$@")
	"$@" 2>"$TMP/$name.err" &
	NAME_OF[$!]=$name
	PIDS+=${PIDS:+,}$!
}

# alive: every workload runs. One that already exited (top -p then rightly refuses the
# whole list) did so before ebprof ran, not top's doing: it is said, with its last words,
# and started again, once; if it exits again, a FAIL line.
alive() {
	local pid name rc=0 was=$PIDS
	for pid in ${was//,/ }; do
		kill -0 "$pid" 2>/dev/null && continue
		name=${NAME_OF[$pid]}
		echo "top_batch: $name (pid $pid) exited before top began: $(tail -3 "$TMP/$name.err" | tr '\n' ' ')" >&2
		PIDS=$(tr ',' '\n' <<<"$PIDS" | grep -vx "$pid" | paste -sd,)
		eval "start $name ${CMD_OF[$name]}"
		sleep 1
		kill -0 $! 2>/dev/null && continue
		fail top_batch "$name exited twice before top began: $(tail -3 "$TMP/$name.err" | tr '\n' ' ')"
		rc=1
	done
	return $rc
}

batch() {
	local secs rc
	secs=$(secs 12)
	# Java first: javac takes longer than the others' whole run in an emulated guest.
	java_chain "$secs"
	start nofp_qsort "$W/nofp_qsort" "$secs"
	start python /usr/bin/python3 tests/workloads/python/chain.py "$secs"
	command -v node >/dev/null && start node node tests/workloads/node/chain.js "$secs"
	sleep 1
	alive || return
	# In a guest the runtimes are named (lib.sh: named_runtime): there a walker verified
	# once its process is found took longer than the three intervals (ci-E, 6.1).
	"$EBPROF" top --batch -n 3 -i "$(secs 2)" -w "$(secs 4)" --by process --rows "$ROWS" \
		$(named_runtime python,v8,hotspot) -p "$PIDS" >"$TMP/batch.out" 2>"$TMP/batch.err"
	rc=$?
	kill ${PIDS//,/ } 2>/dev/null
	wait 2>/dev/null
	if [ "$rc" -ne 0 ]; then
		fail top_batch "top failed, $(how_ended "$rc" "$TMP/batch.err")"
		return
	fi
	cat "$TMP/batch.out" >&2
	check top_batch_tables "$(grep -c '^ebprof top ' "$TMP/batch.out") tables, want 3" \
		[ "$(grep -c '^ebprof top ' "$TMP/batch.out")" -eq 3 ]
	in_tables top_batch_native ' native +nofp_qsort\[[0-9]+\] +(by_key|msort_with_tmp)'
	in_tables top_batch_python ' python +python3[^ ]*\[[0-9]+\] +leaf \[chain\.py\]'
	if command -v node >/dev/null; then
		in_tables top_batch_node ' v8js +node[^ ]*\[[0-9]+\] +leaf \[chain\.js\]'
	else
		echo "SKIP top_batch_node: no node (scripts/install-deps.sh test)"
	fi
	[ -n "${CMD_OF[java]:-}" ] && in_tables top_batch_java ' jvm +java\[[0-9]+\] +Chain\.leaf '
}

# The view in a pseudo-terminal: t (total), p (by process), /by_k Enter (filter), q.
interactive() {
	local pid rc out=$TMP/tty
	"$W/nofp_qsort" "$(secs 20)" &
	pid=$!
	# Keys only once the first screen is up (a loaded host takes seconds to load the
	# programs): a key typed before that is read together with the next, and one screen
	# would show both.
	(
		for _ in $(seq 600); do
			grep -qa 'keys: ' "$out" 2>/dev/null && break
			sleep 0.1
		done
		sleep 1
		printf t
		sleep "$(secs 1.5)"
		printf p
		sleep "$(secs 1.5)"
		printf '/by_k\r'
		sleep "$(secs 2.5)"
		printf q
		sleep "$(secs 5)"
	) | script -qfec "stty rows 30 cols 120; stty -g >$TMP/stty.before; \
		$EBPROF top -p $pid 2>$TMP/tty.err; echo \$? >$TMP/tty.rc; stty -g >$TMP/stty.after" \
		"$out" >/dev/null 2>&1
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rc=$(cat "$TMP/tty.rc" 2>/dev/null || echo none)
	check top_tty_quits "exit $rc on q: $(tail -2 "$TMP/tty.err")" [ "$rc" = 0 ]
	check top_tty_terminal "the terminal's settings changed" cmp -s "$TMP/stty.before" "$TMP/stty.after"
	check top_tty_screen "the alternate screen was not left" grep -qa $'\e\\[?1049l' "$out"
	local seen
	seen=$(grep -ao 'by [a-z]*, [a-z]* first[^[:cntrl:]]*' "$out" | uniq | paste -sd'|')
	echo "top_tty: status lines $seen" >&2
	check top_tty_keys "status lines: $seen" grep -q \
		"by function, self first|by function, total first|by process, total first|by process, total first, 'by_k'" <<<"$seen"
	# After the filter: by_key's rows, no other function's.
	local after keys others
	after=$(sed -n "/by process, total first, 'by_k'/,\$p" "$out" | tr -d '\r')
	keys=$(grep -ac by_key <<<"$after")
	others=$(grep -ac msort_with_tmp <<<"$after")
	check top_tty_filter "the filtered view: $keys by_key rows, $others msort_with_tmp" \
		[ "$keys" -gt 1 -a "$others" -eq 0 ]
}

bad_args() {
	usage_errors top_bad_args top "--sort x" "--by y" "-w 1 -i 2" "-i 0.01" "extra"
}

case_selected top_batch && batch
case_selected top_tty && interactive
case_selected top_bad_args && bad_args
true # the last case may be left out
