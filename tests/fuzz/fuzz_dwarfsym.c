// SPDX-License-Identifier: Apache-2.0
/* libFuzzer harness for the DWARF lookup: each input becomes a file whose DWARF is opened,
 * looked up over its executable sections (with and without inline chains, each answer's
 * span checked to hold its address) and freed; for inputs of odd size with the units
 * bounded to a byte, so each new unit first drops and begins libdw again (what record's
 * report does); then the same through the debug cache's inflated copy, when it makes one
 * (what the symbolizer does).
 * Built by run_dwarfsym.sh. */
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbol/debugcache.h"
#include "symbol/dwarfsym.h"

#define LOOKUPS 96
#define SPANS 8
#define CACHE_BYTES (32u << 20) /* copies past 8 MiB are refused: inflating bombs stops */

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
	struct dwarf_span sp;
	uint64_t va;
	int n;

	for (size_t i = 0; i < LOOKUPS; i++) {
		va = nspans ? spans[i % nspans].lo + spans[i % nspans].size * i / LOOKUPS : i;
		if (i < 4 && size >= 8 * (i + 1))
			memcpy(&va, data + size - 8 * (i + 1), sizeof(va));
		n = dwarf_syms__lookup_span(d, va, i & 1, l, i % 5 ? DWARF_LINES_MAX : 2, &sp);
		for (int j = 0; j < n; j++)
			sink += strlen(l[j].function) + strlen(l[j].file) + l[j].line;
		/* Whatever the input, the span holds the address (empty only for the last). */
		if (!(sp.lo <= va && (va < sp.hi || (va == UINT64_MAX && sp.hi == va))))
			abort();
	}
	sink += dwarf_syms__memory(d);
}

static char cache_dir[] = "/tmp/fuzz_debugcache.XXXXXX";

/* Copies are named by build id: emptied after each input, so each is copied itself. */
static void empty_cache(void)
{
	struct dirent *e;
	DIR *d = opendir(cache_dir);

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
}

static void remove_cache(void)
{
	empty_cache();
	rmdir(cache_dir);
}

/* The input's copy in a debug cache of this process's own, or -1. */
static int cached_copy(int fd)
{
	static bool made;

	if (!made) {
		if (!mkdtemp(cache_dir))
			return -1;
		atexit(remove_cache);
		made = true;
	}
	return debug_cache__open(cache_dir, CACHE_BYTES, fd);
}

/* Opens the DWARF on fd, looks up, frees. */
static void one_file(int fd, const uint8_t *data, size_t size)
{
	struct dwarf_syms *d = dwarf_syms__open(fd);

	if (!d)
		return;
	if (size & 1)
		dwarf_syms__bound_units(d, 1);
	if (size & 2)
		dwarf_syms__bound_mapped(d, 1); /* every walk drops the mapped pages first */
	lookups(d, fd, data, size);
	sink_resets += dwarf_syms__resets(d);
	dwarf_syms__free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = input_fd(data, size), cfd;

	if (fd < 0)
		return 0;
	one_file(fd, data, size);
	cfd = cached_copy(fd);
	if (cfd >= 0) {
		one_file(cfd, data, size);
		close(cfd);
		empty_cache();
	}
	return 0;
}
