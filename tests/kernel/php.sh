#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# PHP frames in mixed stacks on every PHP the runtime roots hold (scripts/runtimes.sh:
# 7.4, 8.2, 8.4), with ebprof record and no flags. On each: three functions spinning
# (the leaf's line), a namespaced method handing a closure to array_map ({closure} above
# array_map's native frames above array_map), a generator resumed by foreach, a required
# file's function, an eval'd one and an included file's top-level code, all in one
# recording; the chain again served by
# an FPM pool behind cgi-fcgi on the loopback, recorded in its worker processes (-p, as
# one profiles a pool already running); on 8.x the chain and the closure again with
# opcache's JIT in its tracing and its function mode, the JIT leaf marked and the native
# frames below execute_ex still there. Each asserts that >= 90 % of the samples reaching
# its leaf carry the whole chain. Then a build whose version text is unknown is said once
# and keeps native stacks, and `ebprof agent` sends PHP frames over OTLP. A root missing is
# a SKIP.
. "$(dirname "$0")/lib.sh"

WL=tests/workloads/php
SECS=${PHP_TEST_SECONDS:-5}
# LABEL:ROOT:PHP (the CLI; php-fpmX.Y beside it in /usr/sbin)
PHPS=("7.4:$ROOTS/bullseye:/usr/bin/php7.4" "8.2:$ROOTS/bookworm:/usr/bin/php8.2"
	"8.4:$ROOTS/trixie:/usr/bin/php8.4")

line_of() { marker_line "$WL/$1.php" "$2"; }
F='[^;]*'                    # one frame
END='(;[^;]*)* [0-9]+$'      # whatever the leaf calls, then the count
J='( \[jit\])?'              # a frame the JIT may have run
# The native frames below the first activation of execute_ex: the CLI's and FPM's
# php_execute_script (8.4: _ex), zend_execute_scripts (8.4: _script), from the root, or
# from where a stack of a process started a moment ago was cut (its libc's unwind table
# not built yet).
BELOW="^[^;]*;(_start|\[truncated\]);($F;)*php_execute_script(_ex)?;zend_execute_scripts?;zend_execute;"

# opcache on (as distributions run PHP), and with MODE its JIT in that mode.
opcache() {
	echo "-n -d zend_extension=opcache.so -d opcache.enable_cli=1"
	[ -n "${1:-}" ] && echo "-d opcache.jit=$1 -d opcache.jit_buffer_size=32M"
}

