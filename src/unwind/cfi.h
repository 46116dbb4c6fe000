/* SPDX-License-Identifier: Apache-2.0 */
/* Unwind table compiler: turns an ELF file's call frame information (.eh_frame, .debug_frame,
 * a separate debug file's .debug_frame) into the sorted, merged rows of bpf/unwind.h that
 * the in-kernel unwinder binary-searches. Input files are treated as hostile. */
#ifndef EBPROF_UNWIND_CFI_H
#define EBPROF_UNWIND_CFI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "unwind.h"

struct elf_file;

/* Bounds on what one file may cost. Past a bound the table stops (or the FDE does) with a
 * NONE row and a counter says so; nothing is dropped silently. */
#define UNWIND_TABLE_MAX_ROWS (1u << 22) /* 64 MiB of rows; libLLVM-15 needs 0.98 M */
#define UNWIND_TABLE_MAX_FDES (1u << 21) /* all sources together; libLLVM-15 has 98 k */
#define UNWIND_FDE_MAX_ROWS (1u << 16)	 /* per FDE; real functions have at most hundreds */
#define UNWIND_MAX_CIES (1u << 18)	 /* .debug_frame has one per compile unit */
#define UNWIND_SECTION_MAX (64u << 20)	 /* bytes of a CFI section, decompressed (LLVM: 5 M) */

/* Where rows came from, in order of precedence: an FDE of a later source is used only
 * where no FDE of an earlier one covers any of its range. */
enum unwind_source {
	UNWIND_SRC_EH_FRAME = 1,
	UNWIND_SRC_DEBUG_FRAME = 2,
	UNWIND_SRC_DEBUG_FILE = 4, /* .debug_frame of the separate debug file */
};

struct unwind_table_stats {
	uint32_t sources;	    /* enum unwind_source bits that contributed FDEs */
	uint32_t cies;		    /* CIEs parsed */
	uint32_t cies_bad;	    /* malformed or unsupported (their FDEs count as fdes_bad) */
	uint32_t fdes;		    /* FDEs found in all sources */
	uint32_t fdes_used;	    /* FDEs that produced rows */
	uint32_t fdes_bad;	    /* malformed header, bad CIE pointer, unsupported encoding */
	uint32_t fdes_outside;	    /* empty, at 0, past 4 GiB or not in an executable segment */
	uint32_t fdes_overlap;	    /* overlap an FDE already taken (earlier source or address) */
	uint32_t fdes_truncated;    /* instructions cut short (bad opcode, state stack, row cap):
				      * NONE from there to the FDE's end */
	uint32_t fdes_signal;	    /* FDEs of 'S' CIEs (signal trampolines) */
	uint32_t rows_before_merge; /* DWARF rows, plus one NONE per FDE end */
	uint32_t rows_cfa_unsupported; /* rows whose CFA is neither SP/FP + off nor PLT: NONE */
	uint32_t rows_ra_unsupported;  /* rows whose return address is not at CFA + off: NONE */
	uint32_t rows_fp_undef;	       /* rows whose FP rule we cannot express: UNDEF */
	uint32_t rows_plt;
	uint32_t rows_end;
	uint32_t sections_skipped; /* CFI sections unreadable, too big or badly compressed */
	uint32_t truncated;	   /* 1: UNWIND_TABLE_MAX_ROWS or _MAX_FDES reached */
	int debug_file_err;	   /* 0, or why debug_fd was not used (negative errno) */
};

struct unwind_table {
	struct unwind_row *rows; /* sorted by pc; the last row is always NONE */
	uint32_t nrows;
	struct unwind_table_stats stats;
};

/* Compiles the CFI of the ELF file open on fd (of ARCH_ELF_MACHINE, src/arch/arch.h) into t (which the caller zeroes or
 * has freed), with the .debug_frame of the separate debug file open on debug_fd (-1 for
 * none) filling gaps. Reads with pread (no mapping: a file truncated under us is an error,
 * not SIGBUS); neither fd is closed or moved. A file without usable CFI gives 0 and an
 * empty table. Returns 0 or -EINVAL (not ELF, unreadable headers), -ENOTSUP (not 64-bit
 * little-endian of our architecture, or a relocatable object), -ENOMEM, -EBADF. On
 * error t is empty. */
int unwind_table__build(int fd, int debug_fd, struct unwind_table *t);
/* The same from files already open (debug may be NULL); neither is freed. cancel (may
 * be NULL) is another thread's stop flag, polled every few hundred CFI entries and FDEs:
 * once it is set the build gives up with -ECANCELED, t empty (its stats say how far it
 * got: fdes found, fdes_used). */
int unwind_table__build_elf(const struct elf_file *e, const struct elf_file *debug,
			    const bool *cancel, struct unwind_table *t);
void unwind_table__free(struct unwind_table *t);

/* The row covering ELF virtual address pc: the last row whose pc is <= pc, or NULL when
 * pc is before the first row (or the table is empty). Past 4 GiB: the last row (NONE). */
const struct unwind_row *unwind_table__find(const struct unwind_table *t, uint64_t pc);

/* Prints one row per line, e.g. "000284a0 sp+16 ra=c-8 fp=c-16", "00026010 plt sp+8 >=11
 * ra=c-8 fp=s", "00027380 sp+0 ra=lr fp=s" (arm64: in the link register), "0003c04f
 * signal", "00029f00 end", "00027143 none". Returns 0 or -EIO. */
int unwind_table__dump(const struct unwind_table *t, FILE *out);

/* Whether two rows unwind alike (their pc aside): neighbours that do are merged. */
static inline bool unwind_row__same_rule(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->cfa_kind == b->cfa_kind && a->cfa_off == b->cfa_off && a->fp_off == b->fp_off &&
	       a->ra_off == b->ra_off && a->fp_rule == b->fp_rule && a->ra_rule == b->ra_rule;
}

#endif
