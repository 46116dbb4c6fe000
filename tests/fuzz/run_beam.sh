#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harness of the BEAM decoders (the VM's GDB JIT records, the
# walker's word test) and fuzzes for $FUZZ_SECONDS (default 30); any crash, leak or
# broken bound fails.
# Usage: tests/fuzz/run_beam.sh    or    FUZZ_SECONDS=600 tests/fuzz/run_beam.sh
NAME=fuzz_beam
out=${BUILD:-build}/fuzz/beam
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-4096}
. "$(dirname "$0")/lib.sh"

# Seeds: a module's record as OTP 25 and 27 lay it out (a header range, a function with
# its CodeInfo prologue and two lines, a footer), the emulator's record, and a stack of
# words holding a term, two continuation pointers and the bottom frame's.
seed() {
	python3 - "$out/seeds" <<'PY'
import struct, sys
d = sys.argv[1]
base = 0x7f0000001000
def s(t): return t.encode() + b'\0'
mod = s('chain')
# kind, padding; base, ranges, code size, name length; the name at 26; ranges at 32 + it
rec = struct.pack('<I4xQIIH', 1, base, 3, 0x200, len(mod)) + mod + b'\0' * 6
for start, end, name, lines in ((0, 0x40, 'chain::codeHeader', []),
                                (0x40, 0x70, 'chain:leaf/3-CodeInfoPrologue', []),
                                (0x70, 0x120, 'chain:leaf/3',
                                 [(0x40, 28, 'chain.erl'), (0x90, 31, 'chain.erl')])):
    n = s(name)  # at 14, the next 16 bytes past it
    rec += struct.pack('<IIIH', start, end, len(lines), len(n)) + n + b'\0\0'
    for off, line, f in lines:
        fn = s(f)  # at 10, the next 12 bytes past it
        rec += struct.pack('<IIH', off, line, len(fn)) + fn + b'\0\0'
open(d + '/module', 'wb').write(b'\x00' + rec)
emu = struct.pack('<I4xi4xQ', 0, 1, base + 0x10)
open(d + '/emulator', 'wb').write(b'\x01' + emu)
proc = struct.pack('<QQ', base, base + 0x1000) * 8 + struct.pack('<IIQ', 1, 0, base + 0x10)
words = struct.pack('<6Q', 0x3b, base + 0x94, 0x7f00deadbee1, base + 0x44, base + 0x10, base + 0x20)
open(d + '/scan', 'wb').write(b'\x02' + proc + words)
PY
}

dictionary() {
	cat <<'DICT'
module="\x01\x00\x00\x00"
emulator="\x00\x00\x00\x00"
prologue="-CodeInfoPrologue"
nil="\x3b\x00\x00\x00\x00\x00\x00\x00"
DICT
}

fuzz_all src/interp/beam/beam_debug.c
