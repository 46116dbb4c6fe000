// SPDX-License-Identifier: Apache-2.0
/* Describes a JVM process to the HotSpot walker (see hotspot_describe.h). Everything is
 * read once per description: the code heaps are reserved at start-up and never move, the
 * interpreter is generated once. */
#include <errno.h>
#include <string.h>

#include "interp/hotspot/hotspot_describe.h"

/* v: a uint64_t or a __u64 (unsigned long vs unsigned long long, the same 8 bytes). */
static int rd64(const struct hs_mem *m, uint64_t addr, void *v)
{
	memset(v, 0, 8);
	return addr ? m->read(m->ctx, addr, v, 8) : -EINVAL;
}

static int rd32(const struct hs_mem *m, uint64_t addr, uint32_t *v)
{
	*v = 0;
	return addr ? m->read(m->ctx, addr, v, sizeof(*v)) : -EINVAL;
}

static int read_heap(const struct hs_mem *m, const struct hs_layout *l, uint64_t heap,
		     struct hs_heap *h, uint32_t *log2)
{
	uint64_t mem = heap + l->heap_memory, map = heap + l->heap_segmap;
	int err;

	err = rd64(m, mem + l->vs_low_boundary, &h->low) ?:
	      rd64(m, mem + l->vs_high_boundary, &h->high) ?:
	      rd64(m, map + l->vs_low_boundary, &h->segmap) ?:
	      rd32(m, heap + l->heap_log2_segment, log2);
	if (err)
		return err;
	return h->low < h->high && h->segmap && *log2 >= 4 && *log2 < 16 ? 0 : -EINVAL;
}

static int read_heaps(const struct hs_mem *m, const struct hs_layout *l, struct hs_proc *p)
{
	uint64_t ga, data, heap;
	uint32_t n, log2 = 0;
	int err;

	err = rd64(m, l->code_heaps, &ga) ?: rd32(m, ga + l->ga_len, &n) ?:
	      rd64(m, ga + l->ga_data, &data);
	if (err)
		return ga ? err : -EAGAIN;
	if (!n || n > HS_MAX_HEAPS)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++) {
		err = rd64(m, data + 8ULL * i, &heap) ?: read_heap(m, l, heap, &p->heap[i], &log2);
		if (err)
			return err;
		/* Every heap has the one segment size CodeCacheSegmentSize. */
		if (i && log2 != p->log2_segment)
			return -EINVAL;
		p->log2_segment = log2;
	}
	p->nheaps = n;
	return 0;
}

static int read_interpreter(const struct hs_mem *m, const struct hs_layout *l, struct hs_proc *p)
{
	uint64_t q;
	uint32_t limit;
	int err;

	err = rd64(m, l->interp_code, &q);
	if (err || !q)
		return err ? err : -EAGAIN;
	err = rd64(m, q + l->sq_stub_buffer, &p->interp_low)
		  ?: rd32(m, q + l->sq_buffer_limit, &limit);
	if (err)
		return err;
	p->interp_high = p->interp_low + limit;
	return p->interp_low && limit ? 0 : -EAGAIN;
}

int hs_proc__read(const struct hs_mem *mem, const struct hs_layout *l, struct hs_proc *p)
{
	int err;

	memset(p, 0, sizeof(*p));
	err = rd64(mem, l->code_low, &p->code_low) ?: rd64(mem, l->code_high, &p->code_high);
	if (err)
		return err;
	if (!p->code_low || p->code_low >= p->code_high) {
		p->code_low = p->code_high = 0;
		return -EAGAIN;
	}
	/* From here on p's code cache bounds stay filled, whatever else is not ready. */
	err = read_heaps(mem, l, p) ?: read_interpreter(mem, l, p);
	if (err)
		return err;
	rd64(mem, l->call_stub_return, &p->call_stub_return);
	p->heap_block_size = l->heap_block_size;
	p->cb_frame_size = l->cb_frame_size;
	p->cb_frame_complete = l->cb_frame_complete;
	p->cb_frame_complete_size = l->cb_frame_complete_size;
	p->cb_code_begin = l->cb_code_begin;
	p->cb_code_offset = l->cb_code_offset;
	p->cb_kind = l->cb_kind;
	p->cb_name = l->cb_name;
	p->kind_nmethod = l->kind_nmethod;
	p->nm_compile_id = l->nm_compile_id;
	p->method_const = l->method_const;
	p->cm_size = l->cm_size;
	/* Every blob member the walker reads must lie in the header it reads. */
	if (l->cb_frame_size + 4 > HS_BLOB_HEAD || l->cb_frame_complete + 4 > HS_BLOB_HEAD ||
	    (l->cb_code_begin != HS_NONE && l->cb_code_begin + 8 > HS_BLOB_HEAD) ||
	    (l->cb_code_offset != HS_NONE && l->cb_code_offset + 4 > HS_BLOB_HEAD) ||
	    (l->cb_kind != HS_NONE && l->cb_kind >= HS_BLOB_HEAD) || l->cb_name + 8 > HS_BLOB_HEAD)
		return -EINVAL;
	return 0;
}
