/* SPDX-License-Identifier: Apache-2.0 */
/* The symbolized profile that every exporter reads: deduplicated mappings and frames,
 * and stacks that point at them. Built once at the end of a recording (or of an agent's
 * interval) by report_builder; exporters only read it. */
#ifndef EBPROF_REPORT_H
#define EBPROF_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/frame.h"

/* One mapped object. Native addresses are file offsets, so one mapping serves every
 * process that maps the file, wherever it was loaded: start = 0, limit = file size. */
struct report_mapping {
	uint64_t start;
	uint64_t limit;
	uint64_t offset;      /* file offset of start (pprof's Mapping.file_offset) */
	const char *path;     /* path as the process saw it, or "[kernel.kallsyms]" */
	const char *build_id; /* lowercase hex GNU build id, "" when the file has none */
	bool kernel;
};

/* One function at a frame's address: a native frame's from DWARF, a runtime frame's from
 * its runtime (one line). A frame's lines run innermost first: lines[0] is the function
 * the address is in (inlined or not), each next one the function its predecessor was
 * inlined into, at the line of that call; the last one is the function the code belongs
 * to. */
struct report_line {
	const char *function; /* demangled; never NULL */
	const char *file;     /* source path as the DWARF (or the runtime) names it, "" when
			       * unknown */
	uint32_t line;	      /* 0 when unknown */
	/* What text outputs show as a frame: "function (file.c:LINE)", with " [inlined]"
	 * after every line but the last. */
	const char *label;
	uint32_t column; /* 1-based; 0 when unknown (only runtimes' frames have one) */
};

struct report_frame {
	const char *name; /* function name, or "module+0xOFF"; never NULL */
	uint64_t addr;	  /* in the mapping's address space (see enum frame_kind) */
	int32_t mapping;  /* index into report.mappings, -1 when there is none */
	enum frame_kind kind;
	uint32_t nlines;		 /* 0 when only the name is known (no DWARF) */
	const struct report_line *lines; /* nlines entries, innermost first */
};

/* The text frame j of fr's lines shows, outermost (j = nlines - 1) to innermost (0); the
 * name when it has none. Folded stacks and the flame graph print one frame per line. */
static inline const char *report_frame_label(const struct report_frame *fr, uint32_t j)
{
	return fr->nlines ? fr->lines[j].label : fr->name;
}

/* How many frames fr shows as in text outputs: one per line, at least one. */
static inline uint32_t report_frame_depth(const struct report_frame *fr)
{
	return fr->nlines ? fr->nlines : 1;
}

/* What one value of a sample measures (pprof's and OTLP's ValueType). */
struct report_value_type {
	const char *type; /* "samples", "alloc_space", "off_cpu", "events" */
	const char *unit; /* "count", "bytes", "nanoseconds" */
};

#define REPORT_MAX_VALUES 4

/* One kind of event the stacks were collected on: CPU samples, a probe, allocations,
 * off-CPU time. Every exporter writes each event as a profile of its own. */
struct report_event {
	const char *name;		      /* "cpu", "uprobe:/usr/bin/x:foo", ... */
	struct report_value_type period_type; /* cpu/nanoseconds for CPU samples */
	uint64_t period;		      /* 1e9 / Hz for CPU samples; 0 when none */
	uint32_t nvalues;		      /* values per stack, 1..REPORT_MAX_VALUES */
	struct report_value_type values[REPORT_MAX_VALUES]; /* values[0] is the count */
};

#define REPORT_MAX_LABELS 8 /* labels of one stack (profile/labels.h: LABELS_MAX) */

/* A label of a sample (Go's pprof labels): pprof's Sample.label, an OTLP attribute. */
struct report_label {
	const char *key;
	const char *value;
};

struct report_stack {
	uint32_t pid;
	uint32_t tid;
	const char *comm;   /* process name */
	const char *thread; /* thread name */
	uint64_t count;	    /* events (samples) */
	uint32_t nframes;
	bool truncated;		/* the unwinder ran out of slots: the root is missing */
	const uint32_t *frames; /* indices into report.frames, innermost (leaf) first */
	uint32_t event;		/* index into report.events */
	int32_t cpu;		/* logical CPU, or -1 when the profile does not split by CPU */
	const uint64_t *values; /* report.events[event].nvalues entries, NULL: {count} */
	uint32_t ntimes;
	const uint64_t *times_unix_ns; /* when each event happened; ntimes may be 0 */
	uint32_t nlabels;
	const struct report_label *labels; /* sorted by key, keys unique */
};

/* What roots a stack in the text outputs (folded stacks, the flame graph). */
enum report_root {
	REPORT_ROOT_COMM,      /* its process's name */
	REPORT_ROOT_PID,       /* "comm-PID", as stackcollapse-perf.pl --pid writes it */
	REPORT_ROOT_CONTAINER, /* its container (12 digits of container.id; "host") above comm */
};

struct report {
	uint64_t period_ns;    /* one sample stands for this much CPU time: 1e9 / Hz */
	enum report_root root; /* set by the caller before writing; REPORT_ROOT_COMM: 0 */
	size_t nevents;
	const struct report_event *events; /* events[0] is "cpu" */
	uint64_t start_unix_ns;		   /* wall-clock time the recording started */
	uint64_t duration_ns;
	size_t nmappings;
	const struct report_mapping *mappings;
	size_t nframes;
	const struct report_frame *frames;
	size_t nstacks;
	const struct report_stack *stacks;
	/* The row of every frame kind: the native ones' and those of the runtimes the report
	 * was built with (its frame source). A NULL row reads as unknown's (report_kind). */
	const struct frame_kind_info *kinds[FRAME_KIND__COUNT];
};

/* The row of kind in r (flame-graph colour, OTLP type, folded suffix...); never NULL. */
static inline const struct frame_kind_info *report_kind(const struct report *r, uint32_t kind)
{
	if (kind < FRAME_KIND__COUNT && r->kinds[kind])
		return r->kinds[kind];
	return frame_kind__info(kind);
}

/* Lines over all frames, counting one for a frame without DWARF lines. */
static inline size_t report_nlines(const struct report *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nframes; i++)
		n += report_frame_depth(&r->frames[i]);
	return n;
}

struct frame_source;
struct profile;
struct symbolizer;

/* Symbolizes and flattens a profile into a report: native and kernel frames through sym,
 * runtimes' frames and kinds through frames (NULL: they read as unknown). Returns NULL on
 * ENOMEM. The report owns all its memory (free with report__free) and does not point into
 * the profile; its kinds rows are static. */
struct report *report__build(const struct profile *p, struct symbolizer *sym,
			     const struct frame_source *frames, uint64_t period_ns,
			     uint64_t start_unix_ns, uint64_t duration_ns);
void report__free(struct report *r);
/* Fills r->kinds: the native kinds' rows, and the runtimes' that frames gives (none when
 * frames is NULL). report__build does it; a report made by hand (tests) calls it. */
void report__fill_kinds(struct report *r, const struct frame_source *frames);

#endif
