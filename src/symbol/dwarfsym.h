/* SPDX-License-Identifier: Apache-2.0 */
/* DWARF lookup through libdw: an ELF virtual address -> the functions inlined at it,
 * innermost first, each with its source file and line. DWARF 4 and 5, split units,
 * compressed sections. Input files are treated as hostile; indexes are built lazily. */
#ifndef EBPROF_SYMBOL_DWARFSYM_H
#define EBPROF_SYMBOL_DWARFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DWARF_LINES_MAX 32 /* functions reported per address: deeper inlining is cut */
/* Bytes of the mapped debug sections walked between two drops of their pages, by
 * default (dwarf_syms__bound_mapped). */
#ifndef DWARF_MAPPED_KEEP /* -DDWARF_MAPPED_KEEP=0: a build that keeps them, to compare */
#define DWARF_MAPPED_KEEP (2u << 20)
#endif

struct dwarf_syms;

/* One function at an address: the innermost is where the address is, each outer one is
 * where the inner one was inlined (its call site). Strings are owned by the dwarf_syms
 * and valid until dwarf_syms__free; file is the path the line table gives, "" if none. */
struct dwarf_line {
	const char *function;
	const char *file;
	uint32_t line; /* 0 when unknown */
};

/* Opens the DWARF of the ELF file on fd (a binary or its separate debug file). Works on a
 * dup of fd that it keeps mapped; every read of the mapping is guarded (mapguard.h), so a
 * file truncated under it costs its answers, not ebprof. Returns NULL with errno set:
 * ENODATA when the file has no usable .debug_info, EINVAL when it is not ELF, EFBIG when
 * its compressed sections would inflate past INFLATE_RATIO_MAX times its size, EIO when
 * it shrank while being opened, ENOMEM. */
struct dwarf_syms *dwarf_syms__open(int fd);
void dwarf_syms__free(struct dwarf_syms *d);

/* Fills out[0..max) with the functions at ELF address va, innermost first; with inlines
 * false, only the outermost one (the function the address belongs to, at the line of the
 * call it was running). Returns how many lines, 0 when no function in the DWARF covers va.
 * Writes indexes and caches to d: callers serialise lookups on one object. */
int dwarf_syms__lookup(struct dwarf_syms *d, uint64_t va, bool inlines, struct dwarf_line *out,
		       int max);
/* Addresses [lo, hi) of one answer. */
struct dwarf_span {
	uint64_t lo, hi;
};

/* The same, and in *sp the addresses around va that get the same answer: va's line-table
 * row, inside the piece of the deepest scope covering va (its function, inlined call or
 * block) and outside that scope's inlined calls and blocks, within the function and unit
 * ranges that led there. A cache keyed by these spans answers every later address of the
 * row without libdw. [va, va + 1) (empty for UINT64_MAX) when the answer is none or a
 * walk was cut by a bound. The span is exact for DWARF whose scopes nest and whose
 * siblings do not overlap (what compilers write); for other input it still holds va. */
int dwarf_syms__lookup_span(struct dwarf_syms *d, uint64_t va, bool inlines, struct dwarf_line *out,
			    int max, struct dwarf_span *sp);
/* Whether a lookup found the file shrunk under the mapping: lookups then answer nothing,
 * and the owner frees d (the strings returned before stay valid until then). */
bool dwarf_syms__torn(const struct dwarf_syms *d);

/* Bytes held for d's indexes and name cache, plus libdw's line tables of the units used
 * (estimated per row) and the debug sections libdw inflated. What dwarf_syms__free gives
 * back. */
size_t dwarf_syms__memory(const struct dwarf_syms *d);
/* Of those, the debug sections libdw inflated in memory (compressed ones the debug
 * cache did not serve): what opening the file again would inflate again. */
size_t dwarf_syms__inflated(const struct dwarf_syms *d);
/* Of those, what the units looked up since opening hold (indexes, names, line tables):
 * what freeing and opening again would give back. */
size_t dwarf_syms__units_memory(const struct dwarf_syms *d);

/* Bounds what the units looked up hold: once they hold more than bytes, the next lookup
 * that needs a unit not indexed yet first drops every unit's holdings (libdw's line
 * tables included) and reads the unit headers again. Strings a lookup returned are then
 * valid only until the next lookup: for callers that copy them at once and look up in
 * address order (one unit after another). 0, the default, bounds nothing. */
void dwarf_syms__bound_units(struct dwarf_syms *d, size_t bytes);
/* Whether the debug section called name (.debug_X, .zdebug_X, their .dwo forms) is one
 * lines and inline chains never read: location lists, call frames, macros, name tables.
 * The reader hides them from libdw; the debug cache leaves them out of its copies. */
bool dwarf_syms__section_unused(const char *name);

/* How many times the bound dropped the units' holdings. */
uint32_t dwarf_syms__resets(const struct dwarf_syms *d);

/* Bounds the pages of the file's mapping that the reader keeps resident. libdw reads the
 * uncompressed debug sections straight from libelf's mapping of the file, so every page a
 * walk touches (indexing a unit, reading its line program, finding an inline chain) stays
 * in the resident set until the DWARF is freed. Each walk is charged its span of the
 * mapping; once the walks since the last drop were charged more than bytes, the next
 * lookup first drops the pages of those sections (madvise: they are read again from the
 * page cache when needed). Answers and the strings returned are not affected. 0 bounds
 * nothing; the default is DWARF_MAPPED_KEEP. */
void dwarf_syms__bound_mapped(struct dwarf_syms *d, size_t bytes);
/* How many times the pages of the mapping were dropped. */
uint32_t dwarf_syms__mapped_drops(const struct dwarf_syms *d);

#endif
