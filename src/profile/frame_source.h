/* SPDX-License-Identifier: Apache-2.0 */
/* What profile/ asks of the code that makes runtimes' frames. Runtimes (src/interp/) sit
 * above profile/ and include it, so ingest and the report never call them by name: the
 * session hands them this table, which the runtime set fills (runtime_set__frame_source).
 * A NULL source, or a NULL member, leaves runtimes' frames unknown. */
#ifndef EBPROF_PROFILE_FRAME_SOURCE_H
#define EBPROF_PROFILE_FRAME_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/frame.h"

struct arena;
struct label;
struct user_frame;

/* A runtime frame's name, kept in parts so pprof and OTLP can aggregate by function and
 * link sources by file and line; text outputs join them ("function (file:LINE)"). */
struct frame_symbol {
	const char *function; /* never NULL when the call returns true */
	const char *file;     /* source file as the runtime names it; "" when unknown */
	uint32_t line;	      /* 0 when unknown */
	uint32_t column;      /* 1-based; 0 when unknown */
};

struct frame_source {
	void *ctx;
	/* Ingest: one frame a walker sent (UF_IS_RUNTIME) into up to max profile frames,
	 * innermost first (inlined code expands here). Returns how many. */
	unsigned int (*ingest)(void *ctx, uint32_t pid, const struct user_frame *uf,
			       struct frame *out, unsigned int max);
	/* Ingest: the labels a walker sent in uf[0, n) into out (strings owned by the
	 * source, valid until its next call). Returns how many. */
	unsigned int (*labels)(void *ctx, uint32_t pid, const struct user_frame *uf, unsigned int n,
			       struct label *out, unsigned int max);
	/* Report: the name of a frame of a runtime's kind, strings in a (or static). False
	 * when no runtime names f. */
	bool (*symbol)(void *ctx, const struct frame *f, struct arena *a, struct frame_symbol *out);
	/* The row of a runtime's frame kind, NULL when no runtime has it. */
	const struct frame_kind_info *(*kind)(uint32_t kind);
};

#endif
