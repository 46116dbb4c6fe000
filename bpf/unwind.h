/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* The compiled unwind table format shared by the table compiler (userspace) and the
 * in-kernel unwinder: one row per address range of a file, sorted by pc, each valid up
 * to the next row's pc. Architecture-neutral: registers are named by role (SP, FP, RA,
 * LR); the special kinds' meaning (PLT stub, signal frame) is the architecture's
 * (src/arch/arch.h, bpf/arch/). */
#ifndef EBPROF_UNWIND_H
#define EBPROF_UNWIND_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

enum unwind_cfa_kind {
	UNW_CFA_SP = 0, /* CFA = SP + cfa_off */
	UNW_CFA_FP = 1, /* CFA = FP + cfa_off */
	/* x86-64 PLT stub: CFA = SP + cfa_off, plus 8 when (pc & 15) >= fp_off (the
	 * DW_OP expression every linker emits for .plt entries). */
	UNW_CFA_PLT = 2,
	UNW_CFA_SIGNAL = 3, /* signal trampoline: SP points at the kernel's rt_sigframe */
	UNW_CFA_END = 4,    /* return address undefined: the outermost frame */
	UNW_CFA_NONE = 5,   /* no CFI covers pc (a gap between FDEs), or a rule we cannot follow */
};

/* Where the return address is. */
enum unwind_ra_rule {
	UNW_RA_AT_CFA = 0, /* saved at CFA + ra_off */
	/* Still in the link register (arm64's x30): a leaf function, a prologue before it
	 * saves x30, a PLT stub. Only the innermost frame, and a frame a signal interrupted,
	 * know the register's value. */
	UNW_RA_LR = 1,
};

enum unwind_fp_rule {
	UNW_FP_SAME = 0,   /* FP unchanged in the caller */
	UNW_FP_AT_CFA = 1, /* the caller's FP is saved at CFA + fp_off */
	UNW_FP_UNDEF = 2,  /* FP not recoverable: the caller's FP is unknown */
};

struct unwind_row {
	__u32 pc; /* first ELF virtual address the row covers (files < 4 GiB) */
	__s32 cfa_off;
	__s16 fp_off;  /* UNW_FP_AT_CFA: offset from CFA; UNW_CFA_PLT: the threshold */
	__s16 ra_off;  /* return address saved at CFA + ra_off (-8 on x86-64) */
	__u8 cfa_kind; /* enum unwind_cfa_kind */
	__u8 fp_rule;  /* enum unwind_fp_rule */
	__u8 ra_rule;  /* enum unwind_ra_rule */
	__u8 pad;
};

/* What the unwinder knows of a process: its executable mappings, sorted by start. */
#define UNW_MAX_MAPPINGS 128 /* a power of two: the binary search halves it 7 times */
#define UNW_MAPPING_STEPS 7
#define UNW_MAX_FRAMES 256
#define UNW_ROW_STEPS 24 /* binary search over at most 2^24 rows of one table */

/* A compact row: 8 bytes, where nearly every row of compiled code fits (every row of
 * libc, cc1, libLLVM, libjvm and rustc's driver here): a CFA offset that is a multiple
 * of 8 within +-2 MiB, a saved FP within +-1 KiB of the CFA, and the return address at
 * UNW_COMPACT_RA_OFF (never in the link register: UNW_RA_LR rows stay full). A table whose every row fits is stored compact, two rows to a
 * pool row (unw_table.flags): half the memory. info holds, from bit 0: cfa_kind (3
 * bits), fp_rule (2), fp_off / 8 signed (8; a PLT row's threshold as it is), cfa_off /
 * 8 signed (19). */
struct unwind_row_compact {
	__u32 pc;
	__u32 info;
};

#define UNW_COMPACT_RA_OFF (-8) /* x86-64: the return address is the CFA's last slot */
#define UNW_COMPACT_FP_SHIFT 5
#define UNW_COMPACT_CFA_SHIFT 13

/* What a runtime claims of a mapping (unw_mapping.mark); the mapping's runtime field
 * names the runtime (enum walker). Userspace splits mappings at the claimed ranges, so
 * the mapping search finds the marker with no search of its own. */
enum unw_mark {
	UNW_MARK_NONE = 0,
	/* Each native frame here is one activation of an interpreter loop (an eval loop
	 * inside a library): the native walker keeps it, flags it, and the runtime's
	 * walker, run once after the native walk, supplies the frames it ran. */
	UNW_MARK_ACTIVATION = 1,
	/* Code the runtime unwinds itself (JIT code, generated interpreters): the native
	 * walker hands it the registers and the runtime hands them back when it leaves. */
	UNW_MARK_WALK = 2,
};

