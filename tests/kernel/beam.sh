#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Erlang frames in mixed stacks on the OTP releases the runtime roots hold with the JIT
# (scripts/runtimes.sh: OTP 25 on bookworm, 27 on trixie), each with the JIT's default
# frame layout and with frame pointers (+JPperf true): one recording runs
# tests/workloads/beam/chain.erl in the four VMs at once, each compiled as a module of
# its own (chain_LABEL). Asserted per VM: its process is said once with its frame layout;
# >= 90 % of the samples reaching leaf/3 carry spin -> outer -> middle -> leaf, the leaf's
# line included, from the process's first frame (the scan reached it); on each of its two
# schedulers (+S 2; go tool pprof's traces, by the thread label the VM's name for the
# thread has: N_scheduler on OTP 25, erts_sched_N on 27) the same of its leaf's samples;
# >= 90 % of the samples inside erlang:term_to_binary/1 (a BIF) carry encode_loop ->
# encode above it, and where the root has crypto, of those inside crypto:hash/2's NIF
# that reach the JIT's call_nif_shared hash_loop -> hash -> crypto's frames, and of those
# inside the garbage collector an Erlang caller (the callers
# of C code, from the stack pointer the JIT saved; MD5, as bookworm's libcrypto computes
# SHA-2 in code whose CFI the native walker cannot follow). Over the four VMs: >= 90 % of the samples in a module another process loads
# again every 200 ms carry its name. OTP 23 (bullseye) has no JIT: said once, native
# stacks kept. Elixir (tests/workloads/beam/chain_ex.ex, in bookworm's OTP 25 and
# trixie's 27): >= 90 % of its leaf's samples carry spin -> outer -> middle -> leaf, named
# 'Elixir.ChainExLABEL':FUNCTION/ARITY (chain_ex_LABEL.ex:LINE). A root missing is a SKIP.
# `ebprof agent` sends an OTP 27 VM's chain as OTLP frames of type beam.
. "$(dirname "$0")/lib.sh"

WL=tests/workloads/beam
SECS=${BEAM_TEST_SECONDS:-6}
# LABEL:ROOT:ERL:FLAGS
VMS=("25:$ROOTS/bookworm:/usr/bin/erl:" "25fp:$ROOTS/bookworm:/usr/bin/erl:+JPperf true"
	"27:$ROOTS/trixie:/usr/bin/erl:" "27fp:$ROOTS/trixie:/usr/bin/erl:+JPperf true")
OTP23=$ROOTS/bullseye/usr/bin/erl

hot_line=$(grep -n '% HOT$' "$WL/hot.erl" | cut -d: -f1)
hot_head=$(grep -n '^work(' "$WL/hot.erl" | head -1 | cut -d: -f1)
leaf_line=$(grep -n '% LEAF$' "$WL/chain.erl" | cut -d: -f1)
encode_line=$(grep -n '% ENCODE$' "$WL/chain.erl" | cut -d: -f1)
hash_line=$(grep -n '% HASH$' "$WL/chain.erl" | cut -d: -f1)
# The VM's line for the clause selection a self-call jumps back to: leaf/3's first line.
head_line=$(grep -n '^leaf(' "$WL/chain.erl" | head -1 | cut -d: -f1)

# build LABEL ROOT: chain_LABEL.beam compiled in ROOT's /tmp; sets RDIR.
build() {
	local l=$1 root=$2
	root_dir "$root" beam
	sed "s/^-module(chain)\./-module(chain_$l)./" "$WL/chain.erl" >"$DIR/chain_$l.erl"
	sed "s/^-module(hot)\./-module(chain_${l}_hot)./" "$WL/hot.erl" >"$DIR/chain_${l}_hot.erl"
	chmod 755 "$DIR"
	(in_root "$root" /usr/bin/erlc -o "$RDIR" "$RDIR/chain_$l.erl" "$RDIR/chain_${l}_hot.erl") \
		>"$DIR/erlc.log" 2>&1
}

