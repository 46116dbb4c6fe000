// SPDX-License-Identifier: Apache-2.0
/* Decoding a collector's answer (otlp_response.h): protobuf-c unpacks the messages, with
 * every length checked against the bytes it has; what is copied out is cut to fit. */
#include "export/otlp_response.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb-c.h"
#include "rpc_status.pb-c.h"
#include "util/gzip.h"

#define PB_COLLECTOR(x) opentelemetry__proto__collector__profiles__v1development__##x
#define RETRY_INFO_TYPE "type.googleapis.com/google.rpc.RetryInfo"
#define TEXT_MAX 200 /* characters of a text body kept as the message */

typedef Opentelemetry__Proto__Collector__Profiles__V1development__ExportProfilesServiceResponse
    pb_response;

int otlp_response__partial(const void *body, size_t len, struct otlp_partial_success *ps)
{
	pb_response *resp;
	const char *msg;

	memset(ps, 0, sizeof(*ps));
	resp = PB_COLLECTOR(export_profiles_service_response__unpack)(NULL, len, body);
	if (!resp)
		return -EBADMSG;
	/* An empty partial_success (nothing rejected, no message) says nothing, so it is a
	 * full success: the specification wants the field unset then, but the
	 * OpenTelemetry Collector (0.161) sends an empty one with every answer. */
	if (resp->partial_success) {
		ps->rejected = resp->partial_success->rejected_profiles;
		msg = resp->partial_success->error_message;
		snprintf(ps->message, sizeof(ps->message), "%s", msg ? msg : "");
		ps->present = ps->rejected != 0 || ps->message[0];
	}
	PB_COLLECTOR(export_profiles_service_response__free_unpacked)(resp, NULL);
	return 0;
}

/* A RetryInfo detail's delay into st. */
static void read_retry_info(const ProtobufCBinaryData *value, struct otlp_status *st)
{
	Ebprof__Rpc__RetryInfo *ri = ebprof__rpc__retry_info__unpack(NULL, value->len, value->data);

	if (!ri)
		return;
	st->retry_info = true;
	if (ri->retry_delay && ri->retry_delay->seconds >= 0 && ri->retry_delay->seconds < 86400 &&
	    ri->retry_delay->nanos >= 0)
		st->retry_after_ms =
		    ri->retry_delay->seconds * 1000 + ri->retry_delay->nanos / 1000000;
	ebprof__rpc__retry_info__free_unpacked(ri, NULL);
}

int otlp_response__status(const void *body, size_t len, struct otlp_status *st)
{
	Ebprof__Rpc__Status *s = ebprof__rpc__status__unpack(NULL, len, body);

	memset(st, 0, sizeof(*st));
	if (!s)
		return -EBADMSG;
	snprintf(st->message, sizeof(st->message), "%s", s->message ? s->message : "");
	for (size_t i = 0; i < s->n_details; i++) {
		if (s->details[i]->type_url && !strcmp(s->details[i]->type_url, RETRY_INFO_TYPE))
			read_retry_info(&s->details[i]->value, st);
	}
	ebprof__rpc__status__free_unpacked(s, NULL);
	return 0;
}

int otlp_response__grpc_message(const uint8_t *body, size_t len, bool gzip, size_t max,
				const uint8_t **msg, size_t *msg_len, bool *owned)
{
	uint8_t *plain;
	size_t n;
	int err;

	*msg = body;
	*msg_len = 0;
	*owned = false;
	if (!len)
		return 0;
	if (len < OTLP_GRPC_PREFIX)
		return -EBADMSG;
	n = (size_t)body[1] << 24 | (size_t)body[2] << 16 | (size_t)body[3] << 8 | body[4];
	if (n != len - OTLP_GRPC_PREFIX)
		return -EBADMSG;
	if (!(body[0] & 1)) {
		*msg = body + OTLP_GRPC_PREFIX;
		*msg_len = n;
		return 0;
	}
	if (!gzip)
		return -EPROTO;
	err = gzip__inflate(body + OTLP_GRPC_PREFIX, n, max, &plain, msg_len);
	if (err)
		return err;
	*msg = plain;
	*owned = true;
	return 0;
}

void otlp_response__percent_decode(char *s)
{
	char *w = s;
	unsigned int v;

	for (; *s; s++) {
		if (*s == '%' && isxdigit((unsigned char)s[1]) && isxdigit((unsigned char)s[2]) &&
		    sscanf(s + 1, "%2x", &v) == 1) {
			*w++ = (char)v;
			s += 2;
		} else {
			*w++ = *s;
		}
	}
	*w = 0;
}

bool otlp_response__text(const uint8_t *body, size_t len, char *out, size_t out_len)
{
	char text[TEXT_MAX + 1];
	size_t i, n = 0;

	for (i = 0; i < len && n < TEXT_MAX; i++) {
		if (body[i] == '\n' || body[i] == '\r' || body[i] == '\t')
			text[n++] = ' ';
		else if (body[i] >= 0x20 && body[i] < 0x7f)
			text[n++] = (char)body[i];
		else
			return false; /* binary: not a message */
	}
	while (n && text[n - 1] == ' ')
		n--;
	text[n] = 0;
	if (out_len)
		snprintf(out, out_len, "%s", text);
	return true;
}
