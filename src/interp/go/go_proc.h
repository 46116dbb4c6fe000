/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* What userspace tells the Go walker about one Go process (map pid_to_go), and how the
 * goroutine's pprof labels travel in a sample's user stack. Shared by go.bpf.c and
 * go.c; fixed-width and pointer-free. */
#ifndef EBPROF_GO_PROC_H
#define EBPROF_GO_PROC_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Labels read per sample, and bytes of a key or value userspace reads (cut past it). */
#define GO_LABELS_MAX 8
#define GO_LABEL_LEN_MAX 0xffff

/* A label travels as two frames after the in-order part of the stack, file_id
 * UF_RUNTIME_FILE(WALKER_GO), pad UF_LABEL (sample.h): addr = the string's bytes in the
 * process, pad's low bits its length (at most GO_LABEL_LEN_MAX). Key, then value
 * (UF_LABEL_VALUE). */
#define UF_LABEL_LEN_MASK 0xffffu

/* Where the labels are: g.labels points to runtime/pprof's labelMap. */
enum go_labels_kind {
	GO_LABELS_NONE = 0, /* unknown version: labels not read */
	GO_LABELS_MAP,	    /* 1.9-1.23: map[string]string */
	GO_LABELS_SLICE,    /* 1.24+: struct { list []label } with label {key, value string} */
};

/* Go's map buckets (before 1.24's Swiss tables) for map[string]string: 8 top hashes,
 * 8 keys, 8 values, the overflow pointer. A top hash of at least 5 is a filled slot. */
#define GO_BUCKET_SLOTS 8
#define GO_BUCKET_SIZE (8 + 8 * 16 + 8 * 16 + 8)
#define GO_BUCKET_KEYS 8
#define GO_BUCKET_VALUES (8 + 8 * 16)
#define GO_MIN_TOPHASH 5
#define GO_MAP_BUCKETS_MAX 2 /* B <= 1: up to 13 labels before Go grows the map */
#define GO_HMAP_B 9	     /* hmap.B (uint8) */
#define GO_HMAP_BUCKETS 16   /* hmap.buckets */

/* g.stack, the goroutine's [lo, hi): g's first field in every release ("offset known to
 * runtime/cgo", runtime2.go). */
#define GO_G_STACK_LO 0
#define GO_G_STACK_HI 8
#define GO_STACK_MAX (1ull << 30) /* maxstacksize on 64-bit: 1 GB */
/* g.sched.sp: g.sched (a gobuf, sp its first word) follows g.m (GO_G_M in go.c) in every
 * release from 1.19 to 1.27 ("MOVQ (g_sched+gobuf_sp)(SI), SP" is "mov 0x38(%rsi),%rsp"
 * in each one's asmcgocall). */
#define GO_G_SCHED_SP 56
#define GO_G_SCHED_PC 64 /* gobuf.pc, its second word */
/* asmcgocall's own frame on the system stack: its SP at the call is at most this far
 * below the SP it was called with (16 or 64 bytes, aligned down to 16), when it was
 * called on the system stack already. */
#define GO_CGO_FRAME_MAX 128

struct go_proc {
	__s64 tls_g;	  /* g's offset from the thread pointer (fs base) */
	__u16 g_m;	  /* offsetof(g, m) */
	__u16 m_curg;	  /* offsetof(m, curg) */
	__u16 g_labels;	  /* offsetof(g, labels) */
	__u8 labels_kind; /* enum go_labels_kind */
	__u8 pad;
	/* The stack switches the Go walker crosses (go_cgo_step.h), each claimed
	 * UNW_MARK_WALK in the Go binary's mapping, as [lo, hi) in the process; hi 0: not
	 * claimed. runtime.asmcgocall: where a cgo call leaves the goroutine's stack for
	 * g0's. runtime.systemstack: where the runtime runs a function on g0's stack for the
	 * goroutine m.curg. runtime.morestack: it switches to g0 for newstack, which grows
	 * the goroutine's stack and resumes it from curg.sched. */
	__u64 cgo_lo, cgo_hi;
	__u64 ss_lo, ss_hi;
	__u64 ms_lo, ms_hi;
	__u64 sw_off_bias;     /* their file offset = pc - sw_off_bias */
	__u32 sw_file_id;      /* their file (files.h id), for their own frames */
	__u8 cgo_g, cgo_depth; /* from asmcgocall's SP on g0's stack: the g it left, and how
				* far below that g's stack.hi its SP was (per release) */
	__u8 cgo_frame;	       /* 8 when asmcgocall's prologue saves BP (1.21 on), else 0 */
	__u8 ss_frame;	       /* the same for systemstack */
	__u8 sched_bp;	       /* offsetof(g, sched.bp) (per release); 0: unknown */
	__u8 pad2[7];
};

/* The stack switches the Go walker crosses (go_cgo_step). */
enum go_switch {
	GO_SWITCH_CGO,	       /* asmcgocall */
	GO_SWITCH_SYSTEMSTACK, /* systemstack */
	GO_SWITCH_MORESTACK,   /* morestack */
};

/* The Go walker's own counters (map go_counters). */
enum go_counter {
	GO_CTR_NO_G,	    /* no g in the thread's TLS (a thread Go does not run) */
	GO_CTR_READ_FAULT,  /* g, m, the labels or a string header unreadable */
	GO_CTR_NO_ROOM,	    /* the stack left no room for the labels: dropped */
	GO_CTR_BIG_MAP,	    /* more buckets than GO_MAP_BUCKETS_MAX: labels past them lost */
	GO_CTR_LABELS,	    /* samples that carried labels */
	GO_CTR_CGO,	    /* cgo calls crossed from the system stack to the goroutine's */
	GO_CTR_SYSTEMSTACK, /* systemstack calls crossed likewise */
	GO_CTR_MORESTACK,   /* morestack calls (stack growth) crossed likewise */
	GO_CTR_CGO_LEAF,    /* stacks cut: sampled inside a switch, mid-switch */
	GO_CTR_CGO_BAD,	    /* stacks cut: the saved words (g, depth, sched.sp) did not check out */
	GO_CTR_CGO_FAULT,   /* stacks cut: the system or goroutine stack unreadable */
	GO_CTR__COUNT,
};

#endif
