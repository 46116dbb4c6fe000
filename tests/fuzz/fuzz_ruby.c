// SPDX-License-Identifier: Apache-2.0
/* libFuzzer harness for what ebprof decodes out of a Ruby process and its libruby, neither
 * of which it can trust: the x86-64 decoder and the matchers run on exported functions,
 * .eh_frame_hdr's table, iseq line tables (succinct and positions), and, with the input as
 * the whole "process memory" in one of the known layouts, the string, array, symbol, iseq,
 * method-entry and class-path readers that follow its pointers. The first byte picks. */
#include <stdlib.h>
#include <string.h>

#include "fake_mem.h"
#include "interp/ruby/ruby_code.h"
#include "interp/ruby/ruby_lines.h"
#include "interp/ruby/ruby_mem.h"

#define CODE_VADDR 0x401000ULL

/* Every instruction, then every matcher, over the input as a function's code. */
static void code(const uint8_t *data, size_t size)
{
	struct rb_code c = {.vaddr = CODE_VADDR, .len = size};
	uint64_t a, targets[8];
	struct rb_gc_code gc;
	struct rb_insn in;
	uint32_t last;
	int32_t off;
	uint8_t *p = fuzz_copy(data, size);

	if (!p)
		return;
	c.bytes = p;
	for (size_t at = 0; at < size && !rb_insn__decode(p + at, size - at, CODE_VADDR + at, &in);
	     at += in.len) {
		if (!in.len || in.len > 15 || in.len > size - at)
			abort();
	}
	rb_code__tls_index(&c, &a, &off);
	if (!rb_code__during_gc(&c, &gc) && gc.bit > 7)
		abort();
	rb_code__symbols(&c, &c, &a, &last);
	rb_code__first_jump(&c, &a);
	rb_code__tail_call(&c, CODE_VADDR + size, &a);
	if (rb_code__calls(&c, targets, 8) > 8)
		abort();
	free(p);
}

/* [vaddr: 4][.eh_frame_hdr...] */
static void fde(const uint8_t *data, size_t size)
{
	uint64_t start, end;
	uint32_t vaddr;
	uint8_t *p;

	if (size < 4)
		return;
	memcpy(&vaddr, data, 4);
	p = fuzz_copy(data + 4, size - 4);
	if (!p)
		return;
	if (!rb_fde__bounds(p, size - 4, 0x1000, vaddr, &start, &end) &&
	    (start > vaddr || end <= vaddr))
		abort();
	free(p);
}

/* [iseq size: 4][pos: 4][entries: 2][positions?: 1][lines: 4 each][positions or table] */
static void lines(const uint8_t *data, size_t size)
{
	uint32_t iseq_size, pos, *positions = NULL;
	uint16_t n;
	int32_t *l;
	uint8_t *rest;
	size_t at = 11;

	if (size < at)
		return;
	memcpy(&iseq_size, data, 4);
	memcpy(&pos, data + 4, 4);
	memcpy(&n, data + 8, 2);
	if ((size_t)n * 4 > size - at)
		return;
	l = (int32_t *)fuzz_copy(data + at, (size_t)n * 4);
	at += (size_t)n * 4;
	rest = fuzz_copy(data + at, size - at);
	if (data[10] & 1 && (size - at) / 4 >= n)
		positions = (uint32_t *)rest;
	if (l && rest)
		rb_line_at(l, n, rest, size - at, positions, iseq_size, pos);
	free(l);
	free(rest);
}

/* [layout: 1][memory...]: the readers from objects at fixed places of the memory (an
 * iseq at its start, a method entry 2 KiB in, the symbol table 3 KiB in), so seeds can
 * lay a real object graph out and mutations follow its pointers anywhere. */
static void memory(const uint8_t *data, size_t size)
{
	static const uint16_t versions[] = {0x0207, 0x0301, 0x0303};
	struct fake_mem fm;
	struct rb_mem m;
	struct rb_iseq is;
	struct rb_method me;
	char out[RB_NAME_MAX];

	if (size < 1)
		return;
	fm = (struct fake_mem){fuzz_copy(data + 1, size - 1), size - 1};
	if (!fm.p)
		return;
	m = (struct rb_mem){.read = fake_mem__read,
			    .ctx = &fm,
			    .l = rb_layout__get(versions[data[0] % 3]),
			    .symbols = FAKE_MEM_BASE + 0xc00,
			    .last_op_id = 0xa9};
	if (!rb_mem__iseq(&m, FAKE_MEM_BASE, &is)) {
		for (uint64_t pc = is.encoded;
		     pc <= is.encoded + 8 * (uint64_t)is.size && pc - is.encoded < 4096; pc += 8)
			rb_iseq__line(&is, pc);
	}
	rb_iseq__release(&is);
	if (!rb_mem__method(&m, FAKE_MEM_BASE + 0x800, &me)) {
		rb_mem__qualify(&m, me.owner, "method", out, sizeof(out));
		if (strlen(out) >= sizeof(out))
			abort();
		rb_mem__id_name(&m, me.original_id, out, sizeof(out));
	}
	free(fm.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 4) {
	case 0:
		code(data + 1, size - 1);
		break;
	case 1:
		fde(data + 1, size - 1);
		break;
	case 2:
		lines(data + 1, size - 1);
		break;
	default:
		memory(data + 1, size - 1);
		break;
	}
	return 0;
}
