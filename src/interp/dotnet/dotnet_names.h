/* SPDX-License-Identifier: Apache-2.0 */
/* The name of a managed pc of one CoreCLR process: the method its code belongs to (the
 * code heaps, dotnet_code.h), named from its module's file (its metadata, dotnet_pe.h),
 * or a stub's kind. Module files are opened once per process (through /proc/PID/root,
 * found among the files it maps) and kept mapped while it lives. */
#ifndef EBPROF_DOTNET_NAMES_H
#define EBPROF_DOTNET_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "interp/dotnet/dotnet_code.h"

struct dn_names;

/* A namer for process pid whose JIT manager's pointer lies at jm_addr, read with layout
 * l (static). NULL on ENOMEM. */
struct dn_names *dn_names__new(uint32_t pid, const struct dn_layout *l, uint64_t jm_addr);
void dn_names__free(struct dn_names *n);

enum dn_name_kind {
	DN_NAME_NONE = 0, /* not in any code heap (a precode, a thunk) or unreadable */
	DN_NAME_METHOD,	  /* func: "Namespace.Type.Method/arity", file: its module's file */
	DN_NAME_STUB,	  /* func: the stub's kind */
};

/* What pc is: its name into func (cap bytes) and its module's file name (static to n, or
 * ""), and *start, *header (the code's start and header word: the caller's cache checks
 * the header again to see whether the code was replaced). Returns enum dn_name_kind. */
int dn_names__lookup(struct dn_names *n, uint64_t pc, char *func, size_t cap, const char **file,
		     uint64_t *start, uint64_t *header);

#endif
