// SPDX-License-Identifier: Apache-2.0
/* libFuzzer harness for what ebprof decodes out of a CoreCLR process and its files, none
 * of which it trusts: an assembly's metadata (PE headers, streams, tables, names of every
 * method), the JIT's code heaps read through process memory (the heap list, the nibble
 * map searched for several pcs, the code header, MethodDesc, chunk, module and its name),
 * the DAC table, the version strings, the managed ranges and the call-site test, and the
 * walker's step over a stack of words (compiled as host C). The first byte picks. */
#include <stdlib.h>
#include <string.h>

#include "fake_mem.h"
#include "interp/dotnet/dotnet_code.h"
#include "interp/dotnet/dotnet_meta.h"
#include "interp/dotnet/dotnet_pe.h"

#define DN_READ_USER(dst, size, addr) step_read((dst), (size), (addr))
static struct fake_mem *step_mem;
static int step_read(void *dst, size_t size, uint64_t addr)
{
	return fake_mem__read(step_mem, addr, dst, size) ? -1 : 0;
}
#include "interp/dotnet/dotnet_step.h"

/* [file]: opened as an assembly, every method named (at most 4096), its ready-to-run
 * methods read and 64 offsets looked up. */
static void metadata(const uint8_t *data, size_t size)
{
	uint8_t *copy = fuzz_copy(data, size);
	struct dn_r2r r = {0};
	struct dn_pe pe;
	char name[160];

	if (!copy)
		return;
	if (dn_pe__open(&pe, copy, size) == 0) {
		for (uint32_t rid = 0; rid <= pe.rows[6] + 1 && rid < 4096; rid++)
			if (dn_pe__method_name(&pe, rid, name, sizeof(name)) == 0 &&
			    strlen(name) >= sizeof(name))
				abort(); /* always terminated */
		dn_pe__method_name(&pe, 1, name, 1);
		if (dn_r2r__open(&pe, &r) == 0) {
			for (uint64_t off = 0; off < size; off += 1 + size / 64)
				if (dn_r2r__method(&pe, &r, off) > pe.rows[6])
					abort(); /* a method the metadata has */
		}
		dn_r2r__free(&r);
	}
	free(copy);
}

/* [memory]: the JIT manager's pointer at the input's start; its heaps, a few pcs in each
 * looked up down to their module's name. */
static void code(const uint8_t *data, size_t size)
{
	const struct dn_layout *l = dn_layout__for(8);
	struct fake_mem m = {fuzz_copy(data, size), size};
	struct dn_heap heaps[8];
	int n;

	if (!m.p)
		return;
	n = dn_code__heaps(fake_mem__read, &m, l, FAKE_MEM_BASE, heaps, 8);
	for (int i = 0; i < n; i++) {
		for (uint64_t k = 0; k < 4; k++) {
			uint64_t pc = heaps[i].start + k * 97;
			struct dn_method md = {0};

			if (dn_code__start(fake_mem__read, &m, &heaps[i], pc, &md.start) ||
			    dn_code__header(fake_mem__read, &m, md.start, &md.header))
				continue;
			if (md.start > pc)
				abort(); /* a method starts at or before its pc */
			if (!dn_code__method(fake_mem__read, &m, l, &md) &&
			    strlen(md.module_name) >= DN_NAME_MAX)
				abort();
		}
	}
	free(m.p);
}

/* [bytes]: the DAC table, the version strings and the call-site test. */
static void meta(const uint8_t *data, size_t size)
{
	struct fake_mem m = {fuzz_copy(data, size), size};
	uint64_t dac[DN_DAC_ENTRIES];
	struct dn_version v = {0};
	char *path;

	if (!m.p)
		return;
	dn_dac__read(fake_mem__read, &m, FAKE_MEM_BASE, 0x7f0000000000ULL, 0x800000, dac);
	dn_version__from_data(m.p, size, &v);
	if (strlen(v.build) >= sizeof(v.build) || strlen(v.commit) >= sizeof(v.commit))
		abort();
	path = strndup((const char *)m.p, size);
	if (path)
		dn_version__from_path(path, &v);
	free(path);
	if (size >= 8)
		dn_code__after_call(m.p);
	free(m.p);
}

/* [dn_proc][maps as (start, end, kind) triples]: the ranges built from the maps, and a
 * walk over the input as a stack from its first words (pc, sp, fp). */
static void walk(const uint8_t *data, size_t size)
{
	struct fake_mem m = {fuzz_copy(data, size), size};
	struct dn_regs r = {0};
	struct dn_proc p;
	struct dn_map maps[16];
	uint32_t n = 0, dropped;

	if (!m.p || size < sizeof(p) + 24) {
		free(m.p);
		return;
	}
	memcpy(&p, data, sizeof(p));
	for (size_t at = sizeof(p); at + 17 <= size && n < 16; at += 17, n++) {
		memcpy(&maps[n].start, data + at, 8);
		memcpy(&maps[n].end, data + at + 8, 8);
		maps[n].kind = data[at + 16] & 1;
	}
	if (dn_ranges__build(maps, n, p.range, DN_MAX_RANGES, &dropped) > DN_MAX_RANGES)
		abort();
	memcpy(&p, data, sizeof(p)); /* the walk uses the input's ranges as they are */
	memcpy(&r.pc, data + sizeof(p), 8);
	r.sp = FAKE_MEM_BASE;
	r.fp = FAKE_MEM_BASE + 16;
	step_mem = &m;
	for (int i = 0; i < 64; i++) {
		struct dn_frame f = {0};
		uint64_t fp = r.fp;
		int s;

		if (dn_window_words(&r) > DN_SCAN_WORDS * DN_SCAN_CHUNKS)
			abort();
		s = dn_step(&p, &r, &f);
		if (s != DN_STEP_NEXT)
			break;
		if (r.fp && dn_in_hull(&p, r.pc) && r.fp <= fp)
			abort(); /* managed callers' frames grow */
	}
	free(m.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	switch (data[0] & 3) {
	case 0:
		metadata(data + 1, size - 1);
		break;
	case 1:
		code(data + 1, size - 1);
		break;
	case 2:
		meta(data + 1, size - 1);
		break;
	default:
		walk(data + 1, size - 1);
	}
	return 0;
}
