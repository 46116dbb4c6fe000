#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harness of the .NET decoders (an assembly's metadata, the JIT's
# code heaps in process memory, the DAC table, version strings, managed ranges, the
# walker's step) and fuzzes for $FUZZ_SECONDS (default 30); any crash, leak or broken
# bound fails.
# Usage: tests/fuzz/run_dotnet.sh    or    FUZZ_SECONDS=600 tests/fuzz/run_dotnet.sh
NAME=fuzz_dotnet
out=${BUILD:-build}/fuzz/dotnet
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-65536}
. "$(dirname "$0")/lib.sh"

# Seeds: the test workload's assembly as mcs builds it (when mcs is there), the installed
# runtime's System.ComponentModel.dll and System.Reflection.DispatchProxy.dll (ready-to-run
# images of 7 and 54 KiB, the second with instantiations), a code heap
# laid out as .NET 8's (the JIT manager, a heap list, a nibble map, a code header, a
# MethodDesc and its chunk, a method table, a module and its name), a version string
# and a DAC table, and a walk of two managed frames into native code.
seed() {
	mkdir -p "$out/seeds"
	if command -v mcs >/dev/null 2>&1 &&
		mcs -out:"$out/Chain.exe" tests/workloads/dotnet/Chain.cs >/dev/null 2>&1; then
		{ printf '\0'; cat "$out/Chain.exe"; } >"$out/seeds/assembly"
	fi
	for f in System.ComponentModel System.Reflection.DispatchProxy; do
		r2r=$(ls /var/cache/ebprof/dotnet/dotnet/shared/Microsoft.NETCore.App/*/$f.dll \
			2>/dev/null | head -1)
		[ -z "$r2r" ] || { printf '\0'; cat "$r2r"; } >"$out/seeds/$f"
	done
	python3 - "$out/seeds" <<'PY'
import struct, sys
d = sys.argv[1]
B = 0x10000  # FAKE_MEM_BASE
mem = bytearray(0x800)
def q(off, v): struct.pack_into('<Q', mem, off, v)
q(0, B + 0x40)              # -> EEJitManager
q(0x40 + 16, B + 0x80)      # m_pCodeHeap -> HeapList
# HeapList: next, heap, start, end, map base, header map
for i, v in enumerate((0, 0, B + 0x400, B + 0x600, B + 0x400, B + 0x100)):
    q(0x80 + 8 * i, v)
struct.pack_into('>I', mem, 0x100, 0x30000000)  # nibble 3: a method at +8 of bucket 0
q(0x400, B + 0x180)         # code header at start - 8 -> RealCodeHeader
q(0x180 + 24, B + 0x220)    # phdrMDesc
q(0x200, B + 0x2c0)         # the chunk's method table (MethodDesc at +0x20 = 24 + 8)
struct.pack_into('<H', mem, 0x200 + 18, 0x001)  # token range
struct.pack_into('<HBBHH', mem, 0x220, 0x005, 1, 0, 0, 0)
q(0x2c0 + 24, B + 0x300)    # the module
q(0x300 + 264, B + 0x3c0)   # its simple name
mem[0x3c0:0x3c6] = b'Chain\0'
open(d + '/code', 'wb').write(b'\x01' + bytes(mem))
ver = b'xx@(#)Version 8.0.424.16909 @Commit: 2d7eea252964e69be94cb9c847b371b23e4dd470\0'
dac = struct.pack('<8Q', *[0x7f0000010000 + 8 * i for i in range(8)])
open(d + '/meta', 'wb').write(b'\x02' + dac + ver)
# dn_proc: 8 ranges, the hull, nranges; then the walk's first pc; then the stack
lo, hi = 0x7f0000000000, 0x7f0000100000
proc = struct.pack('<16Q', lo, hi, *([0] * 14)) + struct.pack('<QQII', lo, hi, 1, 0)
stack = struct.pack('<Q', lo + 0x10)   # pc
stack += struct.pack('<QQ', B + 0x40, lo + 0x20) + struct.pack('<6Q', *([0] * 6))
stack += struct.pack('<QQ', B + 0x80, 0x401000)
open(d + '/walk', 'wb').write(b'\x03' + proc + stack)
PY
}

dictionary() {
	cat <<'DICT'
bsjb="BSJB"
tables="#~\x00\x00"
strings="#Strings\x00\x00\x00\x00"
blob="#Blob\x00\x00\x00"
pe="PE\x00\x00"
mz="MZ"
ver="@(#)Version "
commit="@Commit: "
call="\xe8"
callr="\xff\xd0"
DICT
}

fuzz_all tests/fuzz/fake_mem.c src/interp/dotnet/dotnet_pe.c src/interp/dotnet/dotnet_code.c \
	src/interp/dotnet/dotnet_meta.c
