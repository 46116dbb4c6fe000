// SPDX-License-Identifier: Apache-2.0
/* libFuzzer harness for what ebprof decodes out of a Node.js process and file, neither
 * of which it can trust: source position tables, line lookups and the few instructions
 * whose target gives the builtins' range; and, with the input as the whole "process
 * memory" laid out as Node 20's V8 lays out its objects, the string, function, script and
 * optimized-code readers that follow its pointers. The first byte picks. */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake_mem.h"
#include "interp/v8/v8_heap.h"
#include "interp/v8/v8_meta.h"

/* Node 20's (V8 11.3's) values, as its libnode.so exports them. */
static void node20(struct v8_meta *m)
{
	static const struct {
		enum v8_member id;
		int32_t v;
	} vals[] = {
	    {V8_M_FP_FUNCTION, -16},
	    {V8_M_FP_CONTEXT, -8},
	    {V8_M_FP_BYTECODE_ARRAY, -32},
	    {V8_M_FP_BYTECODE_OFFSET, -40},
	    {V8_M_SMI_SHIFT, 31},
	    {V8_M_MAP_OF_OBJECT, 0},
	    {V8_M_MAP_TYPE, 12},
	    {V8_M_FN_SHARED, 24},
	    {V8_M_SFI_NAME, 16},
	    {V8_M_SFI_DATA, 8},
	    {V8_M_SFI_SCRIPT, 32},
	    {V8_M_SCRIPT_NAME, 16},
	    {V8_M_SCRIPT_LINE_ENDS, 56},
	    {V8_M_SCRIPT_SOURCE, 8},
	    {V8_M_STR_LENGTH, 12},
	    {V8_M_SEQ1_CHARS, 16},
	    {V8_M_SEQ2_CHARS, 16},
	    {V8_M_CONS_FIRST, 16},
	    {V8_M_CONS_SECOND, 24},
	    {V8_M_THIN_ACTUAL, 16},
	    {V8_M_ARRAY_LENGTH, 8},
	    {V8_M_ARRAY_DATA, 16},
	    {V8_M_BYTECODE_DATA, 54},
	    {V8_M_CODE_BYTECODE, 16},
	    {V8_M_SCOPE_IS_HEAP_OBJECT, 0},
	    {V8_M_FIRST_NONSTRING, 128},
	    {V8_M_STR_REPR_MASK, 7},
	    {V8_M_STR_ENC_MASK, 8},
	    {V8_M_STR_ONE_BYTE, 8},
	    {V8_M_STR_CONS, 1},
	    {V8_M_STR_THIN, 5},
	    {V8_M_STR_SLICED, 3},
	    {V8_M_T_SFI, 262},
	    {V8_M_T_SCRIPT, 167},
	    {V8_M_T_SCOPE_INFO, 261},
	    {V8_M_T_BYTECODE, 191},
	    {V8_M_T_BYTE_ARRAY, 190},
	    {V8_M_T_FIXED_ARRAY, 175},
	    {V8_M_T_CODE, 245},
	    {V8_M_FN_FEEDBACK_CELL, 40},
	    {V8_M_IS_START, 16},
	    {V8_M_CODE_DEOPT, 16},
	    {V8_M_CODE_POSITIONS, 24},
	};

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		m->v[vals[i].id] = vals[i].v;
		m->has[vals[i].id] = true;
	}
}

static void tables(const uint8_t *data, size_t size)
{
	uint32_t off, ends[64], n = 0, line, col;
	struct v8_return ret;
	uint8_t *t;

	if (size < 5)
		return;
	memcpy(&off, data + 1, 4);
	t = fuzz_copy(data + 5, size - 5);
	if (!t)
		return;
	v8_position__inlining(v8_positions__find(t, size - 5, off));
	v8_position__offset(v8_positions__find(t, size - 5, off & 0xffff));
	v8_meta__decode_return(data[0] & 1 ? EM_AARCH64 : EM_X86_64, t, size - 5, off, &ret);
	/* Line ends must ascend: take the input's bytes as gaps. */
	for (size_t i = 5; i < size && n < 64; i++)
		ends[n] = (n ? ends[n - 1] : 0) + data[i], n++;
	v8_lines__find(ends, n, off & 0xfff, &line, &col);
	free(t);
}

/* A tagged pointer into the image from two input bytes. */
static uint64_t pick(const uint8_t *d, size_t size, size_t at)
{
	if (size < 2 || at + 1 >= size)
		return FAKE_MEM_BASE + 1;
	return FAKE_MEM_BASE + (((uint64_t)d[at] << 8 | d[at + 1]) % size) * 8 % (size ? size : 1) +
	       1;
}

static void memory(const uint8_t *data, size_t size)
{
	struct fake_mem im = {.p = fuzz_copy(data, size), .n = size};
	struct v8_mem mem = {.read = fake_mem__read, .ctx = &im};
	struct v8_inlined in[V8_INLINE_MAX];
	struct v8_code_layout l;
	struct v8_script sc;
	struct v8_func f;
	struct v8_meta m;
	uint64_t code, start;
	char name[64];

	if (!im.p)
		return;
	node20(&m);
	v8_meta__code(&m, &l);
	v8_heap__string(&mem, &m, pick(data, size, 0), name, sizeof(name));
	if (!v8_heap__func(&mem, &m, pick(data, size, 2), &f))
		v8_func__release(&f);
	if (!v8_heap__script(&mem, &m, pick(data, size, 4), &sc))
		v8_script__release(&sc);
	/* What ingest runs on a frame of optimized code (v8.c, optimized_frames): a Code
	 * object anywhere in the image, and one the search found. */
	v8_heap__code_frames_at(&mem, &m, &l, pick(data, size, 6), size > 8 ? data[8] : 0, in,
				V8_INLINE_MAX);
	/* The search starts at a pc far enough up for its whole reach to lie in the image. */
	if (!v8_heap__find_code(&mem, &m, &l, FAKE_MEM_BASE + 0x10000 + pick(data, size, 9) % 4096,
				&code, &start))
		v8_heap__code_frames_at(&mem, &m, &l, code, 0, in, V8_INLINE_MAX);
	free(im.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 2)
		memory(data + 1, size - 1);
	else
		tables(data, size);
	return 0;
}
