#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Perl frames in mixed stacks on every Perl the runtime roots hold (scripts/runtimes.sh:
# 5.32, 5.36, 5.40). First each layout ebprof has is compared with what that Perl's own
# headers say (tests/workloads/perl/layout.c, built against the root's CORE/). Then one
# recording runs tests/workloads/perl/all.pl on the three Perls at once, each naming
# itself perl-VERSION: three named subs, a comparator inside sort { }, List::Util::reduce
# with a Perl block calling Digest::SHA::sha256_hex, a sub called from a string eval, a
# sub of another package, an anonymous sub, an overloaded + whose handler enters an eval
# (S_docatch's nested loop: the outer loop of the pair stays native), a named sort sub
# whose loop is Perl_runops_debug, a sub in a thread of its own. Each asserts
# that >= 90 % of the samples reaching its leaf carry the whole chain, the leaf's line
# included; 5.32, which keeps no per-thread interpreter pointer, gives the thread's
# samples no Perl frames and says so once. The pprof profile and the flame graph of that
# recording name the subs too, and `ebprof agent` sends them over OTLP as frames of type
# perl. A root missing is a SKIP.
. "$(dirname "$0")/lib.sh"

WL=tests/workloads/perl
SECS=${PERL_TEST_SECONDS:-1} # of CPU time per scenario and Perl
# LABEL:ROOT:PERL
PERLS=("5.32:$ROOTS/bullseye:/usr/bin/perl" "5.36:$ROOTS/bookworm:/usr/bin/perl"
	"5.40:$ROOTS/trixie:/usr/bin/perl")

line_of() { grep -n "# $1\$" "$WL/all.pl" | cut -d: -f1; }

# layout LABEL ROOT: the table against the headers of the Perl in ROOT.
layout() {
	local l=$1 root=$2 core
	core=$(ls -d "$root"/usr/lib/*/perl/5.*.*/CORE 2>/dev/null | head -1)
	if [ -z "$core" ]; then
		echo "SKIP perl_${l}_layout: no CORE/ headers in $root"
		return
	fi
	if ! ${CC:-cc} -w -I"$core" "$WL/layout.c" -o "$TMP/layout-$l" 2>"$TMP/layout-$l.log"; then
		fail "perl_${l}_layout" "layout.c did not build against $core: $(head -2 "$TMP/layout-$l.log")"
		return
	fi
	"$TMP/layout-$l" >"$TMP/layout-$l.txt"
	if PERL_LAYOUT_EXPECT=$TMP/layout-$l.txt PERL_LAYOUT_VERSION=$l \
		"$BUILD/tests/test_perl_layout" 2>&1 | grep -q '^PASS test_table_matches_headers'; then
		pass "perl_${l}_layout"
	else
		fail "perl_${l}_layout" "ebprof's table differs from $core's headers: $(PERL_LAYOUT_EXPECT=$TMP/layout-$l.txt PERL_LAYOUT_VERSION=$l "$BUILD/tests/test_perl_layout" 2>&1 | grep -v '^PASS' | head -8 | tr '\n' ' ')"
	fi
}

# The suites whose root and perl are there: "LABEL ROOT PERL" lines; SKIP for the others.
present=()
for spec in "${PERLS[@]}"; do
	IFS=: read -r label root perl <<<"$spec"
	if [ ! -x "$root$perl" ]; then
		echo "SKIP perl_$label: no $root$perl (scripts/runtimes.sh makes it)"
		continue
	fi
	layout "$label" "$root"
	present+=("$label:$root:$perl")
