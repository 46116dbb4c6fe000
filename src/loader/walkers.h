/* SPDX-License-Identifier: Apache-2.0 */
/* The userspace half of the walker chain (bpf/chain.h): which entry program types a
 * session loads, enabling a walker's program for each of them before load, and putting
 * the loaded programs in their types' program arrays after it. */
#ifndef EBPROF_LOADER_WALKERS_H
#define EBPROF_LOADER_WALKERS_H

#include <stdint.h>

struct bpf_object;
struct loader;

/* Bit 1 << enum chain_type for each entry type loaded. */
typedef uint32_t chain_types;

/* Turns autoload on for walker's program of every type in types (walker "native_walk"
 * names the programs native_walk_perf, _uprobe, _tp, _rawtp; without bpf_loop,
 * native_walk_unrolled_perf, ...). Returns 0 or -errno: -ENOTSUP when the walker has
 * no variant for a kernel without bpf_loop. */
int walkers__enable(struct bpf_object *obj, const char *walker, chain_types types);
/* Defers the enabled walker's programs of types (loader__defer_program). */
int walkers__defer(struct loader *l, const struct bpf_object *obj, const char *walker,
		   chain_types types);
/* After loader__run: puts walker's loaded programs (of owner obj) in slot (enum walker)
 * of each type's program array. Returns 0 or -errno, logged. */
int walkers__install(struct loader *l, struct bpf_object *obj, const char *walker, uint32_t slot,
		     chain_types types);

#endif
