/* SPDX-License-Identifier: Apache-2.0 */
/* One file's named frames: an ELF address range -> the lines DWARF gave for it (its
 * inline chain, innermost first; one answer holds for a whole line-table row of one
 * inline scope), with every (function, source file) pair stored once. It outlives the
 * file's DWARF, so a report names a frame in a range seen before without opening the
 * DWARF again. */
#ifndef EBPROF_SYMBOL_LINECACHE_H
#define EBPROF_SYMBOL_LINECACHE_H

#include <stddef.h>
#include <stdint.h>

#include "symbol/dwarfsym.h"

struct line_cache;

/* Returns an empty cache, or NULL on ENOMEM. */
struct line_cache *line_cache__new(void);
void line_cache__free(struct line_cache *c);

/* Fills out with the lines cached for the range holding addr, innermost first; the
 * strings are the cache's, valid until line_cache__free. Returns how many (0: DWARF had
 * none, which is cached too), -ENOENT when no range put holds addr, or -ENOSPC when they
 * are more than max (a chain is not cut here: DWARF's lookup cuts it its own way, so
 * callers ask for the most, DWARF_LINES_MAX). */
int line_cache__get(const struct line_cache *c, uint64_t addr, struct dwarf_line *out, int max);
/* Remembers the n lines (n 0: none, at most DWARF_LINES_MAX) that DWARF gave for addr as
 * the answer for [lo, hi) (dwarf_syms__lookup_span's span; [addr, addr + 1) for addr
 * alone), cut to the gap between the ranges cached around addr; copies what is new of
 * their strings. Returns 0, -EEXIST when a range holds addr already, -EINVAL for a bad n
 * or a range without addr, or -ENOMEM (then nothing is added; names interned before the
 * failure stay). */
int line_cache__put(struct line_cache *c, uint64_t addr, uint64_t lo, uint64_t hi,
		    const struct dwarf_line *lines, int n);

/* Bytes c holds: entries, names, the range array and the names' index. */
size_t line_cache__memory(const struct line_cache *c);
/* Ranges cached, and distinct (function, source file) pairs among their lines. */
size_t line_cache__frames(const struct line_cache *c);
size_t line_cache__names(const struct line_cache *c);

#endif
