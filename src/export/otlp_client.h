/* SPDX-License-Identifier: Apache-2.0 */
/* OTLP transport: sends serialized ExportProfilesServiceRequest messages to a collector
 * over gRPC (HTTP/2, h2c or TLS) or OTLP/HTTP, from a sender thread with a bounded queue,
 * retries with backoff, and counters, so a slow or dead collector never stalls sampling. */
#ifndef EBPROF_OTLP_CLIENT_H
#define EBPROF_OTLP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OTLP_GRPC_PATH \
	"/opentelemetry.proto.collector.profiles.v1development.ProfilesService/Export"
#define OTLP_HTTP_PATH "/v1development/profiles"
/* The OTLP Profiles development version of the schema in proto/ (OTLP 1.10+ field
 * numbers), sent with every request; a server reads a missing one as "1" too. */
#define OTLP_DEV_VERSION_HEADER "otlp-profiles-development-version"
#define OTLP_DEV_VERSION "1"
#define OTLP_DEFAULT_MAX_QUEUE 1024
/* Bytes of requests waiting for the collector at most: minutes of a busy 2-CPU host's
 * profiles at 20 Hz (a request of 5 s there is 20-200 KiB). */
#define OTLP_DEFAULT_QUEUE_BYTES (64u << 20)
#define OTLP_DEFAULT_TIMEOUT_MS 10000
/* The spec's recommended limits: requests over 64 MiB (before compression) are not sent,
 * responses over 4 MiB (after decompression) are an error. */
#define OTLP_MAX_REQUEST_BYTES (64u << 20)
#define OTLP_MAX_RESPONSE_BYTES (4u << 20)

enum otlp_protocol {
	OTLP_PROTO_GRPC,
	OTLP_PROTO_HTTP, /* http/protobuf */
};

/*
 * Resolved settings (see otlp_config.h for how flags and environment variables become
 * these). Strings and the header array are owned by the struct when it comes from
 * otlp_config__resolve and released by otlp_client_opts__release; otlp_client__new copies
 * what it keeps, so the caller may release them right after.
 */
struct otlp_client_opts {
	enum otlp_protocol protocol;
	char *url;	     /* full URL of the call: scheme://host:port/path */
	char *ca_file;	     /* PEM bundle to trust instead of the system CAs, or NULL */
	bool gzip;	     /* compress requests (gRPC message compression or Content-Encoding) */
	unsigned timeout_ms; /* the first attempt's deadline (otlp_deadline.h); 0 = no limit */
	unsigned max_queue;  /* requests waiting to be sent; the oldest is dropped past it */
	uint64_t max_queue_bytes; /* and their serialized bytes (0: OTLP_DEFAULT_QUEUE_BYTES) */
	char **headers;		  /* "name: value" lines added to every request */
	size_t n_headers;
	const char *user_agent; /* NULL: "ebprof" */
	/* Retry schedule; 0 picks the defaults (1 s, 30 s, 5 min). */
	unsigned backoff_initial_ms;
	unsigned backoff_max_ms;
	unsigned
	    retry_max_ms; /* a request still failing this long after its first try is dropped */
};

/* Counters, monotonic from otlp_client__new. */
struct otlp_client_stats {
	uint64_t submitted;	  /* requests handed to otlp_client__submit */
	uint64_t sent;		  /* requests the collector accepted (partial success included) */
	uint64_t failed_attempts; /* attempts that did not get an accepting answer */
	uint64_t dropped;	  /* requests given up, all reasons below together */
	uint64_t dropped_queue_full; /* pushed out of a full queue (the oldest waiting one) */
	uint64_t dropped_rejected;   /* non-retryable answer (bad data, 4xx, too large) */
	uint64_t dropped_expired;    /* still failing after retry_max_ms */
	uint64_t dropped_at_close;   /* still queued or in flight at the close deadline */
	uint64_t dropped_timeout;    /* timed out twice after its body went out (see below) */
	uint64_t dropped_samples;    /* the samples of the dropped requests (their meta) */
	uint64_t dropped_span_ns;    /* and the time their profiles covered */
	/* Accepted on a second attempt after one timed out once its body was sent: the
	 * collector may have stored it twice. A request is sent again after such a timeout
	 * once at most. */
	uint64_t duplicates;
	uint64_t partial_success;   /* accepted answers that carried partial_success */
	uint64_t rejected_profiles; /* sum of partial_success.rejected_profiles */
	uint64_t bytes_raw;	    /* serialized request bytes, counted once per request tried */
	uint64_t bytes_sent;	    /* the same requests as put on the wire (after gzip) */
	uint64_t queued_bytes;	    /* their serialized bytes now */
	uint32_t queued;	    /* waiting now (not counting the one in flight) */
	uint32_t queued_max;	    /* highest queued seen */
	bool in_flight;		    /* a request is being sent or waiting for its retry */
};

struct otlp_client;

/*
 * Starts the sender thread. Nothing is connected until the first request. Returns NULL
 * (after logging why) when opts are unusable or a resource could not be had.
 */
struct otlp_client *otlp_client__new(const struct otlp_client_opts *opts);

/*
 * Queues one serialized ExportProfilesServiceRequest and returns at once. Takes ownership
 * of buf (malloc'd) whatever happens. Never blocks on the network: when max_queue requests
 * are already waiting, the oldest waiting one is dropped and counted. Returns 0, -EMSGSIZE
 * for a request over OTLP_MAX_REQUEST_BYTES (dropped, counted as rejected), or -ESHUTDOWN
 * after close began.
 */
int otlp_client__submit(struct otlp_client *c, void *buf, size_t len);

/* What a request holds, for the counts of what was dropped. */
struct otlp_item_meta {
	uint64_t samples;
	uint64_t span_ns; /* the time its profiles cover */
};

/* otlp_client__submit with what the request holds. The queue is also bounded by the
 * bytes of the requests waiting (max_queue_bytes): the oldest go first. */
int otlp_client__submit_meta(struct otlp_client *c, void *buf, size_t len,
			     const struct otlp_item_meta *meta);

/* Copies the counters. */
void otlp_client__stats(struct otlp_client *c, struct otlp_client_stats *st);

/*
 * Flushes what is queued for at most deadline_ms (retries included, an attempt in flight
 * is aborted at the deadline), stops the thread and frees c. Requests not delivered by
 * then are counted in dropped_at_close; *final (if not NULL) receives the last counters.
 * Returns 0 when everything submitted was delivered or given up for its own reasons,
 * -ETIMEDOUT when the deadline cut the flush short. NULL-safe.
 */
int otlp_client__close(struct otlp_client *c, unsigned deadline_ms,
		       struct otlp_client_stats *final);

/* Releases what otlp_config__resolve allocated in o; leaves o zeroed. NULL-safe. */
void otlp_client_opts__release(struct otlp_client_opts *o);

#endif
