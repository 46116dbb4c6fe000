// SPDX-License-Identifier: Apache-2.0
/* One OTLP exchange with libcurl. gRPC: HTTP/2 (h2c by prior knowledge, or TLS with
 * ALPN), a length-prefixed message, grpc-status and grpc-message read from the trailers
 * (or the headers of a trailers-only answer). OTLP/HTTP: a POST whose status code says
 * whether to retry (429, 502, 503, 504, honouring Retry-After) and whose error body is a
 * google.rpc.Status with the server's message. Both read partial_success from the
 * ExportProfilesServiceResponse. */
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "export/curl_lib.h"

#include "export/otlp_exchange.h"
#include "export/otlp_response.h"
#include "util/clock.h"
#include "util/gzip.h"
#include "util/log.h"

/* libcurl's table: loaded by otlp_client__new before any exchange exists. */
static inline const struct curl_lib *cl(void)
{
	return curl_lib__get();
}

#define GRPC_PREFIX OTLP_GRPC_PREFIX
#define MAX_DETAILS_BIN 8192

/* What the collector sent back; reset before every attempt. */
struct response {
	uint8_t *body;
	size_t len, cap;
	bool too_large;
	int grpc_status; /* -1: none seen */
	char grpc_message[512];
	char grpc_encoding[16];
	char details_bin[MAX_DETAILS_BIN]; /* grpc-status-details-bin, base64 */
	char content_type[64];
};

struct otlp_exchange {
	const struct otlp_client_opts *opts;
	const uint64_t *abort_at;
	CURL *h; /* NULL after a connection failure: the next attempt starts afresh */
	struct curl_slist *hdrs;
	unsigned deadline_ms; /* the current attempt's, in hdrs' grpc-timeout and the handle */
	struct response resp;
	char errbuf[CURL_ERROR_SIZE];
};

/* The gRPC names of the codes, for messages. */
static const char *grpc_code_name(int code)
{
	static const char *const names[] = {
	    "OK",
	    "CANCELLED",
	    "UNKNOWN",
	    "INVALID_ARGUMENT",
	    "DEADLINE_EXCEEDED",
	    "NOT_FOUND",
	    "ALREADY_EXISTS",
	    "PERMISSION_DENIED",
	    "RESOURCE_EXHAUSTED",
	    "FAILED_PRECONDITION",
	    "ABORTED",
	    "OUT_OF_RANGE",
	    "UNIMPLEMENTED",
	    "INTERNAL",
	    "UNAVAILABLE",
	    "DATA_LOSS",
	    "UNAUTHENTICATED",
	};

	return code >= 0 && code < (int)(sizeof(names) / sizeof(names[0])) ? names[code] : "?";
}

int otlp_exchange__frame(const struct otlp_client_opts *opts, const void *msg, size_t len,
			 uint8_t **wire, size_t *wire_len)
{
	size_t hdr = opts->protocol == OTLP_PROTO_GRPC ? GRPC_PREFIX : 0, n = len;
	uint8_t *z = NULL, *out;
	const void *payload = msg;
	int err;

	if (opts->gzip) {
		err = gzip__compress(msg, len, &z, &n);
		if (err)
			return err;
		payload = z;
	}
	out = malloc(hdr + n);
	if (!out) {
		free(z);
		return -ENOMEM;
	}
	if (hdr) {
		out[0] = opts->gzip; /* the Compressed-Flag */
		out[1] = n >> 24;
		out[2] = n >> 16;
		out[3] = n >> 8;
		out[4] = n;
	}
	memcpy(out + hdr, payload, n);
	free(z);
	*wire = out;
	*wire_len = hdr + n;
	return 0;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct response *resp = arg;
	size_t n = size * nmemb, cap;
	uint8_t *p;

	if (resp->len + n > OTLP_MAX_RESPONSE_BYTES + GRPC_PREFIX) {
		resp->too_large = true;
		return 0; /* makes libcurl fail the transfer with CURLE_WRITE_ERROR */
	}
	if (resp->len + n > resp->cap) {
		cap = resp->cap ? resp->cap : 4096;
		while (cap < resp->len + n)
			cap *= 2;
		p = realloc(resp->body, cap);
		if (!p)
			return 0;
		resp->body = p;
		resp->cap = cap;
	}
	memcpy(resp->body + resp->len, data, n);
	resp->len += n;
	return n;
}

