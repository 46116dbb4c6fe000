/* SPDX-License-Identifier: Apache-2.0 */
/* How long one OTLP export attempt may take: --timeout for a collector not heard from yet,
 * then room for what its recent answers took, scaled to the request's size, and more after
 * an attempt ran out of time. A fixed deadline shorter than a slow collector's answers
 * times out every request (each possibly stored by the collector anyway); one that adapts
 * lets the agent catch up with the collector it has. */
#ifndef EBPROF_OTLP_DEADLINE_H
#define EBPROF_OTLP_DEADLINE_H

#include <stddef.h>

/* The longest an attempt's deadline grows to, unless --timeout asks for longer. */
#define OTLP_DEADLINE_CAP_MS 120000u

struct otlp_deadline {
	unsigned floor_ms;   /* --timeout: no deadline is shorter; 0 = attempts are unbounded */
	unsigned cap_ms;     /* nor longer */
	unsigned learned_ms; /* after a timeout: answers take longer than that attempt's time */
	double took_ms;	     /* accepted attempts' durations, a moving average; 0: none yet */
	double size;	     /* their wire sizes, likewise */
};

void otlp_deadline__init(struct otlp_deadline *d, unsigned timeout_ms);
/* The deadline of an attempt to send len bytes, in ms (0: no limit). */
unsigned otlp_deadline__for(const struct otlp_deadline *d, size_t len);
/* An attempt of len bytes was answered after took_ms. */
void otlp_deadline__answered(struct otlp_deadline *d, size_t len, unsigned took_ms);
/* An attempt given deadline_ms ran out of time. */
void otlp_deadline__timed_out(struct otlp_deadline *d, unsigned deadline_ms);

#endif
