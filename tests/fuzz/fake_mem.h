/* SPDX-License-Identifier: Apache-2.0 */
/* The fuzz harnesses' stand-in for a traced process: the input, copied to a buffer of
 * exactly its size (so ASan sees any read past it), at a fixed address, read through the
 * same callback shape as process_vm_readv's readers (hs_mem, v8_mem), every read bounded. */
#ifndef EBPROF_FUZZ_FAKE_MEM_H
#define EBPROF_FUZZ_FAKE_MEM_H

#include <stddef.h>
#include <stdint.h>

#define FAKE_MEM_BASE 0x10000ULL /* where the input sits in the fake address space */

/* The input as memory: {fuzz_copy(data, size), size}; the caller frees p. */
struct fake_mem {
	uint8_t *p;
	size_t n;
};

/* A copy of data[0, size) in a buffer of its own size (1 byte when empty), or NULL. */
uint8_t *fuzz_copy(const uint8_t *data, size_t size);
/* A memory reader (ctx: struct fake_mem): len bytes at addr, or -EFAULT when any of them
 * lies outside [FAKE_MEM_BASE, FAKE_MEM_BASE + n). */
int fake_mem__read(void *ctx, uint64_t addr, void *buf, size_t len);

#endif
