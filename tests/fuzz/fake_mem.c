// SPDX-License-Identifier: Apache-2.0
/* The fuzz harnesses' fake process memory (fake_mem.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake_mem.h"

uint8_t *fuzz_copy(const uint8_t *data, size_t size)
{
	uint8_t *p = malloc(size ? size : 1);

	if (p && size)
		memcpy(p, data, size);
	return p;
}

int fake_mem__read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct fake_mem *m = ctx;

	if (addr < FAKE_MEM_BASE || addr - FAKE_MEM_BASE > m->n ||
	    len > m->n - (addr - FAKE_MEM_BASE))
		return -EFAULT;
	memcpy(buf, m->p + (addr - FAKE_MEM_BASE), len);
	return 0;
}
