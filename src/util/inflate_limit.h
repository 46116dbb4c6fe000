/* SPDX-License-Identifier: Apache-2.0 */
/* The bound on what ebprof inflates from another user's file (compressed debug sections,
 * the debug cache's copies): besides the callers' bounds in bytes, at most
 * INFLATE_RATIO_MAX times the file's own size, so that a small file cannot make root
 * inflate, hold or write gigabytes. Each refusal is counted, for the summaries. */
#ifndef EBPROF_UTIL_INFLATE_LIMIT_H
#define EBPROF_UTIL_INFLATE_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

/* Times the file's size. 273 Debian debug files with compressed DWARF (bookworm): at most
 * 13 times their size in all, 83 times one section's compressed bytes; zlib itself stops
 * near 1032 per section, so only sections sharing their bytes (one compressed run under
 * many section headers) get near the bound. */
#define INFLATE_RATIO_MAX 64

/* Whether inflating (or writing) total bytes from a file of file_bytes may go ahead;
 * counts a refusal when not. */
bool inflate_limit__allow(uint64_t file_bytes, uint64_t total);

/* Refusals since the process started, by every thread. */
uint64_t inflate_limit__refused(void);

#endif
