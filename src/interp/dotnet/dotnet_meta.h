/* SPDX-License-Identifier: Apache-2.0 */
/* What ebprof reads of a CoreCLR runtime and process without trusting it: the runtime's
 * version (the folder libcoreclr.so lies in, the version string the library embeds), its
 * DAC table (g_dacTable: the offsets of the runtime's globals, which the runtime fills at
 * start-up for debuggers), and which of a process's executable mappings hold managed code.
 * Pure functions over bytes and a memory reader, so they are fuzzed (tests/fuzz). */
#ifndef EBPROF_DOTNET_META_H
#define EBPROF_DOTNET_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "interp/dotnet/dotnet_proc.h"

struct dn_version {
	uint32_t v[3];	 /* major, minor, patch: 8.0.4; 0.0.0 unknown */
	char build[32];	 /* the file version the library embeds: "8.0.424.16909", or "" */
	char commit[48]; /* the runtime's commit, or "" */
};

/* The version in a path ".../Microsoft.NETCore.App/8.0.4/libcoreclr.so" (the name of the
 * folder holding the file, as every framework install lays it out). False when that
 * folder's name is not N.N.N (a self-contained app keeps the runtime beside itself). */
bool dn_version__from_path(const char *path, struct dn_version *out);
/* The version string CoreCLR embeds ("@(#)Version 8.0.424.16909 @Commit: 2d7e..."),
 * searched in data[0, len) (the file's .data). Fills out->build and out->commit, and
 * out->v when the path gave none (the file version's first two numbers). False when the
 * string is absent. */
bool dn_version__from_data(const void *data, size_t len, struct dn_version *out);

/* Reads len bytes at addr of the process: 0 or -errno. */
typedef int (*dn_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* The DAC table's first entries: the execution manager's globals, in the order of the
 * runtime's dacvars.h (.NET 8: g_codeRangeMap, m_pDefaultCodeMan, m_dwReaderCount,
 * m_dwWriterLock, m_pEEJitManager, m_pReadyToRunJitManager, hlpFuncTable,
 * hlpDynamicFuncTable); struct dn_layout says which is which. */
#define DN_DAC_ENTRIES 8

/* Reads the DAC table at table (its address in the process) of a libcoreclr.so loaded at
 * base whose image spans span bytes: the address of each of its first DN_DAC_ENTRIES
 * globals into out. An entry is a word, the global's address (.NET 8) or its offset from
 * base. Returns 0; -EAGAIN when the table is still zero (the runtime has not started);
 * -EINVAL when an entry lies outside the image (not a DAC table ebprof understands); or
 * the reader's -errno. */
int dn_dac__read(dn_read_fn read, void *ctx, uint64_t table, uint64_t base, uint64_t span,
		 uint64_t out[DN_DAC_ENTRIES]);

/* What one executable mapping of a CoreCLR process is to the walker. */
enum dn_map_kind {
	DN_MAP_NATIVE = 0, /* not managed code: a run of managed ranges ends at it */
	DN_MAP_MANAGED,	   /* the JIT's executable view, a ready-to-run image */
};

struct dn_map {
	uint64_t start, end;
	uint8_t kind; /* enum dn_map_kind */
};

/* The managed ranges of a process from its executable mappings (sorted by start, n of
 * them): each run of managed mappings with no native mapping between them is one range,
 * at most max. Returns how many ranges were written; *dropped gets how many managed
 * mappings did not fit (their code is then walked as native code). */
uint32_t dn_ranges__build(const struct dn_map *maps, uint32_t n, struct dn_range *out, uint32_t max,
			  uint32_t *dropped);

#endif
