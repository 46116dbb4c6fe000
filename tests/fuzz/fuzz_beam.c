// SPDX-License-Identifier: Apache-2.0
/* libFuzzer harness for what ebprof decodes out of an Erlang VM, which it cannot trust:
 * the GDB JIT records that name its code (a module's functions, their ranges, names and
 * lines; the emulator's record), then lookups of addresses in and around the module; and
 * the walker's word test over a stack of words (compiled as host C); and the element
 * size of the schedulers' array read from the VM. The first byte picks. */
#include <stdlib.h>
#include <string.h>

#include "interp/beam/beam_debug.h"
#include "interp/beam/beam_step.h"

/* [record]: decoded, then every function's bounds and a few offsets looked up. */
static void module(const uint8_t *data, size_t size)
{
	uint8_t *rec = malloc(size ? size : 1);
	struct beam_module m;
	const char *file, *fn;
	uint32_t line;

	if (!rec)
		return;
	memcpy(rec, data, size);
	if (beam_debug__module(rec, size, &m) == 0) {
		for (uint32_t i = 0; i < m.nfns; i++) {
			fn = beam_module__find(&m, m.base + m.fns[i].start, &line, &file);
			if (fn && (strlen(fn) >= m.len || strlen(file) >= m.len))
				abort(); /* names lie inside the record */
			beam_module__find(&m, m.base + m.fns[i].end, &line, &file);
		}
		for (uint64_t off = 0; off < 64; off += 7)
			beam_module__find(&m, m.base + off, &line, &file);
		beam_module__find(&m, m.base - 1, &line, &file);
	}
	beam_module__release(&m);
}

/* [beam_proc][words]: each word's kind; the bottom must be the only one it says so. */
static void scan(const uint8_t *data, size_t size)
{
	struct beam_proc p;
	uint64_t w;

	if (size < sizeof(p))
		return;
	memcpy(&p, data, sizeof(p));
	for (size_t at = sizeof(p); at + 8 <= size; at += 8) {
		memcpy(&w, data + at, 8);
		int kind = beam_word_kind(&p, w);

		if ((kind == BEAM_WORD_BOTTOM && w != p.normal_exit) ||
		    (kind == BEAM_WORD_CP && (w & 3)))
			abort();
	}
}

/* [n][array]: the size found is one whose elements in the bytes say their numbers. */
static void schedulers(const uint8_t *data, size_t size)
{
	uint32_t n, stride;

	if (size < 1)
		return;
	n = data[0] % 8;
	stride = beam_debug__sched_stride(data + 1, size - 1, n);
	if (stride && (stride % BEAM_ESD_ALIGN || stride >= size - 1 ||
		       !beam_debug__sched_ok(data + 1, size - 1, 1) ||
		       !beam_debug__sched_ok(data + 1 + stride, size - 1 - stride, 2)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct beam_debug_emulator emu;

	if (size < 1)
		return 0;
	switch (data[0] % 4) {
	case 0:
		module(data + 1, size - 1);
		break;
	case 1:
		beam_debug__emulator(data + 1, size - 1, &emu);
		beam_debug__kind(data + 1, size - 1);
		break;
	case 2:
		scan(data + 1, size - 1);
		break;
	default:
		schedulers(data + 1, size - 1);
	}
	return 0;
}
