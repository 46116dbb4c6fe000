/* SPDX-License-Identifier: Apache-2.0 */
/* In-memory gzip (zlib) for messages sent over the network: one call to compress a
 * buffer, one to inflate a reply with a hard size limit. */
#ifndef EBPROF_GZIP_H
#define EBPROF_GZIP_H

#include <stddef.h>
#include <stdint.h>

/*
 * Compresses len bytes of in into a gzip member. On success *out is malloc'd (the caller
 * frees it) and *out_len set. Returns 0, -ENOMEM or -EIO.
 */
int gzip__compress(const void *in, size_t len, uint8_t **out, size_t *out_len);

/*
 * Inflates a gzip member (or a zlib stream) of len bytes. Fails with -EFBIG rather than
 * produce more than max_out bytes, -EBADMSG on corrupt or truncated input. On success
 * *out is malloc'd (at least 1 byte, even for empty output).
 */
int gzip__inflate(const void *in, size_t len, size_t max_out, uint8_t **out, size_t *out_len);

#endif
