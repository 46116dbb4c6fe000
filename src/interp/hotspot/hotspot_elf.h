/* SPDX-License-Identifier: Apache-2.0 */
/* libjvm.so as a file: the dynamic symbols HotSpot exports for its serviceability agent
 * (hotspot_vm.h) and the load segments that turn a mapping into a load bias. */
#ifndef EBPROF_HOTSPOT_ELF_H
#define EBPROF_HOTSPOT_ELF_H

#include <stdbool.h>
#include <stdint.h>

#include "interp/hotspot/hotspot_vm.h"

#define HS_MAX_SEGS 8

struct hs_elf {
	uint64_t sym[HS_SYM__COUNT]; /* ELF virtual addresses; 0 = absent */
	uint32_t nsegs;
	struct {
		uint64_t offset, vaddr, filesz;
	} segs[HS_MAX_SEGS];
};

/* True when path's file name is a HotSpot VM library (libjvm.so). */
bool hs_elf__is_libjvm(const char *path);
/* Reads the symbols and segments of the ELF file open on fd (kept open). Returns 0,
 * -ENOENT when gHotSpotVMStructs is not among its symbols, -EINVAL when fd is not ELF. */
int hs_elf__read(int fd, struct hs_elf *out);
/* The load bias (process address - ELF vaddr) from one mapping of the file (its start and
 * file offset). False when no load segment covers the mapping. */
bool hs_elf__bias(const struct hs_elf *e, uint64_t start, uint64_t pgoff, uint64_t *bias);

#endif