# cli LABEL ROOT PHP: the JIT-off workloads, one recording; code.php, whose three leaves
# share its time, for twice as long, and with opcache on, which keeps an included file's
# code (8.4 frees its file name with it otherwise: see src/interp/php/README.md, "Limits and versions").
cli() {
	local l=$1 root=$2 php=$3 d=$RDIR chain
	OUT=$TMP/$l-cli
	record_in_root "php_${l}_cli" '^  php' "$root" sh -c \
		"$php -n $d/chain.php $SECS & $php -n $d/closure.php $SECS & $php -n $d/gen.php $SECS &
		$php $(opcache | tr '\n' ' ') $d/code.php $((2 * SECS)); wait"
	chain="${BELOW}\{main\} \(chain\.php:[0-9]+\);outer \(chain\.php:[0-9]+\);middle \(chain\.php:[0-9]+\);leaf \(chain\.php:$(line_of chain LEAF_LINE)\)$END"
	expect "php_${l}_chain" "$OUT" "{main} -> outer -> middle -> leaf at line $(line_of chain LEAF_LINE)" \
		"$chain" 'leaf \(chain\.php' 30
	expect "php_${l}_closure" "$OUT" "App\\Repo::find -> array_map -> its native frames -> {closure} at line $(line_of closure CLOSURE_LINE)" \
		"${BELOW}\{main\} \(closure\.php:[0-9]+\);App\\\\Repo::find \(closure\.php:[0-9]+\);array_map;($F;)*zend_call_function;\{closure\} \(closure\.php:$(line_of closure CLOSURE_LINE)\)$END" \
		'\{closure\} \(closure\.php' 30
	expect "php_${l}_generator" "$OUT" "consume -> the generator resumed from C -> numbers at line $(line_of gen GEN_LINE)" \
		"${BELOW}\{main\} \(gen\.php:[0-9]+\);consume \(gen\.php:[0-9]+\);($F;)*zend_generator_resume;numbers \(gen\.php:$(line_of gen GEN_LINE)\)$END" \
		'numbers \(gen\.php' 30
	expect "php_${l}_required" "$OUT" "{main} -> lib_spin of lib.php at line $(line_of lib LIB_LINE)" \
		"${BELOW}\{main\} \(code\.php:[0-9]+\);lib_spin \(lib\.php:$(line_of lib LIB_LINE)\)$END" \
		'lib_spin \(' 10
	expect "php_${l}_eval" "$OUT" "{main} -> eval_spin of eval()'d code" \
		"${BELOW}\{main\} \(code\.php:[0-9]+\);eval_spin \(code\.php\([0-9]+\) : eval\(\)'d code:1\)$END" \
		'eval_spin \(' 10
	expect "php_${l}_include" "$OUT" "{main} -> include of body.php at line $(line_of body BODY_LINE)" \
		"${BELOW}\{main\} \(code\.php:[0-9]+\);include \(body\.php:$(line_of body BODY_LINE)\)$END" \
		'include \(body\.php' 10
	# The other outputs carry the same frames: pprof's functions and files, the flame
	# graph's PHP kind (OTLP's frame type is test_frame_kinds').
	local dir=${OUT%/stacks.folded}
	check "php_${l}_outputs" "pprof or the flame graph lacks the PHP frames" \
		eval "gzip -dc '$dir/profile.pb.gz' | grep -qa 'App.Repo::find' &&
			gzip -dc '$dir/profile.pb.gz' | grep -qa 'closure\.php' &&
			grep -q '\"name\": *\"php\"' '$dir/flamegraph.html'"
}

# jit LABEL ROOT PHP MODE: the chain and the closure with opcache's JIT.
jit() {
	local l=$1 root=$2 php=$3 mode=$4 d=$RDIR o
	o=$(opcache "$mode" | tr '\n' ' ')
	OUT=$TMP/$l-$mode
	record_in_root "php_${l}_jit_$mode" '^  php' "$root" sh -c \
		"$php $o $d/chain.php $SECS & $php $o $d/closure.php $SECS; wait"
	expect "php_${l}_jit_${mode}_chain" "$OUT" "the chain under the $mode JIT, native frames below execute_ex" \
		"${BELOW}\{main\}$J \(chain\.php:[0-9]+\);outer$J \(chain\.php:[0-9]+\);middle$J \(chain\.php:[0-9]+\);leaf$J \(chain\.php:[0-9]+\)$END" \
		'leaf( \[jit\])? \(chain\.php' 40
	expect "php_${l}_jit_${mode}_leaf" "$OUT" "the leaf marked as JIT code" \
		'leaf \[jit\] \(chain\.php' 'leaf( \[jit\])? \(chain\.php' 40
	expect "php_${l}_jit_${mode}_closure" "$OUT" "the closure under the $mode JIT" \
		"${BELOW}\{main\}$J \(closure\.php:[0-9]+\);App\\\\Repo::find$J \(closure\.php:[0-9]+\);array_map;($F;)*zend_call_function;\{closure\}$J \(closure\.php:[0-9]+\)$END" \
		'\{closure\}( \[jit\])? \(closure\.php' 40
}

