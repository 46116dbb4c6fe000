#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer harness of the Ruby decoders (x86-64 instructions and the matchers
# of libruby's exported functions, .eh_frame_hdr, iseq line tables, and the object readers
# over a fake memory) and fuzzes for $FUZZ_SECONDS (default 30); any crash, leak or broken
# bound fails.
# Usage: tests/fuzz/run_ruby.sh    or    FUZZ_SECONDS=600 tests/fuzz/run_ruby.sh
NAME=fuzz_ruby
out=${BUILD:-build}/fuzz/ruby
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
FUZZ_MAX_LEN=${FUZZ_MAX_LEN:-8192}
. "$(dirname "$0")/lib.sh"

# hex BYTES: writes them (pairs of hex digits) as binary.
hex() { printf '%s' "$1" | sed 's/\(..\)/\\x\1/g' | xargs -0 printf '%b'; }

# Seeds: the first bytes of exported functions of Debian's libruby builds (3.3's
# rb_during_gc, 3.1's rb_errinfo, 2.7's rb_id2str, 3.3's rb_iseq_eval_main), a small
# .eh_frame_hdr, a line table, and a memory image of 3.3's objects: an iseq with its
# body, strings, line entries and succinct table, a method entry whose owner is a class
# with a path, and the symbol table with one ID.
seed() {
	local dir=$out/seeds
	{ printf '\000'; hex f30f1efa488d057d2b3700488b004885c07415488b80180500000fb64010c0e80583e001c30f1f0031c0c3; } >"$dir/during_gc"
	{ printf '\000'; hex 4883ec0866488d3d6c152f00666648e80c93f7ff488b00488b40704883c408c3; } >"$dir/errinfo"
	{ printf '\000'; hex 4889f848c1e8044881ffa80000000f47f885ff74133b3d35061600770b31f6e90ce3ffff0f1f400031c0c3; } >"$dir/id2str"
	{ printf '\000'; hex f30f1efa41554154554889fd534883ec08488d3d18bc1d00e8b30cdcff4c8ba010000000488b050dd21e004885c07529488d1d1b780800660f1f840000000000be100000004889dfe81311dcff488905e4d11e004885c074e7488b1518c51d004889c6488b3ae845eedbff4c8b68204889c34d85ed0f847879dcff4c89e931d24889ee4c89e7e8a57cfeff488b45108b80e800000085c075174883c4084c89e75b5d415c415de9c5f4ffff; } >"$dir/eval_main"
	# version 1, eh_frame_ptr pcrel sdata4, count udata4, table datarel sdata4; 3 FDEs
	{ printf '\001'; printf '\000\020\000\000'; hex 011b033b; hex 00000000; hex 03000000
	  hex 0000000000000000; hex 0001000000000000; hex 0002000000000000; } >"$dir/fde"
	# iseq of 60 words, position 57, 3 entries (lines 3, 4, 5), a succinct table
	{ printf '\002'; hex 3c000000; hex 39000000; hex 0300; printf '\000'
	  hex 030000000400000005000000; hex 8140201008040201; head -c 40 /dev/zero
	  hex 0200000000000000; hex 0000000000000000; hex 0100000000000000; head -c 56 /dev/zero
	} >"$dir/succ"
	python3 - "$dir/memory" <<'PY' || fail "cannot write the memory seed"
import struct, sys
mem = bytearray(0x1000)
base = 0x10000
def put(off, fmt, *v):
    struct.pack_into(fmt, mem, off, *v)
def string(off, text):  # 3.3: flags, klass, len, embedded bytes
    put(off, "<QQQ", 0x5, 0, len(text))
    mem[off + 24:off + 24 + len(text)] = text
put(0x000, "<QQQ", 0x701a, 0, base + 0x100)  # imemo_iseq -> body
body = 0x100
put(body + 0, "<II", 1, 60)  # type METHOD, 60 words
put(body + 8, "<Q", base + 0x400)  # iseq_encoded
put(body + 64, "<QQQQ", base + 0x340, base + 0x300, base + 0x300, 3 << 1 | 1)
put(body + 112, "<QQI", base + 0x500, 0, 3)  # insns_info body, positions, size
put(body + 136, "<Q", base + 0x600)  # succ_index_table
put(body + 168, "<Q", base)  # local_iseq
string(0x300, b"leaf")
string(0x340, b"chain.rb")
put(0x500, "<iiiiiiiii", 3, 0, 0, 4, 0, 0, 5, 0, 0)
put(0x600, "<QQQQQQ", 0x8140201008040201, 0, 0, 0, 0, 0)
put(0x600 + 48, "<IIQQ", 2, 0, 0, 1)
put(0x800, "<QQQQQ", 0x601a, 0, base + 0x900, 0x101, base + 0xa00)  # imemo_ment
put(0x900, "<QQQQQ", 0, base, 0, 0, 0x101)  # ISEQ method, original_id (serial 0x10)
put(0xa00, "<Q", 0x2)  # T_CLASS; its extension from +32
put(0xa00 + 32 + 120, "<Q", base + 0xb00)  # classpath
string(0xb00, b"Chain")
put(0xc00, "<IIQQ", 0x200, 0, 0, base + 0xd00)  # last_id, ids
put(0xd00, "<QQQ", 0x2007 | 1 << 15, 0, base + 0xe00)  # an embedded Array of one
put(0xe00, "<QQQQQ", 0x7, 0, 1024, 0, base + 0xe80)  # a heap Array of 1024
put(0xe80 + 0x10 * 16, "<Q", base + 0xb00)  # serial 0x10's string
open(sys.argv[1], "wb").write(b"\x03\x02" + bytes(mem))
PY
}

dictionary() {
	cat <<'DICT'
endbr64="\xf3\x0f\x1e\xfa"
lea_rdi="\x66\x48\x8d\x3d"
tls_call="\x66\x66\x48\xe8"
jmp="\xe9"
call="\xe8"
movzx="\x0f\xb6"
imemo_iseq="\x1a\x70\x00\x00\x00\x00\x00\x00"
imemo_ment="\x1a\x60\x00\x00\x00\x00\x00\x00"
t_string="\x05\x00\x00\x00\x00\x00\x00\x00"
t_array="\x07\x20\x00\x00\x00\x00\x00\x00"
DICT
}

fuzz_all tests/fuzz/fake_mem.c src/interp/ruby/ruby_code.c src/interp/ruby/ruby_lines.c \
	src/interp/ruby/ruby_mem.c src/interp/ruby/ruby_layout.c
