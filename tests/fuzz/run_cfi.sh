#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harness of the unwind table compiler into $BUILD/fuzz, seeds a corpus
# from real ELF files and their raw CFI sections, and fuzzes for $FUZZ_SECONDS; any crash,
# leak, timeout or broken table invariant fails.
# Usage: tests/fuzz/run_cfi.sh    or    FUZZ_SECONDS=600 FUZZ_MAX_LEN=1048576 tests/fuzz/run_cfi.sh
NAME=fuzz_cfi
out=${BUILD:-build}/fuzz/cfi
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-65536} # small inputs: many more runs per second
. "$(dirname "$0")/lib.sh"

# Copies section NAME of FILE (by its file offset and size, at most FUZZ_MAX_LEN bytes) to
# OUT, prefixed with the harness's two raw-mode bytes FLAGS (octal escapes for printf).
extract() {
	local file=$1 name=$2 flags=$3 dst=$4 off size
	read -r off size < <(readelf -SW "$file" 2>/dev/null |
		awk -v n="$name" '{ sub(/^ *\[ *[0-9]+\] /, "") } $1 == n && $2 != "NOBITS" { print $4, $5; exit }')
	[ -n "${off:-}" ] || return 0
	{ printf "$flags"; tail -c +$((16#$off + 1)) "$file" | head -c $((16#$size)); } |
		head -c "$FUZZ_MAX_LEN" >"$dst"
}

# A program whose functions have only .debug_frame (built without unwind tables), and its
# separate debug file with compressed sections.
seed_program() {
	local dir=$1
	printf '%s\n' 'static int __attribute__((noinline)) f(int x) { volatile int a[8]; a[x & 7] = x; return a[1]; }' \
		'int main(int argc, char **argv) { (void)argv; return f(argc); }' >"$dir/prog.c"
	"$CLANG" -O1 -g -fno-asynchronous-unwind-tables -fno-unwind-tables "$dir/prog.c" \
		-o "$dir/prog" 2>/dev/null || return 0
	rm -f "$dir/prog.c"
	command -v objcopy >/dev/null || return 0
	objcopy --only-keep-debug --compress-debug-sections=zlib "$dir/prog" "$dir/prog.debug"
	extract "$dir/prog" .debug_frame '\001\000' "$dir/raw.prog.debug_frame"
	objcopy --only-keep-debug --compress-debug-sections=zlib-gnu "$dir/prog" \
		"$dir/prog.gnu.debug" 2>/dev/null || return 0
	extract "$dir/prog.gnu.debug" .zdebug_frame '\011\000' "$dir/raw.prog.zdebug_frame"
}

seed() {
	local dir=$out/seeds f libc i=0
	command -v readelf >/dev/null || fail "readelf not installed"
	seed_program "$dir"
	libc=$(ldd /bin/true 2>/dev/null | awk '/libc\.so/ { print $3 }')
	for f in /bin/true "$libc" /usr/lib/x86_64-linux-gnu/libstdc++.so.6 "$BUILD/ebprof"; do
		[ -f "$f" ] || continue
		i=$((i + 1))
		extract "$f" .eh_frame '\000\000' "$dir/raw$i.eh_frame"
		extract "$f" .eh_frame '\006\200' "$dir/raw$i.split"
		[ "$(stat -L -c %s "$f")" -le "$FUZZ_MAX_LEN" ] && cp "$f" "$dir/elf$i"
		head -c 4096 "$f" >"$dir/elf$i.4k"
	done
	[ "$i" -gt 0 ] || fail "no seed ELF files found"
}

# Tokens the mutator cannot guess byte by byte: augmentations, the PLT expression, escapes.
dictionary() {
	cat <<'DICT'
magic="\x7fELF\x02\x01\x01"
aug_zr="zR\x00"
aug_zplr="zPLR\x00"
aug_zrs="zRS\x00"
aug_eh="eh\x00"
dwarf64="\xff\xff\xff\xff"
cie_id64="\xff\xff\xff\xff\xff\xff\xff\xff"
plt="\x0f\x0b\x77\x08\x80\x00\x3f\x1a\x3b\x2a\x33\x24\x22"
cfa_rsp8="\x0c\x07\x08"
ra_cfa8="\x90\x01"
undef_ra="\x07\x10"
remember="\x0a"
restore="\x0b"
DICT
}

fuzz_all src/unwind/cfi.c src/elf/elf_file.c src/util/hmap.c src/util/inflate_limit.c -- -lelf
