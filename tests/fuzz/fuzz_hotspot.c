// SPDX-License-Identifier: Apache-2.0
/* libFuzzer harness for what ebprof decodes out of a JVM, whose memory it cannot trust:
 * line-number tables and scope records (both int encodings), PcDesc search, and, with the
 * input as the whole "process memory", the VMStructs reader, the layout built from it and
 * the method and nmethod readers that follow its pointers. The first byte picks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake_mem.h"
#include "interp/hotspot/hotspot_layout.h"
#include "interp/hotspot/hotspot_method.h"
#include "interp/hotspot/hotspot_stream.h"
#include "interp/hotspot/hotspot_vm.h"

static void streams(const uint8_t *data, size_t size)
{
	enum hs_ints ints = data[0] & 1 ? HS_INTS_EXCESS1 : HS_INTS_PLAIN;
	struct hs_scope s;
	uint8_t *t;
	int32_t v;

	if (size < 5)
		return;
	memcpy(&v, data + 1, 4);
	t = fuzz_copy(data + 5, size - 5);
	if (!t)
		return;
	hs_line_of(t, size - 5, ints, v);
	hs_scope_at(t, size - 5, (uint32_t)v & 0xffff, ints, &s);
	hs_pcdesc_scope(t, size - 5, 16, 0, 4, v);
	hs_pcdesc_scope(t, size - 5, (uint32_t)data[1], data[2], data[3], v);
	free(t);
}

/* The input is memory: each exported symbol at FAKE_MEM_BASE + 8 * its index. */
static void memory(const uint8_t *data, size_t size)
{
	struct fake_mem im = {.p = fuzz_copy(data, size), .n = size};
	struct hs_mem mem = {.read = fake_mem__read, .ctx = &im};
	uint64_t syms[HS_SYM__COUNT], at;
	struct hs_scope_frame f[HS_INLINE_MAX];
	struct hs_vm *vm = NULL;
	struct hs_layout l;
	struct hs_method m;
	const char *missing;

	if (!im.p)
		return;
	for (int i = 0; i < HS_SYM__COUNT; i++)
		syms[i] = FAKE_MEM_BASE + 8ULL * i;
	if (hs_vm__read(&mem, syms, &vm))
		goto cleanup;
	if (hs_layout__from_vm(vm, &mem, &l, &missing))
		goto cleanup;
	at = size >= 16 ? FAKE_MEM_BASE + (data[size - 1] % (size / 8)) * 8 : FAKE_MEM_BASE;
	if (!hs_method__read(&mem, &l, at, &m))
		free(m.lines);
	hs_nmethod__scopes(&mem, &l, at, at + 64, f, HS_INLINE_MAX);
cleanup:
	hs_vm__free(vm);
	free(im.p);
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
