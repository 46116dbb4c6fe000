/* SPDX-License-Identifier: Apache-2.0 */
/* What a collector answers an export, decoded for the transport (otlp_exchange): the gRPC
 * message frame, the ExportProfilesServiceResponse's partial_success, the google.rpc.Status
 * of an error (its message and RetryInfo delay), grpc-message's percent-encoding, a text
 * body. Bytes from the network, so every decoder here is bounded and fuzzed
 * (tests/fuzz/fuzz_otlp_response.c); no I/O. */
#ifndef EBPROF_EXPORT_OTLP_RESPONSE_H
#define EBPROF_EXPORT_OTLP_RESPONSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OTLP_MESSAGE_MAX 512
#define OTLP_GRPC_PREFIX 5 /* a gRPC message's frame: compressed flag, big-endian length */

/* What a collector said in ExportProfilesServiceResponse.partial_success. */
struct otlp_partial_success {
	bool present;	  /* partial_success with a rejected count or a message */
	int64_t rejected; /* profiles the collector dropped (0 with a message: a warning) */
	char message[OTLP_MESSAGE_MAX]; /* error_message, cut to fit; "" when none */
};

/*
 * Decodes a serialized ExportProfilesServiceResponse (an empty body is a valid, empty
 * response). Returns 0 with *ps filled, or -EBADMSG when body is not such a message.
 */
int otlp_response__partial(const void *body, size_t len, struct otlp_partial_success *ps);

/* What a google.rpc.Status said. */
struct otlp_status {
	char message[OTLP_MESSAGE_MAX]; /* Status.message, cut to fit; "" when none */
	bool retry_info;		/* a RetryInfo among its details */
	unsigned int retry_after_ms;	/* its delay, when under a day; else 0 */
};

/* Decodes a serialized google.rpc.Status. Returns 0 with *st filled, or -EBADMSG. */
int otlp_response__status(const void *body, size_t len, struct otlp_status *st);

/*
 * The one message of a gRPC response body (len bytes): the bytes after the 5-byte frame,
 * inflated when the frame says compressed and gzip is true (grpc-encoding: gzip), at
 * most max bytes. *msg points into body or, when *owned is set, at a malloc'd buffer the
 * caller frees. An empty body is an empty message. Returns 0, -EBADMSG (the frame's
 * length is not the body's), -EPROTO (compressed without gzip), or gzip__inflate's
 * errors.
 */
int otlp_response__grpc_message(const uint8_t *body, size_t len, bool gzip, size_t max,
				const uint8_t **msg, size_t *msg_len, bool *owned);

/* Decodes grpc-message's percent-encoding in place; a bad escape is left as it is. */
void otlp_response__percent_decode(char *s);

/* Copies a body that looks like text (a proxy's error page, say) into out (len bytes, at
 * most 200 characters), newlines and tabs as spaces, trailing spaces cut. Returns false,
 * out untouched, for a body with other control or non-ASCII bytes. */
bool otlp_response__text(const uint8_t *body, size_t len, char *out, size_t out_len);

#endif