# free_port: a loopback TCP port nothing listens on.
free_port() {
	local p
	for _ in $(seq 20); do
		p=$((20000 + RANDOM % 20000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
	done
	return 1
}

# fpm LABEL ROOT PHP: an FPM pool (opcache on) on the loopback, its workers recorded while
# cgi-fcgi sends it requests for the chain.
fpm() {
	local l=$1 root=$2 php=$3 fpm port master workers rc end
	fpm=/usr/sbin/php-fpm${php##*/php}
	if [ ! -x "$root$fpm" ] || [ ! -x "$root/usr/bin/cgi-fcgi" ]; then
		echo "SKIP php_${l}_fpm: no $root$fpm or cgi-fcgi (scripts/install-deps.sh test adds them)"
		return
	fi
	port=$(free_port) || { fail "php_${l}_fpm" "no free loopback port"; return; }
	printf '[global]\nerror_log = %s/fpm.log\npid = %s/fpm.pid\ndaemonize = no\n[www]\nlisten = 127.0.0.1:%s\npm = static\npm.max_children = 2\n' \
		"$RDIR" "$RDIR" "$port" >"$DIR/fpm.conf"
	(in_root "$root" "$fpm" $(opcache) -R -F -y "$RDIR/fpm.conf") >"$DIR/fpm.out" 2>&1 &
	master=$!
	for _ in $(seq 100); do
		workers=$(pgrep -P "$master" | paste -sd,)
		[ "$(echo "$workers" | tr ',' '\n' | grep -c .)" -ge 2 ] && break
		sleep 0.1
	done
	if [ -z "$workers" ]; then
		fail "php_${l}_fpm" "the pool started no workers: $(tail -2 "$DIR/fpm.out" "$DIR/fpm.log" 2>/dev/null | tr '\n' ' ')"
		kill "$master" 2>/dev/null
		return
	fi
	OUT=$TMP/$l-fpm
	"$EBPROF" record -F 199 -d $((SECS + 1)) -p "$workers" -o "$OUT" >"$OUT.stdout" 2>"$OUT.stderr" &
	local ep=$!
	wait_sampling "$ep"
	end=$((SECONDS + SECS))
	while [ "$SECONDS" -lt "$end" ]; do
		chroot "$root" env SCRIPT_FILENAME="$RDIR/chain.php" REQUEST_METHOD=GET \
			QUERY_STRING=secs=1 cgi-fcgi -bind -connect "127.0.0.1:$port" >>"$DIR/requests" 2>&1
	done
	wait "$ep"
	rc=$?
	kill "$master" 2>/dev/null
	wait "$master" 2>/dev/null
	grep -E '^  php' "$OUT.stdout" >&2
	if [ "$rc" -ne 0 ]; then
		fail "php_${l}_fpm" "record failed, $(how_ended "$rc" "$OUT.stderr")"
		return
	fi
	grep -c '^done' "$DIR/requests" | sed "s/^/php_${l}_fpm: requests served: /" >&2
	expect "php_${l}_fpm" "$OUT/stacks.folded" "the chain in FPM's workers (pids $workers), leaf at line $(line_of chain LEAF_LINE)" \
		"^php-fpm${php##*/php};(_start|\[truncated\]);($F;)*php_execute_script(_ex)?;zend_execute_scripts?;zend_execute;\{main\} \(chain\.php:[0-9]+\);outer \(chain\.php:[0-9]+\);middle \(chain\.php:[0-9]+\);leaf \(chain\.php:$(line_of chain LEAF_LINE)\)$END" \
		'leaf \(chain\.php' 30
}

suite() {
	local l=$1 root=$2 php=$3
	root_dir "$root" php
	cp "$WL"/*.php "$DIR/"
	cli "$l" "$root" "$php"
	fpm "$l" "$root" "$php"
	if [ "$l" = 7.4 ]; then
		echo "SKIP php_${l}_jit: PHP 7.4 has no JIT"
		return
	fi
	jit "$l" "$root" "$php" tracing
	jit "$l" "$root" "$php" function
}

# A build ebprof has no layout for (8.2's, its version text changed to 9.9): said once,
# naming the file, and its process keeps native stacks.
unknown_version() {
	local root=$ROOTS/bookworm said
	[ -x "$root/usr/bin/php8.2" ] || { echo "SKIP php_unknown_version: no $root/usr/bin/php8.2"; return; }
	root_dir "$root" php
	cp "$WL/chain.php" "$DIR/"
	sed 's|X-Powered-By: PHP/8\.2\.|X-Powered-By: PHP/9.9.|' "$root/usr/bin/php8.2" >"$DIR/php9.9"
	chmod +x "$DIR/php9.9"
	OUT=$TMP/unknown
	record_in_root php_unknown_version '^  php' "$root" "$RDIR/php9.9" -n "$RDIR/chain.php" 2
	[ "$OUT" = /dev/null ] && return
	said=$(grep -E '^ebprof: (warning: )?php: ' "${OUT%/stacks.folded}.stderr")
	echo "$said" | sed 's/^/php_unknown_version: /' >&2
	if [ "$(echo "$said" | grep -c 'PHP 9\.9\.[0-9]*, which ebprof cannot unwind')" -ne 1 ] ||
		! echo "$said" | grep -q "php9.9"; then
		fail php_unknown_version "want one line naming php9.9 and its version, got: $said"
	elif grep -q 'chain\.php' "$OUT"; then
		fail php_unknown_version "PHP frames from a build of an unknown layout"
	elif ! grep -q 'zend_execute' "$OUT"; then
		fail php_unknown_version "no native stack of the process"
	else
		pass php_unknown_version
	fi
}

# OTLP: `ebprof agent` sends a PHP process's frames as profile.frame.type php, the chain's
# functions within its own resource (checked by tests/otlp/check.mjs against the gRPC test
# receiver). One PHP, 8.4's (the kind's row is the same on every version).
otlp() {
	local root=$ROOTS/trixie php=/usr/bin/php8.4 pid rpid rc
	if [ ! -x "$root$php" ]; then
		echo "SKIP php_otlp: no $root$php"
		return
	fi
	OTLP_DIR=$PWD/tests/otlp
	. tests/otlp/lib.sh
	if ! command -v node >/dev/null || ! otlp_node_modules; then
		echo "SKIP php_otlp: node or the receivers' npm packages are missing (scripts/install-deps.sh test)"
		return
	fi
	root_dir "$root" php
	cp "$WL/chain.php" "$DIR/"
	(in_root "$root" "$php" -n "$RDIR/chain.php" 600 >/dev/null 2>&1) &
	pid=$!
	if ! otlp_receiver "$TMP" otlp grpc 0 2>"$TMP/otlp.receiver"; then
		fail php_otlp "the gRPC receiver did not start: $(tail -2 "$TMP/otlp.receiver")"
		kill "$pid" 2>/dev/null
		return
	fi
	rpid=$receiver_pid
	"$EBPROF" agent -F 99 --endpoint "127.0.0.1:$receiver_port" --insecure --report-interval 1s \
		-d 4 >"$TMP/otlp.out" 2>"$TMP/otlp.err"
	rc=$?
	kill "$pid" "$rpid" 2>/dev/null
	wait "$pid" "$rpid" 2>/dev/null
	if [ "$rc" -ne 0 ]; then
		fail php_otlp "agent failed, $(how_ended "$rc" "$TMP/otlp.err")"
		return
	fi
	node tests/otlp/check.mjs "$TMP/otlp.jsonl" --pid "$pid" --frame-type php \
		--function leaf --function middle --function outer --function '{main}' \
		>"$TMP/otlp.check" 2>&1
	rc=$?
	check php_otlp "$(tail -3 "$TMP/otlp.check" | paste -sd' ')" [ "$rc" -eq 0 ]
}

runtime_suites php suite "${PHPS[@]}"
unknown_version
otlp
