/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* One step of the V8 walker: from the registers of a frame whose pc lies in V8's code
 * (the embedded builtins, which hold the interpreter, or JIT code in anonymous memory),
 * the frame's record and its caller's registers. Pure logic; the includer supplies
 * V8_READ_USER(dst, size, addr): 0 when size bytes at addr were read.
 *
 * Every frame V8's generated code builds keeps rbp as its frame pointer: the caller's fp
 * at fp, the return address above it, and below it a context (a tagged pointer) for
 * JavaScript frames, or a frame type marker (a Smi) for the others; a JavaScript frame
 * has its JSFunction below that, an interpreted one its BytecodeArray and bytecode offset
 * (a Smi) further down. The slots' offsets come from the metadata (v8dbg_off_fp_*). */
#ifndef EBPROF_V8_STEP_H
#define EBPROF_V8_STEP_H

#include "v8_proc.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

struct v8_regs {
	__u64 pc;
	__u64 sp;
	__u64 fp;
	/* The interpreter's registers at the innermost frame, when the sample interrupted a
	 * bytecode handler (else bc_array is 0): the current bytecode offset, which the frame
	 * holds only as of the last call out. */
	__u64 bc_array;
	__u64 bc_offset;
};

enum v8_step {
	V8_STEP_NEXT = 0, /* a frame was recorded, regs describe its caller */
	V8_STEP_LEAVE,	  /* pc is not V8's code: the native walker's turn */
	V8_STEP_FAULT,	  /* the frame could not be read */
	V8_STEP_BAD,	  /* the caller computed is impossible (fp did not grow) */
	V8_STEP_END,	  /* the outermost frame */
};

struct v8_frame {
	__u64 addr;
	__u32 pad;
	/* A frame that goes before it (0: none): V8_FRAME_PC of pc, or V8_FRAME_CODE of the
	 * code that runs in it, for its SFI frame to name it should the code not. */
	__u32 pre_pad;
	__u64 pre_addr;
};

/* Which of the process's V8 ranges holds pc, or -1. */
static __always_inline int v8_range_of(const struct v8_proc *p, __u64 pc)
{
	for (int i = 0; i < V8_MAX_RANGES; i++)
		if ((__u32)i < p->nranges && pc >= p->range[i].low && pc < p->range[i].high)
			return i;
	return -1;
}

/* Heap objects are tagged with 1 in their low bits, Smis with 0. */
static __always_inline int v8_is_heap_object(__u64 v)
{
	return (v & 3) == 1;
}

/* Whether pc lies in the instructions of JSFunction fn's code (*code), and where (*off).
 * The function's code may be other than what runs in the frame (on-stack replacement,
 * code replaced since): then the frame is named by its function alone. */
static __always_inline int v8_code_offset(const struct v8_proc *p, __u64 fn, __u64 pc,
					  __u64 *code_out, __u32 *off)
{
	__u64 code = 0, start;
	__s32 size = 0;

	if (!p->jsfunction_code ||
	    V8_READ_USER(&code, sizeof(code), fn - 1 + (p->jsfunction_code & 0xfff)) ||
	    !v8_is_heap_object(code))
		return 0;
	start = code - 1 + (p->code_start & 0xfff);
	if (p->code_start_is_field && V8_READ_USER(&start, sizeof(start), start))
		return 0;
	if (V8_READ_USER(&size, sizeof(size), code - 1 + (p->code_size & 0xfff)) || size <= 0 ||
	    size > (__s32)V8_VALUE_MASK || pc < start || pc >= start + (__u64)size)
		return 0;
	*off = (__u32)(pc - start);
	*code_out = code;
	return 1;
}

/* A JavaScript frame: its function's SharedFunctionInfo, and for an interpreted one the
 * bytecode offset; JIT code goes before it, as its Code object and the pc's offset when
 * it is the function's code, else as the pc. The JSFunction itself is not sent: a young
 * one moves at the next scavenge, which can come before a lagging reader (an emulated or
 * loaded host) looks at it, where SharedFunctionInfos are allocated old and Code objects
 * in code space, which only a full collection compacts. A frame whose function slot is
 * no heap object is recorded as a stub. */
