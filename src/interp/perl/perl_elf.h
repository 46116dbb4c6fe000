/* SPDX-License-Identifier: Apache-2.0 */
/* What makes an ELF file a perl, read from its symbols: the runops loops (the
 * activations the native walker flags), the version bytes, where the interpreter
 * pointer is (PL_curinterp; PL_current_context in TLS from 5.36), and the GOT slot the
 * dynamic linker fills with PL_current_context's offset from the thread pointer. Debian's
 * /usr/bin/perl links libperl statically and exports them all; libperl.so (embedders)
 * holds the same. */
#ifndef EBPROF_PERL_ELF_H
#define EBPROF_PERL_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_file;

#define PL_RUNOPS 2 /* Perl_runops_standard, Perl_runops_debug (perl -d, Devel::*) */

/* ELF addresses (the load bias is added per process); 0 when absent. */
struct pl_symbols {
	uint64_t runops[PL_RUNOPS][2];		/* [start, end) */
	uint64_t revision, version, subversion; /* PL_revision...: U8 each, 5, 36, 0 */
	uint64_t curinterp;			/* PL_curinterp: the main interpreter */
	bool tls;	   /* PL_current_context exists: a TLS variable (5.36+) */
	uint64_t tls_slot; /* the GOT slot of its R_X86_64_TPOFF64 relocation, or 0 */
};

/* Reads what makes e a perl into out. Returns 0, or -ENOENT when it is not one (no
 * runops loop, no version bytes, no interpreter pointer). */
int pl_symbols__read(const struct elf_file *e, struct pl_symbols *out);

/* Over a file's .rela.dyn (rela, Elf64_Rela entries), .dynsym and .dynstr, all
 * untrusted: the r_offset of the first R_X86_64_TPOFF64 relocation against the symbol
 * called name, into *slot. Returns 0, or -ENOENT. Exposed for the fuzzer. */
int pl_tpoff_slot(const void *rela, size_t rela_size, const void *dynsym, size_t dynsym_size,
		  const char *dynstr, size_t dynstr_size, const char *name, uint64_t *slot);

#endif
