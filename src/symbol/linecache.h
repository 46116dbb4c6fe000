/* SPDX-License-Identifier: Apache-2.0 */
/* One file's named frames: file offset -> the lines DWARF gave for it (its inline chain,
 * innermost first), with every (function, source file) pair stored once. It outlives the
 * file's DWARF, so a report names a frame seen before without opening the DWARF again. */
#ifndef EBPROF_SYMBOL_LINECACHE_H
#define EBPROF_SYMBOL_LINECACHE_H

#include <stddef.h>
#include <stdint.h>

#include "symbol/dwarfsym.h"

struct line_cache;

/* Returns an empty cache, or NULL on ENOMEM. */
struct line_cache *line_cache__new(void);
void line_cache__free(struct line_cache *c);

/* Fills out with the lines cached for off, innermost first; the strings are the cache's,
 * valid until line_cache__free. Returns how many (0: DWARF had none for off, which is
 * cached too), -ENOENT when off was never put, or -ENOSPC when they are more than max (a
 * chain is not cut here: DWARF's lookup cuts it its own way, so callers ask for the most,
 * DWARF_LINES_MAX). */
int line_cache__get(const struct line_cache *c, uint64_t off, struct dwarf_line *out, int max);
/* Remembers the n lines of off (n 0: none, at most DWARF_LINES_MAX), copying what is new
 * of their strings. Returns 0, -EEXIST when off is cached already, -EINVAL for a bad n, or
 * -ENOMEM (then off is not added; names interned before the failure stay). */
int line_cache__put(struct line_cache *c, uint64_t off, const struct dwarf_line *lines, int n);

/* Bytes c holds: entries, names, and both indexes' slots. */
size_t line_cache__memory(const struct line_cache *c);
/* Offsets cached, and distinct (function, source file) pairs among their lines. */
size_t line_cache__frames(const struct line_cache *c);
size_t line_cache__names(const struct line_cache *c);

#endif