static void copy_value(char *dst, size_t size, const char *v, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, v, n);
	dst[n] = 0;
}

/* Headers and, for HTTP/2, trailers arrive here one line at a time. */
static size_t on_header(char *line, size_t size, size_t nmemb, void *arg)
{
	struct response *resp = arg;
	size_t n = size * nmemb, klen;
	char *colon = memchr(line, ':', n), *v, *end = line + n;
	char num[16];

	if (n >= 5 && !strncmp(line, "HTTP/", 5)) {
		resp->grpc_status = -1; /* a new response (after a 100 Continue, say) */
		return n;
	}
	if (!colon)
		return n;
	klen = colon - line;
	for (v = colon + 1; v < end && (*v == ' ' || *v == '\t'); v++)
		;
	while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
		end--;
	if (klen == 11 && !strncasecmp(line, "grpc-status", klen)) {
		copy_value(num, sizeof(num), v, end - v);
		resp->grpc_status = atoi(num);
	} else if (klen == 12 && !strncasecmp(line, "grpc-message", klen)) {
		copy_value(resp->grpc_message, sizeof(resp->grpc_message), v, end - v);
	} else if (klen == 13 && !strncasecmp(line, "grpc-encoding", klen)) {
		copy_value(resp->grpc_encoding, sizeof(resp->grpc_encoding), v, end - v);
	} else if (klen == 23 && !strncasecmp(line, "grpc-status-details-bin", klen)) {
		copy_value(resp->details_bin, sizeof(resp->details_bin), v, end - v);
	} else if (klen == 12 && !strncasecmp(line, "content-type", klen)) {
		copy_value(resp->content_type, sizeof(resp->content_type), v, end - v);
	}
	return n;
}

/* Abandons a transfer once the client's close deadline has passed. */
static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	struct otlp_exchange *x = arg;

	return now_ns() >= __atomic_load_n(x->abort_at, __ATOMIC_RELAXED);
}

