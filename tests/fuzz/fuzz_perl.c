// SPDX-License-Identifier: Apache-2.0
/* libFuzzer harness for what ebprof decodes out of a perl file and process, neither of
 * which it can trust: the dynamic relocations that locate PL_current_context's TLS slot;
 * with the input as the whole "process memory", the COP and CV readers that name a frame
 * (GV, name HEK, stash and its aux, as 5.32 and 5.36+ lay them out) and the BPF walker's
 * step itself (compiled as host C: the record must never overflow, the walk must end).
 * The first byte picks. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fake_mem.h"
#include "interp/perl/perl_elf.h"
#include "interp/perl/perl_layout.h"
#include "interp/perl/perl_names.h"

static struct fake_mem mem;

static int fake_read(void *dst, uint32_t size, uint64_t addr)
{
	if (fake_mem__read(&mem, addr, dst, size)) {
		memset(dst, 0, size);
		return -1;
	}
	return 0;
}

#define PL_READ_USER(dst, size, addr) fake_read(dst, size, addr)
#define PL_COUNT(id) ((void)(id))
#include "interp/perl/perl_step.h"

static struct sample_record rec;

/* [2: .rela.dyn size][2: .dynsym size][.rela.dyn][.dynsym][.dynstr] */
static void relocations(const uint8_t *data, size_t size)
{
	size_t nrela, nsyms;
	uint8_t *rela, *syms, *strs;
	uint64_t slot;

	if (size < 4)
		return;
	nrela = data[0] | data[1] << 8;
	nsyms = data[2] | data[3] << 8;
	data += 4;
	size -= 4;
	if (nrela > size || nsyms > size - nrela)
		return;
	rela = fuzz_copy(data, nrela);
	syms = fuzz_copy(data + nrela, nsyms);
	strs = fuzz_copy(data + nrela + nsyms, size - nrela - nsyms);
	if (rela && syms && strs)
		pl_tpoff_slot(rela, nrela, syms, nsyms, (const char *)strs, size - nrela - nsyms,
			      "PL_current_context", &slot);
	free(rela);
	free(syms);
	free(strs);
}

static const struct pl_layout *layout(uint8_t b)
{
	static const unsigned int versions[] = {32, 36, 40};

	return pl_layout__for(5, versions[b % 3]);
}

/* [layout][4: offset of the COP or CV][memory...] */
static void names(const uint8_t *data, size_t size, int cv)
{
	const struct pl_mem m = {.read = fake_mem__read, .ctx = &mem};
	const struct pl_layout *l;
	char name[PL_TEXT_MAX];
	struct pl_cop c;
	uint32_t at;

	if (size < 5)
		return;
	l = layout(data[0]);
	memcpy(&at, data + 1, 4);
	mem.p = fuzz_copy(data + 5, size - 5);
	mem.n = size - 5;
	if (!mem.p)
		return;
	if (cv) {
		name[0] = 'x';
		if (!pl_cv__name(&m, l, FAKE_MEM_BASE + at, name, sizeof(name)) &&
		    !memchr(name, '\0', sizeof(name)))
			abort();
	} else if (!pl_cop__read(&m, l, FAKE_MEM_BASE + at, &c) &&
		   !memchr(c.file, '\0', sizeof(c.file))) {
		abort();
	}
	free(mem.p);
}

/* [layout][4: offset of the interpreter][groups][memory...] */
static void walk(const uint8_t *data, size_t size)
{
	struct pl_proc proc;
	struct pl_cursor cur;
	struct pl_walk w = {.r = &rec, .p = &proc, .c = &cur};
	uint32_t at;
	int steps = 0;

	if (size < 6)
		return;
	memset(&proc, 0, sizeof(proc));
	proc.off = layout(data[0])->bpf;
	memcpy(&at, data + 1, 4);
	memset(&rec, 0, offsetof(struct sample_record, ustack));
	rec.ustack_len = data[5] & 0x80 ? UNW_MAX_FRAMES - (data[5] & 7) : 0;
	mem.p = fuzz_copy(data + 6, size - 6);
	mem.n = size - 6;
	if (!mem.p)
		return;
	if (pl_begin(&w, FAKE_MEM_BASE + at, data[5] & 0x7f))
		while (steps++ < PL_MAX_STEPS && !pl_step(&w))
			;
	if (rec.ustack_len > UNW_MAX_FRAMES)
		abort();
	free(mem.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 4) {
	case 0:
		relocations(data + 1, size - 1);
		break;
	case 1:
		names(data + 1, size - 1, 0);
		break;
	case 2:
		names(data + 1, size - 1, 1);
		break;
	case 3:
		walk(data + 1, size - 1);
		break;
	}
	return 0;
}
