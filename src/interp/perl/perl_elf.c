// SPDX-License-Identifier: Apache-2.0
/* The symbols of a perl (perl_elf.h). Everything is looked up by name in .symtab, then
 * .dynsym (Debian strips the first; the second exports all of these), and the TLS slot
 * is found among the dynamic relocations. */
#include <elf.h>
#include <errno.h>
#include <string.h>

#include "elf/elf_file.h"
#include "interp/perl/perl_elf.h"

#define MAX_DYN_SECTION (64u << 20) /* bytes of .rela.dyn, .dynsym or .dynstr read */

int pl_tpoff_slot(const void *rela, size_t rela_size, const void *dynsym, size_t dynsym_size,
		  const char *dynstr, size_t dynstr_size, const char *name, uint64_t *slot)
{
	size_t n = rela_size / sizeof(Elf64_Rela), nsyms = dynsym_size / sizeof(Elf64_Sym);
	size_t len = strlen(name);

	for (size_t i = 0; i < n; i++) {
		Elf64_Rela r;
		Elf64_Sym s;
		size_t sym;

		memcpy(&r, (const uint8_t *)rela + i * sizeof(r), sizeof(r));
		sym = ELF64_R_SYM(r.r_info);
		if (ELF64_R_TYPE(r.r_info) != R_X86_64_TPOFF64 || !sym || sym >= nsyms)
			continue;
		memcpy(&s, (const uint8_t *)dynsym + sym * sizeof(s), sizeof(s));
		/* The name and its NUL must lie inside .dynstr. */
		if (s.st_name >= dynstr_size || dynstr_size - s.st_name <= len ||
		    memcmp(dynstr + s.st_name, name, len + 1))
			continue;
		*slot = r.r_offset;
		return 0;
	}
	return -ENOENT;
}

/* The data of section name (whole, at most MAX_DYN_SECTION bytes). */
static int section(const struct elf_file *e, const char *name, const void **data, size_t *size)
{
	struct elf_section s;
	int err = elf_file__section(e, name, &s);

	if (err)
		return err;
	return elf_file__section_data(e, &s, MAX_DYN_SECTION, data, size);
}

/* The GOT slot the dynamic linker fills with PL_current_context's thread-pointer offset
 * (initial-exec TLS: a R_X86_64_TPOFF64 relocation), or 0. */
static uint64_t tls_slot(const struct elf_file *e)
{
	const void *rela, *syms, *strs;
	size_t nrela, nsyms, nstrs;
	uint64_t slot = 0;

	if (section(e, ".rela.dyn", &rela, &nrela) || section(e, ".dynsym", &syms, &nsyms) ||
	    section(e, ".dynstr", &strs, &nstrs))
		return 0;
	if (pl_tpoff_slot(rela, nrela, syms, nsyms, strs, nstrs, "PL_current_context", &slot))
		return 0;
	return slot;
}

static uint64_t address(const struct elf_file *e, const char *name)
{
	uint64_t v = 0;

	return elf_file__symbol(e, name, &v, NULL) ? 0 : v;
}

static void range(const struct elf_file *e, const char *name, uint64_t r[2])
{
	uint64_t v, size;

	if (!elf_file__symbol(e, name, &v, &size) && size) {
		r[0] = v;
		r[1] = v + size;
	}
}

int pl_symbols__read(const struct elf_file *e, struct pl_symbols *out)
{
	uint64_t v;

	memset(out, 0, sizeof(*out));
	if (!e)
		return -ENOENT;
	range(e, "Perl_runops_standard", out->runops[0]);
	range(e, "Perl_runops_debug", out->runops[1]);
	out->revision = address(e, "PL_revision");
	out->version = address(e, "PL_version");
	out->subversion = address(e, "PL_subversion");
	out->curinterp = address(e, "PL_curinterp");
	/* A TLS symbol's value is an offset in the TLS block: 0 is a valid one. */
	out->tls = !elf_file__symbol(e, "PL_current_context", &v, NULL);
	if (out->tls)
		out->tls_slot = tls_slot(e);
	if (!out->runops[0][1] || !out->revision || !out->version || !out->subversion ||
	    (!out->curinterp && !out->tls))
		return -ENOENT;
	return 0;
}
