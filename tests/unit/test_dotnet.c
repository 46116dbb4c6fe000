// SPDX-License-Identifier: Apache-2.0
/* Unit tests of the .NET decoders on made-up inputs: the version from a path and from the
 * string libcoreclr.so embeds, the DAC table (addresses or offsets, not started, not
 * understood), the managed ranges from a process's mappings, the call-site test, and
 * the code heap's nibble map (the method start found for pcs in and between methods). */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "interp/dotnet/dotnet_code.h"
#include "interp/dotnet/dotnet_meta.h"

static void test_version(void)
{
	static const char data[] = "..\0@(#)Version 8.0.424.16909 @Commit: 2d7eea25\0..";
	struct dn_version v;

	CHECK(dn_version__from_path("/x/shared/Microsoft.NETCore.App/8.0.4/libcoreclr.so", &v));
	CHECK(v.v[0] == 8 && v.v[1] == 0 && v.v[2] == 4);
	CHECK(!dn_version__from_path("/opt/app/libcoreclr.so", &v));
	CHECK(!dn_version__from_path("/x/8.0/libcoreclr.so", &v));
	CHECK(!dn_version__from_path("/x/8.0.4.1/libcoreclr.so", &v));
	CHECK(!dn_version__from_path("libcoreclr.so", &v));
	CHECK(dn_version__from_data(data, sizeof(data), &v));
	CHECK(!strcmp(v.build, "8.0.424.16909") && !strcmp(v.commit, "2d7eea25"));
	/* The path said nothing: the file version's major and minor. */
	CHECK(v.v[0] == 8 && v.v[1] == 0 && v.v[2] == 0);
	CHECK(!dn_version__from_data("no version", 10, &v));
}

struct words {
	uint64_t at;
	const uint64_t *w;
	size_t n;
};

static int read_words(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct words *m = ctx;

	if (addr < m->at || addr - m->at + len > m->n * 8)
		return -EFAULT;
	memcpy(buf, (const uint8_t *)m->w + (addr - m->at), len);
	return 0;
}

static void test_dac(void)
{
	const uint64_t base = 0x7f0000000000ULL, span = 0x700000;
	uint64_t abs[DN_DAC_ENTRIES], rel[DN_DAC_ENTRIES], zero[DN_DAC_ENTRIES] = {0},
							   bad[DN_DAC_ENTRIES], out[DN_DAC_ENTRIES];
	struct words m = {.at = 0x1000, .n = DN_DAC_ENTRIES};

	for (int i = 0; i < DN_DAC_ENTRIES; i++) {
		abs[i] = base + 0x6b0000 + 8 * (uint64_t)i;
		rel[i] = 0x6b0000 + 8 * (uint64_t)i;
		bad[i] = abs[i];
	}
	bad[3] = base + span; /* past the image */
	m.w = abs;
	CHECK(dn_dac__read(read_words, &m, 0x1000, base, span, out) == 0 && out[4] == abs[4]);
	m.w = rel;
	CHECK(dn_dac__read(read_words, &m, 0x1000, base, span, out) == 0 && out[4] == abs[4]);
	m.w = zero;
	CHECK(dn_dac__read(read_words, &m, 0x1000, base, span, out) == -EAGAIN);
	m.w = bad;
	CHECK(dn_dac__read(read_words, &m, 0x1000, base, span, out) == -EINVAL);
	CHECK(dn_dac__read(read_words, &m, 0x2000, base, span, out) == -EFAULT);
}

static void test_ranges(void)
{
	const struct dn_map maps[] = {
	    {0x1000, 0x2000, DN_MAP_MANAGED}, {0x3000, 0x4000, DN_MAP_MANAGED},
	    {0x5000, 0x6000, DN_MAP_NATIVE},  {0x7000, 0x8000, DN_MAP_MANAGED},
	    {0x9000, 0xa000, DN_MAP_NATIVE},  {0xb000, 0xc000, DN_MAP_MANAGED},
	};
	struct dn_range r[DN_MAX_RANGES];
	uint32_t dropped, n = dn_ranges__build(maps, 6, r, DN_MAX_RANGES, &dropped);

	/* Runs with no native mapping between them: [1000, 4000), [7000, 8000), [b000, c000). */
	CHECK(n == 3 && !dropped);
	CHECK(r[0].low == 0x1000 && r[0].high == 0x4000);
	CHECK(r[1].low == 0x7000 && r[1].high == 0x8000 && r[2].low == 0xb000);
	n = dn_ranges__build(maps, 6, r, 2, &dropped);
	CHECK(n == 2 && dropped == 1);
}

static void test_after_call(void)
{
	static const uint8_t rel32[8] = {0, 0, 0, 0xe8, 1, 2, 3, 4};
	static const uint8_t reg[8] = {0, 0, 0, 0, 0, 0, 0xff, 0xd0};	   /* call rax */
	static const uint8_t disp8[8] = {0, 0, 0, 0, 0, 0xff, 0x50, 0x20}; /* call [rax+0x20] */
	static const uint8_t rip[8] = {0, 0, 0xff, 0x15, 1, 2, 3, 4};	   /* call [rip+x] */
	static const uint8_t none[8] = {0x48, 0x89, 0xc7, 0x48, 0x83, 0xc4, 0x08, 0xc3};

	CHECK(dn_code__after_call(rel32) && dn_code__after_call(reg));
	CHECK(dn_code__after_call(disp8) && dn_code__after_call(rip));
	CHECK(!dn_code__after_call(none));
}

/* A heap at 0x10000 whose nibble map (at 0x1000) starts methods at 0x10008 and 0x10124. */
static void test_nibble_map(void)
{
	uint64_t map[2] = {0};
	struct words m = {.at = 0x1000, .w = map, .n = 2};
	struct dn_heap h = {
	    .start = 0x10000, .end = 0x10200, .map_base = 0x10000, .hdr_map = 0x1000};
	uint32_t w[4] = {0};
	uint64_t start = 0;

	/* Bucket 0's nibble 3: +8; word 1 (bytes 256-511), bucket 1's nibble 2: +32+4. */
	w[0] = 3u << 28;
	w[1] = 2u << 24;
	memcpy(map, w, sizeof(map));
	CHECK(dn_code__start(read_words, &m, &h, 0x10008, &start) == 0 && start == 0x10008);
	CHECK(dn_code__start(read_words, &m, &h, 0x10100, &start) == 0 && start == 0x10008);
	CHECK(dn_code__start(read_words, &m, &h, 0x10124, &start) == 0 && start == 0x10124);
	CHECK(dn_code__start(read_words, &m, &h, 0x101ff, &start) == 0 && start == 0x10124);
	/* Before the first method, outside the heap. */
	CHECK(dn_code__start(read_words, &m, &h, 0x10004, &start) == -ENOENT);
	CHECK(dn_code__start(read_words, &m, &h, 0x10200, &start) == -ENOENT);
}

int main(void)
{
	RUN_TEST(test_version);
	RUN_TEST(test_dac);
	RUN_TEST(test_ranges);
	RUN_TEST(test_after_call);
	RUN_TEST(test_nibble_map);
	HARNESS_EXIT();
}