static int add_header(struct curl_slist **list, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int add_header(struct curl_slist **list, const char *fmt, ...)
{
	struct curl_slist *grown;
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	grown = cl()->slist_append(*list, line);
	if (!grown)
		return -ENOMEM;
	*list = grown;
	return 0;
}

/* The protocol's headers, then the user's. "Expect:" stops libcurl waiting for a
 * 100 Continue on large HTTP/1.1 bodies; "Accept:" drops its default "*\/\*". The
 * Profiles development version (gRPC metadata, or an HTTP header: the same name, case
 * aside) tells a server which v1development schema the body uses before it decodes
 * it, so an unsupported one is refused with a clear error instead of misread. */
static int build_headers(struct otlp_exchange *x, struct curl_slist **hdrs, unsigned deadline_ms)
{
	const struct otlp_client_opts *o = x->opts;
	int err = add_header(hdrs, "Expect:");
	size_t i;

	err = err ?: add_header(hdrs, "%s: %s", OTLP_DEV_VERSION_HEADER, OTLP_DEV_VERSION);
	if (o->protocol == OTLP_PROTO_GRPC) {
		err = err ?: add_header(hdrs, "content-type: application/grpc");
		err = err ?: add_header(hdrs, "te: trailers");
		err = err ?: add_header(hdrs, "grpc-accept-encoding: identity,gzip");
		err = err ?: add_header(hdrs, "Accept:");
		if (o->gzip)
			err = err ?: add_header(hdrs, "grpc-encoding: gzip");
		/* grpc-timeout takes at most 8 digits: milliseconds up to a day fit. */
		if (deadline_ms)
			err = err ?: add_header(hdrs, "grpc-timeout: %um", deadline_ms);
	} else {
		err = err ?: add_header(hdrs, "Content-Type: application/x-protobuf");
		if (o->gzip)
			err = err ?: add_header(hdrs, "Content-Encoding: gzip");
	}
	for (i = 0; i < o->n_headers && !err; i++)
		err = add_header(hdrs, "%s", o->headers[i]);
	return err;
}

static bool has_scheme_https(const char *url)
{
	return !strncasecmp(url, "https://", 8);
}

/* libcurl before 8.0 (Debian 12 has 7.88.1) fails every request that reuses an h2c
 * connection made by prior knowledge with "Error in the HTTP2 framing layer" (curl issue
 * 10634, fixed in 8.0). There, plaintext gRPC opens a connection per request. */
static bool curl_before_8(void)
{
	return cl()->version_info(CURLVERSION_NOW)->version_num < 0x080000;
}

static CURL *open_handle(struct otlp_exchange *x)
{
	const struct otlp_client_opts *o = x->opts;
	CURL *h = cl()->easy_init();

	if (!h)
		return NULL;
	cl()->easy_setopt(h, CURLOPT_URL, o->url);
	cl()->easy_setopt(h, CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM for DNS timeouts */
	cl()->easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	cl()->easy_setopt(h, CURLOPT_ERRORBUFFER, x->errbuf);
	cl()->easy_setopt(h, CURLOPT_HTTPHEADER, x->hdrs);
	cl()->easy_setopt(h, CURLOPT_USERAGENT, o->user_agent ? o->user_agent : "ebprof");
	cl()->easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	cl()->easy_setopt(h, CURLOPT_WRITEDATA, &x->resp);
	cl()->easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	cl()->easy_setopt(h, CURLOPT_HEADERDATA, &x->resp);
	cl()->easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	cl()->easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
	cl()->easy_setopt(h, CURLOPT_XFERINFODATA, x);
	cl()->easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)x->deadline_ms);
	cl()->easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	cl()->easy_setopt(h, CURLOPT_VERBOSE, (long)log_verbose); /* the wire, with -v */
	if (o->ca_file)
		cl()->easy_setopt(h, CURLOPT_CAINFO, o->ca_file);
	if (o->protocol == OTLP_PROTO_GRPC) {
		/* h2c without an Upgrade round trip; over TLS, ALPN is still used and the
		 * version is checked after the call. */
		cl()->easy_setopt(h, CURLOPT_HTTP_VERSION,
				  (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
		if (!has_scheme_https(o->url) && curl_before_8())
			cl()->easy_setopt(h, CURLOPT_FORBID_REUSE, 1L);
	} else {
		/* HTTP/2 where TLS offers it, else HTTP/1.1; gzip'd answers are inflated. */
		cl()->easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
		cl()->easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "gzip");
	}
	return h;
}

struct otlp_exchange *otlp_exchange__new(const struct otlp_client_opts *opts,
					 const uint64_t *abort_at)
{
	struct otlp_exchange *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->opts = opts;
	x->abort_at = abort_at;
	x->deadline_ms = opts->timeout_ms;
	if (build_headers(x, &x->hdrs, x->deadline_ms)) {
		otlp_exchange__free(x);
		return NULL;
	}
	return x;
}

void otlp_exchange__free(struct otlp_exchange *x)
{
	if (!x)
		return;
	if (x->h)
		cl()->easy_cleanup(x->h);
	cl()->slist_free_all(x->hdrs);
	free(x->resp.body);
	free(x);
}

static void set_what(struct otlp_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void set_what(struct otlp_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->what, sizeof(r->what), fmt, ap);
	va_end(ap);
}

/* Copies a body that looks like text (a proxy's error page, say) as the message. */
static void message_from_text(struct otlp_result *r, const uint8_t *b, size_t len)
{
	otlp_response__text(b, len, r->message, sizeof(r->message));
}

/* Reads a google.rpc.Status: its message (unless one is already known) and a RetryInfo
 * delay. Returns true when it carried a RetryInfo. */
static bool read_status(const uint8_t *b, size_t len, struct otlp_result *r)
{
	struct otlp_status st;

	if (otlp_response__status(b, len, &st))
		return false;
	if (!r->message[0])
		snprintf(r->message, sizeof(r->message), "%s", st.message);
	if (st.retry_after_ms)
		r->retry_after_ms = st.retry_after_ms;
	return st.retry_info;
}

/* grpc-status-details-bin is base64, usually without padding; OpenSSL wants padding. */
static bool read_details_bin(const char *b64, struct otlp_result *r)
{
	size_t n = strlen(b64), padded = (n + 3) / 4 * 4, pad = padded - n;
	unsigned char in[MAX_DETAILS_BIN + 4], out[MAX_DETAILS_BIN];
	int len;

	if (!n || pad == 3)
		return false;
	memcpy(in, b64, n);
	memset(in + n, '=', pad);
	len = cl()->decode_base64(out, in, padded);
	if (len < (int)pad)
		return false;
	return read_status(out, len - pad, r);
}

/* partial_success of an accepted ExportProfilesServiceResponse. */
static void read_partial(const uint8_t *b, size_t len, struct otlp_result *r)
{
	struct otlp_partial_success ps;

	if (otlp_response__partial(b, len, &ps)) {
		snprintf(r->message, sizeof(r->message),
			 "accepted, but the response is not an ExportProfilesServiceResponse");
		return;
	}
	r->partial = ps.present;
	r->rejected = ps.rejected;
	snprintf(r->message, sizeof(r->message), "%s", ps.message);
}

/* The one response message of a successful call: prefix, maybe gzip'd, then the
 * ExportProfilesServiceResponse. An accepted call stays accepted if it is malformed. */
static void grpc_read_message(struct otlp_exchange *x, struct otlp_result *r)
{
	bool gzip = !strcasecmp(x->resp.grpc_encoding, "gzip"), owned;
	const uint8_t *msg;
	size_t len;
	int err;

	r->verdict = OTLP_ACCEPTED;
	err = otlp_response__grpc_message(x->resp.body, x->resp.len, gzip, OTLP_MAX_RESPONSE_BYTES,
					  &msg, &len, &owned);
	if (err == -EBADMSG) {
		snprintf(r->message, sizeof(r->message), "accepted, but the response is malformed");
		return;
	}
	if (err) {
		snprintf(r->message, sizeof(r->message),
			 "accepted, but the compressed response could not be read");
		return;
	}
	if (x->resp.len)
		read_partial(msg, len, r);
	if (owned)
		free((void *)msg);
}

/* The gRPC status a response without one stands for (gRPC's HTTP-to-status mapping). */
static int grpc_from_http(long code)
{
	switch (code) {
	case 400:
		return 13; /* INTERNAL */
	case 401:
		return 16; /* UNAUTHENTICATED */
	case 403:
		return 7; /* PERMISSION_DENIED */
	case 404:
		return 12; /* UNIMPLEMENTED */
	case 429:
	case 502:
	case 503:
	case 504:
		return 14; /* UNAVAILABLE */
	default:
		return 2; /* UNKNOWN */
	}
}

/* The OTLP specification's table: CANCELLED, DEADLINE_EXCEEDED, ABORTED, OUT_OF_RANGE,
 * UNAVAILABLE and DATA_LOSS are transient; RESOURCE_EXHAUSTED only with a RetryInfo. */
static bool grpc_retryable(int status, bool retry_info)
{
	return status == 1 || status == 4 || status == 10 || status == 11 || status == 14 ||
	       status == 15 || (status == 8 && retry_info);
}

static void classify_grpc(struct otlp_exchange *x, struct otlp_result *r)
{
	struct response *resp = &x->resp;
	long code = 0, version = 0;
	int status = resp->grpc_status;
	bool retry_info;

	cl()->easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
	cl()->easy_getinfo(x->h, CURLINFO_HTTP_VERSION, &version);
	if (version != CURL_HTTP_VERSION_2_0) {
		r->verdict = OTLP_REJECTED;
		set_what(r, "HTTP %ld over HTTP/1", code);
		snprintf(r->message, sizeof(r->message),
			 "the server does not speak HTTP/2, which gRPC needs (an OTLP/HTTP port?)");
		return;
	}
	if (status < 0 && code == 200) {
		r->verdict = OTLP_RETRY;
		set_what(r, "no grpc-status");
		snprintf(r->message, sizeof(r->message), "the call ended without a gRPC status");
		return;
	}
	if (status == 0) {
		grpc_read_message(x, r);
		return;
	}
	if (status < 0) {
		status = grpc_from_http(code);
		message_from_text(r, resp->body, resp->len);
	}
	otlp_response__percent_decode(resp->grpc_message);
	if (resp->grpc_message[0])
		snprintf(r->message, sizeof(r->message), "%s", resp->grpc_message);
	retry_info = read_details_bin(resp->details_bin, r);
	set_what(r, "grpc-status %d (%s)%s", status, grpc_code_name(status),
		 resp->grpc_status < 0 ? " from the HTTP status" : "");
	r->verdict = grpc_retryable(status, retry_info) ? OTLP_RETRY : OTLP_REJECTED;
}

static bool http_retryable(long code)
{
	return code == 429 || code == 502 || code == 503 || code == 504;
}

static void classify_http(struct otlp_exchange *x, struct otlp_result *r)
{
	struct response *resp = &x->resp;
	curl_off_t after = -1;
	long code = 0;

	cl()->easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &code);
	set_what(r, "HTTP %ld", code);
	if (code >= 200 && code < 300) {
		r->verdict = OTLP_ACCEPTED;
		read_partial(resp->body, resp->len, r);
		return;
	}
	r->verdict = http_retryable(code) ? OTLP_RETRY : OTLP_REJECTED;
	/* libcurl reads both forms of Retry-After (seconds, or an HTTP date). */
	if (r->verdict == OTLP_RETRY && !cl()->easy_getinfo(x->h, CURLINFO_RETRY_AFTER, &after) &&
	    after > 0 && after < 86400)
		r->retry_after_ms = after * 1000;
	if (!strncasecmp(resp->content_type, "application/x-protobuf", 22))
		read_status(resp->body, resp->len, r);
	if (!r->message[0])
		message_from_text(r, resp->body, resp->len);
}

