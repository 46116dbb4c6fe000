/* SPDX-License-Identifier: Apache-2.0 */
/* One OTLP request/response exchange over libcurl, for the sender thread of otlp_client:
 * gRPC framing and status, OTLP/HTTP status codes, and what the collector said. */
#ifndef EBPROF_OTLP_EXCHANGE_H
#define EBPROF_OTLP_EXCHANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/otlp_client.h"

enum otlp_verdict {
	OTLP_ACCEPTED, /* 200 / grpc-status 0: done, partial success or not */
	OTLP_RETRY,    /* transient: connection failure, 429/502/503/504, UNAVAILABLE, ... */
	OTLP_REJECTED, /* permanent: must not be sent again */
};

struct otlp_result {
	enum otlp_verdict verdict;
	unsigned retry_after_ms; /* delay the server asked for (Retry-After, RetryInfo), or 0 */
	bool partial;		 /* the answer carried partial_success */
	/* The attempt timed out after the request's body went out: the collector may have
	 * taken it, and sending it again may store it twice. */
	bool maybe_taken;
	int64_t rejected;  /* partial_success.rejected_profiles */
	char what[96];	   /* "HTTP 503", "grpc-status 14 (UNAVAILABLE)", "connect: ..." */
	char message[512]; /* the server's own message, or libcurl's error; may be "" */
};

struct otlp_exchange;

/*
 * A connection to the collector (a libcurl handle; connections are made on demand and
 * kept alive between requests). opts is borrowed and must outlive the exchange.
 * abort_at points at a CLOCK_MONOTONIC time in ns, read atomically, past which a transfer
 * in progress is abandoned (the client's close deadline). Returns NULL on ENOMEM.
 */
struct otlp_exchange *otlp_exchange__new(const struct otlp_client_opts *opts,
					 const uint64_t *abort_at);
void otlp_exchange__free(struct otlp_exchange *x);

/*
 * Puts a serialized request into its wire form: gzip'd when opts->gzip, and for gRPC
 * behind the 5-byte message prefix (compressed flag, big-endian length). *wire is
 * malloc'd. Returns 0, -ENOMEM or -EIO.
 */
int otlp_exchange__frame(const struct otlp_client_opts *opts, const void *msg, size_t len,
			 uint8_t **wire, size_t *wire_len);

/* Sends one wire-form request, abandoned after deadline_ms (0: no limit), and classifies
 * the answer into *r. After a failure at the connection level the next call starts a new
 * connection. */
void otlp_exchange__send(struct otlp_exchange *x, const uint8_t *wire, size_t wire_len,
			 unsigned deadline_ms, struct otlp_result *r);

#endif
