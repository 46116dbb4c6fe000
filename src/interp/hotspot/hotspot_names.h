/* SPDX-License-Identifier: Apache-2.0 */
/* Names for the HotSpot frames of one JVM process: a frame the walker recorded (struct
 * hs_frame encoding, hotspot_proc.h) becomes one or more Java frames, innermost
 * first (a compiled pc expands into the methods inlined there). Reads the JVM at most
 * once per method and per (nmethod, compile id, pc); the caches are bounded. */
#ifndef EBPROF_HOTSPOT_NAMES_H
#define EBPROF_HOTSPOT_NAMES_H

#include <stdint.h>

#include "interp/hotspot/hotspot_layout.h"

#define HS_NAMES_MAX_FRAMES (64 << 10) /* cached frames per process; then it starts over */

struct hs_named {
	const char *func; /* "java.lang.Thread.run", or "[jvm stub: NAME]"; owned by the cache */
	const char *file; /* "Thread.java", "" when unknown */
	int line;	  /* 0 when unknown */
};

struct hs_names_stats {
	uint64_t method_reads, nmethod_reads; /* reads of the JVM (cache misses) */
	uint64_t unreadable;		      /* frames whose code could not be read */
	uint64_t replaced; /* compiled code freed and reused before it was read */
	uint64_t stubs;	   /* frames of stubs, adapters and runtime code */
	/* Frames named without a line: interpreted ones whose bytecode index the walker
	 * could not read, compiled ones at a pc with no debug point around it. */
	uint64_t no_bci, no_scope;
};

struct hs_names;

/* mem and l must outlive the cache. NULL on ENOMEM. */
struct hs_names *hs_names__new(const struct hs_mem *mem, const struct hs_layout *l);
void hs_names__free(struct hs_names *n);
/* The Java frames of (addr, pad), innermost first, at most max; returns the count (at
 * least 1: a frame that cannot be named is named for why). */
int hs_names__frame(struct hs_names *n, uint64_t addr, uint32_t pad, struct hs_named *out, int max);
const struct hs_names_stats *hs_names__stats(const struct hs_names *n);

#endif
