// SPDX-License-Identifier: Apache-2.0
/* libFuzzer harness for the unwind table compiler: an input starting with "\x7fELF" is a
 * whole file; any other is raw CFI that the harness wraps in a minimal x86-64 ELF file, so
 * mutations reach the CFI reader instead of dying in ELF headers. Built by run_cfi.sh. */
#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "unwind/cfi.h"

#define TEXT_LO 0x1000
#define TEXT_HI 0x20000000
#define CFI_ADDR 0x10000000 /* .eh_frame's address: pc-relative FDEs land in the text */
#define LOOKUPS 64

/* Raw mode, first byte: which sections the rest becomes and how the file is opened. */
enum raw_flags {
	RAW_DEBUG_FRAME = 1, /* the CFI is .debug_frame, not .eh_frame */
	RAW_SPLIT = 2,	     /* the second byte splits the CFI into .eh_frame + .debug_frame */
	RAW_SELF_DEBUG = 4,  /* the file is also passed as its own debug file */
	RAW_ZDEBUG = 8,	     /* .debug_frame is called .zdebug_frame (GNU compression) */
};

/* Offsets in the section name table below. */
enum name_off {
	NAME_EH_FRAME = 1,
	NAME_DEBUG_FRAME = 11,
	NAME_SHSTRTAB = 24,
	NAME_ZDEBUG_FRAME = 34,
};

struct image {
	uint8_t *buf;
	size_t len, cap;
};

static void put(struct image *im, const void *p, size_t n)
{
	if (im->len + n > im->cap) {
		im->cap = (im->len + n) * 2 + 4096;
		im->buf = realloc(im->buf, im->cap);
		if (!im->buf)
			abort();
	}
	memcpy(im->buf + im->len, p, n);
	im->len += n;
}

static Elf64_Shdr section(uint32_t name, uint64_t addr, size_t off, size_t size, uint32_t type)
{
	return (Elf64_Shdr){.sh_name = name,
			    .sh_type = type,
			    .sh_addr = addr,
			    .sh_offset = off,
			    .sh_size = size,
			    .sh_addralign = 1};
}

/* ELF header, one R+X PT_LOAD, the sections a (named na) and b (nb, may be empty), then
 * .shstrtab and the section headers. */
static void wrap(struct image *im, uint32_t na, const uint8_t *a, size_t alen, uint32_t nb,
		 const uint8_t *b, size_t blen)
{
	static const char names[] = "\0.eh_frame\0.debug_frame\0.shstrtab\0.zdebug_frame";
	Elf64_Ehdr eh = {
	    .e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT},
	    .e_type = ET_DYN,
	    .e_machine = EM_X86_64,
	    .e_version = EV_CURRENT,
	    .e_phoff = sizeof(Elf64_Ehdr),
	    .e_ehsize = sizeof(Elf64_Ehdr),
	    .e_phentsize = sizeof(Elf64_Phdr),
	    .e_phnum = 1,
	    .e_shentsize = sizeof(Elf64_Shdr),
	    .e_shnum = 4,
	    .e_shstrndx = 3};
	Elf64_Phdr ph = {.p_type = PT_LOAD,
			 .p_flags = PF_R | PF_X,
			 .p_vaddr = TEXT_LO,
			 .p_memsz = TEXT_HI - TEXT_LO,
			 .p_align = 0x1000};
	Elf64_Shdr sh[4] = {{0}};
	size_t at = sizeof(eh) + sizeof(ph);

	sh[1] = section(na, CFI_ADDR, at, alen, SHT_PROGBITS);
	sh[2] = section(nb, CFI_ADDR + alen, at + alen, blen, blen ? SHT_PROGBITS : SHT_NOBITS);
	sh[3] = section(NAME_SHSTRTAB, 0, at + alen + blen, sizeof(names), SHT_STRTAB);
	eh.e_shoff = at + alen + blen + sizeof(names);
	put(im, &eh, sizeof(eh));
	put(im, &ph, sizeof(ph));
	put(im, a, alen);
	put(im, b, blen);
	put(im, names, sizeof(names));
	put(im, sh, sizeof(sh));
}

static int input_fd(const uint8_t *data, size_t size)
{
	static int fd = -1;

	if (fd < 0)
		fd = memfd_create("fuzz_cfi", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		return -1;
	return fd;
}

/* The table's promises: sorted, merged, closed by NONE, valid kinds, found by find. */
static void check(const struct unwind_table *t, const uint8_t *data, size_t size)
{
	static FILE *null;
	uint64_t pc;
	uint32_t i;

	if (t->nrows > UNWIND_TABLE_MAX_ROWS ||
	    (t->nrows && t->rows[t->nrows - 1].cfa_kind != UNW_CFA_NONE))
		abort();
	for (i = 0; i < t->nrows; i++) {
		if (t->rows[i].cfa_kind > UNW_CFA_NONE || t->rows[i].fp_rule > UNW_FP_UNDEF)
			abort();
		if (i && (t->rows[i].pc <= t->rows[i - 1].pc ||
			  unwind_row__same_rule(&t->rows[i], &t->rows[i - 1])))
			abort();
		if (unwind_table__find(t, t->rows[i].pc) != &t->rows[i])
			abort();
	}
	for (i = 0; i < LOOKUPS; i++) {
		pc = TEXT_LO + (uint64_t)(TEXT_HI - TEXT_LO) / LOOKUPS * i;
		if (i < 4 && size >= 8 * (i + 1))
			memcpy(&pc, data + size - 8 * (i + 1), sizeof(pc));
		unwind_table__find(t, pc);
	}
	if (!null)
		null = fopen("/dev/null", "w");
	if (null)
		unwind_table__dump(t, null);
}

static void build(const uint8_t *data, size_t size, bool self_debug)
{
	struct unwind_table t;
	int fd = input_fd(data, size);

	if (fd < 0)
		return;
	if (unwind_table__build(fd, self_debug ? fd : -1, &t) == 0)
		check(&t, data, size);
	else if (t.rows || t.nrows)
		abort();
	unwind_table__free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image im = {0};
	uint32_t first, debug;
	size_t split;
	uint8_t flags;

	if (size >= 4 && !memcmp(data, ELFMAG, SELFMAG)) {
		build(data, size, true);
		return 0;
	}
	if (size < 2)
		return 0;
	flags = data[0];
	debug = flags & RAW_ZDEBUG ? NAME_ZDEBUG_FRAME : NAME_DEBUG_FRAME;
	first = flags & RAW_DEBUG_FRAME ? debug : NAME_EH_FRAME;
	data += 2;
	size -= 2;
	split = flags & RAW_SPLIT ? size * data[-1] / 256 : size;
	wrap(&im, first, data, split, debug, data + split, size - split);
	build(im.buf, im.len, flags & RAW_SELF_DEBUG);
	free(im.buf);
	return 0;
}
