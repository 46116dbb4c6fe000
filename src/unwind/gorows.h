/* SPDX-License-Identifier: Apache-2.0 */
/* Unwind rows for Go functions, compiled from the binary's pclntab (symbol/gopclntab.h)
 * and merged into a file's CFI table where the CFI says nothing. */
#ifndef EBPROF_UNWIND_GOROWS_H
#define EBPROF_UNWIND_GOROWS_H

#include <stdint.h>

#include "unwind/cfi.h"

/* If the ELF file on fd is a Go binary, adds rows for its Go functions to t (built by
 * unwind_table__build; inside Go functions they replace the CFI): SP + offset from the pcsp tables, the
 * caller's FP at CFA - 16 once a frame exists, END for the functions that start stacks
 * (goexit, mstart), SIGNAL for runtime.sigreturn, NONE for functions that switch stacks,
 * where the unwinder then follows frame pointers. *ngo gets the Go rows made. Returns 0
 * (also for files that are not Go, or whose rows would not fit) or a negative errno:
 * -ECANCELED once cancel (may be NULL, see unwind_table__build_elf) is set, t unchanged. */
int unwind_table__add_go(struct unwind_table *t, int fd, const bool *cancel, uint32_t *ngo);

#endif
