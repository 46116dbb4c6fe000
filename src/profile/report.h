/* SPDX-License-Identifier: Apache-2.0 */
/* The symbolized profile that every exporter reads: deduplicated mappings and frames,
 * and stacks that point at them. Built once at the end of a recording (or of an agent's
 * interval) by report_builder; exporters only read it. */
#ifndef EBPROF_REPORT_H
#define EBPROF_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum report_frame_kind {
	FRAME_KERNEL,  /* addr is a kernel text address */
	FRAME_NATIVE,  /* addr is a file offset inside the mapping's file */
	FRAME_UNKNOWN, /* no file behind the address (anonymous memory, JIT code) */
	FRAME_PYTHON,  /* addr is the line, the name "qualname (file.py:LINE)"; no mapping */
};

/* Kinds past the native ones are runtimes' frames: named by their runtime, no mapping. */
static inline bool frame_kind_is_runtime(uint32_t kind)
{
	return kind > FRAME_UNKNOWN;
}

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

struct report_frame {
	const char *name; /* function name, or "module+0xOFF"; never NULL */
	uint64_t addr;	  /* in the mapping's address space (see report_frame_kind) */
	int32_t mapping;  /* index into report.mappings, -1 when there is none */
	enum report_frame_kind kind;
};

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
};

struct report {
	uint64_t period_ns; /* one sample stands for this much CPU time: 1e9 / Hz */
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
};

struct profile;
struct symbolizer;

/* Symbolizes and flattens a profile into a report. Returns NULL on ENOMEM. The report
 * owns all its memory (free with report__free) and does not point into the profile. */
struct report *report__build(const struct profile *p, struct symbolizer *sym, uint64_t period_ns,
			     uint64_t start_unix_ns, uint64_t duration_ns);
void report__free(struct report *r);

#endif
