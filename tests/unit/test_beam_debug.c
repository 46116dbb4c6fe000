// SPDX-License-Identifier: Apache-2.0
/* Unit test of the decoder of the Erlang VM's GDB JIT records (interp/beam/beam_debug.h):
 * a module's record laid out as OTP 25 and 27 write it names each code address by its
 * function (a CodeInfo prologue by the function it precedes) and line; addresses outside
 * its functions name nothing; every cut of the record, and a line count past its end,
 * is refused (its padding past the last NUL is not needed). And the schedulers' array
 * (beam_debug__sched_stride): the size of its elements found when each says its number,
 * none when a second size fits as well, or an element says another number. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "interp/beam/beam_debug.h"

#define BASE 0x7f0000001000ull

struct buf {
	uint8_t b[512];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void put32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void put16(struct buf *b, uint16_t v)
{
	put(b, &v, 2);
}

/* A name and its NUL, then pad bytes: what the VM's records hold past each. */
static void name(struct buf *b, const char *s, size_t pad)
{
	static const uint8_t zero[8];

	put16(b, (uint16_t)(strlen(s) + 1));
	put(b, s, strlen(s) + 1);
	put(b, zero, pad);
}

static void range(struct buf *b, uint32_t start, uint32_t end, uint32_t lines, const char *s)
{
	put32(b, start);
	put32(b, end);
	put32(b, lines);
	name(b, s, 2);
}

static void line(struct buf *b, uint32_t start, uint32_t n, const char *file)
{
	put32(b, start);
	put32(b, n);
	name(b, file, 2);
}

static void record(struct buf *b)
{
	uint64_t base = BASE;
	static const uint8_t pad[4];

	b->n = 0;
	put32(b, BEAM_DEBUG_MODULE);
	put(b, pad, 4);
	put(b, &base, 8);
	put32(b, 3);	 /* ranges */
	put32(b, 0x200); /* code size */
	name(b, "chain", 6);
	range(b, 0, 0x40, 0, "chain::codeHeader");
	range(b, 0x40, 0x70, 0, "chain:leaf/3-CodeInfoPrologue");
	range(b, 0x70, 0x120, 2, "chain:leaf/3");
	line(b, 0x40, 28, "chain.erl");
	line(b, 0x90, 31, "chain.erl");
}

static int decode(const struct buf *b, size_t n, struct beam_module *m)
{
	uint8_t *rec = malloc(n ? n : 1);

	memcpy(rec, b->b, n);
	return beam_debug__module(rec, n, m);
}

static void test_names(void)
{
	struct beam_module m;
	struct buf b;
	const char *file, *fn;
	uint32_t ln;

	record(&b);
	CHECK(decode(&b, b.n, &m) == 0);
	CHECK(!strcmp(m.name, "chain") && m.nfns == 3 && m.nlines == 2);
	fn = beam_module__find(&m, BASE + 0x10, &ln, &file);
	CHECK(fn && !strcmp(fn, "chain::codeHeader") && ln == 0 && !strcmp(file, ""));
	fn = beam_module__find(&m, BASE + 0x44, &ln, &file);
	CHECK(fn && !strcmp(fn, "chain:leaf/3") && ln == 0);
	fn = beam_module__find(&m, BASE + 0x80, &ln, &file);
	CHECK(fn && !strcmp(fn, "chain:leaf/3") && ln == 28 && !strcmp(file, "chain.erl"));
	fn = beam_module__find(&m, BASE + 0x11f, &ln, &file);
	CHECK(fn && ln == 31);
	CHECK(!beam_module__find(&m, BASE + 0x120, &ln, &file)); /* past its functions */
	CHECK(!beam_module__find(&m, BASE + 0x200, &ln, &file)); /* past its code */
	CHECK(!beam_module__find(&m, BASE - 1, &ln, &file));
	beam_module__release(&m);
}

