/* SPDX-License-Identifier: Apache-2.0 */
/* The registry of executable files seen in any process: each distinct file (device and
 * inode) gets a small id once, and an open descriptor the first time a sample lands in
 * it, so symbolization still works after every process mapping it has exited. */
#ifndef EBPROF_FILES_H
#define EBPROF_FILES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/hmap.h"

struct elf_syms;
struct dwarf_syms;
struct go_table;
struct line_cache;

struct file_entry {
	uint32_t id; /* 1-based; 0 means "no file" */
	uint64_t dev;
	uint64_t ino;
	char *path;	       /* as the first process to map it named it */
	int fd;		       /* -1 until opened */
	int open_err;	       /* errno of a failed open, so it is not retried per sample */
	struct elf_syms *syms; /* parsed lazily by the symbolizer */
	/* How syms is freed, set by whoever attaches it: the registry sits below the
	 * symbolizer and does not know what it holds. */
	void (*syms_free)(struct elf_syms *syms);
	int syms_err;
	uint8_t unmapped_prunes;  /* prunes in a row that found no process mapping it */
	struct dwarf_syms *dwarf; /* its DWARF (own or a debug file's), opened lazily */
	void (*dwarf_free)(struct dwarf_syms *dwarf); /* as syms_free */
	int dwarf_err;		  /* why there is none, so it is not retried per frame */
	uint8_t debug_state;	  /* the symbolizer's: where its debug file came from */
	bool dwarf_missed;	  /* the symbolizer's: the current report named a frame from it */
	uint8_t dwarf_idle;	  /* the symbolizer's: reports in a row that did not need it */
	struct line_cache *lines; /* the symbolizer's: frames DWARF named, kept past the DWARF */
	void (*lines_free)(struct line_cache *lines); /* as syms_free */
	struct go_table *go;		      /* Go's pclntab, read lazily; NULL for other files */
	void (*go_free)(struct go_table *go); /* as syms_free */
	int go_err;			      /* why there is none (ENOENT: not Go) */
};

struct file_table {
	struct hmap by_key;
	struct file_entry **by_id; /* by_id[id - 1] */
	uint32_t count;
	uint32_t cap;
	uint32_t open_failures;
};

void file_table__init(struct file_table *t);
void file_table__free(struct file_table *t);
/* Returns the entry for (dev, ino), adding it with path when new; NULL on ENOMEM. */
struct file_entry *file_table__intern(struct file_table *t, uint64_t dev, uint64_t ino,
				      const char *path);
struct file_entry *file_table__get(const struct file_table *t, uint32_t id);
/* The entry for (dev, ino), NULL when there is none. */
struct file_entry *file_table__find(const struct file_table *t, uint64_t dev, uint64_t ino);
/* Opens the file if not yet open, through /proc/PID/map_files (works for deleted files
 * and other mount namespaces), else /proc/PID/root/PATH. Returns 0 or negative errno. */
int file_entry__open(struct file_entry *f, pid_t pid, uint64_t start, uint64_t end);
/* Closes the descriptor and drops the parsed symbols, DWARF and named frames of a file no
 * live process maps; the id stays, and the next process to map the file opens it again. */
void file_entry__release(struct file_entry *f);

#endif