present=()
cmd=""
for spec in "${VMS[@]}"; do
	IFS=: read -r label root erl flags <<<"$spec"
	if [ ! -x "$root$erl" ]; then
		echo "SKIP beam_$label: no $root$erl (scripts/runtimes.sh makes it)"
		continue
	fi
	if ! build "$label" "$root" || [ ! -f "$DIR/chain_$label.beam" ]; then
		fail "beam_$label" "erlc failed: $(head -3 "$DIR/erlc.log" | tr '\n' ' ')"
		continue
	fi
	present+=("$label:$root")
	cmd+="(in_root '$root' '$erl' -noshell +S 2 $flags -pa '$RDIR' -run chain_$label main $SECS) & "
done
# Elixir's VMs: LABEL:ROOT, compiled by the root's elixirc, run by its elixir.
EX=("25:$ROOTS/bookworm" "27:$ROOTS/trixie")
ex_present=()
for spec in "${EX[@]}"; do
	IFS=: read -r label root <<<"$spec"
	if [ ! -x "$root/usr/bin/elixirc" ]; then
		echo "SKIP beam_ex_$label: no $root/usr/bin/elixirc (scripts/runtimes.sh adds it)"
		continue
	fi
	root_dir "$root" beam
	sed "s/^defmodule ChainEx do/defmodule ChainEx$label do/" "$WL/chain_ex.ex" >"$DIR/chain_ex_$label.ex"
	printf 'cd %s && HOME=%s exec /usr/bin/elixir --erl "+S 2" -pa . -e %s\n' "$RDIR" "$RDIR" \
		"'ChainEx$label.main([\"$SECS\"])'" >"$DIR/run.sh"
	chmod 755 "$DIR"
	if ! (in_root "$root" /bin/sh -c "cd $RDIR && HOME=$RDIR /usr/bin/elixirc chain_ex_$label.ex") \
		>"$DIR/elixirc.log" 2>&1 || [ ! -f "$DIR/Elixir.ChainEx$label.beam" ]; then
		fail "beam_ex_$label" "elixirc failed: $(head -3 "$DIR/elixirc.log" | tr '\n' ' ')"
		continue
	fi
	ex_present+=("$label")
	cmd+="(in_root '$root' /bin/sh '$RDIR/run.sh') & "
done
if [ -x "$OTP23" ]; then
	build 23 "$ROOTS/bullseye"
	cmd+="(in_root '$ROOTS/bullseye' /usr/bin/erl -noshell -pa '$RDIR' -run chain_23 main 1) & "
fi
[ -n "$cmd" ] || exit 0

OUT=$TMP/out
touch "$TMP/stamp"
"$EBPROF" record -F 199 --root pid -o "$OUT" -- bash -c "$(declare -f in_root); ${cmd}wait" \
	>"$OUT.stdout" 2>"$OUT.stderr"
rc=$?
if [ "$rc" -ne 0 ]; then
	fail beam_record "record failed, $(how_ended "$rc" "$OUT.stderr")"
	exit 0
fi
F=$OUT/stacks.folded
# +JPperf true writes the JIT's symbols for perf into the roots' /tmp: gone with the test.
for spec in "${present[@]}"; do
	IFS=: read -r l root <<<"$spec"
	find "$root/tmp" -maxdepth 1 \( -name 'jit-*.dump' -o -name 'perf-*.map' \) -newer "$TMP/stamp" \
		-delete 2>/dev/null
done

# traces_folded PROFILE: go tool pprof's traces of PROFILE as "PID;THREAD;root;...;leaf MS"
# lines (the thread label is the thread's name), or nothing without Go.
traces_folded() {
	local go
	go=$(command -v go || echo /usr/local/go/bin/go)
	[ -x "$go" ] || return 0
	GOCACHE=$GO_TOOL_CACHE "$go" tool pprof -traces "$1" 2>/dev/null | awk '
		/^-----/ { flush(); next }
		$1 == "pid:" { pid = $2; next }
		$1 == "thread:" { thr = $2; next }
		$1 ~ /^[a-z_.]+:$/ { next }
		$1 ~ /^[0-9.]+(ms|s)$/ && w == "" {
			w = $1 + 0; if ($1 !~ /ms$/) w *= 1000; st = $2; next }
		w != "" { st = $1 ";" st }
		END { flush() }
		function flush() { if (w != "") print pid ";" thr ";" st, w; w = ""; st = "" }'
}
traces_folded "$OUT/profile.pb.gz" >"$TMP/traces"

