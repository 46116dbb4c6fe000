/* SPDX-License-Identifier: Apache-2.0 */
/* Reading a walker's per-CPU counter array (CHAIN_COUNTERS in bpf/chain.bpf.h). */
#ifndef EBPROF_COUNTERS_H
#define EBPROF_COUNTERS_H

#include <stdint.h>

/* Sums each of the n counters of map_fd over every possible CPU into out. A counter
 * that cannot be read is 0. Returns 0, or a negative errno when none could be. */
int counters__sum(int map_fd, uint64_t *out, uint32_t n);

#endif
