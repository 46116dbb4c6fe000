// SPDX-License-Identifier: Apache-2.0
/* Per-CPU counters summed over CPUs: every walker keeps its own array of them, and each
 * runtime's statistics and the sampler's read them the same way. */
#include <errno.h>
#include <stdlib.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "loader/counters.h"

int counters__sum(int map_fd, uint64_t *out, uint32_t n)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals;

	for (uint32_t id = 0; id < n; id++)
		out[id] = 0;
	if (ncpu < 0)
		return ncpu;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (uint32_t id = 0; id < n; id++) {
		if (bpf_map_lookup_elem(map_fd, &id, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[id] += vals[c];
	}
	free(vals);
	return 0;
}
