#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harness of the ELF readers (the shared view src/elf/elf_file.c and
# the symbol reader) into $BUILD/fuzz, seeds a corpus from real ELF files, compressed and
# truncated copies, and fuzzes for $FUZZ_SECONDS; any crash fails.
# Usage: tests/fuzz/run_elfsym.sh    or    FUZZ_SECONDS=600 FUZZ_MAX_LEN=1048576 tests/fuzz/run_elfsym.sh
NAME=fuzz_elfsym
out=${BUILD:-build}/fuzz/elfsym
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-262144}
. "$(dirname "$0")/lib.sh"

# A small program with local, global, size-less and mangled (C++, Rust legacy and v0)
# function symbols, plus its stripped and debug-only variants.
seed_program() {
	local dir=$1
	cat >"$dir/prog.c" <<'PROG'
static __attribute__((noinline, used)) int local_fn(int x) { return x + 1; }
void cxx_fn(void) __asm__("_ZN3foo3barEv");
void cxx_fn(void) {}
void rust_legacy(void) __asm__("_ZN4core3fmt5write17h0123456789abcdefE");
void rust_legacy(void) {}
void rust_v0(void) __asm__("_RNvCs1234_7mycrate4main");
void rust_v0(void) {}
void expands(void) __asm__("_Z1f1a1bIS_S_ES0_IS1_S1_ES0_IS2_S2_ES0_IS3_S3_ES0_IS4_S4_ES0_IS5_S5_E"
			   "S0_IS6_S6_ES0_IS7_S7_ES0_IS8_S8_ES0_IS9_S9_ES0_ISA_SA_ES0_ISB_SB_E");
void expands(void) {}
__asm__(".text\n.globl unsized_fn\n.type unsized_fn,@function\nunsized_fn:\n\tnop\n\tret\n");
int main(int argc, char **argv) { (void)argv; return local_fn(argc); }
PROG
	"$CLANG" -O1 -g -Wl,--build-id "$dir/prog.c" -o "$dir/prog" 2>/dev/null || return 0
	command -v objcopy >/dev/null || return 0
	objcopy --only-keep-debug "$dir/prog" "$dir/prog.debug"
	objcopy --strip-all --add-gnu-debuglink="$dir/prog.debug" "$dir/prog" "$dir/prog.stripped"
	# Compressed debug sections, both forms (SHF_COMPRESSED and GNU .zdebug).
	"$CLANG" -O1 -g -gz=zlib "$dir/prog.c" -o "$dir/prog.gz" 2>/dev/null &&
		objcopy --compress-debug-sections=zlib-gnu "$dir/prog.gz" "$dir/prog.zdebug" 2>/dev/null
	rm -f "$dir/prog.c"
}

seed() {
	local dir=$out/seeds f libc libelf i=0
	seed_program "$dir"
	libc=$(ldd /bin/true 2>/dev/null | awk '/libc\.so/ { print $3 }')
	libelf=$(ldd "$bin" 2>/dev/null | awk '/libelf/ { print $3 }')
	for f in /bin/true "$libc" "$libelf" "$BUILD/tests/test_elfsym"; do
		[ -f "$f" ] || continue
		i=$((i + 1))
		cp "$f" "$dir/elf$i"
		head -c 100 "$f" >"$dir/elf$i.100"
		head -c 4096 "$f" >"$dir/elf$i.4k"
		head -c 65536 "$f" >"$dir/elf$i.64k"
	done
	[ "$i" -gt 0 ] || fail "no seed ELF files found"
}

# Tokens the mutator cannot guess byte by byte: section names, note owner, mangling prefixes.
dictionary() {
	cat <<'DICT'
magic="\x7fELF\x02\x01\x01"
symtab=".symtab"
dynsym=".dynsym"
strtab=".strtab"
dynstr=".dynstr"
debuglink=".gnu_debuglink"
zdebug=".zdebug_frame"
zlib="ZLIB"
eh_frame=".eh_frame"
buildid=".note.gnu.build-id"
gnu="GNU\x00"
cxx="_ZN"
rust_v0="_RNv"
rust_hash="17h0123456789abcdefE"
subst="S0_I"
DICT
}

fuzz_all src/symbol/elfsym.c src/elf/elf_file.c src/util/hmap.c src/util/inflate_limit.c -- \
	-lelf -liberty
