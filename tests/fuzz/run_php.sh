#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harness of the PHP decoders (the version text and dispatch jump
# read from a build, the zend_function reader over a process's memory) and fuzzes for
# $FUZZ_SECONDS (default 30: the decoders are small); any crash, leak or broken bound
# fails.
# Usage: tests/fuzz/run_php.sh    or    FUZZ_SECONDS=600 tests/fuzz/run_php.sh
NAME=fuzz_php
out=${BUILD:-build}/fuzz/php
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-4096}
. "$(dirname "$0")/lib.sh"

# le VALUE BYTES: VALUE little-endian. put FILE OFFSET: stdin written at OFFSET of FILE.
le() {
	local v=$1 i
	for ((i = 0; i < $2; i++)); do
		printf "\\$(printf '%03o' $((v & 255)))"
		v=$((v >> 8))
	done
}
put() { dd of="$1" bs=1 seek=$(($2)) conv=notrunc status=none; }

# A zend_string at OFFSET of FILE (the fake memory sits at 0x10000) holding TEXT.
string() {
	le ${#3} 8 | put "$1" $(($2 + 16))
	printf '%s' "$3" | put "$1" $(($2 + 24))
}

# One seed per decoder: a version text, execute_ex's first bytes as PHP 8.2's, and a
# method of a class in PHP 8.2's layout (name, class, file, opcodes).
seed() {
	local dir=$out/seeds f
	printf '\000PHP/8.2.32\000X-Powered-By: PHP/8.2.32\000' >"$dir/version"
	printf '\001\101\125\101\124\125\123\110\203\354\170\144\110\213\004\045\050\000\000\000\114\211\166\110\101\377\047' >"$dir/dispatch"
	f=$dir/method
	head -c $((4 + 0x340)) /dev/zero >"$f"
	printf '\002\001\000\000' | put "$f" 0
	printf '\002' | put "$f" 4 # type: a user function
	le $((0x10200)) 8 | put "$f" $((4 + 8))
	le $((0x10280)) 8 | put "$f" $((4 + 16))
	le $((0x10100)) 8 | put "$f" $((4 + 88))
	le $((0x10300)) 8 | put "$f" $((4 + 152))
	le 31 4 | put "$f" $((4 + 160))
	string "$f" $((4 + 0x200)) find
	le $((0x102c0)) 8 | put "$f" $((4 + 0x280 + 8))
	string "$f" $((4 + 0x2c0)) 'App\Repo'
	string "$f" $((4 + 0x300)) /srv/app.php
}

dictionary() {
	cat <<'DICT'
powered="X-Powered-By: PHP/"
dispatch="\x41\xff\x27"
closure="{closure}"
closure84="{closure:"
user="\x02"
internal="\x01"
eval="\x04"
DICT
}

fuzz_all tests/fuzz/fake_mem.c src/interp/php/php_layout.c src/interp/php/php_names.c
