// SPDX-License-Identifier: Apache-2.0
/* Each OTLP attempt's deadline (see otlp_deadline.h): a moving average of the collector's
 * answer times with headroom, scaled by the request's size against the usual size, never
 * under --timeout and never over the cap; a timeout multiplies the next deadline, so a
 * collector slower than --timeout is caught up with in a few attempts instead of timing
 * out forever. */
#include "export/otlp_deadline.h"

/* Room over the usual answer time: queueing on the collector's side varies. */
#define HEADROOM 4
/* A timed-out attempt's successor gets this many times its deadline. */
#define GROWTH 4
/* Weight of the newest answer in the moving averages. */
#define ALPHA 0.25

void otlp_deadline__init(struct otlp_deadline *d, unsigned timeout_ms)
{
	*d = (struct otlp_deadline){
	    .floor_ms = timeout_ms,
	    .cap_ms = timeout_ms > OTLP_DEADLINE_CAP_MS ? timeout_ms : OTLP_DEADLINE_CAP_MS,
	};
}

unsigned otlp_deadline__for(const struct otlp_deadline *d, size_t len)
{
	double want = d->learned_ms;

	if (!d->floor_ms)
		return 0;
	if (d->took_ms > 0) {
		double scale = d->size > 0 && len > d->size ? (double)len / d->size : 1;
		double usual = HEADROOM * d->took_ms * scale;

		if (usual > want)
			want = usual;
	}
	if (want < d->floor_ms)
		return d->floor_ms;
	return want > d->cap_ms ? d->cap_ms : (unsigned)want;
}

void otlp_deadline__answered(struct otlp_deadline *d, size_t len, unsigned took_ms)
{
	if (d->took_ms > 0) {
		d->took_ms += ALPHA * (took_ms - d->took_ms);
		d->size += ALPHA * ((double)len - d->size);
	} else {
		d->took_ms = took_ms ? took_ms : 1;
		d->size = (double)len;
	}
	/* What timeouts taught is in the average now (the answers that came). */
	d->learned_ms = 0;
}

void otlp_deadline__timed_out(struct otlp_deadline *d, unsigned deadline_ms)
{
	unsigned long long next = (unsigned long long)deadline_ms * GROWTH;

	if (!deadline_ms)
		return;
	d->learned_ms = next > d->cap_ms ? d->cap_ms : (unsigned)next;
}
