// SPDX-License-Identifier: Apache-2.0
/* JSON strings (util/json.h): escaped by code point, so a name of invalid UTF-8 read
 * from another process still makes a document every parser takes. */
#include <stdbool.h>

#include "util/json.h"

size_t utf8_next(const unsigned char *p, uint32_t *cp)
{
	unsigned char lo = 0x80, hi = 0xbf;
	uint32_t c = p[0];
	size_t n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		c &= 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		c &= 0x0f;
		lo = c == 0 ? 0xa0 : 0x80;   /* overlong */
		hi = c == 0xd ? 0x9f : 0xbf; /* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		c &= 0x07;
		lo = c == 0 ? 0x90 : 0x80; /* overlong */
		hi = c == 4 ? 0x8f : 0xbf; /* past U+10FFFF */
	} else {
		goto bad;
	}
	for (size_t i = 1; i < n; i++) {
		if (p[i] < lo || p[i] > hi) /* also stops at the NUL */
			goto bad;
		c = c << 6 | (p[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	*cp = c;
	return n;
bad:
	*cp = UTF8_BAD;
	return 1;
}

static bool escaped(uint32_t c, unsigned int flags)
{
	if (c < 0x20 || c == 0x7f)
		return true;
	return (flags & JSON_IN_SCRIPT) &&
	       (c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029);
}

void json_put_string(FILE *f, const char *s, unsigned int flags)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t c;
	size_t n;

	fputc('"', f);
	for (; *p; p += n) {
		n = utf8_next(p, &c);
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", (int)c);
		else if (c == UTF8_BAD)
			fputs("\\ufffd", f);
		else if (escaped(c, flags))
			fprintf(f, "\\u%04x", (unsigned int)c);
		else
			fwrite(p, 1, n, f);
	}
	fputc('"', f);
}
