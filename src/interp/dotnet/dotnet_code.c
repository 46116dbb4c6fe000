// SPDX-License-Identifier: Apache-2.0
/* JIT code to methods through a CoreCLR process's memory (dotnet_code.h). The .NET 8
 * offsets were read from the runtime's public sources (src/coreclr/vm/codeman.h,
 * method.hpp, methodtable.h, ceeload.h) and checked on the 8.0.4 runtime the tests run. */
#include <errno.h>
#include <string.h>

#include "interp/dotnet/dotnet_code.h"

#define MAP_BACK_WORDS 4096 /* nibble map words searched back: 4096 * 256 B = 1 MiB */
#define MAP_CHUNK 64	    /* words read at once */
#define USER_MAX (1ULL << 47)

static const struct dn_layout layouts[] = {
    {
	.major = 8,
	/* dacvars.h: g_codeRangeMap, m_pDefaultCodeMan, m_dwReaderCount, m_dwWriterLock,
	 * m_pEEJitManager. */
	.dac_jit_manager = 4,
	.jm_code_heap = 16, /* after IJitManager's vtable and m_runtimeSupport */
	/* HeapList: hpNext, pHeap, startAddress, endAddress, mapBase, pHdrMap. */
	.hl_next = 0,
	.hl_start = 16,
	.hl_end = 24,
	.hl_map_base = 32,
	.hl_hdr_map = 40,
	/* RealCodeHeader: phdrDebugInfo, phdrJitEHInfo, phdrJitGCInfo, phdrMDesc. */
	.rch_method_desc = 24,
	/* MethodDesc: m_wFlags3AndTokenRemainder, m_chunkIndex, m_bFlags2, m_wSlotNumber,
	 * m_wFlags. */
	.md_flags3 = 0,
	.md_chunk_index = 2,
	.md_flags = 6,
	/* MethodDescChunk, right before its first MethodDesc: m_methodTable, m_next,
	 * m_size, m_count, m_flagsAndTokenRange. */
	.chunk_size = 24,
	.chunk_mt = 0,
	.chunk_token_range = 18,
	/* MethodTable: m_dwFlags, m_BaseSize, m_wFlags2, m_wToken, m_wNumVirtuals,
	 * m_wNumInterfaces, m_pParentMethodTable, m_pModule. */
	.mt_module = 24,
	.module_simple_name = 264,
    },
};

const struct dn_layout *dn_layout__for(uint32_t major)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].major == major)
			return &layouts[i];
	return NULL;
}

static bool user_ptr(uint64_t p)
{
	return p >= 0x1000 && p < USER_MAX && !(p & 7);
}

static int read_u64(dn_read_fn read, void *ctx, uint64_t addr, uint64_t *v)
{
	if (!user_ptr(addr & ~7ULL))
		return -EINVAL;
	return read(ctx, addr, v, sizeof(*v));
}

int dn_code__heaps(dn_read_fn read, void *ctx, const struct dn_layout *l, uint64_t jm_addr,
		   struct dn_heap *out, int max)
{
	uint64_t jm, hl, w[6];
	int n = 0, err;

	err = read_u64(read, ctx, jm_addr, &jm);
	if (!err)
		err = read_u64(read, ctx, jm + l->jm_code_heap, &hl);
	if (err)
		return err;
	for (; hl && n < max; n++) {
		if (!user_ptr(hl))
			return -EINVAL;
		err = read(ctx, hl, w, sizeof(w));
		if (err)
			return err;
		out[n] = (struct dn_heap){.start = w[l->hl_start / 8 % 6],
					  .end = w[l->hl_end / 8 % 6],
					  .map_base = w[l->hl_map_base / 8 % 6],
					  .hdr_map = w[l->hl_hdr_map / 8 % 6]};
		if (out[n].start < out[n].map_base || out[n].end < out[n].start ||
		    !user_ptr(out[n].hdr_map & ~7ULL))
			return -EINVAL;
		hl = w[l->hl_next / 8 % 6];
	}
	return n;
}

/* In nibble map word w (8 buckets of 32 bytes, the lowest address in the top nibble),
 * the last method start at or before bucket b's byte off (off: 0-31; 32 for a whole
 * bucket), or -1. A nibble n > 0 starts a method at its bucket's byte (n - 1) * 4. */
static int last_start(uint32_t w, int b, int off)
{
	for (; b >= 0; b--, off = 32) {
		uint32_t n = (w >> (28 - 4 * b)) & 0xf;

		if (n && (int)(n - 1) * 4 <= off)
			return b * 32 + (int)(n - 1) * 4;
	}
	return -1;
}

