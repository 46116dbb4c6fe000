// SPDX-License-Identifier: Apache-2.0
/* Unit tests of the Python line table and str decoders, on the line tables CPython 3.9,
 * 3.10, 3.11 and 3.13 produced for one function (below), and the line each of its
 * instructions has according to that interpreter's own co_lines() / findlinestarts():
 *
 *   def sample(n):            # line 2
 *       total = 0
 *       for i in range(n):
 *           if i % 3:
 *               total += i
 *           else:
 *               total -= 1
 *       return total
 */
#include <stdbool.h>
#include <string.h>

#include "harness.h"
#include "interp/python/python_lines.h"

struct want {
	uint32_t lasti;
	int line;
};

static int check_table(enum py_line_format fmt, const uint8_t *t, size_t n, const struct want *w,
		       size_t nw)
{
	int bad = 0;

	for (size_t i = 0; i < nw; i++) {
		int got = py_line_of(fmt, t, n, 2, w[i].lasti);

		if (got != w[i].line) {
			printf("  lasti %u: line %d, want %d\n", w[i].lasti, got, w[i].line);
			bad++;
		}
	}
	return bad;
}

#define CHECK_TABLE(fmt, t, w) \
	CHECK(check_table(fmt, t, sizeof(t), w, sizeof(w) / sizeof(w[0])) == 0)

static void test_lnotab_39(void)
{
	static const uint8_t t[] = {0x00, 0x01, 0x04, 0x01, 0x0c, 0x01,
				    0x08, 0x01, 0x0a, 0x02, 0x0a, 0x01};
	static const struct want w[] = {{0, 3},	 {1, 3},  {2, 4},  {7, 4},  {8, 5},  {11, 5},
					{12, 6}, {16, 6}, {17, 8}, {21, 8}, {22, 9}, {23, 9}};

	CHECK_TABLE(PY_LINES_LNOTAB, t, w);
}

static void test_linetable_310(void)
{
	static const uint8_t t[] = {0x04, 0x01, 0x0c, 0x01, 0x08, 0x01,
				    0x0a, 0x01, 0x0a, 0x02, 0x04, 0x01};
	static const struct want w[] = {{0, 3},	 {1, 3},  {2, 4},  {7, 4},  {8, 5},
					{11, 5}, {12, 6}, {16, 6}, {17, 8}, {21, 8},
					{22, 9}, {23, 9}, {24, -1}};

	CHECK_TABLE(PY_LINES_310, t, w);
}

static void test_locations_311(void)
{
	static const uint8_t t[] = {
	    0x80, 0x00, 0xd8, 0x0c, 0x0d, 0x80, 0x45, 0xdd, 0x0d, 0x12, 0x90, 0x31, 0x89, 0x58,
	    0x8c, 0x58, 0xf0, 0x00, 0x04, 0x05, 0x17, 0xf0, 0x00, 0x04, 0x05, 0x17, 0x88, 0x01,
	    0xd8, 0x0b, 0x0c, 0x88, 0x71, 0x89, 0x35, 0xf0, 0x00, 0x03, 0x09, 0x17, 0xd8, 0x0c,
	    0x11, 0x90, 0x51, 0x89, 0x4a, 0x88, 0x45, 0x88, 0x45, 0xe0, 0x0c, 0x11, 0x90, 0x51,
	    0x89, 0x4a, 0x88, 0x45, 0x88, 0x45, 0xd8, 0x0b, 0x10, 0x80, 0x4c};
	static const struct want w[] = {{0, 2},	 {1, 3},  {2, 3},  {3, 4},  {19, 4},
					{20, 5}, {24, 5}, {25, 6}, {30, 6}, {31, 8},
					{36, 8}, {37, 9}, {38, 9}, {39, -1}};

	CHECK_TABLE(PY_LINES_LOCATIONS, t, w);
}

static void test_locations_313(void)
{
	static const uint8_t t[] = {
	    0x80, 0x00, 0xd8, 0x0c, 0x0d, 0x80, 0x45, 0xdc, 0x0d, 0x12, 0x90, 0x31, 0x8e,
	    0x58, 0x88, 0x01, 0xd8, 0x0b, 0x0c, 0x88, 0x71, 0x8f, 0x35, 0xd8, 0x0c, 0x11,
	    0x89, 0x4a, 0x8a, 0x45, 0xe0, 0x0c, 0x11, 0x90, 0x51, 0x89, 0x4a, 0x8a, 0x45,
	    0xf1, 0x09, 0x00, 0x0e, 0x16, 0xf0, 0x0a, 0x00, 0x0c, 0x11, 0x80, 0x4c};
	/* 40 and 41 go back to line 4: the loop's END_FOR, a negative delta. */
	static const struct want w[] = {{0, 2},	 {1, 3},  {3, 4},  {16, 4}, {17, 5},
					{26, 5}, {27, 6}, {32, 6}, {33, 8}, {39, 8},
					{40, 4}, {41, 4}, {42, 9}, {43, 9}};

	CHECK_TABLE(PY_LINES_LOCATIONS, t, w);
}

