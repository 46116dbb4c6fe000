/* SPDX-License-Identifier: Apache-2.0 */
/* The pool of compiled unwind tables in BPF maps: one table per file, built on first
 * use, shared by every process that maps the file (the walker finds it by the file's
 * identity, file_tables), and evicted, least recently used first (by a description or
 * by the walker), when the memory budget needs the room. */
#ifndef EBPROF_TABLES_H
#define EBPROF_TABLES_H

#include <stdbool.h>
#include <stdint.h>

#include "elf/elf_file.h"
#include "proc/files.h"
#include "unwind.h"

#define TABLE_MAX_SEGMENTS 8

struct table_entry {
	uint32_t file_id;
	uint32_t id;	/* index in unwind_tables; 0 while unusable */
	uint32_t first; /* rows in the pool */
	uint32_t count;
	uint32_t refs;	   /* processes whose description uses the table */
	int err;	   /* why the table could not be built, 0 if it was */
	uint64_t released; /* when refs last dropped to 0 (eviction order) */
	uint32_t nsegs;
	struct elf_segment segs[TABLE_MAX_SEGMENTS]; /* executable ones */
	/* What the walker finds of the file in file_tables, by the kernel's identity of it:
	 * its id, its table, why there is none, and the runtimes that claim it. */
	struct unw_file_key key;
	/* The kernel's identity of the file when it is not the one /proc/PID/maps gives (a
	 * file on overlayfs from Linux 6.8 on: the VMA holds the layer's file, the maps say
	 * the overlay's): the entry goes under both. */
	struct unw_file_key alias;
	bool aliased;
	uint32_t runtimes;
	uint8_t state;	    /* enum unw_file_state */
	bool published;	    /* in file_tables */
	uint32_t need;	    /* pool rows it takes, or took when it last did not fit */
	uint64_t failed_at; /* when it last did not fit */
};

struct table_pool_stats {
	uint64_t built, failed, evicted, no_room;
	uint64_t cancelled;  /* builds abandoned because the caller stopped */
	uint64_t expired;    /* evicted after TABLE_POOL_IDLE_S unused, not for room */
	uint64_t go_tables;  /* tables with rows from a Go pclntab */
	uint64_t compact;    /* tables in compact rows (half the memory) */
	uint64_t files;	     /* files the walker finds in file_tables */
	uint64_t files_full; /* files that did not fit file_tables */
	uint64_t aliases;    /* files the kernel knows by another identity (table_pool__alias) */
	uint64_t rows_used, rows_max;
	uint64_t chunks, chunks_peak, chunk_bytes; /* chunks allocated now, at most; bytes each */
	uint64_t build_ns;
};

/* The maps the pool fills (bpf/sample.bpf.c). */
struct table_pool_maps {
	int chunks_fd; /* unwind_rows: the array of nchunks maps of 1 << chunk_shift rows */
	uint32_t nchunks, chunk_shift;
	int tables_fd; /* unwind_tables, of max_tables entries */
	uint32_t max_tables;
	int files_fd; /* file_tables */
	int used_fd;  /* table_used, of max_tables entries (mapped read-only) */
};

struct table_pool;

/* Returns NULL with errno set. */
struct table_pool *table_pool__new(const struct table_pool_maps *maps);
void table_pool__free(struct table_pool *p);
/* Returns f's table with one more reference, building and uploading it on first use
 * (slow: call it off the sample path), and makes sure the walker finds the file in
 * file_tables with it, claimed by runtimes (1 << enum walker). Never NULL: a table that
 * could not be built has id 0 and err set, and the unwinder falls back to frame pointers
 * for it. A file not open (f->fd < 0) gets no table and no error: the next acquire
 * tries again. cancel (may be NULL) is the caller's stop flag (util/cancel.h): once
 * set, a build in progress is abandoned before any of it reaches the pool, and the
 * table has id 0 and err 0 (a later acquire builds it). */
struct table_entry *table_pool__acquire(struct table_pool *p, struct file_entry *f,
					uint32_t runtimes, const bool *cancel);
/* The same from the file already open as e (NULL: open f->fd), which is not freed. */
struct table_entry *table_pool__acquire_elf(struct table_pool *p, struct file_entry *f,
					    const struct elf_file *e, uint32_t runtimes,
					    const bool *cancel);
/* t with one more reference, as it stands (nothing built); t may be NULL. Returns t. */
struct table_entry *table_pool__hold(struct table_pool *p, struct table_entry *t);
/* The table of file_id as it stands, NULL when no acquire ever asked for it. */
struct table_entry *table_pool__find(struct table_pool *p, uint32_t file_id);
/* The walker met file f under key, another identity than the one /proc/PID/maps gave:
 * f's entry in file_tables goes under key too, now and whenever it changes. */
void table_pool__alias(struct table_pool *p, const struct file_entry *f,
		       const struct unw_file_key *key);
/* The file whose entry is in file_tables under key as its alias; 0 when none is. */
uint32_t table_pool__aliased(struct table_pool *p, const struct unw_file_key *key);
/* Whether an acquire of t would do anything: build it (never built, evicted, dropped
 * unused, or it did not fit and TABLE_POOL_RETRY_S passed), or publish it. */
bool table_pool__wants(struct table_pool *p, const struct table_entry *t, uint64_t now);
void table_pool__release(struct table_pool *p, struct table_entry *t);
/* A table neither a description nor the walker has used for this long is evicted (the
 * tracker asks): kernel memory follows the tables in use, and a program run again and
 * again (a compiler in a build) keeps its table. */
#define TABLE_POOL_IDLE_S 30
/* For room, only tables unused this long are evicted: one the walker uses now would be
 * asked for again at once, and two large tables would take turns being built. */
#define TABLE_POOL_BUSY_S 2
/* A table that did not fit is tried again at most this often. */
#define TABLE_POOL_RETRY_S 5
/* Evicts the tables unused for idle_ns before now (CLOCK_MONOTONIC ns). */
void table_pool__expire(struct table_pool *p, uint64_t now, uint64_t idle_ns);
/* ELF virtual address bias of a mapping: vaddr = pc - bias. Returns false when no
 * segment of the file covers pgoff. */
bool table_entry__vaddr_bias(const struct table_entry *t, uint64_t start, uint64_t pgoff,
			     uint64_t *bias);
void table_pool__stats(struct table_pool *p, struct table_pool_stats *out);

#endif