done
[ ${#present[@]} -gt 0 ] || exit 0

# One recording, every Perl at once, each in its root with the workload copied there.
cmd=""
for spec in "${present[@]}"; do
	IFS=: read -r label root perl <<<"$spec"
	root_dir "$root" perl
	cp "$WL/all.pl" "$DIR/"
	cmd+="(in_root '$root' '$perl' '$RDIR/all.pl' '$label' '$(secs "$SECS")') & "
done
OUT=$TMP/out
"$EBPROF" record -F 199 -o "$OUT" -- bash -c "$(declare -f in_root); ${cmd}wait" \
	>"$OUT.stdout" 2>"$OUT.stderr"
rc=$?
grep -E '^  perl' "$OUT.stdout" >&2
if [ "$rc" -ne 0 ]; then
	fail perl_record "record failed, $(how_ended "$rc" "$OUT.stderr")"
	exit 0
fi
F=$OUT/stacks.folded

P='all\.pl'

# threads LABEL PERL START: the sub a thread runs, under the thread's own start (threads.so
# calls it; trixie's libc has no symbol for start_thread). Before 5.36 (no
# PL_current_context) the thread keeps native stacks, said once per process.
threads() {
	local l=$1 perl=$2 c=$3 of total wrong warned pid
	of="^perl-${l//./\\.};([^;]*;)*[^;]*threads\\.so"
	if [ "$l" != 5.32 ]; then
		expect "perl_${l}_thread" "$F" "the thread's start -> thread_body -> in_thread at line $(line_of IN_THREAD)" \
			"${c}[^;]*threads\\.so[^;]*;([^;]*;)*main::thread_body \($P:[0-9]+\);main::in_thread \($P:$(line_of IN_THREAD)\)$leaf" \
			"^perl-${l//./\\.};.*main::in_thread \(" 40
		return
	fi
	pid=$(sed -n "s|^ebprof: perl: $perl is Perl 5\.32\.[0-9]* (pid \([0-9]*\))|\1|p" "$OUT.stderr")
	warned=$(grep -c "perl: pid $pid runs Perl threads" "$OUT.stderr")
	# The thread's own samples, not the main thread's in threads.so (creating the thread,
	# cloning the interpreter, joining it), which start at _start.
	grep -E "$of" "$F" | grep -v ';_start;' >"$F.thread"
	total=$(awk '{ s += $NF } END { print s + 0 }' "$F.thread")
	wrong=$(grep 'main::' "$F.thread" | awk '{ s += $NF } END { print s + 0 }')
	echo "perl_${l}_thread: $total samples in the thread, $wrong with Perl frames; said $warned times" >&2
	if [ "$total" -lt 40 ] || [ "$wrong" -ne 0 ] || [ "$warned" -ne 1 ]; then
		fail "perl_${l}_thread" "want >= 40 thread samples, none with Perl frames, one warning"
	else
		pass "perl_${l}_thread"
	fi
}
leaf="(;[^;]*)* [0-9]+$" # what follows the leaf: native frames, the count
main="main:: \($P:$(line_of MAIN)\)"
for spec in "${present[@]}"; do
	IFS=: read -r l root perl <<<"$spec"
	c="^perl-${l//./\\.};([^;]*;)*" # the process, its native start
	said=$(grep -cE "^ebprof: perl: $root$perl is Perl ${l//./\\.}\.[0-9]+ \(pid" "$OUT.stderr")
	check "perl_${l}_discovery" "ebprof said $said lines of $root$perl's version, want 1" \
		test "$said" -eq 1
	expect "perl_${l}_chain" "$F" "main -> run_chain -> outer -> middle -> leaf at line $(line_of LEAF)" \
		"${c}$main;main::run_chain \($P:[0-9]+\);main::outer \($P:[0-9]+\);main::middle \($P:[0-9]+\);main::leaf \($P:$(line_of LEAF)\)$leaf" \
		"^perl-${l//./\\.};.*main::leaf \(" 40
	expect "perl_${l}_sort" "$F" "sorter -> sort -> its block -> weight at line $(line_of WEIGHT), the outer subs kept" \
		"${c}$main;main::run_sort \($P:[0-9]+\);main::sorter \($P:$(line_of SORT)\);([^;]*;)+main::sorter \($P:$(line_of SORT)\);main::weight \($P:$(line_of WEIGHT)\)$leaf" \
		"^perl-${l//./\\.};.*main::weight \(" 40
	expect "perl_${l}_reduce_sha" "$F" "fold -> reduce (Util.so) -> its block -> digest -> sha256_hex (SHA.so)" \
		"${c}$main;main::run_reduce \($P:[0-9]+\);main::fold \($P:$(line_of FOLD)\);([^;]*;)*[^;]*Util\.so[^;]*;([^;]*;)*main::__ANON__\[$P:$(line_of FOLD)\] \($P:$(line_of FOLD)\);main::digest \($P:$(line_of DIGEST)\);([^;]*;)*[^;]*SHA\.so" \
		"^perl-${l//./\\.};.*SHA\.so" 40
	expect "perl_${l}_string_eval" "$F" "run_eval -> (eval) -> in_eval at line $(line_of IN_EVAL)" \
		"${c}$main;main::run_eval \($P:$(line_of EVAL)\);\(eval\) \(\(eval [0-9]+\):1\);main::in_eval \($P:$(line_of IN_EVAL)\)$leaf" \
		"^perl-${l//./\\.};.*main::in_eval \(" 40
	expect "perl_${l}_package" "$F" "run_pkg -> Foo::bar at line $(line_of BAR)" \
		"${c}$main;main::run_pkg \($P:[0-9]+\);Foo::bar \($P:$(line_of BAR)\)$leaf" \
		"^perl-${l//./\\.};.*Foo::bar \(" 40
	expect "perl_${l}_anonymous" "$F" "run_anon -> __ANON__ at line $(line_of ANON)" \
		"${c}$main;main::run_anon \($P:[0-9]+\);main::__ANON__\[$P:$(line_of ANON)\] \($P:$(line_of ANON)\)$leaf" \
		"^perl-${l//./\\.};.*main::__ANON__\[$P:$(line_of ANON)\] \(" 40
	expect "perl_${l}_overload_eval" "$F" "run_overload -> + (C) -> the outer loop kept -> Num::add -> Num::weigh at line $(line_of WEIGH)" \
		"${c}$main;main::run_overload \($P:[0-9]+\);([^;]*;)*Perl_runops_standard;([^;]*;)*Num::add \($P:$(line_of ADD)\);Num::weigh \($P:$(line_of WEIGH)\)$leaf" \
		"^perl-${l//./\\.};.*Num::weigh \(" 40
	expect "perl_${l}_runops_debug" "$F" "dsorter -> sort (Perl_runops_debug) -> by_dweight -> dweight at line $(line_of DWEIGHT)" \
		"${c}$main;main::run_debug \($P:[0-9]+\);main::dsorter \($P:$(line_of DSORT)\);([^;]*;)+main::by_dweight \($P:$(line_of BY_DWEIGHT)\);main::dweight \($P:$(line_of DWEIGHT)\)$leaf" \
		"^perl-${l//./\\.};.*main::dweight \(" 40
	threads "$l" "$root$perl" "$c"
done
# OTLP: `ebprof agent` sends to tests/otlp's gRPC receiver while one Perl runs the chain,
# until that Perl has had 1.5 s of CPU time (a busy host gives it a fraction of a CPU);
# SIGTERM flushes the last interval. check.mjs wants main::leaf and main::outer in sampled
# stacks of that process and a location whose profile.frame.type is perl.
otlp() {
	local l root perl pid agent rc start i
	IFS=: read -r l root perl <<<"${present[0]}"
	OTLP_DIR=$PWD/tests/otlp
	. tests/otlp/lib.sh
	if ! command -v node >/dev/null || ! otlp_node_modules 2>/dev/null; then
		echo "SKIP perl_otlp: node or tests/otlp's npm packages missing (scripts/install-deps.sh test)"
		return
	fi
	if ! otlp_receiver "$TMP" otlp grpc 0; then
		fail perl_otlp "the gRPC receiver did not start"
		return
	fi
	root_dir "$root" perl
	cp "$WL/all.pl" "$DIR/"
	in_root "$root" "$perl" "$RDIR/all.pl" otlp 120 >/dev/null 2>&1 &
	pid=$!
	"$EBPROF" agent -F 199 --endpoint "127.0.0.1:$receiver_port" --insecure --report-interval 1s \
		>"$TMP/otlp.out" 2>"$TMP/otlp.err" &
	agent=$!
	wait_sampling "$agent"
	start=$(cpu_ticks "$pid")
	for i in $(seq 1200); do # at most 2 minutes
		[ $(($(cpu_ticks "$pid") - start)) -ge $((150 * $(getconf CLK_TCK) / 100)) ] && break
		kill -0 "$agent" 2>/dev/null || break
		sleep 0.1
	done
	kill -TERM "$agent" 2>/dev/null
	wait "$agent"
	rc=$?
	kill "$pid" "$receiver_pid" 2>/dev/null
	wait "$pid" "$receiver_pid" 2>/dev/null
	if [ "$rc" -ne 0 ]; then
		fail perl_otlp "agent failed, $(how_ended "$rc" "$TMP/otlp.err")"
		return
	fi
	node tests/otlp/check.mjs "$TMP/otlp.jsonl" --function main::leaf --function main::outer \
		--pid "$pid" --frame-type perl >"$TMP/otlp.check" 2>&1
	rc=$? # before the reason's command substitution, which sets $? again
	check perl_otlp "$(tail -3 "$TMP/otlp.check" | paste -sd' ')" [ "$rc" -eq 0 ]
}
otlp
# The pprof profile and the flame graph name the same frames.
check perl_outputs "the pprof profile or the flame graph lacks main::leaf" \
	sh -c "gzip -dc '$OUT/profile.pb.gz' | grep -aq 'main::leaf' && grep -q 'main::leaf' '$OUT/flamegraph.html'"