struct unw_mapping {
	__u64 start;
	__u64 end;
	__u64 off_bias;	  /* file offset = pc - off_bias */
	__u64 vaddr_bias; /* ELF virtual address = pc - vaddr_bias */
	__u32 file_id;	  /* files.h id, 0 for anonymous executable memory */
	__u32 table;	  /* unw_tables index, 0 while the table is not built */
	__u8 runtime;	  /* enum walker of the runtime that claimed it, with mark */
	__u8 mark;	  /* enum unw_mark */
	__u8 cut;	  /* without a table: why (enum cut_cause + 1), for the cut counters */
	__u8 pad;
	__u32 pad2;
};

struct unw_proc {
	__u32 n;
	__u32 always; /* runtimes (1 << enum walker) run after every native walk of it */
	struct unw_mapping m[UNW_MAX_MAPPINGS];
};

/* A file as the kernel knows it: the key of file_tables, by which the walker finds the
 * table of a pc's file in any process, described or not. dev is the superblock's s_dev
 * in the kernel's own encoding (major << 20 | minor), as /proc/PID/maps shows it for
 * the mapped file (on overlayfs the file underneath); the vDSO, which has no file, is
 * {0, 0}. */
struct unw_file_key {
	__u64 dev;
	__u64 ino;
};

/* What became of a file's table (unw_file.state). */
enum unw_file_state {
	UNW_FILE_READY = 0, /* table is its table */
	UNW_FILE_NO_CFI,    /* none: no CFI, unreadable (frame pointers there) */
	UNW_FILE_NO_ROOM,   /* none: it did not fit the unwind memory */
	UNW_FILE_EVICTED,   /* none now: evicted for room; the next use asks for it again */
	UNW_FILE_EXPIRED,   /* none now: dropped unused; the next use asks for it again */
};

#define UNW_FILE_SEGS 2 /* executable segments of a file the walker can place a pc in */

/* A file in file_tables: its id (files.h) for the frames, its table, and where its code
 * lies. A pc at file offset off of a mapping is in segment i when off - seg.lo <
 * seg.span (lo: the segment's offset rounded down to its page, as the loader maps it);
 * its ELF virtual address, by which the table is sorted, is then off + seg.delta. */
struct unw_file {
	__u32 file_id;
	__u32 table; /* unw_tables index; 0 while there is none (state says why) */
	__u8 state;  /* enum unw_file_state */
	__u8 nsegs;
	__u16 pad;
	__u32 runtimes; /* runtimes that claim the file (1 << enum walker): its processes
			 * need a description, which holds the runtimes' marks */
	struct {
		__u64 lo;
		__u64 span;
		__s64 delta;
	} segs[UNW_FILE_SEGS];
};

/* The registers an unwinding step reads and writes, named by role. */
struct unw_regs {
	__u64 pc;
	__u64 sp;
	__u64 fp;
	__u32 pc_exact; /* pc is the interrupted instruction, not a return address */
	__u32 pad;
	/* The link register where it is known (arm64: the interrupted frame's x30, as
	 * sampled or restored from a signal frame), 0 elsewhere and on x86-64. */
	__u64 lr;
	/* The register a template interpreter keeps its bytecode pointer in (ARCH_BCP: r13
	 * on x86-64, x22 on arm64), as sampled or restored from a signal frame: the
	 * interrupted frame's, so meaningful only while pc_exact; a runtime's walker decides
	 * whether it is one. */
	__u64 bcp;
};

enum unw_step {
	UNW_STEP_NEXT = 0,   /* regs now describe the caller */
	UNW_STEP_END,	     /* the outermost frame: the stack is complete */
	UNW_STEP_NO_ROW,     /* no rule covers pc */
	UNW_STEP_READ_FAULT, /* the stack could not be read */
	UNW_STEP_BAD_FRAME,  /* the rule gave an impossible caller (sp went down) */
};

/* A file's rows in the shared pool: its count rows from pool row first on, one to a
 * pool row, or two with UNW_TABLE_COMPACT; then, when pages is not 0, its page index
 * from pool row index on, UNW_INDEX_PER_ROW pages each: page i's pair counts the rows
 * whose pc is at most (base + i) << UNW_INDEX_SHIFT and those at most (base + i + 1) <<
 * UNW_INDEX_SHIFT. A search then starts from the few rows of one page instead of the
 * whole table: a binary search over a large table misses the cache (and the TLB) at
 * nearly every probe, ~90 ns each on a busy host, and the page's rows are a few
 * adjacent lines. */
struct unw_table {
	__u32 first;
	__u32 count;
	__u32 pages; /* KiB of code the page index covers, 0: none (the search spans the table) */
	__u32 base;  /* the first row's pc >> UNW_INDEX_SHIFT */
	__u32 index; /* the pool row of the page index */
	__u32 flags; /* UNW_TABLE_* */
};

#define UNW_TABLE_COMPACT 1u /* rows are struct unwind_row_compact, two to a pool row */

#define UNW_INDEX_SHIFT 10 /* ~20 rows per KiB of code: a search of 4-5 probes */
#define UNW_INDEX_PER_ROW (sizeof(struct unwind_row) / (2 * sizeof(__u32)))

#endif
