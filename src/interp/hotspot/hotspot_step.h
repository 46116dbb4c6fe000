/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* One step of the HotSpot walker: from the registers of a frame whose pc lies in the code
 * cache, the frame's record and its caller's registers. Pure logic, so the BPF walker and
 * the userspace harness (tests/hotspot/hotspot_walk.c) compile the same code; the
 * includer supplies HS_READ_USER(dst, size, addr): 0 when size bytes at addr were read.
 *
 * x86-64 frames, as HotSpot lays them out (frame_x86.hpp; the VM tables do not carry
 * these): an interpreted frame is rbp-based, with the Method* at rbp - 3 words, the
 * bytecode pointer at rbp - 8 words and the caller's (unextended) sp at rbp - 1 word; a
 * compiled frame is sp-based, its size in words in its code blob, the return address
 * and the caller's rbp in its top two words; the call stub (C++ calling Java) is
 * rbp-based. */
#ifndef EBPROF_HOTSPOT_STEP_H
#define EBPROF_HOTSPOT_STEP_H

#include "hotspot_proc.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define HS_INTERP_METHOD (-3 * 8)
#define HS_INTERP_BCP (-8 * 8)
#define HS_INTERP_SENDER_SP (-1 * 8)

struct hs_regs {
	__u64 pc;
	__u64 sp;
	__u64 fp;
	__u32 pc_exact; /* pc is the interrupted instruction, not a return address */
	__u32 pad;
	__u64 bcp; /* the interpreter's bytecode pointer register, while pc_exact */
};

enum hs_step {
	HS_STEP_NEXT = 0, /* a frame was recorded, regs describe its caller */
	HS_STEP_LEAVE,	  /* pc is not in the code cache: the native walker's turn */
	HS_STEP_NO_BLOB,  /* pc in the code cache but in no blob (freed, or a race) */
	HS_STEP_FAULT,	  /* the stack or a blob could not be read */
	HS_STEP_BAD,	  /* the caller computed is impossible (sp did not grow) */
};

struct hs_frame {
	__u64 addr;
	__u32 pad;
};

static __always_inline int hs_read_u64(__u64 addr, __u64 *v)
{
	return HS_READ_USER(v, sizeof(*v), addr);
}

/* The heap holding pc, or -1. */
static __always_inline int hs_heap_of(const struct hs_proc *p, __u64 pc)
{
	for (int i = 0; i < HS_MAX_HEAPS; i++)
		if ((__u32)i < p->nheaps && pc >= p->heap[i].low && pc < p->heap[i].high)
			return i;
	return -1;
}

/* The start of the code blob holding pc: the segment map gives, for every segment of a
 * block, how far back to go towards its first segment (0 there, 0xff for free ones). */
static __always_inline int hs_find_blob(const struct hs_proc *p, __u64 pc, __u64 *blob)
{
	int h = hs_heap_of(p, pc);
	__u32 log2 = p->log2_segment & 31;
	__u64 seg, low, map;
	__u8 b;

	if (h < 0)
		return -1;
	/* The verifier needs the index bounded again: h came out of a loop. */
	h &= HS_MAX_HEAPS - 1;
	low = p->heap[h].low;
	map = p->heap[h].segmap;
	seg = (pc - low) >> log2;
	for (int i = 0; i < HS_SEGMAP_HOPS; i++) {
		if (HS_READ_USER(&b, 1, map + seg) || b == 0xff)
			return -1;
		if (b == 0) {
			*blob = low + (seg << log2) + p->heap_block_size;
			return 0;
		}
		if (seg < b)
			return -1;
		seg -= b;
	}
	return -1;
}

static __always_inline __u32 hs_u32(const __u8 *head, __u16 off)
{
	__u32 v = 0;

	if (off <= HS_BLOB_HEAD - 4)
		__builtin_memcpy(&v, head + off, 4);
	return v;
}

static __always_inline __u64 hs_u64(const __u8 *head, __u16 off)
{
	__u64 v = 0;

	if (off <= HS_BLOB_HEAD - 8)
		__builtin_memcpy(&v, head + off, 8);
	return v;
}

/* True when the blob whose header is head is an nmethod (Java code, or a native
 * method's wrapper): its kind from JDK 25, else its name, "nmethod" or "native nmethod". */
static __always_inline int hs_is_nmethod(const struct hs_proc *p, const __u8 *head)
{
	char name[8];

	if (p->cb_kind != 0xffff)
		return p->cb_kind < HS_BLOB_HEAD &&
		       head[p->cb_kind & (HS_BLOB_HEAD - 1)] == p->kind_nmethod;
	if (HS_READ_USER(name, sizeof(name), hs_u64(head, p->cb_name)))
		return 0;
	return (name[0] == 'n' && name[1] == 'm' && name[6] == 'd' && name[7] == 0) ||
	       (name[0] == 'n' && name[1] == 'a' && name[6] == ' ' && name[7] == 'n');
}

/* The bytecode index of bcp in the method whose ConstMethod is cm, or HS_BCI_NONE when
 * bcp is not among its bytecodes. */
static __always_inline __u64 hs_bci(const struct hs_proc *p, __u64 cm, __u64 bcp)
{
	return bcp >= cm + p->cm_size && bcp - cm - p->cm_size < 0x10000 ? bcp - cm - p->cm_size
									 : HS_BCI_NONE;
}

