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
 * lowest words of the stack above the frame that called them (on-stack replacement
 * leaves one too: the tier-0 frame's, under the optimized code's frame). The walker
 * (dotnet.bpf.c) reads up to DN_SCAN_WORDS words of that window and sends those that
 * fall between the lowest and highest managed address (dn_in_hull: one compare per
 * word) as scanned frames (DN_FRAME_SCANNED), which the host keeps only when a call
 * instruction ends right before them and they name a method. A sample in a prologue
 * before `mov rbp, rsp` loses its caller. */
#ifndef EBPROF_DOTNET_STEP_H
#define EBPROF_DOTNET_STEP_H

#include "dotnet_proc.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* Words scanned above each frame's sp for frameless callers' return addresses: chunks
 * of DN_SCAN_WORDS (a power of two: it masks an index), DN_SCAN_CHUNKS of them at most;
 * and how many such frames one frame's window sends at most. */
#define DN_SCAN_WORDS 64
#define DN_SCAN_CHUNKS 8
#define DN_SCAN_MAX 128

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

/* The frame at r: its pc, and its flags for the record (DN_FRAME_EXACT). */
struct dn_frame {
	__u64 pc;
	__u32 flags;
	__u32 pad;
};

/* Whether pc lies in one of the process's managed ranges. */
static __always_inline int dn_managed(const struct dn_proc *p, __u64 pc)
{
	for (int i = 0; i < DN_MAX_RANGES; i++)
		if ((__u32)i < p->nranges && pc >= p->range[i].low && pc < p->range[i].high)
			return 1;
	return 0;
}

/* Whether v may be a managed code address: inside the hull of the ranges (the host
 * checks what the walker sends on this test alone). */
static __always_inline int dn_in_hull(const struct dn_proc *p, __u64 v)
{
	return v >= p->hull.low && v < p->hull.high;
}

/* The words of the window above the frame at r (from sp up to its frame pointer) that
 * a scan reads: at most DN_SCAN_WORDS * DN_SCAN_CHUNKS. */
static __always_inline __u32 dn_window_words(const struct dn_regs *r)
{
	__u64 n = r->fp > r->sp ? (r->fp - r->sp) / 8 : 0;

	return n < DN_SCAN_WORDS * DN_SCAN_CHUNKS ? (__u32)n : DN_SCAN_WORDS * DN_SCAN_CHUNKS;
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
	if (DN_READ_USER(w, sizeof(w), r->fp))
		return DN_STEP_FAULT;
	/* w[0]: the caller's fp, w[1]: the return address. A native caller may use rbp as
	 * it likes (glibc's code calling a managed callback keeps no frame pointer): the
	 * native walker, which it goes back to, needs none. A managed one's must grow (the
	 * hull stands for the ranges: one compare). */
	if (!w[1])
		return DN_STEP_END;
	if (dn_in_hull(p, w[1]) && w[0] <= r->fp)
		return DN_STEP_BAD;
	r->sp = r->fp + 16;
	r->pc = w[1];
	r->fp = w[0];
	r->pc_exact = 0;
	return DN_STEP_NEXT;
}

#endif