static void reset_response(struct response *resp)
{
	resp->len = 0;
	resp->too_large = false;
	resp->grpc_status = -1;
	resp->grpc_message[0] = 0;
	resp->grpc_encoding[0] = 0;
	resp->details_bin[0] = 0;
	resp->content_type[0] = 0;
}

/* A transfer that did not complete: retried on a new connection, except a response over
 * the size limit, which the specification makes permanent. */
static void transfer_failed(struct otlp_exchange *x, CURLcode rc, struct otlp_result *r)
{
	r->verdict = x->resp.too_large ? OTLP_REJECTED : OTLP_RETRY;
	if (x->resp.too_large) {
		set_what(r, "response too large");
		snprintf(r->message, sizeof(r->message), "the answer passed %u bytes",
			 OTLP_MAX_RESPONSE_BYTES);
	} else if (rc == CURLE_ABORTED_BY_CALLBACK) {
		set_what(r, "stopped");
		snprintf(r->message, sizeof(r->message), "the close deadline passed");
	} else {
		set_what(r, "%s", cl()->easy_strerror(rc));
		snprintf(r->message, sizeof(r->message), "%s", x->errbuf);
	}
	cl()->easy_cleanup(x->h);
	x->h = NULL;
}

/* The attempt's deadline, in the handle and (for gRPC) the headers; a list that cannot be
 * rebuilt leaves the previous deadline in the header only. */
