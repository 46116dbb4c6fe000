/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* What the HotSpot walker knows of one JVM process (map pid_to_hotspot, written by
 * hotspot.c from the JVM's own tables), and how its frames travel in a
 * struct user_frame. Fixed-width and pointer-free: both sides compile it. */
#ifndef EBPROF_HOTSPOT_PROC_H
#define EBPROF_HOTSPOT_PROC_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define HS_MAX_HEAPS 4	  /* code heaps: non-nmethods, profiled, non-profiled (+1) */
#define HS_SEGMAP_HOPS 64 /* segment-map steps back to a blob's start (254 each) */
#define HS_BLOB_HEAD 128  /* bytes of a code blob's header the walker reads */
#define HS_MAX_JAVA_FRAMES 128

struct hs_heap {
	__u64 low, high; /* reserved bounds of its code */
	__u64 segmap;	 /* its segment map: one byte per segment */
};

struct hs_proc {
	__u64 code_low, code_high;     /* the whole code cache */
	__u64 interp_low, interp_high; /* the interpreter's codelets */
	__u64 call_stub_return;	       /* where the call stub resumes: Java entered from C++ */
	struct hs_heap heap[HS_MAX_HEAPS];
	__u32 nheaps;
	__u32 log2_segment;
	/* code blob members (offsets in its header; HS_BLOB_HEAD bounds them) */
	__u16 heap_block_size;
	__u16 cb_frame_size;
	__u16 cb_frame_complete;
	__u16 cb_frame_complete_size; /* 2 or 4 */
	__u16 cb_code_begin;	      /* pointer member, or 0xffff */
	__u16 cb_code_offset;	      /* int offset from the blob, or 0xffff */
	__u16 cb_kind;		      /* u8 kind (25+), or 0xffff: then cb_name is compared */
	__u16 cb_name;
	__u16 nm_compile_id; /* from the blob; may lie past HS_BLOB_HEAD */
	__u16 method_const;  /* Method::_constMethod */
	__u16 cm_size;	     /* sizeof(ConstMethod): bytecodes follow it */
	__u8 kind_nmethod;
	__u8 pad[1];
};

/* What the walker could not do, per CPU (map hotspot_counters, printed by hotspot.c). */
enum hs_counter {
	HS_CTR_WALKS,	    /* hand-overs into the code cache */
	HS_CTR_NO_PROC,	    /* a marked pc in a process with no description: stack cut */
	HS_CTR_NO_BLOB,	    /* a pc in the code cache but in no code blob: stack cut */
	HS_CTR_FAULT,	    /* a frame or blob unreadable: stack cut */
	HS_CTR_BAD,	    /* an impossible caller (sp did not grow): stack cut */
	HS_CTR_NO_PROGRESS, /* handed a pc it does not own: stack cut (no ping-pong) */
	HS_CTR_FULL,	    /* the stack's slots or the loop's bound ran out */
	HS_CTR__COUNT,
};

/* A HotSpot frame in struct user_frame (file_id = the runtime's id): addr carries a
 * pointer in its low 48 bits and a 16-bit tag above, pad's low 24 bits the frame type
 * (top 2) and a value (low 22): a bytecode index, or the pc's offset in its nmethod. */
enum hs_frame_type {
	HS_FRAME_INTERPRETED = 1, /* addr: Method*, tag: its ConstMethod's bits; bci */
	HS_FRAME_COMPILED = 2,	  /* addr: nmethod, tag: its compile id; pc offset */
	HS_FRAME_STUB = 3,	  /* addr: code blob (stub, adapter, runtime code) */
};
#define HS_PTR_MASK ((1ULL << 48) - 1)
#define HS_TAG_SHIFT 48
#define HS_TYPE_SHIFT 22
#define HS_VALUE_MASK ((1U << HS_TYPE_SHIFT) - 1)
#define HS_BCI_NONE HS_VALUE_MASK /* no bytecode index could be read */

#endif
