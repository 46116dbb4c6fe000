/* SPDX-License-Identifier: Apache-2.0 */
/* Debug files fetched by build id from the debuginfod servers in DEBUGINFOD_URLS, through
 * elfutils' libdebuginfod loaded on first use. Fetches run on a few worker threads with a
 * deadline each; callers never wait unless they ask to (record's end). */
#ifndef EBPROF_SYMBOL_DEBUGINFOD_H
#define EBPROF_SYMBOL_DEBUGINFOD_H

#include <stdint.h>

#define DEBUGINFOD_FETCHES 2	      /* fetches in flight at once */
#define DEBUGINFOD_TIMEOUT_S 30	      /* one fetch's deadline, from its start */
#define DEBUGINFOD_MAX_REQUESTS 65536 /* build ids remembered; more are refused */

struct debuginfod;

struct debuginfod_stats {
	uint32_t fetched; /* debug files received (or found in libdebuginfod's cache) */
	uint32_t missing; /* the servers have none, or the fetch failed or timed out */
	uint32_t pending; /* queued or in flight */
	uint32_t refused; /* requests over DEBUGINFOD_MAX_REQUESTS */
};

/* Returns a client when DEBUGINFOD_URLS is set and not empty, else NULL (off, errno 0).
 * Loading libdebuginfod waits for the first request. timeout_s 0: the default. */
struct debuginfod *debuginfod__new(unsigned int timeout_s);
/* Cancels the fetches in flight, joins the workers, closes every descriptor. */
void debuginfod__free(struct debuginfod *d);

/* For a hex build id: returns a new descriptor of the fetched debug file (the caller
 * closes it), -EAGAIN when the fetch is queued or running (this call queues it the first
 * time), -ENOENT when there is none, -ENOMEM, or -ENOSYS when libdebuginfod is missing.
 * Never blocks on the network. */
int debuginfod__find(struct debuginfod *d, const char *build_id);
/* Waits until nothing is pending or timeout_ms passed. */
void debuginfod__wait(struct debuginfod *d, int timeout_ms);
void debuginfod__stats(struct debuginfod *d, struct debuginfod_stats *out);

#endif
