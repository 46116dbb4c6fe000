/* SPDX-License-Identifier: Apache-2.0 */
/* The one way ebprof loads BPF programs. Callers open and configure their skeletons and
 * hand the objects over; the loader creates each object's maps, then verifies every
 * program as its own job on a pool of threads, longest first, and only returns success
 * when all succeeded. On any failure it closes everything it loaded and reports every
 * failure in job order (the first verifier log in full, the rest one line each). */
#ifndef EBPROF_LOADER_H
#define EBPROF_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Every ebprof program must verify within this many processed instructions, a tenth of
 * the kernel's limit, so none drifts toward the limit as programs grow. */
#define LOADER_VERIFIER_BUDGET 100000

struct bpf_object;
struct bpf_object_open_opts;
struct bpf_program;
struct loader;

enum loader_order {
	LOADER_LONGEST_FIRST, /* by cost estimate, most expensive first (default) */
	LOADER_BUILD_ORDER,   /* in the order programs were added */
};

struct loader_opts {
	unsigned int jobs; /* worker threads; 0: the CPUs we may run on; 1: sequential */
	enum loader_order order;
	const char *cost_cache;	     /* file of measured costs from earlier runs, or NULL */
	const char *btf_custom_path; /* minimal CO-RE BTF (btf_cache.h), or NULL: the kernel's */
};

/* Per-job figures, valid after loader__run. */
struct loader_stat {
	const char *name;	 /* "object/program" */
	int err;		 /* 0 or negative errno */
	uint64_t cost;		 /* the estimate the job was ordered by (see plan()) */
	uint64_t verify_ns;	 /* wall time of the job's bpf_object__load */
	uint32_t verified_insns; /* the kernel's count of processed instructions */
	size_t insns;		 /* program size after relocation */
	unsigned int rank;	 /* position in the start order, 0 = first */
	bool pending;		 /* not verified (yet): deferred and never asked for */
};

struct loader *loader__new(const struct loader_opts *opts);
/* Options every owner must be opened with (skel__open_opts), so owners and jobs
 * relocate against the same BTF. Valid while the loader lives. */
const struct bpf_object_open_opts *loader__open_opts(const struct loader *l);
/* Frees the loader and closes every program it loaded (not the callers' objects). */
void loader__free(struct loader *l);
/* Adds every autoload program of owner, an opened, configured, not yet loaded object
 * whose ELF image is elf (it must outlive the loader). The loader loads owner itself
 * with programs disabled, so its maps exist before any job reuses them; a map named
 * like a map of an owner added before it is that same map (by fd). */
int loader__add(struct loader *l, struct bpf_object *owner, const void *elf, size_t elf_sz);
/* Marks every program of owner (added before) deferred: loader__run creates owner's
 * maps but verifies none of its programs; loader__run_pending does, when asked. */
void loader__defer(struct loader *l, const struct bpf_object *owner);
/* The same for owner's one program name; -ENOENT when owner has no such program. */
int loader__defer_program(struct loader *l, const struct bpf_object *owner, const char *name);
/* Loads everything not deferred. Returns 0, or the first job's negative errno after
 * logging every failure and closing all programs. Must be called once. */
int loader__run(struct loader *l);
/* After loader__run: verifies owner's deferred programs not verified yet (owner NULL:
 * every owner's), on the pool, all or nothing like loader__run (every failure logged,
 * their programs closed; the programs stay pending no more). Returns 0 or the first
 * failure's negative errno. Callable from any thread while others use the loader: it
 * writes only the jobs it runs (one such run at a time), and loader__program and
 * loader__stat of other owners' jobs stay valid meanwhile. */
int loader__run_pending(struct loader *l, const struct bpf_object *owner);
/* The same, its verification time added to *ns instead of loader__pending_ns's, which
 * says what the runtimes' walkers took (the exit stacks' programs, verified after the
 * command has started, are counted apart). */
int loader__run_pending_apart(struct loader *l, const struct bpf_object *owner, uint64_t *ns);
/* Returns the loaded program named name of owner, or NULL. */
struct bpf_program *loader__program(struct loader *l, const struct bpf_object *owner,
				    const char *name);
size_t loader__njobs(const struct loader *l);
/* Returns job i's figures (in the order jobs were added), or NULL past the end. */
const struct loader_stat *loader__stat(const struct loader *l, size_t i);
/* Nanoseconds spent creating maps (owners) and verifying (loader__run's concurrent
 * phase). */
void loader__phase_ns(const struct loader *l, uint64_t *maps_ns, uint64_t *verify_ns);
/* Nanoseconds the deferred runs (loader__run_pending) spent verifying, together. */
uint64_t loader__pending_ns(const struct loader *l);

#endif
