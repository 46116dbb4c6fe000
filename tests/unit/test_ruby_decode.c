// SPDX-License-Identifier: Apache-2.0
/* Unit tests of the Ruby runtime's decoders: the x86-64 matchers on the bytes of Debian's
 * libruby functions, .eh_frame_hdr bounds, the succinct line table against a plain count,
 * the object readers over a memory image laid out as 2.7 and 3.3 lay objects out, and
 * (when the runtime roots are there) discovery on the three Debian libruby files. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "harness.h"
#include "interp/ruby/ruby_code.h"
#include "interp/ruby/ruby_file.h"
#include "interp/ruby/ruby_lines.h"
#include "interp/ruby/ruby_mem.h"
#include "interp/ruby/ruby_proc.h"

static size_t unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;

	for (; s[0] && s[1] && n < cap; s += 2) {
		unsigned int v;

		sscanf(s, "%2x", &v);
		out[n++] = (uint8_t)v;
	}
	return n;
}

static struct rb_code code_of(const char *hex, uint64_t vaddr, uint8_t *buf, size_t cap)
{
	return (struct rb_code){.vaddr = vaddr, .bytes = buf, .len = unhex(hex, buf, cap)};
}

/* The functions' first bytes in Debian's builds, at their addresses there. */
static void test_matchers_on_debian_code(void)
{
	uint8_t b[256];
	struct rb_code c;
	struct rb_gc_code gc;
	uint64_t a = 0;
	uint32_t last = 0;
	int32_t off = -1;

	/* 3.3.8's rb_during_gc: lea of ruby_current_vm_ptr (hidden), objspace 0x518 */
	c = code_of("f30f1efa488d057d2b3700488b004885c07415488b80180500000fb64010c0e80583e001c3",
		    0xf9060, b, sizeof(b));
	CHECK(!rb_code__during_gc(&c, &gc));
	CHECK(gc.vm_ptr == 0x46bbe8 && !gc.via_got && gc.objspace == 0x518 && gc.flags == 0x10 &&
	      gc.bit == 5);
	/* 2.7.4's: through the GOT, objspace 0x480 */
	c = code_of("488b05f90a2800488b00488b80800400000fb64010c0e80583e001c3", 0xc2210, b,
		    sizeof(b));
	CHECK(!rb_code__during_gc(&c, &gc));
	CHECK(gc.via_got && gc.vm_ptr == 0x342d10 && gc.objspace == 0x480 && gc.bit == 5);
	/* 3.1.2's rb_errinfo: general-dynamic TLS of ruby_current_ec */
	c = code_of("4883ec0866488d3d6c152f00666648e80c93f7ff488b00488b40704883c408c3", 0xbc4d0, b,
		    sizeof(b));
	CHECK(!rb_code__tls_index(&c, &a, &off) && a == 0x3ada48 && off == 0);
	/* 2.7.4's rb_id2str: the ID against tLAST_OP_ID, the serial against last_id */
	c = code_of("4889f848c1e8044881ffa80000000f47f885ff74133b3d35061600770b31f6e90ce3ffff",
		    0x1e2b90, b, sizeof(b));
	CHECK(!rb_code__symbols(&c, NULL, &a, &last) && a == 0x3431e0 && last == 0xa8);
	CHECK(!rb_code__first_jump(&c, &a) && a == 0x1e0ec0);
	/* 3.3.8's rb_iseq_eval_main ends with `jmp vm_exec` */
	c = code_of("488b45108b80e800000085c075174883c4084c89e75b5d415c415de9c5f4ffff", 0x27eabb, b,
		    sizeof(b));
	CHECK(!rb_code__tail_call(&c, 0x27eb00, &a) && a == 0x27dfa0);
	/* a function that is none of these matches nothing */
	c = code_of("31c0c3", 0x1000, b, sizeof(b));
	CHECK(rb_code__during_gc(&c, &gc) && rb_code__tls_index(&c, &a, &off) &&
	      rb_code__symbols(&c, NULL, &a, &last));
}

