// SPDX-License-Identifier: Apache-2.0
/* libFuzzer harness for the DWARF lookup: each input becomes a file whose DWARF is opened,
 * looked up over its executable sections (with and without inline chains) and freed; for
 * inputs of odd size with the units bounded to a byte, so each new unit first drops and
 * begins libdw again (what record's report does). Built by run_dwarfsym.sh. */
#include <gelf.h>
#include <libelf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbol/dwarfsym.h"

#define LOOKUPS 96
#define SPANS 8

static volatile uint32_t sink_resets;

struct span {
	uint64_t lo, size;
};

static int input_fd(const uint8_t *data, size_t size)
{
	static int fd = -1;

	if (fd < 0)
		fd = memfd_create("fuzz_dwarfsym", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		return -1;
	return fd;
}

/* Where the code is: the executable sections' addresses, so lookups land in units. */
static size_t code_spans(int fd, struct span *v)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t n = 0;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return 0;
	while (n < SPANS && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size)
			v[n++] = (struct span){sh.sh_addr, sh.sh_size};
	elf_end(elf);
	return n;
}

static void lookups(struct dwarf_syms *d, int fd, const uint8_t *data, size_t size)
{
	struct dwarf_line l[DWARF_LINES_MAX];
	volatile size_t sink = 0;
	struct span spans[SPANS];
	size_t nspans = code_spans(fd, spans);
	uint64_t va;
	int n;

	for (size_t i = 0; i < LOOKUPS; i++) {
		va = nspans ? spans[i % nspans].lo + spans[i % nspans].size * i / LOOKUPS : i;
		if (i < 4 && size >= 8 * (i + 1))
			memcpy(&va, data + size - 8 * (i + 1), sizeof(va));
		n = dwarf_syms__lookup(d, va, i & 1, l, i % 5 ? DWARF_LINES_MAX : 2);
		for (int j = 0; j < n; j++)
			sink += strlen(l[j].function) + strlen(l[j].file) + l[j].line;
	}
	sink += dwarf_syms__memory(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dwarf_syms *d;
	int fd = input_fd(data, size);

	if (fd < 0)
		return 0;
	d = dwarf_syms__open(fd);
	if (!d)
		return 0;
	if (size & 1)
		dwarf_syms__bound_units(d, 1);
	if (size & 2)
		dwarf_syms__bound_mapped(d, 1); /* every walk drops the mapped pages first */
	lookups(d, fd, data, size);
	sink_resets += dwarf_syms__resets(d);
	dwarf_syms__free(d);
	return 0;
}
