/* SPDX-License-Identifier: Apache-2.0 */
/* Measured verification cost per BPF program (instructions the verifier processed),
 * kept between runs so the loader can start the most expensive programs first. A
 * missing, damaged or untrusted file only costs ordering: the file lives in a cache
 * (cache_dir.h) and is read only from a trusted one, bounded, without blocking. */
#ifndef EBPROF_LOAD_COSTS_H
#define EBPROF_LOAD_COSTS_H

#include <stddef.h>
#include <stdint.h>

/* A larger file is not one ebprof wrote: some 60 programs take 2 KiB. */
#define LOAD_COSTS_BYTES (64u << 10)
/* Programs kept: lookups are linear, and a file of junk names can cost no more than this. */
#define LOAD_COSTS_MAX 512
#define LOAD_COST_NAME_MAX 255 /* "object/program": longer names are not ours */

struct load_cost {
	char *name;
	uint64_t cost;
};

struct load_costs {
	struct load_cost *v;
	size_t n;
};

/* Reads path ("name cost" lines) when every directory from the cache root down to it and
 * the file itself are ours alone (cache_dir.h), the file regular and at most
 * LOAD_COSTS_BYTES: otherwise, or when it is missing, the set is empty, and a refusal is
 * said once. */
void load_costs__read(struct load_costs *c, const char *path);
/* Parses text (len bytes, "name cost" lines) into the empty set c: lines that are not a
 * name of printable characters, a space and a cost in decimal are skipped, as are names
 * past LOAD_COSTS_MAX; a name given twice keeps its last cost. Returns 0 or -ENOMEM. */
int load_costs__parse(struct load_costs *c, const char *text, size_t len);
void load_costs__free(struct load_costs *c);
/* Returns the cost recorded for name, 0 if none. */
uint64_t load_costs__get(const struct load_costs *c, const char *name);
/* Records name's cost. Returns 0, -ENOSPC when LOAD_COSTS_MAX names are known already,
 * -EINVAL for a name longer than LOAD_COST_NAME_MAX, or -ENOMEM. */
int load_costs__set(struct load_costs *c, const char *name, uint64_t cost);
/* Writes atomically (a temporary file, renamed) into a trusted cache directory, made if
 * need be. Returns 0 or -errno (-EPERM: a directory on the way is not trusted). */
int load_costs__write(const struct load_costs *c, const char *path);

#endif
