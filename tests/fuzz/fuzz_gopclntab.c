// SPDX-License-Identifier: Apache-2.0
/* libFuzzer harness for the Go pclntab reader. An input is a table as Go binaries carry
 * it: [flags:1][header offset:4][go:func.* offset:4][bytes], wrapped here into an ELF file
 * with a text segment, the bytes as read-only data, module data pointing at them and, when
 * flags bit 0 is set, section headers (else the reader must search for the header). */
#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "interp/go/go_cgo.h"
#include "symbol/gopclntab.h"

#define TEXT_VA 0x400000ull
#define TEXT_SPAN (64ull << 20) /* headers only: lookups past the file read nothing */
#define MD_OFF 512
#define MD_VA 0x20000000ull
#define MD_WORDS 48
#define DATA_OFF 1024
#define DATA_VA 0x10000000ull
#define LOOKUPS 64

static const char shstrtab[] = "\0.shstrtab\0.gopclntab\0.text";

static int input_fd(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = memfd_create("fuzz_gopclntab", MFD_CLOEXEC);
	return fd >= 0 && !ftruncate(fd, 0) ? fd : -1;
}

static void put_sections(int fd, uint64_t data_len, uint64_t end)
{
	Elf64_Shdr sh[4] = {
	    [1] = {.sh_name = 1,
		   .sh_type = SHT_STRTAB,
		   .sh_offset = end,
		   .sh_size = sizeof(shstrtab)},
	    [2] = {.sh_name = 11,
		   .sh_type = SHT_PROGBITS,
		   .sh_addr = DATA_VA,
		   .sh_offset = DATA_OFF,
		   .sh_size = data_len},
	    [3] = {.sh_name = 22,
		   .sh_type = SHT_PROGBITS,
		   .sh_addr = TEXT_VA,
		   .sh_size = TEXT_SPAN},
	};

	pwrite(fd, shstrtab, sizeof(shstrtab), end);
	pwrite(fd, sh, sizeof(sh), end + 64);
}

/* Writes the ELF file around data; returns its fd or -1. */
static int make_elf(const uint8_t *data, size_t size)
{
	uint64_t md[MD_WORDS] = {0}, n = size - 9, hdr, gofunc, names = 0, end;
	Elf64_Ehdr eh = {.e_type = ET_EXEC, .e_machine = EM_X86_64, .e_version = EV_CURRENT};
	Elf64_Phdr ph[3] = {
	    {.p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_vaddr = TEXT_VA, .p_filesz = TEXT_SPAN},
	    {.p_type = PT_LOAD, .p_flags = PF_R, .p_offset = DATA_OFF, .p_vaddr = DATA_VA},
	    {.p_type = PT_LOAD, .p_flags = PF_R | PF_W, .p_offset = MD_OFF, .p_vaddr = MD_VA},
	};
	int fd = input_fd();

	if (fd < 0)
		return -1;
	memcpy(&hdr, (uint8_t[8]){data[1], data[2], data[3], data[4]}, 8);
	memcpy(&gofunc, (uint8_t[8]){data[5], data[6], data[7], data[8]}, 8);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = 3;
	ph[1].p_filesz = n;
	ph[2].p_filesz = sizeof(md);
	if (hdr + 40 <= n)
		memcpy(&names, data + 9 + hdr + (data[9 + hdr] == 0xfa ? 24 : 32), 8);
	md[0] = DATA_VA + hdr;
	md[1] = md[0] + names;
	md[22] = TEXT_VA;
	for (unsigned int k = 36; k < MD_WORDS; k++) /* where each release keeps go:func.* */
		md[k] = k == 38 || k == 40 || k == 43 ? DATA_VA + gofunc : DATA_VA;
	end = DATA_OFF + n;
	if (data[0] & 1) {
		eh.e_shoff = end + 64;
		eh.e_shentsize = sizeof(Elf64_Shdr);
		eh.e_shnum = 4;
		eh.e_shstrndx = 1;
		put_sections(fd, n, end);
	}
	if (pwrite(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    pwrite(fd, ph, sizeof(ph), sizeof(eh)) != sizeof(ph) ||
	    pwrite(fd, md, sizeof(md), MD_OFF) != sizeof(md) ||
	    (n && pwrite(fd, data + 9, n, DATA_OFF) != (ssize_t)n))
		return -1;
	return fd;
}

/* The unwind rows' view: every SP range, which must lie inside its function. */
static int sp_range(void *ctx, const struct go_sp_range *r)
{
	size_t *n = ctx;

	if (r->end < r->pc)
		__builtin_trap();
	return ++*n > (1u << 20); /* a bound on work per input, like the row cap */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct go_line l[GO_INLINE_MAX];
	volatile size_t sink = 0;
	struct go_table *t;
	int fd;

	if (size < 9)
		return 0;
	fd = make_elf(data, size);
	if (fd < 0)
		return 0;
	t = go_table__open(fd);
	if (!t)
		return 0;
	for (unsigned int i = 0; i < LOOKUPS; i++) {
		uint64_t off = (size * 2) * i / LOOKUPS + (i & 7);
		unsigned int n = go_table__lookup(t, off, l, i & 1 ? GO_INLINE_MAX : 2);

		for (unsigned int k = 0; k < n; k++)
			sink += strlen(l[k].function) + strlen(l[k].file) + l[k].line;
	}
	sink += strlen(go_table__version(t)) + go_table__has_inline(t);
	{
		uint64_t entry = 0, end = 0;

		uint8_t g = 0, depth = 0;

		sink += go_table__asm_func(t, "runtime.asmcgocall", &entry, &end) + entry + end;
		/* The input as asmcgocall's and morestack's code (go_cgo.c reads at most 512
		 * bytes). */
		sink += go_cgo__slots(data, size < 512 ? size : 512, &g, &depth) + g + depth;
		sink += go_cgo__sched_bp(data, size < 512 ? size : 512);
	}
	{
		size_t ranges = 0;

		go_table__each_sp(t, sp_range, &ranges);
		sink += ranges;
	}
	go_table__free(t);
	return 0;
}
