/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* One step of the .NET walker: from the registers of a frame whose pc lies in managed
 * code (the JIT's code heap or a ready-to-run image), the frame's record and its
 * caller's registers. Pure logic; the includer supplies DN_READ_USER(dst, size, addr):
 * 0 when size bytes at addr were read.
 *
 * CoreCLR's code keeps rbp as the frame pointer in every method that has a frame (tier-0
 * code always does: the saved rbp at rbp, the return address above it), but optimized
 * code gives small methods none (sub rsp, 8; call; add rsp, 8; ret): the rbp chain then
 * skips them. Their return addresses lie between a frame's sp and its frame pointer, the
 * lowest words of the stack above the frame that called them: the step reads the first
 * DN_SCAN_WORDS words from sp and sends those that point between the lowest and highest
 * managed address as scanned frames (DN_FRAME_SCANNED), which the host keeps only when
 * a call instruction ends right before them and they name a method (one compare per
 * word: 8 ranges per word took the verifier 236 k instructions and 4.4 s, where the
 * rest of the walker takes 30 k). A sample in a prologue before `mov rbp, rsp` loses its
 * caller. */
#ifndef EBPROF_DOTNET_STEP_H
#define EBPROF_DOTNET_STEP_H

#include "dotnet_proc.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* Words scanned above each frame's sp for frameless callers' return addresses, and how
 * many such frames one step sends at most (a power of two: it masks an index). */
#define DN_SCAN_WORDS 16
#define DN_SCAN_MAX 4

struct dn_regs {
	__u64 pc;
	__u64 sp;
	__u64 fp;
	__u32 pc_exact;
	__u32 pad;
};

enum dn_step {
	DN_STEP_NEXT = 0, /* a frame was recorded, regs describe its caller */
	DN_STEP_LEAVE,	  /* pc is not managed code: the native walker's turn */
	DN_STEP_FAULT,	  /* the frame could not be read */
	DN_STEP_BAD,	  /* the caller computed is impossible (fp did not grow) */
	DN_STEP_END,	  /* the outermost frame (a zero return address) */
};

/* The frame at r: its pc, and the return addresses of frameless callers found in the
 * first words above its sp (below its frame pointer), innermost first. */
struct dn_frame {
	__u64 pc;
	__u32 flags;
	__u32 nscanned;
	__u64 scanned[DN_SCAN_MAX];
};

/* Whether pc lies in one of the process's managed ranges. */
static __always_inline int dn_managed(const struct dn_proc *p, __u64 pc)
{
	for (int i = 0; i < DN_MAX_RANGES; i++)
		if ((__u32)i < p->nranges && pc >= p->range[i].low && pc < p->range[i].high)
			return 1;
	return 0;
}

/* Fills f->scanned from the words at [sp, fp) that may point into managed code. A window
 * that cannot be read whole (the stack's top is near) is not scanned. */
static __always_inline void dn_scan(const struct dn_proc *p, const struct dn_regs *r,
				    struct dn_frame *f)
{
	__u64 w[DN_SCAN_WORDS];

	if (DN_READ_USER(w, sizeof(w), r->sp))
		return;
	for (int i = 0; i < DN_SCAN_WORDS; i++) {
		if (r->sp + 8 * (__u64)i >= r->fp || f->nscanned >= DN_SCAN_MAX)
			break;
		if (w[i] >= p->hull.low && w[i] < p->hull.high)
			f->scanned[f->nscanned++ & (DN_SCAN_MAX - 1)] = w[i];
	}
}

/* Records the frame at r in f and steps to its caller. */
static __always_inline int dn_step(const struct dn_proc *p, struct dn_regs *r, struct dn_frame *f)
{
	__u64 w[2];

	if (!dn_managed(p, r->pc))
		return DN_STEP_LEAVE;
	f->pc = r->pc;
	f->flags = r->pc_exact ? DN_FRAME_EXACT : 0;
	if (!r->fp || (r->fp & 7) || r->fp < r->sp)
		return DN_STEP_BAD;
	dn_scan(p, r, f);
	if (DN_READ_USER(w, sizeof(w), r->fp))
		return DN_STEP_FAULT;
	/* w[0]: the caller's fp, w[1]: the return address. A native caller may use rbp as
	 * it likes (glibc's code calling a managed callback keeps no frame pointer): the
	 * native walker, which it goes back to, needs none. A managed one's must grow (the
	 * hull stands for the ranges: one compare). */
	if (!w[1])
		return DN_STEP_END;
	if (w[1] >= p->hull.low && w[1] < p->hull.high && w[0] <= r->fp)
		return DN_STEP_BAD;
	r->sp = r->fp + 16;
	r->pc = w[1];
	r->fp = w[0];
	r->pc_exact = 0;
	return DN_STEP_NEXT;
}

#endif
