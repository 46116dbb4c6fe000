/* SPDX-License-Identifier: Apache-2.0 */
/* Measured verification cost per BPF program (instructions the verifier processed),
 * kept between runs so the loader can start the most expensive programs first. A
 * missing or damaged file only costs ordering. */
#ifndef EBPROF_LOAD_COSTS_H
#define EBPROF_LOAD_COSTS_H

#include <stddef.h>
#include <stdint.h>

struct load_cost {
	char *name;
	uint64_t cost;
};

struct load_costs {
	struct load_cost *v;
	size_t n;
};

/* Reads path ("name cost" lines); a missing or unreadable file gives an empty set. */
void load_costs__read(struct load_costs *c, const char *path);
void load_costs__free(struct load_costs *c);
/* Returns the cost recorded for name, 0 if none. */
uint64_t load_costs__get(const struct load_costs *c, const char *name);
int load_costs__set(struct load_costs *c, const char *name, uint64_t cost);
/* Writes atomically (path.tmp, rename), creating the directory. Returns 0 or -errno. */
int load_costs__write(const struct load_costs *c, const char *path);

#endif
