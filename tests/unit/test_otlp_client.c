// SPDX-License-Identifier: Apache-2.0
/* Unit test of the OTLP client's own logic, against sockets this test opens on loopback
 * (a refused port, a listener that never answers): the queue stays bounded and drops the
 * oldest, close() keeps its deadline, oversized requests are refused, and the wire form
 * (gRPC prefix, gzip) round-trips. Exchanges with real receivers are in tests/otlp. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "export/otlp_client.h"
#include "export/otlp_exchange.h"
#include "harness.h"
#include "util/gzip.h"

/* A loopback TCP socket bound to a free port; listening (accepting into the backlog
 * but never answering) when listen_too, else closed again so the port refuses. */
static int loopback_port(bool listen_too, int *fd_out)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len) || (listen_too && listen(fd, 16))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (listen_too)
		*fd_out = fd;
	else
		close(fd);
	return ntohs(a.sin_port);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *payload(size_t len)
{
	char *p = malloc(len);

	memset(p, 'x', len);
	return p;
}

static void opts_for(struct otlp_client_opts *o, char *url, enum otlp_protocol proto)
{
	memset(o, 0, sizeof(*o));
	o->protocol = proto;
	o->url = url;
	o->gzip = true;
	o->timeout_ms = 2000;
	o->max_queue = 4;
	o->backoff_initial_ms = 20;
	o->backoff_max_ms = 50;
}

/* A refused port: nothing is ever sent, the queue never holds more than max_queue, the
 * oldest go first, and every request ends up counted as sent or dropped. */
/* A client of OTLP/HTTP to a port nothing listens on, with o's settings and queue_bytes
 * (0: the default); NULL after a failed check. */
