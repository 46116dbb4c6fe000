/* SPDX-License-Identifier: Apache-2.0 */
/* An assembly's metadata (ECMA-335 partition II) read from its file: the PE headers, the
 * CLI header, the metadata root, its #~ tables and #Strings heap, enough to name a
 * method by its MethodDef token: "Namespace.Type+Nested.Method/arity". The file is not
 * trusted: every offset is checked against its size, every count bounded. */
#ifndef EBPROF_DOTNET_PE_H
#define EBPROF_DOTNET_PE_H

#include <stddef.h>
#include <stdint.h>

#define DN_PE_TABLES 64

/* A view of one file's metadata; the bytes stay the caller's. */
struct dn_pe {
	const uint8_t *data;
	size_t size;
	const uint8_t *strings; /* the #Strings heap */
	uint32_t nstrings;
	const uint8_t *blobs; /* the #Blob heap */
	uint32_t nblobs;
	uint32_t rows[DN_PE_TABLES];
	const uint8_t *table[DN_PE_TABLES]; /* each present table's first row */
	uint8_t row_size[DN_PE_TABLES];
	uint8_t str_idx, blob_idx; /* heap index sizes, 2 or 4 */
};

/* Maps the file at path read-only, whole, when it is at most max bytes: the mapping
 * (*size bytes, the caller munmaps it), or NULL. */
void *dn_pe__map(const char *path, size_t max, size_t *size);

/* Reads the metadata of a PE file of size bytes. Returns 0, or -EINVAL when it is not a
 * managed PE image this reader understands (a native PE, a truncated file). */
int dn_pe__open(struct dn_pe *pe, const uint8_t *data, size_t size);
/* The name of MethodDef rid (the token's low 24 bits) into out (cap bytes, truncated,
 * always terminated): its type's namespace and name, the enclosing types' names
 * (joined by '+'), the method's name and its parameter count. Returns 0, or -ENOENT
 * (no such method, or its names unreadable). */
int dn_pe__method_name(const struct dn_pe *pe, uint32_t rid, char *out, size_t cap);

/* A ready-to-run image's compiled methods (its READYTORUN_HEADER, found through the CLI
 * header's ManagedNativeHeader): the runtime functions (code ranges, sorted) and, for each
 * one that starts a method, the method's MethodDef rid. */
struct dn_r2r {
	const uint8_t *funcs; /* RUNTIME_FUNCTION entries: begin, end, unwind (RVAs) */
	uint32_t nfuncs;
	uint32_t *rid_of; /* per runtime function: the method it starts, or 0 */
};

/* Reads pe's ready-to-run sections into r. Returns 0; -ENOENT (not a ready-to-run image),
 * -EINVAL (its sections are not what this reader understands), -ENOMEM. */
int dn_r2r__open(const struct dn_pe *pe, struct dn_r2r *r);
void dn_r2r__free(struct dn_r2r *r);
/* The MethodDef rid of the method whose compiled code holds file offset off (its body
 * or a funclet after it), or 0: not compiled code, or a generic instantiation's (those
 * are in another table, not read). */
uint32_t dn_r2r__method(const struct dn_pe *pe, const struct dn_r2r *r, uint64_t off);

#endif