/* An interpreted frame: Method* and bytecode index from the frame, caller by rbp. The
 * interpreter saves its bytecode pointer in the frame only when it calls out: the frame
 * it was interrupted in has the current one in its register (when it points into the
 * method's bytecodes; not yet at the method's entry). */
static __always_inline int hs_interpreted(const struct hs_proc *p, struct hs_regs *r,
					  struct hs_frame *f)
{
	__u64 method, bcp, cm = 0, bci = HS_BCI_NONE, ra, sp, fp;

	if (hs_read_u64(r->fp + HS_INTERP_METHOD, &method) ||
	    hs_read_u64(r->fp + HS_INTERP_BCP, &bcp) || hs_read_u64(r->fp + 8, &ra) ||
	    hs_read_u64(r->fp + HS_INTERP_SENDER_SP, &sp) || hs_read_u64(r->fp, &fp))
		return HS_STEP_FAULT;
	if (!hs_read_u64(method + p->method_const, &cm)) {
		bci = r->pc_exact ? hs_bci(p, cm, r->bcp) : HS_BCI_NONE;
		if (bci == HS_BCI_NONE)
			bci = hs_bci(p, cm, bcp);
	}
	f->addr = (method & HS_PTR_MASK) | (((cm >> 3) & 0xffff) << HS_TAG_SHIFT);
	f->pad = (HS_FRAME_INTERPRETED << HS_TYPE_SHIFT) | (__u32)bci;
	if (sp <= r->sp)
		return HS_STEP_BAD;
	r->pc = ra;
	r->sp = sp;
	r->fp = fp;
	return HS_STEP_NEXT;
}

/* The caller of a frame laid out by rbp (the call stub, stubs without a frame size). */
static __always_inline int hs_by_fp(struct hs_regs *r)
{
	__u64 ra, fp;

	if (hs_read_u64(r->fp + 8, &ra) || hs_read_u64(r->fp, &fp))
		return HS_STEP_FAULT;
	if (r->fp + 16 <= r->sp)
		return HS_STEP_BAD;
	r->sp = r->fp + 16;
	r->pc = ra;
	r->fp = fp;
	return HS_STEP_NEXT;
}

/* A frame of a code blob: sp-based when the blob has a frame size and its frame is set
 * up; a blob without one (adapters, stubs) returns by the word at sp when interrupted,
 * by rbp when it is a caller. */
static __always_inline int hs_blob_caller(const struct hs_proc *p, struct hs_regs *r,
					  const __u8 *head, __u64 blob)
{
	__u32 words = hs_u32(head, p->cb_frame_size);
	__s32 complete = (__s32)hs_u32(head, p->cb_frame_complete);
	__u64 code, ra, fp, sender;

	if (p->cb_frame_complete_size == 2)
		complete = (__s16)complete;
	code = p->cb_code_begin != 0xffff ? hs_u64(head, p->cb_code_begin)
					  : blob + hs_u32(head, p->cb_code_offset);
	if (r->pc == p->call_stub_return)
		return hs_by_fp(r);
	if (words && words < 0x10000 && !(r->pc_exact && r->pc < code + complete)) {
		sender = r->sp + words * 8ULL;
		if (hs_read_u64(sender - 8, &ra) || hs_read_u64(sender - 16, &fp))
			return HS_STEP_FAULT;
		r->sp = sender;
		r->pc = ra;
		r->fp = fp;
		return HS_STEP_NEXT;
	}
	if (!r->pc_exact)
		return hs_by_fp(r);
	if (hs_read_u64(r->sp, &ra))
		return HS_STEP_FAULT;
	r->pc = ra;
	r->sp += 8;
	return HS_STEP_NEXT;
}

/* One frame at r: records it in f and moves r to its caller. head is HS_BLOB_HEAD bytes
 * of scratch space (too big for the BPF stack in every caller). */
static __always_inline int hs_step(const struct hs_proc *p, struct hs_regs *r, struct hs_frame *f,
				   __u8 *head)
{
	__u64 blob, pc = r->pc, sp = r->sp, off;
	__u32 id = 0;
	int err;

	if (pc < p->code_low || pc >= p->code_high)
		return HS_STEP_LEAVE;
	if (pc >= p->interp_low && pc < p->interp_high) {
		err = hs_interpreted(p, r, f);
		r->pc_exact = 0;
		return err;
	}
	if (hs_find_blob(p, pc, &blob))
		return HS_STEP_NO_BLOB;
	if (HS_READ_USER(head, HS_BLOB_HEAD, blob))
		return HS_STEP_FAULT;
	if (hs_is_nmethod(p, head)) {
		HS_READ_USER(&id, sizeof(id), blob + p->nm_compile_id);
		off = pc - blob < HS_VALUE_MASK ? pc - blob : HS_VALUE_MASK;
		f->addr = (blob & HS_PTR_MASK) | ((__u64)(id & 0xffff) << HS_TAG_SHIFT);
		f->pad = (HS_FRAME_COMPILED << HS_TYPE_SHIFT) | (__u32)off;
	} else {
		f->addr = blob & HS_PTR_MASK;
		f->pad = HS_FRAME_STUB << HS_TYPE_SHIFT;
	}
	err = hs_blob_caller(p, r, head, blob);
	if (!err && r->sp <= sp)
		return HS_STEP_BAD;
	r->pc_exact = 0;
	return err;
}

#endif