static void test_malformed(void)
{
	struct beam_module m;
	struct buf b;
	int bad = 0;

	record(&b);
	/* Every cut short of the last string's NUL (the padding after it is not needed). */
	for (size_t n = 0; n < b.n - 2; n++) {
		bad += decode(&b, n, &m) == -EINVAL;
		beam_module__release(&m);
	}
	CHECK(bad == (int)b.n - 2);
	/* The last range (16 bytes and "chain:leaf/3") before its two lines (22 bytes each):
	 * a line count past the record's end. */
	b.b[b.n - 2 * 22 - (16 + 13) + 8] = 0xff;
	CHECK(decode(&b, b.n, &m) == -EINVAL);
	beam_module__release(&m);
}

static void test_emulator(void)
{
	uint8_t rec[24] = {0};
	struct beam_debug_emulator e;
	uint64_t exit = BASE + 0x10;

	rec[8] = 1;
	memcpy(rec + 16, &exit, 8);
	CHECK(beam_debug__kind(rec, sizeof(rec)) == BEAM_DEBUG_EMULATOR);
	CHECK(beam_debug__emulator(rec, sizeof(rec), &e) == 0);
	CHECK(e.frame_layout == 1 && e.normal_exit == exit);
	CHECK(beam_debug__emulator(rec, 23, &e) == -EINVAL);
	CHECK(beam_debug__kind(rec, 7) == -1);
}

/* An array of n normal schedulers of stride bytes each, started, into a. */
static void schedulers(uint8_t *a, size_t len, uint32_t n, size_t stride)
{
	memset(a, 0, len);
	for (uint32_t i = 0; i < n && stride * i + BEAM_ESD_DIRTY_NO + 8 <= len; i++) {
		uint64_t regs = 0x7f0000100000ull + 0x100000ull * i, no = i + 1;

		memcpy(a + stride * i + BEAM_ESD_REGISTERS, &regs, 8);
		memcpy(a + stride * i + BEAM_ESD_NO, &no, 8);
	}
}

static void test_schedulers(void)
{
	static uint8_t a[1 << 16];
	uint64_t two = 2, regs = 0x7f0000200000ull;

	schedulers(a, sizeof(a), 4, 10432); /* 163 cache lines */
	CHECK(beam_debug__sched_stride(a, sizeof(a), 4) == 10432);
	CHECK(beam_debug__sched_ok(a + 10432, sizeof(a) - 10432, 2));
	CHECK(!beam_debug__sched_ok(a + 10432, sizeof(a) - 10432, 3));
	/* Elements past the bytes read are not checked; none at all is no size. */
	CHECK(beam_debug__sched_stride(a, 20000, 4) == 10432);
	CHECK(beam_debug__sched_stride(a, 10432, 4) == 0);
	CHECK(beam_debug__sched_stride(a, sizeof(a), 1) == 0);
	/* A second size that fits as well: neither is taken. */
	schedulers(a, sizeof(a), 2, 10432);
	memcpy(a + 12800 + BEAM_ESD_REGISTERS, &regs, 8);
	memcpy(a + 12800 + BEAM_ESD_NO, &two, 8);
	CHECK(beam_debug__sched_stride(a, sizeof(a), 2) == 0);
	/* A scheduler not started (no registers block) or not normal (a dirty number). */
	schedulers(a, sizeof(a), 3, 10432);
	memset(a + 2 * 10432 + BEAM_ESD_REGISTERS, 0, 8);
	CHECK(beam_debug__sched_stride(a, sizeof(a), 3) == 0);
	schedulers(a, sizeof(a), 3, 10432);
	a[10432 + BEAM_ESD_DIRTY_NO] = 1;
	CHECK(beam_debug__sched_stride(a, sizeof(a), 3) == 0);
	CHECK(!beam_debug__sched_ok(a, BEAM_ESD_DIRTY_NO + 7, 1));
}

int main(void)
{
	RUN_TEST(test_names);
	RUN_TEST(test_malformed);
	RUN_TEST(test_emulator);
	RUN_TEST(test_schedulers);
	HARNESS_EXIT();
}