/* A table cut short or not at an entry gives no line, never a read past its end. */
static void test_bad_tables(void)
{
	static const uint8_t cut[] = {0xf0, 0x40};
	static const uint8_t not_entry[] = {0x12, 0x80};

	CHECK(py_line_of(PY_LINES_LOCATIONS, cut, sizeof(cut), 2, 0) == 2);
	CHECK(py_line_of(PY_LINES_LOCATIONS, cut, sizeof(cut), 2, 5) == -1);
	CHECK(py_line_of(PY_LINES_LOCATIONS, not_entry, sizeof(not_entry), 2, 0) == -1);
	CHECK(py_line_of(PY_LINES_310, NULL, 0, 2, 0) == -1);
	CHECK(py_line_of(PY_LINES_LNOTAB, NULL, 0, 7, 3) == 7);
	/* The first line and the deltas are the process's: no overflow, no negative line. */
	static const uint8_t down[] = {0x02, 0xdd}; /* 3.10: 2 bytes, line - 35 */
	CHECK(py_line_of(PY_LINES_310, down, sizeof(down), -2147483646, 0) == -1);
	CHECK(py_line_of(PY_LINES_310, down, sizeof(down), 40, 0) == 5);
	static const uint8_t up[] = {0xe8, 0x7e, 0x01}; /* 3.11+: no columns, line + 63 */
	CHECK(py_line_of(PY_LINES_LOCATIONS, up, sizeof(up), 2147483600, 0) == -1);
	CHECK(py_line_of(PY_LINES_LNOTAB, NULL, 0, 7, 0x80000000u) == -1);
}

static void test_text(void)
{
	static const uint8_t latin1[] = {'c', 0xe9, 'z'};
	static const uint16_t ucs2[] = {0x3b1, 0x3b2};
	static const uint32_t ucs4[] = {'f', 0x1f600};
	static const uint32_t bad[] = {0x110000};
	char out[16];

	CHECK(py_text_utf8(latin1, 3, 1, out, sizeof(out)) == 4 && !strcmp(out, "c\xc3\xa9z"));
	CHECK(py_text_utf8(ucs2, 2, 2, out, sizeof(out)) == 4 && !strcmp(out, "\xce\xb1\xce\xb2"));
	CHECK(py_text_utf8(ucs4, 2, 4, out, sizeof(out)) == 5 && !strcmp(out, "f\xf0\x9f\x98\x80"));
	CHECK(py_text_utf8(bad, 1, 4, out, sizeof(out)) == -1);
	CHECK(py_text_utf8(latin1, 3, 3, out, sizeof(out)) == -1);
	/* Cut at a character boundary when the buffer is small. */
	CHECK(py_text_utf8(ucs4, 2, 4, out, 4) == 1 && !strcmp(out, "f"));
}

/* A str header as the traced process holds it: length and state word. */
static void str_head(uint8_t head[PY_STR_HEAD], int64_t len, uint32_t kind, bool compact,
		     bool ascii)
{
	uint32_t state = kind << 2 | (uint32_t)compact << 5 | (uint32_t)ascii << 6;

	memset(head, 0, PY_STR_HEAD);
	memcpy(head + 16, &len, 8);
	memcpy(head + 32, &state, 4);
}

/* The header decides how many bytes are read into a fixed buffer: whatever it says,
 * the read stays within max characters of 4 bytes. */
static void test_str_layout(void)
{
	const struct py_code_offsets o = {.ascii_size = 40, .compact_size = 56};
	uint8_t head[PY_STR_HEAD];
	unsigned int kind;
	uint64_t off;
	size_t len;

	str_head(head, 5, 1, true, true);
	CHECK(py_str_layout(head, &o, 512, &off, &kind, &len) == 0 && off == 40 && kind == 1 &&
	      len == 5);
	str_head(head, 3, 4, true, false);
	CHECK(py_str_layout(head, &o, 512, &off, &kind, &len) == 0 && off == 56 && kind == 4 &&
	      len == 3);
	str_head(head, 100000, 2, true, false);
	CHECK(py_str_layout(head, &o, 512, &off, &kind, &len) == 0 && len == 512);
	/* Kinds 3, 5, 6 and 7 do not exist; 7 * 512 bytes would overrun the reader's buffer. */
	for (uint32_t k = 0; k < 8; k++) {
		str_head(head, 512, k, true, false);
		CHECK((py_str_layout(head, &o, 512, &off, &kind, &len) == 0) ==
		      (k == 1 || k == 2 || k == 4));
	}
	str_head(head, -1, 1, true, true);
	CHECK(py_str_layout(head, &o, 512, &off, &kind, &len) == -1);
	str_head(head, 4, 1, false, true);
	CHECK(py_str_layout(head, &o, 512, &off, &kind, &len) == -1);
}

int main(void)
{
	RUN_TEST(test_lnotab_39);
	RUN_TEST(test_linetable_310);
	RUN_TEST(test_locations_311);
	RUN_TEST(test_locations_313);
	RUN_TEST(test_bad_tables);
	RUN_TEST(test_text);
	RUN_TEST(test_str_layout);
	HARNESS_EXIT();
}
