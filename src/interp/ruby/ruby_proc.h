/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* What the Ruby walker knows of one CRuby process (map pid_to_ruby, written by
 * src/interp/ruby/ruby.c from libruby's exported functions and a per-version layout),
 * and how a Ruby frame travels in a struct user_frame. Fixed-width and pointer-free:
 * both sides compile it. */
#ifndef EBPROF_RUBY_PROC_H
#define EBPROF_RUBY_PROC_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* How the walker finds the sampled thread's execution context (rb_execution_context_t). */
enum rb_ec_mode {
	RB_EC_NONE = 0,
	/* 3.x: the TLS variable ruby_current_ec of libruby, through the thread's DTV: the
	 * module id and offset are the tls_index in libruby's GOT at tls_index. */
	RB_EC_TLS,
	/* 2.7: the VM's list of living threads, searched for the one whose thread_id (its
	 * pthread_t, the thread's fs base) is the sampled thread's; its ec member. */
	RB_EC_THREADS,
};

struct rb_proc {
	__u64 tls_index;   /* RB_EC_TLS: absolute address of {module id, offset} */
	__u64 vm_ptr;	   /* absolute address of ruby_current_vm_ptr */
	__u64 ec_global;   /* 2.7: of ruby_current_execution_context_ptr (the GVL's holder) */
	__u64 exec_off[2]; /* vm_exec as file offsets of file_id: [start, end) */
	__u64 text[2];	   /* absolute [start, end) of libruby's code: who calls JIT code */
	__u64 objspace;	   /* the GC's rb_objspace, found by the walker (0: not yet) */
	__u32 file_id;	   /* libruby's file id, as the native walker records its frames */
	__u8 ec_mode;	   /* enum rb_ec_mode */
	__u8 gc_bit;	   /* objspace flags: during_gc's bit in the byte at gc_flags */
	__u16 gc_flags;	   /* rb_objspace: the byte holding during_gc */
	__u16 ec_thread;   /* rb_execution_context_t.thread_ptr */
	__u16 cfp_size;	   /* sizeof(rb_control_frame_t) */
	__u16 th_ec;	   /* rb_thread_t.ec */
	__u16 th_id;	   /* 2.7: rb_thread_t.thread_id (pthread_t) */
	__u16 th_node;	   /* 2.7: rb_thread_t.vmlt_node */
	__u16 vm_threads;  /* 2.7: rb_vm_t.living_threads */
	__u16 th_ractor;   /* 3.x: rb_thread_t.ractor */
	__u16 ractor_ec;   /* 3.x: rb_ractor_t.threads.running_ec (the GVL's holder) */
	__u16 vm_objspace; /* rb_vm_t.objspace */
	__u16 tls_off;	   /* RB_EC_TLS: added to the address the tls_index gives */
};

/* rb_execution_context_t's first members, rb_control_frame_t's and the environment's
 * (ep[-2..0]) are the same in every version ebprof knows (2.7, 3.1, 3.3). */
#define RB_EC_VM_STACK 0
#define RB_EC_VM_STACK_SIZE 8
#define RB_EC_CFP 16
#define RB_CFP_PC 0
#define RB_CFP_ISEQ 16
#define RB_CFP_EP 32
#define RB_CFP_READ 48 /* bytes of a control frame read: pc, sp, iseq, self, ep, block */

/* The environment's flags (ep[0]): vm_core.h's VM_FRAME_MAGIC_* and flags. */
#define RB_FRAME_MAGIC_MASK 0x7fff0001u
#define RB_MAGIC_METHOD 0x11110001u
#define RB_MAGIC_BLOCK 0x22220001u
#define RB_MAGIC_CFUNC 0x55550001u
#define RB_MAGIC_IFUNC 0x66660001u
#define RB_MAGIC_DUMMY 0x79990001u
#define RB_FLAG_FINISH 0x0020u	/* pushed by C for a vm_exec of its own: a group ends */
#define RB_FLAG_BMETHOD 0x0040u /* a block run as a method (define_method) */
#define RB_ENV_LOCAL 0x0002u	/* the method's own environment, not a block's */

/* A Ruby frame in struct user_frame (file_id UF_RUNTIME_FILE(WALKER_RUBY)): addr holds a
 * pointer in its low 48 bits and a 16-bit tag above; pad's data bits hold the kind (top
 * 3) and, for frames that run bytecode, bits 3..23 of the pc, whose bits 24..39 are the
 * tag: userspace checks the pc lies in the iseq's instructions, so an iseq freed and
 * replaced at the same address is never named for the sample. */
enum rb_frame_kind {
	RB_FRAME_ISEQ = 0,    /* addr: rb_iseq_t (blocks, <main>, class bodies) */
	RB_FRAME_METHOD = 1,  /* addr: its method entry (or the svar holding it) */
	RB_FRAME_BMETHOD = 2, /* addr: rb_iseq_t of a define_method block; RB_FRAME_CTX before */
	RB_FRAME_CFUNC = 3,   /* addr: its method entry; tag: its def and called id */
	RB_FRAME_CTX = 4,     /* addr: the method entry of the next frame's method; tag: the
			       * next frame's iseq, hashed (rb_ctx_tag); names nothing itself */
	RB_FRAME_GC = 5,      /* the garbage collector runs */
	RB_FRAME_VM = 6,      /* the interpreter loop or JIT code: its native frame goes */
};
#define RB_PTR_MASK ((1ULL << 48) - 1)
#define RB_TAG_SHIFT 48
#define RB_KIND_SHIFT 21
#define RB_PC_MASK ((1U << RB_KIND_SHIFT) - 1)

/* The tag and data bits of a frame at pc (bits 3..39 of the address). */
#define RB_PC_TAG(pc) (((pc) >> 24) & 0xffff)
#define RB_PC_DATA(pc) (((pc) >> 3) & RB_PC_MASK)
/* What ties a RB_FRAME_CTX to the frame after it. */
#define RB_CTX_TAG(iseq) (((iseq) >> 3) & 0xffff)

/* The walker's own counters (map ruby_counters). */
enum rb_counter {
	RB_CTR_NO_EC,	   /* activations on the stack, no execution context found */
	RB_CTR_READ_FAULT, /* a control frame unreadable: Ruby frames cut there */
	RB_CTR_OUT_OF_CFP, /* activations left after the last control frame: kept native */
	RB_CTR_JIT_FRAMES, /* JIT (YJIT) frames stepped over */
	RB_CTR_JIT_LOST,   /* JIT code whose caller could not be found: stack cut */
	RB_CTR_NO_PROC,	   /* claimed code in a process not described: stack cut */
	RB_CTR_GC,	   /* samples taken while the garbage collector ran */
	RB_CTR__COUNT,
};

#define RB_MAX_THREADS 64 /* 2.7: living threads searched for the sampled one */
#define RB_JIT_SCAN 16	  /* words above a JIT frame's sp searched for its return address */
#define RB_CALL_READ 8	  /* bytes before a return address read for its call instruction */
#define RB_ENV_HOPS 4	  /* block environments followed up to their method's */

#endif