static void test_instruction_lengths(void)
{
	static const struct {
		const char *hex;
		unsigned int len;
	} cases[] = {
	    {"f30f1efa", 4},		  /* endbr64 */
	    {"66488d3d6c152f00", 8},	  /* data16 lea rdi, [rip + d32] */
	    {"666648e80c93f7ff", 8},	  /* data16 data16 call rel32 */
	    {"48c1e804", 4},		  /* shr rax, 4 */
	    {"4881ffa8000000", 7},	  /* cmp rdi, imm32 */
	    {"0fb64010", 4},		  /* movzx eax, byte [rax + 16] */
	    {"488b80180500", 0},	  /* truncated: mov rax, [rax + d32] */
	    {"f348ab", 3},		  /* rep stosq */
	    {"660f73d908", 5},		  /* psrldq xmm1, 8 */
	    {"660f3a0fc108", 6},	  /* palignr xmm0, xmm1, 8 */
	    {"48b80102030405060708", 10}, /* mov rax, imm64 */
	    {"c3", 1},
	};
	struct rb_insn in;
	uint8_t b[16];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = unhex(cases[i].hex, b, sizeof(b));
		int err = rb_insn__decode(b, n, 0x1000, &in);

		if (!cases[i].len)
			CHECK(err);
		else
			CHECK(!err && in.len == cases[i].len);
	}
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void test_fde_bounds(void)
{
	uint8_t h[12 + 3 * 8] = {1, 0x1b, 0x03, 0x3b};
	uint64_t s, e;

	put32(h + 8, 3);
	put32(h + 12, 0x100); /* datarel: from the header at 0x1000 */
	put32(h + 20, 0x200);
	put32(h + 28, 0x380);
	CHECK(!rb_fde__bounds(h, sizeof(h), 0x1000, 0x1150, &s, &e) && s == 0x1100 && e == 0x1200);
	CHECK(!rb_fde__bounds(h, sizeof(h), 0x1000, 0x1200, &s, &e) && s == 0x1200 && e == 0x1380);
	CHECK(rb_fde__bounds(h, sizeof(h), 0x1000, 0x1000, &s, &e) == -ENOENT); /* before all */
	CHECK(rb_fde__bounds(h, sizeof(h), 0x1000, 0x1400, &s, &e) == -ENOENT); /* the last */
	put32(h + 8, 4); /* a count past the table */
	CHECK(rb_fde__bounds(h, sizeof(h), 0x1000, 0x1150, &s, &e) == -EINVAL);
}

/* Builds the succinct table of positions as iseq.c lays it out, from its description. */
static size_t build_succ(const uint32_t *pos, uint32_t n, uint32_t size, uint8_t *t, size_t cap)
{
	size_t len = rb_succ__size(size);
	uint32_t r = 0;

	memset(t, 0, cap);
	for (uint32_t x = 0; x < size && x < RB_SUCC_IMM_SIZE; x++) {
		uint64_t w;

		if (r < n && pos[r] == x)
			r++;
		memcpy(&w, t + (x / 9) * 8, 8);
		w |= (uint64_t)r << (7 * (x % 9));
		memcpy(t + (x / 9) * 8, &w, 8);
	}
	for (uint32_t k = 0; size > RB_SUCC_IMM_SIZE && k < (size - RB_SUCC_IMM_SIZE + 511) / 512;
	     k++) {
		uint8_t *blk = t + 48 + (size_t)k * RB_SUCC_BLOCK_SIZE;
		uint64_t small = 0, small_rank = 0;

		memcpy(blk, &r, 4);
		for (uint32_t j = 0; j < 8; j++) {
			uint64_t bits = 0;

			if (j)
				small |= small_rank << (9 * (j - 1));
			for (uint32_t i = 0; i < 64; i++) {
				if (r < n && pos[r] == k * 512 + j * 64 + i + RB_SUCC_IMM_SIZE) {
					bits |= 1ULL << i;
					r++;
				}
			}
			memcpy(blk + 16 + j * 8, &bits, 8);
			small_rank += (uint64_t)__builtin_popcountll(bits);
		}
		memcpy(blk + 8, &small, 8);
	}
	return len;
}