static __always_inline void v8_js_frame(const struct v8_proc *p, const __u64 *w, int in_builtins,
					__u64 pc, __u64 bc_array, __u64 bc_offset,
					struct v8_frame *f)
{
	__u64 fn = w[p->slot_function & (V8_FP_WINDOW_WORDS - 1)], sfi = 0, code = 0;
	__u64 off = w[p->slot_bytecode_offset & (V8_FP_WINDOW_WORDS - 1)];
	__u64 bca = w[p->slot_bytecode_array & (V8_FP_WINDOW_WORDS - 1)];
	__u32 value = 0, type = V8_FRAME_JIT;

	if (!v8_is_heap_object(fn) ||
	    V8_READ_USER(&sfi, sizeof(sfi), fn - 1 + (p->jsfunction_shared & 0xfff)) ||
	    !v8_is_heap_object(sfi)) {
		f->addr = 0;
		f->pad = V8_FRAME_STUB << V8_TYPE_SHIFT;
		return;
	}
	/* Only the interpreter's frames (its code is in the builtins) hold a bytecode
	 * array and offset; a builtin with JavaScript linkage holds neither, which the
	 * naming side sees from the array's type. */
	if (in_builtins && v8_is_heap_object(bca) && !(off & 1)) {
		type = V8_FRAME_INTERPRETED;
		value = (__u32)(off >> (p->smi_shift & 63)) & V8_VALUE_MASK;
		/* The handler's own registers, when they hold this frame's array. */
		if (bc_array == bca && bc_offset < V8_VALUE_MASK)
			value = (__u32)bc_offset;
	} else if (!in_builtins && v8_code_offset(p, fn, pc, &code, &value)) {
		f->addr = sfi;
		f->pad = V8_FRAME_JIT << V8_TYPE_SHIFT;
		f->pre_addr = code;
		f->pre_pad = V8_FRAME_CODE << V8_TYPE_SHIFT | value;
		return;
	}
	f->addr = sfi;
	f->pad = type << V8_TYPE_SHIFT | value;
	if (type == V8_FRAME_JIT) {
		f->pre_addr = pc;
		f->pre_pad = V8_FRAME_PC << V8_TYPE_SHIFT;
	}
}

/* Records the frame at r and steps to its caller. */
static __always_inline int v8_step(const struct v8_proc *p, struct v8_regs *r, struct v8_frame *f)
{
	__u64 w[V8_FP_WINDOW_WORDS];
	__u64 marker;
	int range = v8_range_of(p, r->pc);

	if (range < 0)
		return V8_STEP_LEAVE;
	if (!r->fp || (r->fp & 7) || r->fp < r->sp)
		return V8_STEP_BAD;
	if (V8_READ_USER(w, sizeof(w), r->fp - V8_FP_WINDOW_LOW))
		return V8_STEP_FAULT;
	marker = w[p->slot_context & (V8_FP_WINDOW_WORDS - 1)];
	if (v8_is_heap_object(marker)) {
		v8_js_frame(p, w, range < p->nbuiltins, r->pc, r->bc_array, r->bc_offset, f);
	} else {
		/* A marker is the type shifted by the Smi tag's one bit, not a full Smi. */
		f->addr = r->pc;
		f->pad = V8_FRAME_STUB << V8_TYPE_SHIFT | ((__u32)(marker >> 1) & V8_VALUE_MASK);
	}
	/* The window's last two words: the caller's fp and the return address. */
	if (!w[V8_FP_WINDOW_WORDS - 1])
		return V8_STEP_END;
	if (w[V8_FP_WINDOW_WORDS - 2] && w[V8_FP_WINDOW_WORDS - 2] <= r->fp)
		return V8_STEP_BAD;
	r->bc_array = 0;
	r->sp = r->fp + 16;
	r->pc = w[V8_FP_WINDOW_WORDS - 1];
	r->fp = w[V8_FP_WINDOW_WORDS - 2];
	return V8_STEP_NEXT;
}

#endif