static struct otlp_client *refused_client(struct otlp_client_opts *o, unsigned max_queue,
					  uint64_t queue_bytes)
{
	static char url[128];
	int port = loopback_port(false, NULL);
	struct otlp_client *c;

	CHECK(port > 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1development/profiles", port);
	opts_for(o, url, OTLP_PROTO_HTTP);
	o->max_queue = max_queue;
	o->max_queue_bytes = queue_bytes;
	c = otlp_client__new(o);
	CHECK(c != NULL);
	return c;
}

static void test_queue_bounded_when_refused(void)
{
	struct otlp_client_opts o;
	struct otlp_client_stats st, fin;
	struct otlp_client *c = refused_client(&o, 4, 0);
	int i;

	if (!c)
		return;
	for (i = 0; i < 50; i++) {
		CHECK(otlp_client__submit(c, payload(100), 100) == 0);
		otlp_client__stats(c, &st);
		CHECK(st.queued <= o.max_queue);
	}
	otlp_client__stats(c, &st);
	CHECK(st.submitted == 50);
	CHECK(st.queued_max == o.max_queue);
	/* At most one request in flight, so at least 50 - 4 - 1 were pushed out. */
	CHECK(st.dropped_queue_full >= 45);
	CHECK(st.sent == 0);
	CHECK(otlp_client__close(c, 300, &fin) == -ETIMEDOUT);
	CHECK(fin.sent == 0 && fin.failed_attempts >= 1);
	CHECK(fin.dropped == 50);
	CHECK(fin.dropped == fin.dropped_queue_full + fin.dropped_at_close + fin.dropped_expired);
	CHECK(fin.queued == 0);
}

/* The queue's byte bound: requests of 1000 bytes under a 3500-byte bound, never more
 * than three wait whatever the count allows, and every dropped one's samples and
 * seconds are counted. */
static void test_queue_bounded_by_bytes(void)
{
	struct otlp_client_opts o;
	struct otlp_client_stats st, fin;
	struct otlp_client *c = refused_client(&o, 100, 3500);
	int i;

	if (!c)
		return;
	for (i = 0; i < 20; i++) {
		CHECK(otlp_client__submit_meta(c, payload(1000), 1000,
					       &(struct otlp_item_meta){7, 500000000}) == 0);
		otlp_client__stats(c, &st);
		CHECK(st.queued <= 3 && st.queued_bytes <= 3500);
	}
	CHECK(otlp_client__close(c, 300, &fin) == -ETIMEDOUT);
	CHECK(fin.dropped == 20 && fin.dropped_queue_full >= 16);
	CHECK(fin.dropped_samples == 20 * 7 && fin.dropped_span_ns == 10000000000ULL);
	CHECK(fin.queued == 0 && fin.queued_bytes == 0);
}

/* A collector that accepts the connection and never answers, with no per-attempt
 * timeout: only close's deadline can end the attempt, and it must. */
static void test_close_deadline_aborts_transfer(void)
{
	struct otlp_client_opts o;
	struct otlp_client_stats fin;
	struct otlp_client *c;
	char url[128];
	int fd = -1, port = loopback_port(true, &fd);
	double t0;

	CHECK(port > 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1development/profiles", port);
	opts_for(&o, url, OTLP_PROTO_HTTP);
	o.timeout_ms = 0;
	c = otlp_client__new(&o);
	CHECK(c != NULL);
	if (!c)
		return;
	CHECK(otlp_client__submit(c, payload(1000), 1000) == 0);
	CHECK(otlp_client__submit(c, payload(1000), 1000) == 0);
	usleep(200 * 1000); /* let the first attempt start */
	t0 = now_s();
	CHECK(otlp_client__close(c, 200, &fin) == -ETIMEDOUT);
	/* Bounded, not fast: without the deadline this would wait forever. */
	CHECK(now_s() - t0 < 30);
	CHECK(fin.dropped_at_close == 2 && fin.sent == 0);
	close(fd);
}

static void test_oversized_request_refused(void)
{
	struct otlp_client_opts o;
	struct otlp_client_stats fin;
	struct otlp_client *c;
	int port = loopback_port(false, NULL);
	char url[128];

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", port);
	opts_for(&o, url, OTLP_PROTO_HTTP);
	c = otlp_client__new(&o);
	CHECK(c != NULL);
	if (!c)
		return;
	/* Never touched, so the pages are never faulted in. */
	CHECK(otlp_client__submit(c, malloc(OTLP_MAX_REQUEST_BYTES + 1),
				  OTLP_MAX_REQUEST_BYTES + 1) == -EMSGSIZE);
	CHECK(otlp_client__close(c, 100, &fin) == 0);
	CHECK(fin.dropped_rejected == 1 && fin.submitted == 1 && fin.queued_max == 0);
}

static void test_bad_options(void)
{
	struct otlp_client_opts o;

	opts_for(&o, NULL, OTLP_PROTO_GRPC);
	CHECK(otlp_client__new(&o) == NULL);
	opts_for(&o, "http://127.0.0.1:1/", OTLP_PROTO_GRPC);
	o.max_queue = 0;
	CHECK(otlp_client__new(&o) == NULL);
	CHECK(otlp_client__close(NULL, 0, NULL) == 0);
}

/* The gRPC message prefix: compressed flag, big-endian length, then the gzip'd bytes. */
static void test_grpc_frame(void)
{
	struct otlp_client_opts o;
	uint8_t *wire, *plain;
	size_t wire_len, plain_len, n;
	char msg[3000];

	memset(msg, 'a', sizeof(msg));
	opts_for(&o, "http://h/", OTLP_PROTO_GRPC);
	CHECK(otlp_exchange__frame(&o, msg, sizeof(msg), &wire, &wire_len) == 0);
	n = (size_t)wire[1] << 24 | wire[2] << 16 | wire[3] << 8 | wire[4];
	CHECK(wire[0] == 1 && n == wire_len - 5 && n < sizeof(msg));
	CHECK(gzip__inflate(wire + 5, n, 1 << 20, &plain, &plain_len) == 0);
	CHECK(plain_len == sizeof(msg) && !memcmp(plain, msg, sizeof(msg)));
	free(plain);
	free(wire);

	o.gzip = false;
	CHECK(otlp_exchange__frame(&o, msg, sizeof(msg), &wire, &wire_len) == 0);
	CHECK(wire[0] == 0 && wire_len == sizeof(msg) + 5 && !memcmp(wire + 5, msg, sizeof(msg)));
	free(wire);

	o.protocol = OTLP_PROTO_HTTP; /* no prefix: the whole body is the gzip member */
	o.gzip = true;
	CHECK(otlp_exchange__frame(&o, msg, sizeof(msg), &wire, &wire_len) == 0);
	CHECK(wire[0] == 0x1f && wire[1] == 0x8b);
	free(wire);
}

/* Inflation of what the network sent stops at the limit and on corrupt input. */
static void test_gzip_bounds(void)
{
	uint8_t *z, *out;
	size_t zlen, outlen;
	char big[100000];

	memset(big, 'b', sizeof(big));
	CHECK(gzip__compress(big, sizeof(big), &z, &zlen) == 0);
	CHECK(zlen < 1000);
	CHECK(gzip__inflate(z, zlen, sizeof(big) - 1, &out, &outlen) == -EFBIG);
	CHECK(gzip__inflate(z, zlen, sizeof(big), &out, &outlen) == 0 && outlen == sizeof(big));
	free(out);
	CHECK(gzip__inflate(z, zlen / 2, sizeof(big), &out, &outlen) == -EBADMSG);
	z[zlen - 8] ^= 0xff; /* the CRC-32 in the gzip trailer */
	CHECK(gzip__inflate(z, zlen, sizeof(big), &out, &outlen) == -EBADMSG);
	free(z);
	CHECK(gzip__inflate("not gzip", 8, 100, &out, &outlen) == -EBADMSG);
}

int main(void)
{
	RUN_TEST(test_queue_bounded_when_refused);
	RUN_TEST(test_queue_bounded_by_bytes);
	RUN_TEST(test_close_deadline_aborts_transfer);
	RUN_TEST(test_oversized_request_refused);
	RUN_TEST(test_bad_options);
	RUN_TEST(test_grpc_frame);
	RUN_TEST(test_gzip_bounds);
	HARNESS_EXIT();
}
