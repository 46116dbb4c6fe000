/* SPDX-License-Identifier: Apache-2.0 */
/* The registry of every BPF object ebprof ships, so start-up can prepare what all of
 * them need at once (the minimal CO-RE BTF) before any is opened. */
#ifndef EBPROF_OBJECTS_H
#define EBPROF_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

/* Returns the number of objects; *elfs and *sizes point at static arrays of their ELF
 * images (embedded by the skeletons). */
size_t bpf_objects__list(const void *const **elfs, const size_t **sizes);
/* A hash of every image, so a cache made for one ebprof build is not used by another. */
uint64_t bpf_objects__hash(void);

#endif