static void test_succinct_lines(void)
{
	static uint8_t t[8192];
	uint32_t pos[400], n = 0, size = 1400;
	int32_t lines[400];

	for (uint32_t x = 0; x < size && n < 400; x += 1 + (x * 7) % 5)
		pos[n++] = x;
	for (uint32_t i = 0; i < n; i++)
		lines[i] = (int32_t)(10 + i);
	size_t len = build_succ(pos, n, size, t, sizeof(t));
	for (uint32_t x = 0; x < size; x++) {
		int want = 0;

		while ((uint32_t)want < n && pos[want] <= x)
			want++;
		CHECK(rb_succ__rank(t, len, size, x) == want);
		CHECK(rb_line_at(lines, n, t, len, NULL, size, x) == lines[want - 1]);
		CHECK(rb_line_at(lines, n, NULL, 0, pos, size, x) == lines[want - 1]);
	}
	CHECK(rb_succ__rank(t, len, size, size) == -1);
	CHECK(rb_succ__rank(t, len - 1, size, 3) == -1);
}

/* ---- the object readers over a fake memory ---- */

#define BASE 0x100000ULL
static uint8_t mem[0x1000];

static int mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	if (addr < BASE || addr - BASE > sizeof(mem) || len > sizeof(mem) - (addr - BASE))
		return -EFAULT;
	memcpy(buf, mem + (addr - BASE), len);
	return 0;
}

static void put64(uint64_t off, uint64_t v)
{
	memcpy(mem + off, &v, 8);
}

/* A String at off: 3.3 keeps its length in a member, 2.7 an embedded one in its flags. */
static void string_at(const struct rb_layout *l, uint64_t off, const char *s)
{
	size_t n = strlen(s);

	if (l->string == RB_STRING_LEN_FIELD) {
		put64(off, RB_T_STRING);
		put64(off + 16, n);
	} else {
		put64(off, RB_T_STRING | (uint64_t)n << RB_STR_EMBED_LEN_SHIFT);
	}
	memcpy(mem + off + l->string_embed, s, n);
}

/* An iseq "leaf" of chain.rb (method, 60 words, lines 3/4/5 from positions 0/2/57), its
 * method entry, owner class Chain and the symbol table naming ID 0x101 "leaf". */
static void lay_out(const struct rb_layout *l, bool singleton)
{
	uint32_t pos[3] = {0, 2, 57}, size = 60;
	uint64_t body = 0x100;

	memset(mem, 0, sizeof(mem));
	put64(0, RB_T_IMEMO | RB_IMEMO_ISEQ << RB_FL_USHIFT);
	put64(l->iseq_body, BASE + body);
	put32(mem + body + l->body_type, RB_ISEQ_TYPE_METHOD);
	put32(mem + body + l->body_size, size);
	put64(body + l->body_encoded, BASE + 0x800);
	put64(body + l->body_path, BASE + 0x340);
	put64(body + l->body_base_label, BASE + 0x300);
	put64(body + l->body_label, BASE + 0x300);
	put64(body + l->body_first_lineno, 3 << 1 | 1);
	put64(body + l->body_insns, BASE + 0x400);
	put32(mem + body + l->body_insns_size, 3);
	put64(body + l->body_succ, BASE + 0x500);
	string_at(l, 0x300, "leaf");
	string_at(l, 0x340, "chain.rb");
	for (int i = 0; i < 3; i++)
		put32(mem + 0x400 + i * l->insn_info_size, 3 + i);
	build_succ(pos, 3, size, mem + 0x500, 0x100);
	put64(0x600, RB_T_IMEMO | RB_IMEMO_MENT << RB_FL_USHIFT);
	put64(0x600 + l->me_def, BASE + 0x680);
	put64(0x600 + l->me_owner, BASE + 0xa00);
	put64(0x680 + l->def_iseq, BASE);
	put64(0x680 + l->def_original_id, 0x101);
	put64(0xa00, RB_T_CLASS | (singleton ? RB_FL_SINGLETON : 0));
	if (l->klass == RB_CLASS_EXT) {
		put64(0xa00 + l->class_ext + l->ext_classpath, BASE + 0x380);
		put64(0xa00 + l->class_ext + l->ext_attached, BASE + 0xb00);
		put64(0xb00, RB_T_CLASS);
		put64(0xb00 + l->class_ext + l->ext_classpath, BASE + 0x380);
	}
	string_at(l, 0x380, "Chain");
	put32(mem + 0xc00, 0x200); /* last_id */
	put64(0xc00 + RB_SYMBOLS_IDS, BASE + 0xd00);
	put64(0xd00, RB_T_ARRAY); /* on the heap: length, then its elements' address */
	put64(0xd00 + RB_ARRAY_LEN, 1);
	put64(0xd00 + RB_ARRAY_PTR, BASE + 0xd80);
	put64(0xd80, BASE + 0xe00);
	put64(0xe00, RB_T_ARRAY);
	put64(0xe00 + RB_ARRAY_LEN, 64);
	put64(0xe00 + RB_ARRAY_PTR, BASE + 0xe40);
	put64(0xe40 + 0x10 * 16, BASE + 0x300); /* serial 0x10's string: "leaf" */
}

