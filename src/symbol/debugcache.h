/* SPDX-License-Identifier: Apache-2.0 */
/* The debug cache: inflated copies of ELF files whose DWARF sections are compressed, kept
 * on disk by build id, so that opening their DWARF neither inflates it again (zlib, tens
 * of ms) nor holds it in the heap: libdw reads the copy's sections as file pages, which
 * the kernel can reclaim and the reader can drop. */
#ifndef EBPROF_SYMBOL_DEBUGCACHE_H
#define EBPROF_SYMBOL_DEBUGCACHE_H

#include <stdint.h>

#define DEBUG_CACHE_DIR "/var/cache/ebprof/debug"
/* All copies together; past it, the ones used longest ago are removed. A file whose copy
 * would take more than a quarter of it is not copied (its DWARF is inflated as before). */
#define DEBUG_CACHE_BYTES (512ull << 20)

/* Returns a new read-only descriptor of the inflated copy of the ELF file open on fd (the
 * caller keeps fd and closes the one returned), making the copy in dir when it is missing.
 * The copy has the same sections, numbered and named as in the file, with its compressed
 * debug sections inflated; sections lines never read (dwarf_syms__section_unused) and
 * those outside the debug information hold no bytes. Returns -ENOENT when there is nothing
 * to copy (no compressed DWARF, no build id, not an executable or shared object), another
 * negative errno when the cache cannot serve (dir not ours or not writable, disk full, a
 * file too large or unreadable): either way the caller reads fd itself. */
int debug_cache__open(const char *dir, uint64_t max_bytes, int fd);

#endif
