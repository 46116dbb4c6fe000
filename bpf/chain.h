/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* The walker chain: every stack-collecting program fills a per-CPU record, then
 * tail-calls walkers that build its user stack — the native walker, the runtimes'
 * walkers, and last the one that submits it. What both sides know of it: the entry
 * program types (one program array each, since an array holds one type), the per-CPU
 * walk state and its limits. The BPF half is bpf/chain.bpf.h, the userspace half
 * src/loader/walkers.c. */
#ifndef EBPROF_CHAIN_H
#define EBPROF_CHAIN_H

#include "sample.h"

/* The kernel allows 33 tail calls in one chain (32 before 5.17: MAX_TAIL_CALL_CNT). */
#define WALK_MAX_TAIL_CALLS 32

/* What the last walker does with the record. */
enum walk_finish {
	WALK_FINISH_SEND = 0, /* into the ring buffer */
	WALK_FINISH_KEEP,     /* off-CPU: kept in off_cpu_pending until the thread runs */
	WALK_FINISH_EXIT,     /* an exit: kept in exit_stacks for the exit's samples */
};

/* The state of the native walker's look-up of a pc's VMA in the kernel's own tree
 * (bpf/vma.bpf.h), in map memory: a global function before 5.12 takes no pointers, and
 * the verifier tracks no values there, so the walk's branches keep no paths apart. */
#define VMA_WALK_PIVOTS 15 /* the maple tree's widest node (maple_range_64) */
struct vma_walk {
	__u64 key;  /* the address looked up */
	__u64 node; /* the node to read next: maple tree (encoded) or red-black tree */
	__u64 vma;  /* the VMA found, 0 while none */
	__u64 off;  /* the slot of the node the key is in */
	__u64 pivots[VMA_WALK_PIVOTS];
};

/* Words of the walk state a walker without bpf_loop keeps its process's description in
 * (the largest: HotSpot's struct hs_proc). */
#define WALK_DESC_WORDS 24

/* The walk across tail calls. Only the walker running touches it. */
struct walk_state {
	struct unw_regs regs; /* the user frame the next walker starts at */
	__u32 pid;
	__u32 tid;
	__u32 pending;	  /* deferred runtimes still to run, 1 << enum walker */
	__u32 tail_calls; /* taken so far in this chain */
	__u32 next;	  /* the walker being tail-called (see chain_tail_call) */
	__u16 stop;	  /* enum unw_step that ended the in-order walk */
	__u8 finish;	  /* enum walk_finish */
	__u8 noticed;	  /* an unknown mapping was reported for this sample */
	/* enum cut_cause + 1 of the first frame of the walk no table unwound (0: none):
	 * what a cut stack is counted as (CTR_CUT_FIRST). */
	__u8 cause;
	__u8 acts[WALKER__COUNT]; /* activations flagged per runtime (at most 255 each) */
	/* The state a walker keeps across its own re-entries (without bpf_loop a walker
	 * does a few frames per program and tail-calls itself): zero when it first runs,
	 * zeroed again by it when it hands over for good. */
	__u64 rt[4];
	/* The walker the native walker handed the registers to at a UNW_MARK_WALK range
	 * (0: none, the in-order walk is over): a runtime whose walker also runs deferred
	 * (unw_proc.always) tells its two calls apart by it and clears it. */
	__u32 handover;
	/* Without bpf_loop, where the native walker's frames are a global function's
	 * (which takes no pointers before 5.12): the unw_proc as a plain number (0: the
	 * process is not described), its mapping count, how the walk stopped, and the
	 * searches' state (struct unw_copy_search, unw_search), in map memory for the
	 * verifier's sake (see unwind_step.h). */
	__u32 nmaps;
	__u64 proc_addr;
	/* The mapping of the last pc the native walker placed from the kernel's VMAs itself
	 * (end 0: none): the next frames are mostly in the same one. */
	struct unw_mapping vm;
	struct vma_walk vw;
	/* The native walker's frame: its mapping (from the description or the kernel's
	 * VMAs), and the table row that unwinds it. */
	struct unw_mapping cur;
	struct unwind_row row;
	union {
		__u64 search[WALK_DESC_WORDS];
		/* Once the in-order walk is over, the searches are dead: a deferred runtime's
		 * walker without bpf_loop copies its process's description here, where its
		 * global function (no pointers either) finds it without a map lookup. */
		__u64 deferred[WALK_DESC_WORDS];
		/* So are they while a walking runtime's walker has the registers (the native
		 * walker starts both searches afresh at each frame): that walker without
		 * bpf_loop keeps its process's description here the same way. */
		__u64 walking[WALK_DESC_WORDS];
	};
};

/* One per CPU and per context a program runs in (see enum scratch_slot). */
struct chain_slot {
	struct sample_record r;
	struct walk_state w;
};

/* Contexts that nest on one CPU, each with its own slot: a cpu-clock sample (hard
 * interrupt) can land inside a uprobe's program, and a tracepoint can fire inside a
 * uprobe's helpers (uprobe programs do not take the bpf_prog_active guard that keeps
 * tracing programs from nesting). A walker runs in its entry's context and slot. */
enum scratch_slot {
	SCRATCH_IRQ,   /* perf_event: on_cpu_sample */
	SCRATCH_TASK,  /* uprobe: probes, USDT, allocations */
	SCRATCH_TRACE, /* tracepoint, raw_tp: probes, sched_switch */
	SCRATCH__COUNT,
};

/* The entry program types, each with its own program array. */
enum chain_type {
	CHAIN_PERF,   /* perf_event */
	CHAIN_UPROBE, /* kprobe type: uprobes, uretprobes, USDT */
	CHAIN_TP,     /* tracepoint */
	CHAIN_RAWTP,  /* raw tracepoint */
	CHAIN__COUNT,
};

#endif
