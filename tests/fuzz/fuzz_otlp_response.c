// SPDX-License-Identifier: Apache-2.0
/* libFuzzer harness for the decoders of a collector's answer (src/export/otlp_response.c):
 * the first byte picks what the rest is, as the transport would meet it: an
 * ExportProfilesServiceResponse, a google.rpc.Status, a gRPC response body (framed, gzip'd
 * when the byte says grpc-encoding: gzip) whose message is then decoded both ways, or a
 * grpc-message header and a text body. What comes out must fit its bounds. Built by
 * run_otlp_response.sh. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export/otlp_response.h"

#define MESSAGE_MAX (1u << 20) /* inflated message bound, as OTLP_MAX_RESPONSE_BYTES */

static void decode(const uint8_t *b, size_t len)
{
	struct otlp_partial_success ps;
	struct otlp_status st;

	if (!otlp_response__partial(b, len, &ps) && strlen(ps.message) >= OTLP_MESSAGE_MAX)
		abort();
	if (!otlp_response__status(b, len, &st) &&
	    (strlen(st.message) >= OTLP_MESSAGE_MAX || st.retry_after_ms >= 86400u * 1000))
		abort();
}

static void grpc(const uint8_t *b, size_t len, bool gzip)
{
	const uint8_t *msg;
	size_t n;
	bool owned;

	if (otlp_response__grpc_message(b, len, gzip, MESSAGE_MAX, &msg, &n, &owned))
		return;
	if (n > MESSAGE_MAX || (!owned && (msg < b || msg + n > b + len)))
		abort();
	decode(msg, n);
	if (owned)
		free((void *)msg);
}

static void text(const uint8_t *b, size_t len)
{
	char *s = malloc(len + 1), out[256];

	if (!s)
		return;
	memcpy(s, b, len);
	s[len] = '\0';
	otlp_response__percent_decode(s);
	if (strlen(s) > len)
		abort();
	free(s);
	if (otlp_response__text(b, len, out, sizeof(out)) && strlen(out) > 200)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] & 3) {
	case 0:
		decode(data + 1, size - 1);
		break;
	case 1:
		grpc(data + 1, size - 1, data[0] & 4);
		break;
	default:
		text(data + 1, size - 1);
		break;
	}
	return 0;
}
