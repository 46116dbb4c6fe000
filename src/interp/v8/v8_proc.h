/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* What the V8 walker knows of one Node.js process (map pid_to_v8, written by
 * v8.c from V8's post-mortem metadata), and how its frames travel in a
 * struct user_frame. Fixed-width and pointer-free: both sides compile it. */
#ifndef EBPROF_V8_PROC_H
#define EBPROF_V8_PROC_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define V8_MAX_RANGES 8 /* the embedded builtins, then anonymous executable mappings */
#define V8_MAX_JS_FRAMES 128
/* The words of a frame the walker reads at once, from fp - V8_FP_WINDOW_LOW: the frame
 * slots (bytecode offset, bytecode array, function, context or marker: all below fp in
 * every V8 x64 frame) up to the saved fp and the return address. */
#define V8_FP_WINDOW_LOW 48
#define V8_FP_WINDOW_WORDS 8

struct v8_range {
	__u64 low, high;
};

struct v8_proc {
	/* The embedded builtins (the interpreter) first: V8 may run them from a copy of
	 * their pages mapped near its code range as well as from the file's text. */
	struct v8_range range[V8_MAX_RANGES];
	__u16 nranges;
	__u16 nbuiltins; /* range[0, nbuiltins) */
	/* Frame slots, as word indices into the window read at fp - V8_FP_WINDOW_LOW. */
	__u8 slot_function;
	__u8 slot_context; /* a frame's context, or its type marker (a Smi) */
	__u8 slot_bytecode_array;
	__u8 slot_bytecode_offset;
	__u16 jsfunction_shared; /* JSFunction::shared (SharedFunctionInfo), bytes */
	__u8 smi_shift;		 /* a Smi's value is word >> smi_shift (32 or 1) */
	__u8 interp_regs;	 /* the handlers keep the array and the offset in registers: */
	__u16 reg_bc_array;	 /* their byte offsets in the user registers saved at kernel */
	__u16 reg_bc_offset;	 /* entry (bpf/arch's struct arch_regs) */
	/* A JIT frame's code: JSFunction::code, then where its instructions start — at
	 * code_start bytes into the Code object (code_start_is_field 0), or at the address
	 * the Code object holds there (1) — and the int32 holding their size. */
	__u16 jsfunction_code; /* 0: not known, JIT frames are named by function only */
	__u16 code_start;
	__u16 code_size;
	__u16 code_start_is_field;
};

/* What the walker could not do, per CPU (map v8_counters, printed by v8.c). */
enum v8_counter {
	V8_CTR_WALKS,	    /* hand-overs into V8's code */
	V8_CTR_NO_PROC,	    /* a marked pc in a process with no description: stack cut */
	V8_CTR_FAULT,	    /* a frame unreadable: stack cut */
	V8_CTR_BAD,	    /* an impossible caller (fp did not grow): stack cut */
	V8_CTR_NO_PROGRESS, /* handed a pc it does not own: stack cut (no ping-pong) */
	V8_CTR_FULL,	    /* the stack's slots or the loop's bound ran out */
	V8_CTR__COUNT,
};

/* A V8 frame in struct user_frame (file_id = the runtime's id): addr is a tagged
 * pointer, pad's low 24 bits the frame type (top 3) and a value (low 21). */
enum v8_frame_type {
	V8_FRAME_INTERPRETED = 1, /* addr: SFI; value: the frame's bytecode offset (raw Smi) */
	V8_FRAME_JIT = 2,	  /* addr: SFI; JIT code, after its V8_FRAME_CODE or _PC */
	V8_FRAME_STUB = 3,	  /* addr: pc; value: the frame type marker */
	/* addr: the Code object running in a JIT frame, its function's; value: pc - its
	 * instructions; right before that frame's V8_FRAME_JIT, which names the function
	 * when the code's inlined functions cannot be. */
	V8_FRAME_CODE = 4,
	/* addr: the pc of a JIT frame that is not its function's code (on-stack
	 * replacement, code replaced since), right before that frame's V8_FRAME_JIT: the
	 * namer finds the code around the pc, else names the function. */
	V8_FRAME_PC = 5,
};
#define V8_TYPE_SHIFT 21
#define V8_VALUE_MASK ((1U << V8_TYPE_SHIFT) - 1)

#endif
