/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* What userspace tells the in-kernel Perl walker about one perl process (map
 * pid_to_perl), how a Perl frame travels in a sample's user stack, and the few constants
 * of Perl's context stack the walker tests. Shared by perl.bpf.c, perl_step.h and the
 * userspace half; fixed-width and pointer-free. */
#ifndef EBPROF_PERL_PROC_H
#define EBPROF_PERL_PROC_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* A Perl frame in struct user_frame (file_id UF_RUNTIME_FILE(WALKER_PERL)) is two
 * pointers: the CV it runs (0: the main program) and the COP (statement) it is at, both
 * 8-byte aligned user addresses below 2^47, so 44 bits each once shifted right by 3.
 * addr holds the CV's 44 bits, then the COP's low 20; pad's 24 data bits the COP's high
 * 24. Userspace names the CV (package, sub) and reads file and line from the COP. */
#define PL_PTR_BITS 44
#define PL_PTR_MASK ((1ull << PL_PTR_BITS) - 1)
#define PL_COP_LOW_BITS (64 - PL_PTR_BITS)
#define PL_USER_LIMIT (1ull << 47)

static inline __u64 pl_frame_addr(__u64 cv, __u64 cop)
{
	return (cv >> 3) | (cop >> 3) << PL_PTR_BITS;
}

static inline __u32 pl_frame_pad(__u64 cop)
{
	return (__u32)((cop >> 3) >> PL_COP_LOW_BITS) & 0xffffff;
}

static inline __u64 pl_frame_cv(__u64 addr)
{
	return (addr & PL_PTR_MASK) << 3;
}

static inline __u64 pl_frame_cop(__u64 addr, __u32 pad)
{
	return ((addr >> PL_PTR_BITS) | (__u64)(pad & 0xffffff) << PL_COP_LOW_BITS) << 3;
}

/* The walker's own counters (map perl_counters). */
enum pl_counter {
	PL_CTR_NO_INTERP,    /* the thread has no interpreter: its activations kept native */
	PL_CTR_OTHER_THREAD, /* not the main thread of a build without per-thread pointer */
	PL_CTR_READ_FAULT,   /* a context or stack info could not be read: Perl stack cut */
	PL_CTR_TOO_DEEP,     /* contexts left when the walk's steps ran out: stack cut */
	PL_CTR_BAD_POINTER,  /* a CV or COP not an aligned user address: frame unnamed */
	PL_CTR__COUNT,
};

/* Perl's context types and flags (cop.h: the same values in 5.32 to 5.40). */
#define PL_CXTYPEMASK 0x0f
#define PL_CXt_NULL 0 /* sort's bare block (the only context of this type) */
#define PL_CXt_SUB 9
#define PL_CXt_FORMAT 10
#define PL_CXt_EVAL 11
#define PL_CXp_MULTICALL 0x10 /* SUB: a MULTICALL (List::Util) or sort's sub */
#define PL_CXp_EVALBLOCK 0x40 /* EVAL: eval {} or try {}, not a frame */
#define PL_CVf_ISXSUB 0x0008  /* cv.h: CvFLAGS, C code with no runops of its own */
#define PL_SI_SORT 3	      /* cop.h: PERLSI_SORT, the stack info sort pushes */

#define PL_CX_READ 104	 /* bytes of a context read at once: every field used lies there */
#define PL_SI_READ 48	 /* bytes of a stack info read at once */
#define PL_MAX_STEPS 256 /* contexts and stack infos one walk looks at */

/* Byte offsets, per version (src/interp/perl/perl_layout.c): offsetof() in that
 * version's headers as Debian builds it (threads, no DEBUGGING). */
struct pl_offsets {
	__u16 op;	    /* interpreter: PL_op, the op running (NULL between calls) */
	__u16 curcop;	    /* interpreter: PL_curcop, the statement running */
	__u16 curstackinfo; /* interpreter: PL_curstackinfo */
	__u16 top_env;	    /* interpreter: PL_top_env, the innermost JMPENV */
	__u16 si_cxstack;   /* PERL_SI: the contexts */
	__u16 si_prev;	    /* PERL_SI: the outer stack info */
	__u16 si_cxix;	    /* PERL_SI: the innermost context's index (I32) */
	__u16 si_type;	    /* PERL_SI: what pushed it (I32, PERLSI_*) */
	__u16 cx_size;	    /* sizeof(PERL_CONTEXT) */
	__u16 cx_oldcop;    /* blk_oldcop: the statement of the code that pushed it */
	__u16 cx_retop;	    /* blk_sub.retop = blk_eval.retop: NULL when entered from C */
	__u16 cx_sub_cv;    /* blk_sub.cv (and blk_format.cv) */
	__u16 cx_eval_cv;   /* blk_eval.cv */
	__u16 cx_eval_env;  /* blk_eval.cur_top_env: PL_top_env when it was pushed */
	__u16 env_prev;	    /* JMPENV.je_prev */
	__u16 env_catch;    /* JMPENV.je_mustcatch (bool) */
	__u16 cv_flags;	    /* XPVCV (the body): xcv_flags (U32) */
};

struct pl_proc {
	/* Where the sampled thread's interpreter pointer is: tls != 0, at the thread
	 * pointer + tls (5.36+: PL_current_context, initial-exec TLS); else the main
	 * interpreter's, PL_curinterp at curinterp, for the main thread only. */
	__s64 tls;
	__u64 curinterp;
	struct pl_offsets off;
};

#endif
