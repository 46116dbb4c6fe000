// SPDX-License-Identifier: Apache-2.0
/* Buffer-to-buffer gzip with zlib. Inflation is bounded because what it reads comes from
 * the network: a small compressed reply must not grow into unbounded memory. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "util/gzip.h"

/* windowBits 15 + 16 asks zlib for a gzip wrapper; + 32 on inflate accepts gzip or zlib. */
#define GZIP_WBITS (15 + 16)
#define AUTO_WBITS (15 + 32)

int gzip__compress(const void *in, size_t len, uint8_t **out, size_t *out_len)
{
	z_stream zs = {0};
	uLong cap;
	uint8_t *buf;
	int rc;

	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&zs, len);
	buf = malloc(cap);
	if (!buf) {
		deflateEnd(&zs);
		return -ENOMEM;
	}
	zs.next_in = (Bytef *)in;
	zs.avail_in = len;
	zs.next_out = buf;
	zs.avail_out = cap;
	/* deflateBound guarantees one Z_FINISH call completes the stream. */
	rc = deflate(&zs, Z_FINISH);
	deflateEnd(&zs);
	if (rc != Z_STREAM_END) {
		free(buf);
		return -EIO;
	}
	*out = buf;
	*out_len = zs.total_out;
	return 0;
}

/* Doubles buf (capped at max + 1, so going past max is seen). */
static int grow(uint8_t **buf, size_t *cap, size_t max)
{
	size_t n = *cap * 2 > max + 1 ? max + 1 : *cap * 2;
	uint8_t *p = realloc(*buf, n);

	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = n;
	return 0;
}

int gzip__inflate(const void *in, size_t len, size_t max_out, uint8_t **out, size_t *out_len)
{
	z_stream zs = {0};
	size_t cap = 4096;
	uint8_t *buf = malloc(cap);
	int rc = Z_OK, err = 0;

	if (!buf || inflateInit2(&zs, AUTO_WBITS) != Z_OK) {
		free(buf);
		return -ENOMEM;
	}
	zs.next_in = (Bytef *)in;
	zs.avail_in = len;
	while (rc != Z_STREAM_END && !err) {
		if (zs.total_out == cap) {
			err = cap > max_out ? -EFBIG : grow(&buf, &cap, max_out);
			continue;
		}
		zs.next_out = buf + zs.total_out;
		zs.avail_out = cap - zs.total_out;
		rc = inflate(&zs, Z_NO_FLUSH);
		if (rc != Z_OK && rc != Z_STREAM_END)
			err = rc == Z_MEM_ERROR ? -ENOMEM : -EBADMSG;
		else if (rc == Z_OK && !zs.avail_in && zs.avail_out)
			err = -EBADMSG; /* input ended before the stream did */
	}
	if (!err && zs.total_out > max_out)
		err = -EFBIG;
	inflateEnd(&zs);
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	*out_len = zs.total_out;
	return 0;
}
