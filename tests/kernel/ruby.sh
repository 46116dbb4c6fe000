#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Ruby frames on every CRuby the runtime roots hold (scripts/runtimes.sh: 2.7 in bullseye,
# 3.1 in bookworm, 3.3 in trixie, and 3.3 with YJIT built there from Debian's source) and
# the host's, none of them unstripped: one ebprof record per ruby, of its workloads at once
# (tests/workloads/ruby/), each run through a link named for it so samples tell the
# processes apart by comm. Checks: discovery said once; three methods spinning (with the
# leaf's line); methods of every shape (a class's, a module's, define_method's, one holding
# $~); a block passed to Array#each and to Integer#times, the method between its caller and
# the block; zlib's C extension under Ruby frames down to libz; two threads, each with its
# own chain while the other holds the GVL; the garbage collector as a frame under the Ruby
# code that allocates; the pprof profile and the flame graph of the same recording naming
# the leaf; where the ruby has YJIT, the chain and the blocks again with --yjit. Then a
# second record of the chain, the blocks and the threads (and YJIT's) with the walker
# ebprof uses before 5.17, without bpf_loop (EBPROF_KERNEL_LACKS). Each asserts that >= 90 %
# of the samples reaching its leaf carry the whole chain. Last, `ebprof agent` sends 3.1's
# frames over OTLP as profile.frame.type ruby. A root missing is a SKIP.
. "$(dirname "$0")/lib.sh"

WL=tests/workloads/ruby
SECS=${RUBY_TEST_SECONDS:-10}
KEEP=${RUBY_TEST_KEEP:-} # a directory: the recordings are copied there
# LABEL:ROOT:RUBY (ROOT empty: the host)
# 3.3y: Debian's 3.3.8 source built with YJIT in the trixie root (src/interp/ruby/build-root.sh).
RUBIES=("2.7:$ROOTS/bullseye:/usr/bin/ruby" "3.1:$ROOTS/bookworm:/usr/bin/ruby"
	"3.3:$ROOTS/trixie:/usr/bin/ruby" "3.3y:$ROOTS/trixie:/opt/ruby-3.3-yjit/bin/ruby")
host=$(host_runtime ruby) && RUBIES+=("$host")
WORKLOADS=(chain blocks zip threads gc shapes)
F='[^;]*'	    # one frame
N='([^;(]*;)*'	    # native frames (libruby is stripped: no source lines) and C methods
LEAF='(;[^;]*)* [0-9]+$' # what may follow a leaf: C methods, native and kernel frames

# line_of WORKLOAD MARKER: the line of the workload's "# MARKER" comment.
line_of() { grep -n "# $2\$" "$WL/$1.rb" | cut -d: -f1; }

# yjit_of ROOT RUBY: nothing when the ruby runs with YJIT, else why not (its own words:
# 2.7 has no such option, Debian builds 3.3 with --disable-yjit).
yjit_of() {
	local why
	why=$( (in_root "$1" "$2" --yjit -e 'exit(defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled? ? 0 : 1)') 2>&1) &&
		return
	echo "${why:-YJIT is not enabled}" | head -1
}

