/* SPDX-License-Identifier: Apache-2.0 */
/* What every runtime's userspace half keeps, as one piece: the lock the tracker's thread
 * and ingest share, its walker's per-process map and counters, the files it detected (by
 * file id), the processes it described (by pid) and the names its frames carry. A runtime
 * embeds it and keeps beside it only what is its own. */
#ifndef EBPROF_RUNTIME_STATE_H
#define EBPROF_RUNTIME_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc/proc.h"
#include "util/functab.h"
#include "util/hmap.h"

struct bpf_object;
struct runtime_state;

/* What differs between runtimes, given once (a static const the runtime owns). */
struct runtime_state_conf {
	const char *pid_map;	  /* its walker's per-process map, keyed by pid: "pid_to_v8" */
	const char *counters_map; /* its walker's counters (CHAIN_COUNTERS): "v8_counters" */
	uint32_t max_names;	  /* distinct (function, file) names kept; 0: it names none */
	/* Free one entry of files or procs; NULL: free(). */
	void (*free_file)(void *file);
	void (*free_proc)(struct runtime_state *s, void *proc);
};

/* Entries of files and procs start with their key, a uint32_t (file id, pid): one
 * comparison serves every runtime, and a process entry is its own memory reader's
 * context (runtime_proc__read). */
struct runtime_state {
	pthread_mutex_t lock; /* guards everything below but the fds */
	int map_fd, counters_fd;
	struct hmap files;    /* detected files, by file id */
	struct hmap procs;    /* described processes, by pid */
	struct functab names; /* (function, file) by id; 0 could not be named */
	const struct runtime_state_conf *conf;
};

/* After load: finds conf's maps in obj and sets up s. Returns 0, -ENOENT (a map is
 * missing) or -ENOMEM; s needs no free then. */
int runtime_state__init(struct runtime_state *s, struct bpf_object *obj,
			const struct runtime_state_conf *conf);
/* Frees every file and process (conf's functions) and the names. NULL-safe. */
void runtime_state__free(struct runtime_state *s);
/* The registry's init for a runtime whose struct starts with its state: *out gets a
 * zeroed object of size bytes, its state set up as runtime_state__init. Returns 0 or
 * -errno. runtime_state__delete (the registry's free) frees the state, then the object. */
int runtime_state__new(struct bpf_object *obj, const struct runtime_state_conf *conf, size_t size,
		       void **out);
void runtime_state__delete(void *priv);

/* The file detect() kept as file_id, or NULL. Callers hold the lock, or are the
 * tracker's thread (the only one that adds files). */
void *runtime_state__file(const struct runtime_state *s, uint32_t file_id);
/* Keeps file (a new entry, its key set) under the lock. Returns true when kept; false
 * when its id was kept already or on ENOMEM: the caller still owns it then. */
bool runtime_state__add_file(struct runtime_state *s, void *file);
/* The first mapping from *i on whose file is kept: returns the file and sets *i to the
 * mapping's index, or NULL. Under the lock. */
void *runtime_state__mapped_file(const struct runtime_state *s, const struct proc_mapping *maps,
				 uint32_t n, uint32_t *i);

/* The process kept as pid, or NULL. Under the lock. */
void *runtime_state__proc(const struct runtime_state *s, uint32_t pid);
/* Replaces pid's process with proc (its key set), freeing the old one; NULL removes it.
 * Returns 0, or -ENOMEM (proc is freed then). Under the lock. */
int runtime_state__set_proc(struct runtime_state *s, uint32_t pid, void *proc);
/* The registry's forget: pid's BPF state and its process go. Takes the lock. */
void runtime_state__forget(struct runtime_state *s, uint32_t pid);

/* Reads len bytes at addr of pid's memory. Returns 0, -EFAULT (short: unmapped), or
 * -errno (ESRCH: the process is gone). */
int runtime_mem__read(uint32_t pid, uint64_t addr, void *buf, size_t len);
/* The same as a reader callback: ctx is a process entry (its first member, the pid). */
int runtime_proc__read(void *ctx, uint64_t addr, void *buf, size_t len);

#endif
