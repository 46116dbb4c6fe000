// SPDX-License-Identifier: Apache-2.0
/* libFuzzer harness for what ebprof decodes out of a JVM, whose memory it cannot trust:
 * line-number tables and scope records (both int encodings), PcDesc search, and, with the
 * input as the whole "process memory", the VMStructs reader, the layout built from it and
 * the method and nmethod readers that follow its pointers. The first byte picks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "interp/hotspot_layout.h"
#include "interp/hotspot_method.h"
#include "interp/hotspot_stream.h"
#include "interp/hotspot_vm.h"

#define BASE 0x10000ULL /* where the input sits in the fake address space */

struct image {
	const uint8_t *p;
	size_t n;
};

static int read_image(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct image *im = ctx;

	if (addr < BASE || addr - BASE > im->n || len > im->n - (addr - BASE))
		return -EFAULT;
	memcpy(buf, im->p + (addr - BASE), len);
	return 0;
}

static uint8_t *copy(const uint8_t *data, size_t size)
{
	uint8_t *p = malloc(size ? size : 1);

	if (p && size)
		memcpy(p, data, size);
	return p;
}

static void streams(const uint8_t *data, size_t size)
{
	enum hs_ints ints = data[0] & 1 ? HS_INTS_EXCESS1 : HS_INTS_PLAIN;
	struct hs_scope s;
	uint8_t *t;
	int32_t v;

	if (size < 5)
		return;
	memcpy(&v, data + 1, 4);
	t = copy(data + 5, size - 5);
	if (!t)
		return;
	hs_line_of(t, size - 5, ints, v);
	hs_scope_at(t, size - 5, (uint32_t)v & 0xffff, ints, &s);
	hs_pcdesc_scope(t, size - 5, 16, 0, 4, v);
	hs_pcdesc_scope(t, size - 5, (uint32_t)data[1], data[2], data[3], v);
	free(t);
}

/* The input is memory: each exported symbol at BASE + 8 * its index. */
static void memory(const uint8_t *data, size_t size)
{
	struct image im = {.p = copy(data, size), .n = size};
	struct hs_mem mem = {.read = read_image, .ctx = &im};
	uint64_t syms[HS_SYM__COUNT], at;
	struct hs_scope_frame f[HS_INLINE_MAX];
	struct hs_vm *vm = NULL;
	struct hs_layout l;
	struct hs_method m;
	const char *missing;

	if (!im.p)
		return;
	for (int i = 0; i < HS_SYM__COUNT; i++)
		syms[i] = BASE + 8ULL * i;
	if (hs_vm__read(&mem, syms, &vm))
		goto cleanup;
	if (hs_layout__from_vm(vm, &mem, &l, &missing))
		goto cleanup;
	at = size >= 16 ? BASE + (data[size - 1] % (size / 8)) * 8 : BASE;
	if (!hs_method__read(&mem, &l, at, &m))
		free(m.lines);
	hs_nmethod__scopes(&mem, &l, at, at + 64, f, HS_INLINE_MAX);
cleanup:
	hs_vm__free(vm);
	free((void *)im.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 2)
		memory(data + 1, size - 1);
	else
		streams(data, size);
	return 0;
}