static void set_deadline(struct otlp_exchange *x, unsigned deadline_ms)
{
	struct curl_slist *hdrs = NULL;

	if (deadline_ms == x->deadline_ms)
		return;
	if (build_headers(x, &hdrs, deadline_ms)) {
		cl()->slist_free_all(hdrs);
	} else {
		cl()->slist_free_all(x->hdrs);
		x->hdrs = hdrs;
		if (x->h)
			cl()->easy_setopt(x->h, CURLOPT_HTTPHEADER, x->hdrs);
	}
	x->deadline_ms = deadline_ms;
	if (x->h)
		cl()->easy_setopt(x->h, CURLOPT_TIMEOUT_MS, (long)deadline_ms);
}

void otlp_exchange__send(struct otlp_exchange *x, const uint8_t *wire, size_t wire_len,
			 unsigned deadline_ms, struct otlp_result *r)
{
	CURLcode rc;

	memset(r, 0, sizeof(*r));
	set_deadline(x, deadline_ms);
	if (!x->h)
		x->h = open_handle(x);
	if (!x->h) {
		r->verdict = OTLP_RETRY;
		set_what(r, "out of memory");
		return;
	}
	reset_response(&x->resp);
	x->errbuf[0] = 0;
	cl()->easy_setopt(x->h, CURLOPT_POSTFIELDS, wire);
	cl()->easy_setopt(x->h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)wire_len);
	rc = cl()->easy_perform(x->h);
	if (rc != CURLE_OK) {
		curl_off_t up = 0;

		r->maybe_taken = rc == CURLE_OPERATION_TIMEDOUT &&
				 !cl()->easy_getinfo(x->h, CURLINFO_SIZE_UPLOAD_T, &up) && up > 0;
		transfer_failed(x, rc, r);
	} else if (x->opts->protocol == OTLP_PROTO_GRPC)
		classify_grpc(x, r);
	else
		classify_http(x, r);
}
