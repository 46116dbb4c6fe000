// SPDX-License-Identifier: Apache-2.0
/* libjvm.so as a file (see hotspot_elf.h): its exported serviceability symbols, found in
 * .dynsym (the JVM exports them for tools that attach to it), and its load segments. */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>

#include "interp/hotspot/hotspot_elf.h"
#include "util/mapguard.h"

bool hs_elf__is_libjvm(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strcmp(base, "libjvm.so");
}

static void note_symbol(struct hs_elf *e, const char *name, uint64_t value)
{
	for (int i = 0; i < HS_SYM__COUNT; i++)
		if (!strcmp(name, hs_sym_names[i]))
			e->sym[i] = value;
}

static void read_symbols(Elf *elf, struct hs_elf *e)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			const char *name;
			GElf_Sym s;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			/* Every symbol wanted starts so: skip the other 20,000 cheaply. */
			if (name && !strncmp(name, "gHotSpotVM", 10))
				note_symbol(e, name, s.st_value);
		}
	}
}

static void read_segments(Elf *elf, struct hs_elf *e)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return;
	for (size_t i = 0; i < n && e->nsegs < HS_MAX_SEGS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		e->segs[e->nsegs].offset = ph.p_offset;
		e->segs[e->nsegs].vaddr = ph.p_vaddr;
		e->segs[e->nsegs].filesz = ph.p_filesz;
		e->nsegs++;
	}
}

int hs_elf__read(int fd, struct hs_elf *out)
{
	/* libelf maps the file: one truncated meanwhile is unreadable, not SIGBUS. */
	unsigned int guard = mapguard__begin();
	Elf *elf;
	int err = 0;

	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		err = -EINVAL;
		goto cleanup;
	}
	if (elf_kind(elf) != ELF_K_ELF) {
		err = -EINVAL;
		goto cleanup;
	}
	read_symbols(elf, out);
	read_segments(elf, out);
	if (!out->sym[HS_SYM_STRUCTS] || !out->nsegs)
		err = -ENOENT;
cleanup:
	if (elf)
		elf_end(elf);
	if (mapguard__end(guard))
		err = -EIO;
	return err;
}

bool hs_elf__bias(const struct hs_elf *e, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	for (uint32_t i = 0; i < e->nsegs; i++) {
		uint64_t off = e->segs[i].offset;

		if (pgoff >= (off & ~4095ULL) && pgoff < off + e->segs[i].filesz) {
			*bias = start - pgoff + off - e->segs[i].vaddr;
			return true;
		}
	}
	return false;
}
