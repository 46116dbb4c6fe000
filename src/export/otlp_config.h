/* SPDX-License-Identifier: Apache-2.0 */
/* OTLP exporter settings: merges command-line flags, the standard OTEL_EXPORTER_OTLP_*
 * environment variables and the spec's defaults into one otlp_client_opts. */
#ifndef EBPROF_OTLP_CONFIG_H
#define EBPROF_OTLP_CONFIG_H

#include "export/otlp_client.h"

#define OTLP_MAX_HEADERS 32

/*
 * What the command line said. NULL, -1 or 0 means "not given", and then the environment
 * (OTEL_EXPORTER_OTLP_PROFILES_<X> first, then OTEL_EXPORTER_OTLP_<X>) and then the
 * default decide. The flags these mirror: --endpoint, --protocol, --insecure, --ca-file,
 * --compression, --timeout, --max-queue and --header K=V (repeatable).
 */
struct otlp_flags {
	const char *endpoint;	  /* like OTEL_EXPORTER_OTLP_ENDPOINT (see otlp_config.c) */
	const char *protocol;	  /* "grpc" or "http/protobuf" */
	const char *ca_file;	  /* PEM file of CAs to trust */
	const char *compression;  /* "gzip" or "none" */
	const char *timeout;	  /* per attempt: "10", "2.5s", "1m"; 0 = no limit */
	int insecure;		  /* -1 unset, 0 or 1 */
	unsigned long max_queue;  /* 0 unset */
	uint64_t max_queue_bytes; /* --queue-memory; 0 unset */
	const char *headers[OTLP_MAX_HEADERS]; /* "K=V" each */
	int n_headers;
};

/* The most exports --max-queue may hold waiting for the collector. */
#define OTLP_MAX_QUEUE_LIMIT 65536

/* Sets every field of f to "not given". */
void otlp_flags__init(struct otlp_flags *f);

/* Adds one --header value; -E2BIG (after logging) past OTLP_MAX_HEADERS. kv is borrowed. */
int otlp_flags__add_header(struct otlp_flags *f, const char *kv);

/*
 * Resolves f and envp (a NULL-terminated "NAME=value" array such as environ) into *out,
 * flags winning over the environment. Returns 0, or -EINVAL after logging one line that
 * names the flag or variable and what is wrong with it; *out is then left released.
 * Invalid values of optional environment variables that the spec says to ignore (a
 * negative timeout, a boolean that is neither true nor false) are warned about and
 * replaced by the default. The caller releases *out with otlp_client_opts__release.
 */
int otlp_config__resolve(const struct otlp_flags *f, char *const *envp,
			 struct otlp_client_opts *out);

#endif
