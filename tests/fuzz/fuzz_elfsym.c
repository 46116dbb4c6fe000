// SPDX-License-Identifier: Apache-2.0
/* libFuzzer harness for the ELF symbol reader: each input becomes a file that is opened,
 * looked up all over, merged into itself as a debug file and freed. Built by run.sh. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_syms *s;
	int fd = input_fd(data, size);

	if (fd < 0)
		return 0;
	s = elf_syms__open(fd);
	if (!s)
		return 0;
	lookups(s, data, size);
	if (elf_syms__add_debug_file(s, fd) == 0)
		lookups(s, data, size);
	elf_syms__free(s);
	return 0;
}
