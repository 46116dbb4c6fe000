// SPDX-License-Identifier: Apache-2.0
/* libFuzzer harness for the ELF readers: each input becomes a file opened once as the
 * shared view (src/elf/elf_file.c), whose sections, symbols and segments are queried, and
 * given to the symbol reader, looked up all over, merged into itself as a debug file and
 * freed; then the file is cut to a part of itself and given to the reader again, whose
 * windows of the tables then come back short. Built by run_elfsym.sh. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "symbol/elfsym.h"

#define LOOKUPS 64

static int input_fd(const uint8_t *data, size_t size)
{
	static int fd = -1;

	if (fd < 0)
		fd = memfd_create("fuzz_elfsym", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		return -1;
	return fd;
}

/* Offsets spread over the input, and a few read from its tail to hit symbols on purpose. */
static void lookups(struct elf_syms *s, const uint8_t *data, size_t size)
{
	volatile size_t sink = 0;
	uint64_t off, sym_off;
	const char *name;
	size_t i;

	for (i = 0; i < LOOKUPS; i++) {
		off = size * i / LOOKUPS;
		if (i < 4 && size >= 8 * (i + 1))
			memcpy(&off, data + size - 8 * (i + 1), sizeof(off));
		name = elf_syms__lookup(s, off, &sym_off);
		if (name)
			sink += strlen(name) + sym_off;
	}
	sink += strlen(elf_syms__build_id(s));
	if (elf_syms__debuglink(s))
		sink += strlen(elf_syms__debuglink(s));
}

/* The shared view's own queries: sections (read with a small and a large bound), symbols
 * by name (fixed ones and one taken from the input's tail), segments and biases. */
static void view_queries(const struct elf_file *e, const uint8_t *data, size_t size)
{
	static const char *const sections[] = {".eh_frame",	 ".debug_frame", ".zdebug_frame",
					       ".gnu_debuglink", ".text",	 ".debug_info"};
	static const char *const symbols[] = {"main", "_start", "malloc", "_PyRuntime"};
	volatile uint64_t sink = 0;
	struct elf_section sec;
	const void *d;
	uint64_t v, sz;
	char name[16];
	size_t i, n;

	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		if (elf_file__section(e, sections[i], &sec))
			continue;
		if (!elf_file__section_data(e, &sec, 64, &d, &n))
			sink += ((const uint8_t *)d)[n - 1];
		if (!elf_file__section_data(e, &sec, 1 << 20, &d, &n))
			sink += ((const uint8_t *)d)[n - 1];
	}
	for (i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++)
		if (!elf_file__symbol(e, symbols[i], &v, &sz))
			sink += v + sz;
	if (size >= sizeof(name)) {
		memcpy(name, data + size - sizeof(name), sizeof(name) - 1);
		name[sizeof(name) - 1] = '\0';
		if (!elf_file__symbol(e, name, &v, NULL))
			sink += v;
	}
	elf_file__segments(e, &n);
	for (i = 0; i < LOOKUPS / 8; i++) {
		if (elf_file__vaddr_bias(e, 0x7f0000000000 + i * 4096, size * i / 8, &v))
			sink += v;
		if (elf_file__off_to_vaddr(e, size * i / 8, &v))
			sink += v;
		if (elf_file__vaddr_to_off(e, v + i, &v))
			sink += v;
	}
	sink += n + elf_file__build_id(e, (const uint8_t **)&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_syms *s;
	struct elf_file *e;
	int fd = input_fd(data, size);

	if (fd < 0)
		return 0;
	e = elf_file__open(fd);
	if (!e)
		return 0;
	view_queries(e, data, size);
	s = elf_syms__open_elf(e);
	if (s) {
		lookups(s, data, size);
		if (elf_syms__add_debug_elf(s, e) == 0)
			lookups(s, data, size);
		elf_syms__free(s);
	}
	/* The file shrinks under the view (its headers read): a cut taken from the input. */
	if (size > 16 && ftruncate(fd, size - 1 - data[size / 2] * (size / 256 + 1) % size) == 0) {
		s = elf_syms__open_elf(e);
		if (s)
			lookups(s, data, size);
		elf_syms__free(s);
	}
	elf_file__free(e);
	return 0;
}
