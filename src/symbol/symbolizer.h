/* SPDX-License-Identifier: Apache-2.0 */
/* Names for frames: kernel addresses through kallsyms, (file, offset) through the file's
 * ELF symbols and DWARF (inline chains, source lines), from the file itself or its
 * separate debug file: local (build id, .gnu_debuglink) or fetched through debuginfod.
 * Each file is parsed once, on the first frame that needs it. */
#ifndef EBPROF_SYMBOLIZER_H
#define EBPROF_SYMBOLIZER_H

#include <stdbool.h>
#include <stdint.h>

#include "proc/files.h"
#include "symbol/dwarfsym.h"
#include "symbol/ksyms.h"

#define SYMBOLIZER_DWARF_MEMORY (128ull << 20) /* default bound of all DWARF indexes */
#define SYMBOLIZER_UNITS_KEEP (4u << 20)       /* per file with release_dwarf: dwarfsym.h */

struct debuginfod;
struct runtime_set;

struct symbolizer {
	struct file_table *files;
	const struct ksyms *ksyms;	    /* NULL when kallsyms was unreadable */
	const char *debug_root;		    /* normally "/usr/lib/debug" */
	uint32_t elf_failures;		    /* files we could not parse */
	const struct runtime_set *runtimes; /* names of runtimes' frames; NULL: unnamed */
	bool lines;			    /* read DWARF for source lines (--no-lines: false) */
	bool inlines;			    /* and inlined functions (--no-inline: false) */
	struct debuginfod *debuginfod;	    /* fetches missing debug files; NULL when off */
	uint64_t dwarf_budget;		    /* bytes for every file's DWARF indexes together */
	uint32_t dwarf_evictions;	    /* files whose DWARF was dropped to stay in budget */
	/* Lookups in address order, strings copied at once (the reports): each file opened
	 * keeps its units' holdings to about units_keep bytes (0: unbounded; dwarfsym.h), and
	 * with release_dwarf (record: one report) its DWARF is freed once named. */
	size_t units_keep;
	bool release_dwarf;
	uint32_t dwarf_opened;	 /* times this symbolizer opened a file's DWARF */
	uint32_t dwarf_released; /* times symbolizer__file_named freed one */
	uint32_t dwarf_resets;	 /* times a file's units were dropped to stay small */
	uint64_t dwarf_peak;	 /* the most all DWARF indexes held at once */
};

void symbolizer__init(struct symbolizer *s, struct file_table *files, const struct ksyms *k);
/* Returns the function name, or NULL when the address has no symbol. The pointer lives
 * as long as the file table / ksyms. */
const char *symbolizer__kernel(struct symbolizer *s, uint64_t addr);
const char *symbolizer__native(struct symbolizer *s, uint32_t file_id, uint64_t off);
/* Fills out with the functions at file offset off, innermost first (dwarfsym.h), when
 * lines are on and the file or its debug file has DWARF. Returns how many, 0 for none.
 * Strings live until the file's DWARF is freed (file release, or the budget); with
 * units_keep, only until the next lookup. */
int symbolizer__native_lines(struct symbolizer *s, uint32_t file_id, uint64_t off,
			     struct dwarf_line *out, int max);
/* The caller has looked up every frame of file_id it will name (record's report names
 * one file's frames after another): with release_dwarf, the file's DWARF is freed now,
 * not at exit. A later lookup opens it again. */
void symbolizer__file_named(struct symbolizer *s, uint32_t file_id);
/* After a report (the agent's, one per interval): frees the DWARF of files it has not
 * named a frame of in the last max_idle reports. Returns how many it freed. */
uint32_t symbolizer__drop_idle_dwarf(struct symbolizer *s, uint8_t max_idle);
/* Returns the file's GNU build id in hex, "" when it has none or cannot be read. */
const char *symbolizer__build_id(struct symbolizer *s, uint32_t file_id);
/* Asks debuginfod for the debug file of every opened file that has no DWARF, without
 * waiting; the next lookups use what has arrived. No-op when debuginfod is off. */
void symbolizer__prefetch(struct symbolizer *s);

/* What the DWARF indexes of all files hold now, and over how many files. */
uint64_t symbolizer__dwarf_memory(const struct symbolizer *s, uint32_t *nfiles);

#endif