# schedulers NAME PID M THREADS: on each of two threads of PID named as THREADS (an
# extended regular expression) >= 25 ms of the leaf's samples (5 at 199 Hz: the host's
# load decides how many), >= 90 % of them with the whole chain of module M.
schedulers() {
	local name=$1 pid=$2 m=$3 threads=$4 got
	if [ ! -s "$TMP/traces" ]; then
		echo "SKIP $name: no go tool pprof to read the thread labels with"
		return
	fi
	got=$(awk -v pid="$pid" -v m="$m" -v re="^($threads)\$" '
		{ split($0, f, ";"); w = $NF }
		f[1] != pid || index($0, ";" m ":leaf/3") == 0 { next }
		{ all[f[2]] += w; if (index($0, ";" m ":spin/1;" m ":outer/1;" m ":middle/1;" m ":leaf/3")) ok[f[2]] += w }
		END {
			for (t in all) {
				printf "%s %d ms, %d %% whole; ", t, all[t], 100 * ok[t] / all[t]
				if (t ~ re && all[t] >= 25 && ok[t] * 10 >= all[t] * 9) good++
			}
			printf "=%d\n", good
		}' "$TMP/traces")
	echo "$name: leaf/3 by thread: ${got%=*}" >&2
	check "$name" "want two threads named $threads each with >= 25 ms of leaf/3, >= 90 % whole: ${got%=*}" \
		test "${got##*=}" -ge 2
}

leaf="(;[^;]*)* [0-9]+$" # what follows the leaf: native frames, the count
for spec in "${present[@]}"; do
	IFS=: read -r l root <<<"$spec"
	m="chain_$l"
	f="$m\\.erl"
	fp=without
	[ "$l" != "${l%fp}" ] && fp=with
	# The VM is the process whose stacks hold its module's frames.
	pid=$(grep -m1 -oE "^beam\.smp-[0-9]+;$m:" "$F" | sed -E 's/^beam\.smp-([0-9]+);.*/\1/')
	said=$(grep -cE "^ebprof: beam: pid ${pid:-none} runs Erlang/OTP ${l%fp}, JIT frames $fp frame pointers" "$OUT.stderr")
	check "beam_${l}_discovery" "ebprof said $said times that its OTP ${l%fp} VM (pid ${pid:-none}) runs $fp frame pointers, want 1" \
		test "$said" -eq 1
	expect "beam_${l}_chain" "$F" "spin -> outer -> middle -> leaf at line $leaf_line (or its head, $head_line), from the first frame" \
		"^[^;]*;$m:spin/1 \($f:[0-9]+\);$m:outer/1 \($f:[0-9]+\);$m:middle/1 \($f:[0-9]+\);$m:leaf/3 \($f:($head_line|$leaf_line)\)$leaf" \
		";$m:leaf/3 " 40
	[ -n "$pid" ] || continue
	threads='[0-9]+_scheduler'
	[ "${l%fp}" -ge 27 ] && threads='erts_sched_[0-9]+'
	schedulers "beam_${l}_schedulers" "$pid" "$m" "$threads"
	# The callers of a BIF and of a NIF, from the stack the JIT saved before calling C.
	expect "beam_${l}_bif" "$F" "encode_loop -> encode above term_to_binary" \
		"^beam\.smp-$pid;$m:encode_loop/1 \($f:[0-9]+\);$m:encode/1 \($f:$encode_line\);global::call_light_bif_shared;term_to_binary_1$leaf" \
		"^beam\.smp-$pid;(.*;)?term_to_binary_1(;| )" 20
	# And the collector's, of whichever process it runs for (the VM's own ones too): an
	# Erlang frame first (with its line, but for the preloaded modules that have none, as
	# init's boot loop: a loaded host spends more of a short run there), the stack from the
	# process's first frame.
	expect "beam_${l}_gc" "$F" "Erlang callers above the garbage collector" \
		"^beam\.smp-$pid;[^;[]+:[^;]+/[0-9]+( \([^;]*:[0-9]+\))?;(.*;)?global::garbage_collect;" \
		"^beam\.smp-$pid;(.*;)?global::garbage_collect;" 10
	if [ -f "$root/usr/lib/erlang/lib/crypto-"*/ebin/crypto.beam ]; then
		expect "beam_${l}_nif" "$F" "hash_loop -> hash -> crypto above crypto:hash's NIF" \
			"^beam\.smp-$pid;$m:hash_loop/1 \($f:[0-9]+\);$m:hash/1 \($f:$hash_line\);(crypto:[^;]*;)*global::call_nif_shared;(.*;)?[^;]*crypto\.so" \
			"^beam\.smp-$pid;(.*;)?global::call_nif_shared;(.*;)?[^;]*crypto\.so[^;]*(;| )" 10
	else
		echo "SKIP beam_${l}_nif: no crypto in $root (scripts/runtimes.sh adds it)"
	fi
done
# Reloaded every 200 ms while sampled, in every VM: frames in the module keep their name
# and line, each version's code read from the VM's records once it is loaded. Counted over
# the four VMs: how much CPU the module's two processes get between loads varies.
c="chain_[0-9a-z]+"
expect beam_reload "$F" "hot_loop -> work, the module reloaded meanwhile" \
	"^[^;]*;$c:hot_loop/1 \($c\.erl:[0-9]+\);${c}_hot:work/1 \(${c}_hot\.erl:$hot_line\)$leaf|^[^;]*;$c:hot_loop/1 \($c\.erl:[0-9]+\);${c}_hot:work/1 \(${c}_hot\.erl:$hot_head\)$leaf" \
	";${c}_hot:work/1 |;$c:hot_loop/1 [^;]*;\[beam: unknown code\]" 20
ex_leaf=$(grep -n '# LEAF$' "$WL/chain_ex.ex" | cut -d: -f1)
ex_leaf=$((ex_leaf + 1))
for l in "${ex_present[@]}"; do
	m="'Elixir\\.ChainEx$l'"
	f="chain_ex_$l\\.ex"
	expect "beam_ex_$l" "$F" "spin -> outer -> middle -> leaf of the Elixir module at line $ex_leaf" \
		"^[^;]*;$m:spin/1 \($f:[0-9]+\);$m:outer/1 \($f:[0-9]+\);$m:middle/1 \($f:[0-9]+\);$m:leaf/3 \($f:($ex_leaf|$((ex_leaf - 2)))\)$leaf" \
		";$m:leaf/3 " 40
done
# The recording's flame graph names the Erlang frames too (pprof's are read above).
check beam_flamegraph "the flame graph lacks an Erlang leaf" \
	grep -qE "chain_[0-9a-z]+:leaf/3" "$OUT/flamegraph.html"
said=$(grep -cE "^ebprof: beam: .*bullseye.* is Erlang/OTP 23 without the JIT" "$OUT.stderr")
if [ -x "$OTP23" ]; then
	check beam_23_said "ebprof said OTP 23's interpreter $said times, want 1" test "$said" -eq 1
fi

# `ebprof agent` sends an OTP 27 VM's Erlang frames over OTLP as frames of type beam.
otlp() {
	local root=$ROOTS/trixie pid
	if [ ! -x "$root/usr/bin/erl" ]; then
		echo "SKIP beam_otlp: no $root/usr/bin/erl (scripts/runtimes.sh makes it)"
		return
	fi
	build 27otlp "$root" || return
	(in_root "$root" /usr/bin/erl -noshell +S 2 -pa "$RDIR" -run chain_27otlp main 30 \
		>/dev/null 2>&1) &
	pid=$!
	agent_sends beam_otlp "$pid" beam 'chain_27otlp:leaf/3' 'chain_27otlp:middle/1' \
		'chain_27otlp:outer/1' 'chain_27otlp:spin/1'
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null || true
}
otlp
