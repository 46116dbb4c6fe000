// SPDX-License-Identifier: Apache-2.0
/* Line tables and str text of CPython objects. The line table encodings are the ones
 * CPython documents for each version (Objects/lnotab_notes.txt, Objects/locations.md):
 * 3.9 co_lnotab, 3.10 co_linetable, 3.11+ the location table. */
#include <limits.h>
#include <string.h>

#include "interp/python/python_lines.h"

/* The first line and the deltas come from the traced process: lines run in 64 bits
 * (64 KiB of deltas cannot overflow them) and one that is no line number is none. */
static int line_or_none(int64_t line)
{
	return line < 0 || line > INT_MAX ? -1 : (int)line;
}

/* 3.9: (bytecode offset increment, signed line increment) pairs; an instruction takes
 * the line reached before the first pair whose offset passes it. */
static int line_lnotab(const uint8_t *t, size_t n, int64_t line, uint32_t off)
{
	uint32_t addr = 0;

	for (size_t i = 0; i + 1 < n; i += 2) {
		addr += t[i];
		if (addr > off)
			break;
		line += (int8_t)t[i + 1];
	}
	return line_or_none(line);
}

/* 3.10: (range length in bytes, signed line delta) pairs, each range in order; a delta
 * of -128 marks a range without a line, the running line unchanged. */
static int line_310(const uint8_t *t, size_t n, int64_t line, uint32_t off)
{
	uint32_t end = 0;

	for (size_t i = 0; i + 1 < n; i += 2) {
		int8_t delta = (int8_t)t[i + 1];
		int here = -1;

		end += t[i];
		if (delta != -128) {
			line += delta;
			here = line_or_none(line);
		}
		if (off < end)
			return here;
	}
	return -1;
}

/* Varints of the location table: 6 bits a byte, least significant first, bit 6 set on
 * every byte but the last. */
static uint32_t varint(const uint8_t *t, size_t n, size_t *i)
{
	uint32_t v = 0;
	unsigned int shift = 0;

	while (*i < n) {
		uint8_t b = t[(*i)++];

		v |= (uint32_t)(b & 63) << shift;
		shift += 6;
		if (!(b & 64) || shift > 30)
			break;
	}
	return v;
}

static int64_t svarint(const uint8_t *t, size_t n, size_t *i)
{
	uint32_t v = varint(t, n, i);

	return v & 1 ? -(int64_t)(v >> 1) : (int64_t)(v >> 1);
}

/* 3.11+: entries that open with a byte 1CCCCLLL (code C, L + 1 code units). Code 15
 * has no location; 14 (long form) and 13 (no columns) carry a signed line delta; 10 to
 * 12 mean a delta of C - 10; the short forms 0 to 9 keep the line. */
static int line_locations(const uint8_t *t, size_t n, int64_t line, uint32_t lasti)
{
	uint32_t end = 0;
	size_t i = 0;

	while (i < n) {
		uint8_t head = t[i++];
		unsigned int code = (head >> 3) & 15;
		int none = code == 15;

		if (!(head & 0x80))
			return -1; /* not at an entry: a table we misread */
		end += (head & 7) + 1;
		if (code == 14 || code == 13)
			line += svarint(t, n, &i);
		else if (code >= 10 && code <= 12)
			line += code - 10;
		if (lasti < end)
			return none ? -1 : line_or_none(line);
		while (i < n && !(t[i] & 0x80))
			i++;
	}
	return -1;
}

int py_line_of(enum py_line_format fmt, const uint8_t *t, size_t n, int first, uint32_t lasti)
{
	if (lasti > UINT32_MAX / 2) /* past any table: a line table is at most 64 KiB read */
		return -1;
	switch (fmt) {
	case PY_LINES_LNOTAB:
		return line_lnotab(t, n, first, lasti * 2);
	case PY_LINES_310:
		return line_310(t, n, first, lasti * 2);
	case PY_LINES_LOCATIONS:
		return line_locations(t, n, first, lasti);
	}
	return -1;
}

static size_t utf8_len(uint32_t c)
{
	return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

static void put_utf8(char *o, uint32_t c)
{
	if (c < 0x80) {
		o[0] = (char)c;
	} else if (c < 0x800) {
		o[0] = (char)(0xc0 | c >> 6);
		o[1] = (char)(0x80 | (c & 63));
	} else if (c < 0x10000) {
		o[0] = (char)(0xe0 | c >> 12);
		o[1] = (char)(0x80 | ((c >> 6) & 63));
		o[2] = (char)(0x80 | (c & 63));
	} else {
		o[0] = (char)(0xf0 | c >> 18);
		o[1] = (char)(0x80 | ((c >> 12) & 63));
		o[2] = (char)(0x80 | ((c >> 6) & 63));
		o[3] = (char)(0x80 | (c & 63));
	}
}

int py_str_layout(const uint8_t head[PY_STR_HEAD], const struct py_code_offsets *o, size_t max,
		  uint64_t *off, unsigned int *kind, size_t *len)
{
	int64_t n;
	uint32_t state, k;

	memcpy(&n, head + 16, 8);     /* PyASCIIObject.length */
	memcpy(&state, head + 32, 4); /* interned:2 kind:3 compact:1 ascii:1 ... */
	k = (state >> 2) & 7;
	/* Not compact: a legacy string, never a code object's name or file. */
	if (n < 0 || !((state >> 5) & 1) || (k != 1 && k != 2 && k != 4))
		return -1;
	*off = (state >> 6) & 1 ? o->ascii_size : o->compact_size;
	*kind = k;
	*len = (uint64_t)n < max ? (size_t)n : max;
	return 0;
}

int py_text_utf8(const void *data, size_t len, unsigned int kind, char *out, size_t cap)
{
	const uint8_t *p = data;
	size_t w = 0;

	if ((kind != 1 && kind != 2 && kind != 4) || !cap)
		return -1;
	for (size_t i = 0; i < len; i++) {
		uint32_t c;

		if (kind == 1) {
			c = p[i];
		} else if (kind == 2) {
			uint16_t u;

			memcpy(&u, p + 2 * i, 2);
			c = u;
		} else {
			memcpy(&c, p + 4 * i, 4);
		}
		if (c > 0x10ffff)
			return -1;
		if (w + utf8_len(c) >= cap)
			break;
		put_utf8(out + w, c);
		w += utf8_len(c);
	}
	out[w] = '\0';
	return (int)w;
}
