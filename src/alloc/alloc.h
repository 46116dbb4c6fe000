/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation profiling, ebprof's side: preparing a command's environment for
 * libebprof-alloc.so, attaching the uprobes (the library's markers, or the allocator's
 * entry points in kernel-only mode), weighing each sampled allocation, and tracking the
 * sampled blocks still live, which become the in-use profiles. */
#ifndef EBPROF_ALLOC_H
#define EBPROF_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum alloc_mode {
	ALLOC_OFF,
	ALLOC_PRELOAD, /* --alloc: the preloaded library samples, ebprof probes its markers */
	ALLOC_KERNEL,  /* --alloc-kernel: uprobes on libc's allocator, sampling in BPF */
};

struct alloc_opts {
	enum alloc_mode mode;
	uint64_t mean; /* bytes between samples on average */
};

/* Parses the optional MEAN of --alloc[=MEAN] / --alloc-kernel[=MEAN] (NULL: default).
 * Returns 0 or -EINVAL after printing why. */
int alloc_opts__parse(struct alloc_opts *o, enum alloc_mode mode, const char *arg);

/* Finds libebprof-alloc.so: $EBPROF_ALLOC_LIB, else beside the ebprof binary. Writes an
 * absolute path into out; returns 0 or -ENOENT after printing where it looked. */
int alloc__find_lib(char *out, size_t n);

/* The environment a command runs with under --alloc: LD_PRELOAD with the library
 * appended to whatever it held, and the mean. alloc_env__apply changes this process's
 * environment (a command inherits it at fork); alloc_env__restore puts it back. */
struct alloc_env {
	char *old_preload; /* NULL when LD_PRELOAD was unset */
	char *old_mean;
	bool applied;
};
int alloc_env__apply(struct alloc_env *e, const char *lib, uint64_t mean);
void alloc_env__restore(struct alloc_env *e);

struct alloc;
struct profile;
struct ingest;
struct sampler;
struct loader;
struct sample_record;

/* Declares the allocation events in p (after the CPU event, declared here if nobody
 * has): "alloc" (alloc_objects/count, alloc_space/bytes) and, in preload mode, "inuse"
 * (inuse_objects/count, inuse_space/bytes). Returns NULL with errno set. */
struct alloc *alloc__new(const struct alloc_opts *o, struct profile *p, uint64_t cpu_period_ns);
void alloc__free(struct alloc *a);
/* The index of the event the BPF records of this mode carry (the uprobes' cookie). */
uint32_t alloc__event(const struct alloc *a);
/* After the sampler started: attaches the uprobes. Preload mode probes the library at
 * lib in every process (BPF's process filter applies); kernel-only mode probes the libc
 * each of pids maps, or, with no pids, ebprof's own libc in every process. */
int alloc__attach(struct alloc *a, struct sampler *s, struct loader *l, const char *lib,
		  const uint32_t *pids, size_t npids);
/* A record of the alloc event: adds it with its weights and remembers its block. */
int alloc__sample(struct alloc *a, struct ingest *in, const struct sample_record *r,
		  uint64_t now_ns);
/* A sampled block was freed (RECORD_ALLOC_FREE). */
void alloc__freed(struct alloc *a, uint32_t pid, uint64_t ptr);
/* Forgets the live blocks of a process that exited (for an agent; a recording keeps
 * them: what a command still held at exit is its in-use memory). */
void alloc__forget_pid(struct alloc *a, uint32_t pid);
/* Adds every live sampled block to p's "inuse" event: a snapshot, taken when a profile
 * is written. Returns 0 or -ENOMEM. */
int alloc__add_inuse(struct alloc *a, struct profile *p);
void alloc__print_stats(const struct alloc *a, FILE *out);

#endif
