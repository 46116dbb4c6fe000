/* SPDX-License-Identifier: Apache-2.0 */
/* Names a Perl frame from the process's memory, which it cannot trust: a COP's file and
 * line, and a CV's "Package::name" — through its GV, or, for a sub declared the ordinary
 * way since 5.22 (a "named CV"), its own name HEK and CvSTASH. The package is the stash's
 * name (HvNAME), which 5.32 keeps after the hash's buckets and 5.36+ in its body. Every
 * read goes through a reader (process_vm_readv in production, the fuzzer's buffer in
 * tests), every length is bounded. */
#ifndef EBPROF_PERL_NAMES_H
#define EBPROF_PERL_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "interp/perl/perl_layout.h"

#define PL_TEXT_MAX 512 /* bytes of a file or package::name kept (then cut) */

struct pl_mem {
	/* Reads len bytes at addr. Returns 0 or a negative errno (short reads fail). */
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *ctx;
};

struct pl_cop {
	uint32_t line;
	char file[PL_TEXT_MAX]; /* as Perl names it: "t.pl", "/usr/share/perl5/X.pm", "(eval 3)" */
};

/* Reads the statement (COP) at cop. Returns 0, -EINVAL when what is there is no COP (a
 * freed op), or the reader's error. */
int pl_cop__read(const struct pl_mem *m, const struct pl_layout *l, uint64_t cop,
		 struct pl_cop *out);

/* Writes the name of the code cv runs into out (cap bytes, cap > 0): "Package::name";
 * "Package::__ANON__[file:LINE]" for an anonymous sub, LINE its first statement's;
 * "(eval)" for the code of an eval '', require or do FILE; "main::" for cv 0, the main
 * program. Returns 0, -EINVAL when what is at cv is no CV (freed), or the reader's
 * error. */
int pl_cv__name(const struct pl_mem *m, const struct pl_layout *l, uint64_t cv, char *out,
		size_t cap);

#endif