# record LABEL ROOT RUBY WORKLOAD...: the workloads at once, each through a link named
# WORKLOAD-LABEL (and chain and blocks as WORKLOAD-LABEL-y with --yjit, when YJIT is
# empty: the ruby has it), under one ebprof record. Sets OUT (folded stacks) and ERR.
record() {
	local l=$1 root=$2 ruby=$3 cmds=() w
	shift 3
	root_dir "$root" ruby
	cp "$WL"/*.rb "$DIR/"
	for w in "$@"; do
		ln -s "$ruby" "$DIR/$w-$l"
		cmds+=("$RDIR/$w-$l $RDIR/$w.rb $SECS")
	done
	if [ -z "$YJIT" ]; then
		for w in chain blocks; do
			ln -s "$ruby" "$DIR/$w-$l-y"
			cmds+=("$RDIR/$w-$l-y --yjit $RDIR/$w.rb $SECS")
		done
	fi
	OUT=$TMP/ruby-$l
	ERR=$OUT.stderr
	"$EBPROF" record -F 199 -o "$OUT" -- bash -c "$(declare -f in_root)
		for c in \"\${@:2}\"; do in_root \"\$1\" \$c & done; wait" \
		runs "$root" "${cmds[@]}" >"$OUT.stdout" 2>"$ERR"
	local rc=$?
	grep -E '^  ruby' "$OUT.stdout" | sed "s/^/ruby_$l: /" >&2
	if [ "$rc" -ne 0 ]; then
		fail "ruby_$l" "record failed, $(how_ended "$rc" "$ERR")"
		OUT=/dev/null
		return
	fi
	[ -n "$KEEP" ] && cp -r "$OUT" "$KEEP/"
	OUT=$OUT/stacks.folded
}

# checks LABEL SUFFIX: the chain and the blocks of the processes named *-LABEL$SUFFIX.
chain_checks() {
	local l=$1 s=$2 c="chain-$1$2" b="blocks-$1$2"
	expect "ruby_$l${s}_chain" "$OUT" "<main> -> Chain#outer -> #middle -> #leaf at line $(line_of chain LEAF_LINE)" \
		"^$c;.*<main> \(chain\.rb:[0-9]+\);Chain#outer \(chain\.rb:[0-9]+\);Chain#middle \(chain\.rb:[0-9]+\);Chain#leaf \(chain\.rb:$(line_of chain LEAF_LINE)\)$LEAF" \
		"^$c;.*Chain#leaf \(" 40
	expect "ruby_$l${s}_each" "$OUT" "Blocks#with_each -> Array#each -> block in Blocks#with_each -> #work" \
		"^$b;.*Blocks#run \(blocks\.rb:[0-9]+\);Blocks#with_each \(blocks\.rb:$(line_of blocks EACH_LINE)\);Array#each;${N}block in Blocks#with_each \(blocks\.rb:$(line_of blocks EACH_LINE)\);Blocks#work \(blocks\.rb:$(line_of blocks WORK_LINE)\)$LEAF" \
		"^$b;.*block in Blocks#with_each" 20
	# Integer#times is C before 3.3, Ruby (<internal:numeric>) from 3.3 on.
	expect "ruby_$l${s}_times" "$OUT" "Blocks#with_times -> Integer#times -> block in Blocks#with_times -> #work" \
		"^$b;.*Blocks#run \(blocks\.rb:[0-9]+\);Blocks#with_times \(blocks\.rb:$(line_of blocks TIMES_LINE)\);Integer#times( \([^;]*\))?;${N}block in Blocks#with_times \(blocks\.rb:$(line_of blocks TIMES_LINE)\);Blocks#work \(blocks\.rb:$(line_of blocks WORK_LINE)\)$LEAF" \
		"^$b;.*block in Blocks#with_times" 20
}

# shape_checks LABEL: the methods of every shape of the process named shapes-LABEL, their
# samples pooled (each gets a fourth of one process's time), each method seen at least once.
shape_checks() {
	local l=$1 h="shapes-$1" m chains='' leaves='' missing=''
	for m in "Shapes.area AREA_LINE" "Measure#scale SCALE_LINE" "Shapes#perimeter PERIMETER_LINE" \
		"Shapes#match_count MATCH_LINE"; do
		set -- $m
		chains+="${chains:+|}$1 \\(shapes\\.rb:$(line_of shapes "$2")\\)"
		leaves+="${leaves:+|}$1 \\("
		grep -qE "^$h;.*<main> \\(shapes\\.rb:[0-9]+\\);Shapes#run \\(shapes\\.rb:[0-9]+\\);${N}$1 \\(shapes\\.rb:$(line_of shapes "$2")\\)" "$OUT" ||
			missing+=" $1"
	done
	if [ -n "$missing" ] && [ "$OUT" != /dev/null ]; then
		fail "ruby_${l}_shapes" "never seen with its chain:$missing"
		return
	fi
	expect "ruby_${l}_shapes" "$OUT" "Shapes#run -> Shapes.area, Measure#scale, Shapes#perimeter (define_method), Shapes#match_count (\$~) at their lines" \
		"^$h;.*<main> \\(shapes\\.rb:[0-9]+\\);Shapes#run \\(shapes\\.rb:[0-9]+\\);${N}($chains)$LEAF" \
		"^$h;.*($leaves)" 30
}

# thread_checks LABEL: the two threads of the process named threads-LABEL.
thread_checks() {
	local l=$1 t="threads-$1"
	# Each thread's own chain: B in libz (the GVL released) while A spins holding it.
	expect "ruby_${l}_thread_a" "$OUT" "thread A: its block -> Spinner#a_main -> #a_leaf, nothing of B" \
		"^$t;.*block in <main> \(threads\.rb:[0-9]+\);Spinner#a_main \(threads\.rb:[0-9]+\);Spinner#a_leaf \(threads\.rb:$(line_of threads A_LEAF_LINE)\)$LEAF" \
		"^$t;.*(Spinner#a_leaf \(|Packer.*Spinner|Spinner.*Packer)" 20
	expect "ruby_${l}_thread_b" "$OUT" "thread B: its block -> Packer#b_main -> #b_leaf -> zlib -> libz" \
		"^$t;.*block in <main> \(threads\.rb:[0-9]+\);Packer#b_main \(threads\.rb:[0-9]+\);Packer#b_leaf \(threads\.rb:$(line_of threads B_LEAF_LINE)\);Zlib::Deflate\.deflate;($F;)*deflate(;|$LEAF)" \
		"^$t;.*;deflate(;|$LEAF)" 20
}

suite() {
	local l=$1 root=$2 ruby=$3 said z="zip-$1" g="gc-$1"
	YJIT=$(yjit_of "$root" "$ruby")
	record "$l" "$root" "$ruby" "${WORKLOADS[@]}"
	said=$(grep -E '^ebprof: (warning: )?ruby: ' "$ERR" | sort -u)
	echo "$said" | sed "s/^/ruby_$l: /" >&2
	if [ "$(echo "$said" | grep -c .)" -ne 1 ] || ! echo "$said" | grep -qE 'is Ruby [0-9]+\.[0-9]+\.[0-9]+ '; then
		fail "ruby_${l}_discovery" "want one line naming the Ruby, got: $said"
		return
	fi
	pass "ruby_${l}_discovery"
	chain_checks "$l" ""
	# The same recording's other outputs carry the Ruby frames too, not only the folded.
	check "ruby_${l}_outputs" "the pprof profile or the flame graph lacks Chain#leaf" \
		sh -c "gzip -dc '${OUT%/*}/profile.pb.gz' | grep -aq 'Chain#leaf' && grep -q 'Chain#leaf' '${OUT%/*}/flamegraph.html'"
	expect "ruby_${l}_zlib" "$OUT" "Zip#compress -> Zlib::Deflate.deflate -> libz's deflate" \
		"^$z;.*Zip#run \(zip\.rb:[0-9]+\);Zip#compress \(zip\.rb:$(line_of zip DEFLATE_LINE)\);Zlib::Deflate\.deflate;($F;)*deflate(;|$LEAF)" \
		"^$z;.*;deflate(;|$LEAF)" 40
	thread_checks "$l"
	shape_checks "$l"
	# The script's collections (rubygems' at start-up, under ruby_options, are not its),
	# under its Ruby frames (Garbage#churn's, or the class body's building its live set).
	expect "ruby_${l}_gc" "$OUT" "the collector's frame under the script's Ruby frames" \
		"^$g;.*<main> \(gc\.rb:[0-9]+\);.*\(garbage collection\)" \
		"^$g;.*ruby_run_node;.*\(garbage collection\)" 10
	if [ -z "$YJIT" ]; then
		chain_checks "$l" "-y"
	else
		echo "SKIP ruby_${l}_yjit: $YJIT"
	fi
	# The same walks without bpf_loop (the walker kernels before 5.17 get).
	EBPROF_KERNEL_LACKS=bpf_loop record "${l}u" "$root" "$ruby" chain blocks threads
	[ "$OUT" = /dev/null ] && return
	chain_checks "${l}u" ""
	thread_checks "${l}u"
	if [ -z "$YJIT" ]; then
		chain_checks "${l}u" "-y"
	fi
}

# file_offset FILE SYMBOL: where SYMBOL's bytes lie in FILE (its dynamic symbol's address
# through the PT_LOAD that holds it).
file_offset() {
	local a type off va fsz _
	a=$(nm -D --defined-only "$1" | awk -v s="$2" '$3 == s { print $1 }')
	[ -n "$a" ] || return 1
	while read -r type off va _ fsz _; do
		[ "$type" = LOAD ] || continue
		if ((16#$a >= va && 16#$a < va + fsz)); then
			echo $((16#$a - va + off))
			return 0
		fi
	done < <(readelf -lW "$1")
	return 1
}

# A release ebprof has no layout for, said once, its process left with native stacks:
# bookworm's libruby with its ruby_version made "3.2.2", loaded through LD_LIBRARY_PATH. Without
# gems: rbconfig.rb would refuse the mismatched release and end the process at once, before
# ebprof may have seen it.
unknown_release() {
	local root=$ROOTS/bookworm lib=libruby-3.1.so.3.1 off said
	if [ ! -f "$root/usr/lib/x86_64-linux-gnu/$lib" ]; then
		echo "SKIP ruby_unknown_release: no $root (scripts/runtimes.sh makes it)"
		return
	fi
	root_dir "$root" ruby
	cp "$root/usr/lib/x86_64-linux-gnu/$lib" "$DIR/$lib"
	cp "$WL/chain.rb" "$DIR/"
	off=$(file_offset "$DIR/$lib" ruby_version)
	if [ -z "$off" ] || ! printf '3.2.2' | dd of="$DIR/$lib" bs=1 seek="$off" conv=notrunc status=none; then
		fail ruby_unknown_release "cannot patch ruby_version in a copy of $lib"
		return
	fi
	OUT=$TMP/ruby-unknown
	"$EBPROF" record -F 199 -o "$OUT" -- bash -c "$(declare -f in_root); in_root \"\$@\"" in_root \
		"$root" env LD_LIBRARY_PATH="$RDIR" /usr/bin/ruby --disable-gems "$RDIR/chain.rb" 3 >"$OUT.stdout" 2>"$OUT.stderr"
	said=$(grep -E '^ebprof: (warning: )?ruby: ' "$OUT.stderr")
	echo "ruby_unknown_release: $said" >&2
	if [ "$(echo "$said" | grep -c .)" -ne 1 ] || ! echo "$said" | grep -q 'is Ruby 3.2.2, which ebprof cannot unwind'; then
		fail ruby_unknown_release "want one line saying 3.2.2 is unknown, got: $said"
	elif grep -q 'Chain#' "$OUT/stacks.folded" || ! grep -q "$lib" "$OUT/stacks.folded"; then
		fail ruby_unknown_release "its stacks are not native"
	else
		pass ruby_unknown_release
	fi
}

# OTLP: `ebprof agent` sends a Ruby process's frames as profile.frame.type ruby, the
# chain's methods within its own resource. One ruby, 3.1's (the kind's row is the same on
# every version).
otlp() {
	local root=$ROOTS/bookworm pid
	if [ ! -x "$root/usr/bin/ruby" ]; then
		echo "SKIP ruby_otlp: no $root/usr/bin/ruby (scripts/runtimes.sh makes it)"
		return
	fi
	root_dir "$root" ruby
	cp "$WL/chain.rb" "$DIR/"
	(in_root "$root" /usr/bin/ruby "$RDIR/chain.rb" 60 >/dev/null 2>&1) &
	pid=$!
	agent_sends ruby_otlp "$pid" ruby 'Chain#leaf' 'Chain#middle' 'Chain#outer' '<main>'
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null || true
}

runtime_suites ruby suite "${RUBIES[@]}"
unknown_release
otlp