int dn_code__start(dn_read_fn read, void *ctx, const struct dn_heap *h, uint64_t pc,
		   uint64_t *start)
{
	uint32_t words[MAP_CHUNK];
	uint64_t delta, idx;
	int b, off, err;

	if (pc < h->start || pc >= h->end)
		return -ENOENT;
	delta = pc - h->map_base;
	idx = delta / 256;
	b = (int)(delta / 32 % 8);
	off = (int)(delta % 32);
	for (uint64_t done = 0; done < MAP_BACK_WORDS;) {
		/* The chunk ends at word idx: read back from it. */
		uint64_t first = idx + 1 >= MAP_CHUNK ? idx + 1 - MAP_CHUNK : 0;
		uint32_t n = (uint32_t)(idx + 1 - first);

		err = read(ctx, h->hdr_map + first * 4, words, n * 4);
		if (err)
			return err;
		for (int i = (int)n - 1; i >= 0; i--, done++) {
			int at = last_start(words[i], b, off);

			if (at >= 0) {
				*start = h->map_base + (first + (uint64_t)i) * 256 + (uint64_t)at;
				return 0;
			}
			b = 7;
			off = 32;
		}
		if (!first)
			break;
		idx = first - 1;
	}
	return -ENOENT;
}

int dn_code__header(dn_read_fn read, void *ctx, uint64_t start, uint64_t *header)
{
	return read(ctx, start - 8, header, sizeof(*header));
}

/* The module's simple name, a C string: printable ASCII, cut at DN_NAME_MAX - 1. */
static int module_name(dn_read_fn read, void *ctx, const struct dn_layout *l, uint64_t module,
		       char *out)
{
	uint64_t p;
	int err = read_u64(read, ctx, module + l->module_simple_name, &p);
	size_t n = 0;

	if (err)
		return err;
	memset(out, 0, DN_NAME_MAX);
	/* A name may end within the last bytes of a page: read it in pieces. */
	for (size_t at = 0; at < DN_NAME_MAX - 1; at += 16) {
		if (p < 0x1000 || p >= USER_MAX || read(ctx, p + at, out + at, 16))
			break;
		if (memchr(out + at, 0, 16))
			break;
	}
	out[DN_NAME_MAX - 1] = '\0';
	for (n = 0; out[n]; n++)
		if (out[n] <= ' ' || out[n] >= 0x7f || out[n] == '/')
			return -EINVAL;
	return n ? 0 : -EINVAL;
}

int dn_code__method(dn_read_fn read, void *ctx, const struct dn_layout *l, struct dn_method *out)
{
	uint64_t md, chunk, mt;
	uint16_t flags3, flags, range;
	uint8_t index;
	int err;

	out->stub = out->header < DN_STUB_KIND_MAX ? (uint32_t)out->header : 0;
	if (out->header < DN_STUB_KIND_MAX)
		return 0;
	err = read_u64(read, ctx, out->header + l->rch_method_desc, &md);
	if (!err && !user_ptr(md))
		err = -EINVAL;
	if (!err)
		err = read(ctx, md + l->md_flags3, &flags3, 2);
	if (!err)
		err = read(ctx, md + l->md_chunk_index, &index, 1);
	if (!err)
		err = read(ctx, md + l->md_flags, &flags, 2);
	if (err)
		return err;
	/* A MethodDesc lies index * 8 bytes past its chunk's header. */
	chunk = md - (uint64_t)index * 8 - l->chunk_size;
	err = read_u64(read, ctx, chunk + l->chunk_mt, &mt);
	if (!err)
		err = read(ctx, chunk + l->chunk_token_range, &range, 2);
	if (!err)
		err = read_u64(read, ctx, mt + l->mt_module, &out->module);
	if (err)
		return err;
	out->classification = flags & 7;
	/* The token's rid: 12 bits in the chunk, 12 in the MethodDesc. */
	out->token = (uint32_t)(range & 0xfff) << 12 | (flags3 & 0xfff);
	return module_name(read, ctx, l, out->module, out->module_name);
}

bool dn_code__after_call(const uint8_t b[8])
{
	/* b[7] is the byte right before the return address. */
	if (b[3] == 0xe8) /* call rel32 */
		return true;
	/* ff /2 with mod 11 (a register) or mod 00 (its memory): two bytes, a REX
	 * prefix before them for r8-r15 changing nothing here. */
	if (b[6] == 0xff && ((b[7] & 0xf8) == 0xd0 || (b[7] & 0xf8) == 0x10))
		return true;
	/* ff /2, mod 01: [register + disp8], three bytes. */
	if (b[5] == 0xff && (b[6] & 0xf8) == 0x50)
		return true;
	/* ff /2, mod 10 or rip-relative: [register + disp32], [rip + disp32], six bytes. */
	return b[2] == 0xff && (b[3] == 0x15 || (b[3] & 0xf8) == 0x90);
}
