/* SPDX-License-Identifier: Apache-2.0 */
/* Names for frames: kernel addresses through kallsyms, (file, offset) through the file's
 * ELF symbols and DWARF (inline chains, source lines), from the file itself or its
 * separate debug file: local (build id, .gnu_debuglink) or fetched through debuginfod.
 * Each file is parsed once, on the first frame that needs it. */
#ifndef EBPROF_SYMBOLIZER_H
#define EBPROF_SYMBOLIZER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "proc/files.h"
#include "symbol/dwarfsym.h"
#include "symbol/ksyms.h"

#define SYMBOLIZER_DWARF_MEMORY (128ull << 20) /* default bound of all DWARF indexes */
#define SYMBOLIZER_UNITS_KEEP (4u << 20)       /* per file with release_dwarf: dwarfsym.h */
#define SYMBOLIZER_LINES_MEMORY (8ull << 20)   /* default bound of all named-frame caches */
#define SYMBOLIZER_FILE_MAX (16ull << 30)      /* a larger debug file is not one */

struct debuginfod;

struct symbolizer {
	struct file_table *files;
	const struct ksyms *ksyms;     /* NULL when kallsyms was unreadable */
	const char *debug_root;	       /* normally "/usr/lib/debug" */
	uint32_t elf_failures;	       /* files we could not parse */
	bool lines;		       /* read DWARF for source lines (--no-lines: false) */
	bool inlines;		       /* and inlined functions (--no-inline: false) */
	struct debuginfod *debuginfod; /* fetches missing debug files; NULL when off */
	/* Where inflated copies of compressed debug files are kept (debugcache.h; NULL: none,
	 * the default here; the commands set DEBUG_CACHE_DIR), and their bound in bytes. */
	const char *debug_cache;
	uint64_t debug_cache_bytes;
	uint32_t dwarf_cached;	  /* opens of a file's DWARF the debug cache served */
	uint64_t dwarf_budget;	  /* bytes for every file's DWARF indexes together */
	uint32_t dwarf_evictions; /* files whose DWARF was dropped to stay in budget */
	/* Lookups in address order, strings copied at once (the reports): each file opened
	 * keeps its units' holdings to about units_keep bytes (0: unbounded; dwarfsym.h), and
	 * with release_dwarf its DWARF is freed when dwarf_idle_max says (the frames named
	 * stay in the file's line cache, file_entry.lines, so only new ones open it again). */
	size_t units_keep;
	bool release_dwarf;
	/* With release_dwarf: 0 frees a file's DWARF once its frames are named (record: one
	 * report); N keeps it until N reports in a row asked it nothing new (the agent: a
	 * busy function keeps producing new addresses, and opening libc's debug file again
	 * costs 55-75 ms of inflating), then frees it. */
	uint8_t dwarf_idle_max;
	/* With dwarf_idle_max: only a file whose DWARF libdw inflated in memory is kept (the
	 * agent: opening it again inflates again); one read from its mapping or from the debug
	 * cache's copy is freed once named, as with 0 (opening it again reads unit headers). */
	bool dwarf_keep_inflated;
	uint32_t dwarf_opened;	 /* times this symbolizer opened a file's DWARF */
	uint32_t dwarf_torn;	 /* files that shrank under their mapped DWARF (mapguard.h) */
	uint32_t dwarf_released; /* times symbolizer__file_named freed one */
	uint32_t dwarf_kept;	 /* times it kept one for the next report (dwarf_idle_max) */
	uint32_t dwarf_resets;	 /* times a file's units were dropped to stay small */
	uint64_t dwarf_peak;	 /* the most all DWARF indexes held at once */
	uint64_t lines_budget;	 /* bytes for every file's line cache together */
	uint64_t lines_hits;	 /* lookups the line caches answered */
	uint64_t lines_misses;	 /* lookups that asked DWARF (and were cached) */
	uint32_t lines_dropped;	 /* line caches dropped whole to stay in lines_budget */
};

void symbolizer__init(struct symbolizer *s, struct file_table *files, const struct ksyms *k);
/* Returns the function name, or NULL when the address has no symbol. The pointer lives
 * as long as the file table / ksyms. */
const char *symbolizer__kernel(struct symbolizer *s, uint64_t addr);
const char *symbolizer__native(struct symbolizer *s, uint32_t file_id, uint64_t off);
/* Fills out with the functions at file offset off, innermost first (dwarfsym.h), when
 * lines are on and the file or its debug file has DWARF. Returns how many, 0 for none.
 * The answer is kept in the file's line cache for every address it holds for (its span,
 * dwarfsym.h), so asking again, or about another address of the same line-table row and
 * inline scope, needs no DWARF; max below DWARF_LINES_MAX bypasses the cache. Strings live until the next lookup or
 * symbolizer__file_named: copy them. */
int symbolizer__native_lines(struct symbolizer *s, uint32_t file_id, uint64_t off,
			     struct dwarf_line *out, int max);
/* The caller has looked up every frame of file_id it will name (the reports name one
 * file's frames after another): with release_dwarf, the file's DWARF is freed now, not
 * at exit (a lookup of a frame not cached opens it again), unless dwarf_idle_max keeps
 * it; and past lines_budget, line caches are dropped whole, the largest first, until all
 * fit. */
void symbolizer__file_named(struct symbolizer *s, uint32_t file_id);
/* The report has named all its frames: with release_dwarf and dwarf_idle_max, frees the
 * DWARF of files that many reports in a row did not need. */
void symbolizer__report_done(struct symbolizer *s);
/* Returns the file's GNU build id in hex, "" when it has none or cannot be read. */
const char *symbolizer__build_id(struct symbolizer *s, uint32_t file_id);
/* Asks debuginfod for the debug file of every opened file that has no DWARF, without
 * waiting; the next lookups use what has arrived. No-op when debuginfod is off. */
void symbolizer__prefetch(struct symbolizer *s);

/* What the DWARF indexes of all files hold now, and over how many files. */
uint64_t symbolizer__dwarf_memory(const struct symbolizer *s, uint32_t *nfiles);
/* What the line caches of all files hold now, over how many files and address ranges. */
uint64_t symbolizer__lines_memory(const struct symbolizer *s, uint32_t *nfiles, uint64_t *nframes);

/* Prints to out, in a summary's style, what the bounds on hostile files refused (inflate
 * ratio, files shrunk under their mapping: util/inflate_limit.h, util/mapguard.h): nothing
 * when nothing was. */
void symbolizer__print_refused(const struct symbolizer *s, FILE *out);

#endif