static void test_readers(void)
{
	struct rb_mem m = {.read = mem_read, .symbols = BASE + 0xc00, .last_op_id = 0xa9};
	struct rb_method me;
	struct rb_iseq is;
	char out[RB_NAME_MAX];

	m.l = rb_layout__get(0x0303);
	lay_out(m.l, false);
	CHECK(!rb_mem__iseq(&m, BASE, &is));
	CHECK(!strcmp(is.label, "leaf") && !strcmp(is.path, "chain.rb") && is.first_lineno == 3);
	CHECK(is.nlines == 3 && is.succ && !is.positions);
	/* the pc points after the instruction: word 1 runs position 0's line, 3 position 2's */
	CHECK(rb_iseq__line(&is, BASE + 0x800 + 8) == 3);
	CHECK(rb_iseq__line(&is, BASE + 0x800 + 3 * 8) == 4);
	CHECK(rb_iseq__line(&is, BASE + 0x800 + 58 * 8) == 5);
	rb_iseq__release(&is);
	CHECK(!rb_mem__method(&m, BASE + 0x600, &me) && me.iseq == BASE &&
	      me.owner == BASE + 0xa00);
	CHECK(!rb_mem__id_name(&m, me.original_id, out, sizeof(out)) && !strcmp(out, "leaf"));
	CHECK(!strcmp(rb_mem__qualify(&m, me.owner, "leaf", out, sizeof(out)), "Chain#leaf"));
	lay_out(m.l, true);
	CHECK(!strcmp(rb_mem__qualify(&m, BASE + 0xa00, "leaf", out, sizeof(out)), "Chain.leaf"));
	/* not an iseq, not a method entry */
	CHECK(rb_mem__iseq(&m, BASE + 0x300, &is) == -EINVAL);
	rb_iseq__release(&is);
	CHECK(rb_mem__method(&m, BASE, &me) == -EINVAL);
	/* 2.7: embedded strings, class paths in an ivar table (none here: the name alone) */
	m.l = rb_layout__get(0x0207);
	m.last_op_id = 0xa8;
	lay_out(m.l, false);
	CHECK(!rb_mem__iseq(&m, BASE, &is) && !strcmp(is.label, "leaf"));
	rb_iseq__release(&is);
	CHECK(!strcmp(rb_mem__qualify(&m, BASE + 0xa00, "leaf", out, sizeof(out)), "leaf"));
}

/* A frame carries bits 3..39 of its pc: the iseq cached at its address names it only when
 * that pc lies among the iseq's instructions, so an iseq freed and another read at the
 * same address is never given the old one's samples. */
static bool pc_in(const struct rb_iseq *i, uint64_t pc, uint64_t *got)
{
	return rb_iseq__pc(i, RB_PC_TAG(pc), RB_PC_DATA(pc), got);
}

