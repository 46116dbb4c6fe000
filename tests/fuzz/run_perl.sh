#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harness of the Perl decoders (the TLS slot's relocation, the COP
# and CV readers, the walker's step over a fake process memory) and fuzzes for
# $FUZZ_SECONDS (default 30); any crash, leak or broken bound fails.
# Usage: tests/fuzz/run_perl.sh    or    FUZZ_SECONDS=600 tests/fuzz/run_perl.sh
NAME=fuzz_perl
out=${BUILD:-build}/fuzz/perl
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-8192}
. "$(dirname "$0")/lib.sh"

# Seeds: a TPOFF64 relocation against PL_current_context, and one memory image as Perl
# 5.36 lays it out (an anonymous sub's CV, its GV, the stash "main" with its name in the
# body, a COP of t.pl; an interpreter whose stack info holds a sub called from C),
# entered at the CV, the COP and the interpreter.
seed() {
	python3 - "$out/seeds" <<'PY'
import struct, sys
d = sys.argv[1]
B = 0x10000
m = bytearray(0x1400)
def q(at, v): struct.pack_into('<Q', m, at, v)
def l(at, v): struct.pack_into('<I', m, at, v)
q(0x000, B + 0x100); l(0x00c, 13)                       # CV head: PVCV
q(0x100 + 32, B + 0x300); q(0x100 + 40, B + 0x500)      # stash, start
q(0x100 + 56, B + 0x200); l(0x100 + 92, 0x80)           # GV, CVf_ANON
q(0x200, B + 0x240); l(0x20c, 9)                        # GV head: PVGV
q(0x240 + 32, B + 0x400); q(0x240 + 40, B + 0x300)      # name HEK, stash
q(0x300, B + 0x340); l(0x30c, 12 | 0x02000000)          # stash head: PVHV, OOK
q(0x360, B + 0x440)                                     # aux: name HEK
l(0x404, 8); m[0x408:0x410] = b'__ANON__'
l(0x444, 4); m[0x448:0x44c] = b'main'
struct.pack_into('<H', m, 0x500 + 32, 195); l(0x500 + 36, 12); q(0x500 + 48, B + 0x600)
m[0x600:0x605] = b't.pl\0'
q(0x800 + 8, B + 0x900); q(0x800 + 16, 0); l(0x800 + 32, 0)   # stack info: one context
m[0x900] = 9; q(0x900 + 16, B + 0x500); q(0x900 + 48, 0); q(0x900 + 72, B)
q(0x1000 + 8, 1); q(0x1000 + 208, B + 0x500); q(0x1000 + 224, B + 0x800)
q(0x1000 + 760, B + 0xa00); m[0xa00 + 212] = 1
mem = bytes(m)
open(d + '/cv', 'wb').write(b'\x02\x01' + struct.pack('<I', 0) + mem)
open(d + '/cop', 'wb').write(b'\x01\x01' + struct.pack('<I', 0x500) + mem)
open(d + '/walk', 'wb').write(b'\x03\x01' + struct.pack('<I', 0x1000) + b'\x02' + mem)
rela = struct.pack('<QQq', 0x39efc0, (1 << 32) | 18, 0)
syms = bytes(24) + struct.pack('<IBBHQQ', 1, 0x16, 0, 20, 0, 8)
open(d + '/rela', 'wb').write(b'\x00' + struct.pack('<HH', len(rela), len(syms)) + rela + syms + b'\0PL_current_context\0')
PY
}

dictionary() {
	cat <<'DICT'
pvcv="\x0d\x00\x00\x00"
pvgv="\x09\x00\x00\x00"
pvhv_ook="\x0c\x00\x00\x02"
nextstate="\xc3\x00"
tpoff64="\x12\x00\x00\x00"
name="PL_current_context"
DICT
}

fuzz_all tests/fuzz/fake_mem.c src/interp/perl/perl_elf.c src/interp/perl/perl_layout.c \
	src/interp/perl/perl_names.c src/elf/elf_file.c src/util/hmap.c src/util/inflate_limit.c -- -lelf -lz
