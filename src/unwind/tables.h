/* SPDX-License-Identifier: Apache-2.0 */
/* The pool of compiled unwind tables in BPF maps: one table per file, built on first
 * use, shared by every process that maps the file, reference-counted by them, and
 * evicted (least recently released first) when the memory budget needs the room. */
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
};

struct table_pool_stats {
	uint64_t built, failed, evicted, no_room;
	uint64_t cancelled; /* builds abandoned because the caller stopped */
	uint64_t expired;   /* evicted after TABLE_POOL_IDLE_S unused, not for room */
	uint64_t go_tables; /* tables with rows from a Go pclntab */
	uint64_t rows_used, rows_max;
	uint64_t chunks, chunks_peak, chunk_bytes; /* chunks allocated now, at most; bytes each */
	uint64_t build_ns;
};

struct table_pool;

/* chunks_fd: the unwind_rows array of nchunks maps, each to hold 1 << chunk_shift rows;
 * tables_fd: unwind_tables of max_tables entries. Returns NULL with errno set. */
struct table_pool *table_pool__new(int chunks_fd, uint32_t nchunks, uint32_t chunk_shift,
				   int tables_fd, uint32_t max_tables);
void table_pool__free(struct table_pool *p);
/* Returns f's table with one more reference, building and uploading it on first use
 * (slow: call it off the sample path). Never NULL: a table that could not be built has
 * id 0 and err set, and the unwinder falls back to frame pointers for it. cancel (may be
 * NULL) is the caller's stop flag (util/cancel.h): once set, a build in progress is
 * abandoned before any of it reaches the pool, and the table has id 0 and err 0 (a later
 * acquire builds it). */
struct table_entry *table_pool__acquire(struct table_pool *p, struct file_entry *f,
					const bool *cancel);
/* The same from the file already open as e (NULL: open f->fd), which is not freed. */
struct table_entry *table_pool__acquire_elf(struct table_pool *p, struct file_entry *f,
					    const struct elf_file *e, const bool *cancel);
void table_pool__release(struct table_pool *p, struct table_entry *t);
/* A table no process has used for this long is evicted (the tracker asks): kernel memory
 * follows the tables in use, and a program run again and again (a compiler in a build)
 * keeps its table. */
#define TABLE_POOL_IDLE_S 30
/* Evicts the tables no process has used for idle_ns before now (CLOCK_MONOTONIC ns). */
void table_pool__expire(struct table_pool *p, uint64_t now, uint64_t idle_ns);
/* ELF virtual address bias of a mapping: vaddr = pc - bias. Returns false when no
 * segment of the file covers pgoff. */
bool table_entry__vaddr_bias(const struct table_entry *t, uint64_t start, uint64_t pgoff,
			     uint64_t *bias);
void table_pool__stats(const struct table_pool *p, struct table_pool_stats *out);

#endif