static void test_pc_in_iseq(void)
{
	struct rb_iseq is = {.encoded = 0x7f0012345000, .size = 64};
	uint64_t pc = 0;

	CHECK(pc_in(&is, is.encoded + 10 * 8, &pc) && pc == is.encoded + 10 * 8);
	CHECK(pc_in(&is, is.encoded, &pc) && pc == is.encoded);
	CHECK(!pc_in(&is, is.encoded - 8, &pc));
	CHECK(!pc_in(&is, is.encoded + 65 * 8, &pc));
	/* another iseq's instructions, as a reused address would carry */
	CHECK(!pc_in(&is, 0x7f0012399000, &pc));
	CHECK(!pc_in(&is, 0x55d0a0001000, &pc));
	/* instructions across a 2^40 boundary: the carried bits wrap, the pc does not */
	is.encoded = 0x7fffffffff8;
	CHECK(pc_in(&is, is.encoded + 16, &pc) && pc == is.encoded + 16);
	CHECK(!pc_in(&is, is.encoded - 8, &pc));
	/* an iseq read without instructions names nothing */
	is.encoded = 0;
	CHECK(!pc_in(&is, 0x80, &pc));
}

/* Discovery on Debian's own builds, as the runtime roots hold them. */
static void test_debian_libruby(void)
{
	static const struct {
		const char *path;
		uint16_t version;
		uint64_t exec, core, tls, symbols;
	} libs[] = {
	    {"/var/cache/ebprof/bullseye/usr/lib/x86_64-linux-gnu/libruby-2.7.so.2.7.4", 0x0207,
	     0x227100, 0x221680, 0, 0x3431e0},
	    {"/var/cache/ebprof/bookworm/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1.2", 0x0301,
	     0x2525f0, 0x24e160, 0x3ada48, 0x3ae1c0},
	    {"/var/cache/ebprof/trixie/usr/lib/x86_64-linux-gnu/libruby-3.3.so.3.3.8", 0x0303,
	     0x27dfa0, 0x278fd0, 0x45aad0, 0x45b160},
	};
	int found = 0;

	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		int fd = open(libs[i].path, O_RDONLY);
		struct elf_file *e = fd >= 0 ? elf_file__open(fd) : NULL;
		struct rb_file_info f;

		if (fd >= 0)
			close(fd);
		if (!e)
			continue;
		found++;
		CHECK(rb_file__is_ruby(e) && !rb_file__inspect(e, &f));
		CHECK(f.version == libs[i].version && f.exec[0] == libs[i].exec &&
		      f.core[0] == libs[i].core && f.core[1] <= f.exec[0]);
		CHECK(f.tls_index == libs[i].tls && f.symbols == libs[i].symbols);
		CHECK(f.gc.objspace == f.l->vm_objspace && f.vm_ptr);
		elf_file__free(e);
	}
	if (!found)
		SKIP("no runtime roots (scripts/runtimes.sh makes them)");
}

/* A release ebprof has no layout for: 3.1's file with its ruby_version made "3.2.2". */
static void test_unknown_release(void)
{
	const char *src =
	    "/var/cache/ebprof/bookworm/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1.2";
	char tmp[] = "/tmp/ebprof-test-libruby.XXXXXX", buf[65536];
	struct rb_file_info f;
	struct elf_file *e;
	uint64_t value, off;
	int in = open(src, O_RDONLY), out;
	ssize_t n;

	if (in < 0)
		SKIP("no bookworm root (scripts/runtimes.sh makes it)");
	out = mkstemp(tmp);
	CHECK(out >= 0);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		CHECK(write(out, buf, (size_t)n) == n);
	close(in);
	e = out >= 0 ? elf_file__open(out) : NULL;
	CHECK(e && !elf_file__symbol(e, "ruby_version", &value, NULL) &&
	      elf_file__vaddr_to_off(e, value, &off));
	elf_file__free(e);
	CHECK(pwrite(out, "3.2.2", 5, (off_t)off) == 5);
	e = elf_file__open(out);
	CHECK(e && rb_file__is_ruby(e) && rb_file__inspect(e, &f) == -ENOTSUP &&
	      !strcmp(f.release, "3.2.2") && !f.l);
	elf_file__free(e);
	close(out);
	unlink(tmp);
}

int main(void)
{
	RUN_TEST(test_matchers_on_debian_code);
	RUN_TEST(test_instruction_lengths);
	RUN_TEST(test_fde_bounds);
	RUN_TEST(test_succinct_lines);
	RUN_TEST(test_readers);
	RUN_TEST(test_pc_in_iseq);
	RUN_TEST(test_debian_libruby);
	RUN_TEST(test_unknown_release);
	HARNESS_EXIT();
}
