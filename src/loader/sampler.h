/* SPDX-License-Identifier: Apache-2.0 */
/* The CPU sampler: the sampling BPF program, one cpu-clock perf event per online CPU,
 * and the ring buffer the samples arrive on. Opening is all-or-nothing: on any failure
 * every event, link, program and map created so far is released. */
#ifndef EBPROF_SAMPLER_H
#define EBPROF_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ebprof_shared.h"

struct sampler;

/* Called for every record from the ring buffer; return nonzero to stop polling. */
typedef int (*sampler_cb)(void *ctx, const void *data, size_t size);

struct sampler_opts {
	unsigned int freq_hz;
	const uint32_t *pids;	/* only these processes (NULL: all) */
	size_t npids;
	bool follow_children;	/* also profile processes that the listed ones fork */
	size_t ringbuf_bytes;	/* a power of two, at least one page */
};

/* Loads, attaches and starts sampling. Returns 0 or a negative errno, having logged
 * what failed and what to do about it; *out is NULL on failure. */
int sampler__open(struct sampler **out, const struct sampler_opts *opts, sampler_cb cb,
		  void *ctx);
void sampler__free(struct sampler *s);
/* Adds a process to the filter (only with opts.pids set). Returns 0 or -errno. */
int sampler__add_pid(struct sampler *s, uint32_t pid);
/* Waits up to timeout_ms for records and delivers them. Returns the number consumed,
 * or a negative errno (-EINTR when a signal arrived). */
int sampler__poll(struct sampler *s, int timeout_ms);
/* Sums the per-CPU counters into out[CTR__COUNT]. Returns 0 or -errno. */
int sampler__counters(struct sampler *s, uint64_t out[CTR__COUNT]);
/* Number of CPUs with a perf event attached. */
unsigned int sampler__ncpus(const struct sampler *s);

#endif
