/* SPDX-License-Identifier: Apache-2.0 */
/* The CPU sampler: the sampling BPF program, one cpu-clock perf event per online CPU,
 * and the ring buffer the samples arrive on. sampler__free releases every event, link
 * and map it made, whatever state it is in. */
#ifndef EBPROF_SAMPLER_H
#define EBPROF_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ebprof_shared.h"
#include "loader/walkers.h"

struct sampler;

/* Called for every record from the ring buffer; return nonzero to stop reading (the
 * read returns that error, -ECANCELED for a positive one). */
typedef int (*sampler_cb)(void *ctx, const void *data, size_t size);

struct sampler_opts {
	unsigned int freq_hz;
	const uint32_t *pids; /* only these processes (NULL: all) */
	size_t npids;
	/* Only the tasks of these cgroup v2 groups (by id) and those sampler__allow_cgroup
	 * adds later, when filter_cgroups is set; with pids, both must hold. */
	bool filter_cgroups;
	const uint64_t *cgroups;
	size_t ncgroups;
	/* Allocation profiling (src/alloc): load the marker programs of libebprof-alloc.so,
	 * or the kernel-only allocator probes with their mean sampling distance. */
	bool alloc_markers;
	bool alloc_kernel;
	uint64_t alloc_mean;
	uint32_t alloc_event;		 /* the event index of allocation samples */
	bool follow_children;		 /* also profile processes that the listed ones fork */
	size_t ringbuf_bytes;		 /* a power of two, at least one page */
	uint32_t unwind_rows;		 /* capacity of the unwind row pool (16 bytes a row) */
	const struct probe_spec *probes; /* probe i is event probe_first_event + i */
	size_t nprobes;
	uint32_t probe_first_event;
	uint32_t off_cpu_event; /* off-CPU time as this event; 0: not collected */
	uint32_t off_cpu_ppm;	/* share of blocks sampled, in parts per million */
	uint32_t stop_event;	/* stops (tracer, stop signal) as this event; 0: not collected */
};

/* The maps the process tracker and table pool fill. */
struct sampler_maps {
	int pid_to_mappings;
	int unwind_tables;
	uint32_t unwind_tables_max;
	int unwind_rows;	     /* the array of row chunks */
	uint32_t unwind_chunks_max;  /* its slots */
	uint32_t unwind_chunk_shift; /* a chunk holds 1 << shift rows */
	int file_tables;	     /* files by the kernel's identity: their ids and tables */
	int table_used;		     /* when the walker last used each table (mmapable) */
};

struct loader;
struct probe_spec;

/* Opens and configures the sampling programs and adds them to the loader. Returns 0 or
 * a negative errno (logged); *out is NULL on failure. */
int sampler__prepare(struct sampler **out, const struct sampler_opts *opts, struct loader *l);
/* After loader__run succeeded: fills the filter, attaches the fork tracepoint, the
 * probes, off-CPU tracking and a perf event per online CPU. Returns 0 or a negative errno (logged); on failure the
 * caller frees the sampler, which detaches whatever was attached. */
int sampler__start(struct sampler *s, struct loader *l, sampler_cb cb, void *ctx);
/* With filter_cgroups: also profile the tasks of group id (a group made after the
 * start, below a --cgroup one). 0, or a negative errno (-E2BIG: the map is full). */
int sampler__allow_cgroup(struct sampler *s, uint64_t id);
/* After sampler__start: attaches the loaded '?' uprobe program prog to func in the ELF
 * file path, in process pid (-1: every process that maps the file), with the cookie the
 * program reads. The link lives until sampler__stop. Returns 0 or a negative errno,
 * logged with what was being attached. */
int sampler__attach_uprobe(struct sampler *s, struct loader *l, const char *prog, const char *path,
			   const char *func, int pid, uint64_t cookie);
/* Stops sampling: detaches the probes and closes the perf events, so the counters and
 * the ring buffer stop moving, then hands the callback one record for each thread still
 * blocked (off-CPU time up to now). The maps and the ring buffer stay readable. */
void sampler__stop(struct sampler *s);
void sampler__free(struct sampler *s);
/* How long one sampler__poll may spend delivering records: the loop around it checks
 * its deadline, the signals and the command at least this often, whatever the rate. */
#define SAMPLER_POLL_BUDGET_NS (50 * 1000000ULL)
/* Waits up to timeout_ms for a wakeup (BPF wakes us only once a quarter of the ring
 * is used), then delivers the records waiting for at most SAMPLER_POLL_BUDGET_NS.
 * Returns the number delivered, or a negative errno. */
int sampler__poll(struct sampler *s, int timeout_ms);
/* Delivers the records waiting, without waiting for more, until the ring is empty or
 * budget_ns have passed. Returns the number delivered, or a negative errno. */
int sampler__consume(struct sampler *s, uint64_t budget_ns);
/* Drops every record waiting unread (after sampler__stop, what there was no time left
 * to read). Returns how many. */
uint64_t sampler__discard(struct sampler *s);
/* Sums the per-CPU counters into out[CTR__COUNT]. Returns 0 or -errno. */
int sampler__counters(struct sampler *s, uint64_t out[CTR__COUNT]);
/* The entry program types prepare enabled (1 << enum chain_type): the types every
 * walker of the chain is loaded for. */
chain_types sampler__chain_types(const struct sampler *s);
/* The unwinder's maps; valid once the loader ran. */
void sampler__maps(const struct sampler *s, struct sampler_maps *out);
/* Number of CPUs with a perf event attached. */
unsigned int sampler__ncpus(const struct sampler *s);

#endif
