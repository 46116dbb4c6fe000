/* SPDX-License-Identifier: Apache-2.0 */
/* Processes and their executable mappings, read from /proc/PID/maps the first time a
 * process is sampled and again when one of its addresses falls outside what we know
 * (dlopen, JIT, exec). Turns a user address into (file id, file offset). */
#ifndef EBPROF_PROC_H
#define EBPROF_PROC_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "proc/files.h"
#include "util/hmap.h"

struct proc_mapping {
	uint64_t start;
	uint64_t end;
	uint64_t pgoff;
	uint32_t file_id; /* 0: anonymous executable memory */
};

struct proc {
	uint32_t pid;
	bool gone; /* /proc/PID vanished: keep what we knew */
	uint32_t nmaps;
	struct proc_mapping *maps; /* sorted by start */
	uint64_t refreshed_ns;	   /* CLOCK_MONOTONIC of the last read */
};

/* Shared by the sample path (ingest) and the process tracker's thread: every entry
 * point takes lock, which also guards the file table's registry. */
struct proc_table {
	pthread_mutex_t lock;
	struct hmap by_pid;
	struct file_table *files;
	uint32_t vdso_file; /* id of the shared [vdso] image, 0 if unavailable */
	uint64_t maps_reads;
	uint64_t maps_failures;
};

int proc_table__init(struct proc_table *t, struct file_table *files);
void proc_table__free(struct proc_table *t);

struct proc_addr {
	uint32_t file_id; /* 0: no file (anonymous memory) or unknown */
	uint64_t off;	  /* file offset, or the address itself when file_id is 0 */
	bool mapped;	  /* the address lies in an executable mapping */
};

/* Resolves a user address of pid. now_ns rate-limits re-reading the maps. Never fails:
 * an address we cannot place comes back with mapped = false. */
struct proc_addr proc_table__resolve(struct proc_table *t, uint32_t pid, uint64_t addr,
				     uint64_t now_ns);
/* A frame of pid in file file_id (placed by BPF): opens the file, for the symbolizer,
 * unless it is open or could not be (through a mapping of it in pid's maps, re-read at
 * most every 50 ms). */
void proc_table__open_file(struct proc_table *t, uint32_t pid, uint32_t file_id, uint64_t now_ns);
/* Re-reads pid's maps now (no rate limit), opens every mapped file, and returns a
 * malloc'd copy of the executable mappings in *out (caller frees). Returns the count,
 * or a negative errno (-ESRCH: the process is gone). */
int proc_table__snapshot(struct proc_table *t, uint32_t pid, uint64_t now_ns,
			 struct proc_mapping **out);

/* The file mapped at addr in pid, by the identity /proc/PID/maps gives it (*dev as
 * makedev), asked of that VMA alone (Linux 6.11's PROCMAP_QUERY) instead of reading
 * every mapping. Returns 0, -ENOENT when no file is mapped there, -ENOTTY where the
 * kernel has no such query (asked no more), or another negative errno. */
int proc_query_file(uint32_t pid, uint64_t addr, uint64_t *dev, uint64_t *ino);

struct proc_prune_stats {
	uint64_t procs; /* exited processes forgotten */
	uint64_t files; /* files released: no live process maps them */
};

/* For a long-running agent, after an export: forgets processes that no longer exist
 * and releases (file_entry__release) every open file no remaining process maps, so
 * descriptors and symbol tables do not pile up over days. Adds to *st. Whatever an
 * exited process left must already have been symbolized: its files are closed. */
void proc_table__prune(struct proc_table *t, struct proc_prune_stats *st);

/* Reads the executable mappings of a /proc/PID/maps text from fp into a malloc'd array
 * (*out, *count entries, in the file's order), interning their files in t's file table.
 * Lines that are not mappings are skipped. Returns 0 or -ENOMEM; exposed for tests. */
int proc_table__parse_maps(struct proc_table *t, FILE *fp, struct proc_mapping **out,
			   uint32_t *count);

/* Parses one /proc/PID/maps line; exposed for tests. Returns true for an executable
 * mapping and fills the fields (path points into line). */
bool maps_parse_line(char *line, uint64_t *start, uint64_t *end, uint64_t *pgoff, uint64_t *dev,
		     uint64_t *ino, char **path);

#endif
