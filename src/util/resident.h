/* SPDX-License-Identifier: Apache-2.0 */
/* Which pages of this process's mappings of a file are resident, that is present in its
 * page tables and so counted in its RSS: how the pages of mapped debug sections are
 * measured (tests, bench/dwarf_cost, record -v). */
#ifndef EBPROF_UTIL_RESIDENT_H
#define EBPROF_UTIL_RESIDENT_H

#include <stdint.h>
#include <sys/types.h>

/* Called with the file offset of each resident page. */
typedef void (*resident_page_fn)(uint64_t file_off, void *arg);

/* Counts the resident pages of every mapping of the file dev/ino in this process (from
 * /proc/self/maps and /proc/self/pagemap; mincore cannot tell, it answers for the page
 * cache, which holds the file whether this process maps it or not), calling fn (may be
 * NULL) for each. Returns how many, or -errno. */
long resident__file_pages(dev_t dev, ino_t ino, resident_page_fn fn, void *arg);

/* Asks the kernel to reclaim the pages of this process's read-only mappings of files (its
 * binary, its libraries, files it maps to read), MADV_PAGEOUT: pages read once at start (the
 * BPF objects in the binary, the libraries' relocation and symbol tables, initialisers)
 * leave the resident set, and those used again fault back in from the page cache or the
 * file. Nothing is lost: writable mappings are left alone, a clean file page is the file's,
 * and the kernel skips pages other processes map too. Returns the pages that left the
 * resident set (counted in /proc/self/pagemap before and after), or -errno (-EINVAL: a
 * kernel before 5.4). */
long resident__page_out_files(void);

#endif
