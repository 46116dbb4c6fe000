// SPDX-License-Identifier: GPL-2.0
/* The HotSpot walker, a walking runtime of the chain (bpf/chain.h): the native walker
 * hands it the registers when a pc enters the JVM's code cache (marked UNW_MARK_WALK by
 * hotspot.c); it records the interpreted, compiled and stub frames there in
 * place (hotspot_step.h), one bpf_loop() iteration each, or before 5.17 one call of
 * hs_frame, and hands the registers back to the native walker when the pc leaves the code
 * cache (JVM C++, JNI code, libc). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "chain.bpf.h"
#include "hotspot_proc.h"

char LICENSE[] SEC("license") = "GPL";

#define HS_READ_USER(dst, size, addr) read_user((dst), (size), (__u64)(addr))
#include "hotspot_step.h"

/* JVM processes userspace has described. */
CHAIN_PROCS(pid_to_hotspot, struct hs_proc);

CHAIN_COUNTERS(hotspot_counters, hs_count, HS_CTR__COUNT);

/* A code blob's header, read whole: too big for the stack next to the loop's state. */
struct hs_scratch {
	__u8 head[HS_BLOB_HEAD];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hs_scratch);
} hotspot_scratch SEC(".maps");

struct hs_walk {
	struct hs_regs regs;
	struct chain_slot *s;
	const struct hs_proc *p;
	__u8 *head;
	__u32 frames;
	__u32 stop; /* enum hs_step that ended the loop, HS_STEP_NEXT when it ran out */
};

/* bpf_loop() callback: one frame. The verifier checks this body once. */
static long hs_frame_cb(__u32 i, void *arg)
{
	struct hs_walk *w = arg;
	struct sample_record *r = &w->s->r;
	__u32 n = r->ustack_len;
	struct user_frame *uf;
	struct hs_frame f;
	int step;

	if (n >= UNW_MAX_FRAMES) {
		r->flags |= SAMPLE_F_USER_TRUNCATED;
		w->stop = HS_STEP_NEXT;
		return 1;
	}
	step = hs_step(w->p, &w->regs, &f, w->head);
	if (step != HS_STEP_NEXT) {
		w->stop = step;
		return 1;
	}
	/* The mask restates the bound for the verifier, which lost it through the map. */
	uf = &r->ustack[n & (UNW_MAX_FRAMES - 1)];
	uf->addr = f.addr;
	uf->file_id = UF_RUNTIME_FILE(WALKER_HOTSPOT);
	uf->pad = f.pad & UF_DATA_MASK;
	r->ustack_len = n + 1;
	w->frames++;
	return 0;
}

/* The Java part of the stack cannot go on: the stack ends here, incomplete. */
static __always_inline int hs_cut(void *ctx, const struct chain c, struct chain_slot *s,
				  __u32 counter)
{
	hs_count(counter);
	chain_stack_ends(s, UNW_STEP_BAD_FRAME);
	return chain_next(ctx, c, s, chain_deferred(&s->w));
}

/* The code cache is claimed but not described (the JVM was still starting when it was
 * last described): ask the tracker for another look, as an unknown mapping does. */
static __always_inline int hs_no_proc(void *ctx, const struct chain c, struct chain_slot *s)
{
	notice(RECORD_UNKNOWN_MAPPING, s->w.pid, s->w.regs.pc);
	return hs_cut(ctx, c, s, HS_CTR_NO_PROC);
}

/* The walk in the code cache stopped (stop: enum hs_step, HS_STEP_NEXT when its bound
 * ran out) after frames frames, the walk state's registers at the frame it stopped at:
 * back to the native walker when the pc left the code cache, else the stack ends here. */
static __always_inline int hs_walk_ends(void *ctx, const struct chain c, struct chain_slot *s,
					__u32 stop, __u32 frames)
{
	if (stop == HS_STEP_LEAVE) {
		/* Handed a pc it does not own: going back would bounce until the budget ends. */
		if (!frames)
			return hs_cut(ctx, c, s, HS_CTR_NO_PROGRESS);
		s->w.regs.pc_exact = 0;
		return chain_next(ctx, c, s, WALKER_NATIVE);
	}
	if (stop == HS_STEP_NO_BLOB)
		return hs_cut(ctx, c, s, HS_CTR_NO_BLOB);
	if (stop == HS_STEP_FAULT)
		return hs_cut(ctx, c, s, HS_CTR_FAULT);
	if (stop == HS_STEP_BAD)
		return hs_cut(ctx, c, s, HS_CTR_BAD);
	return hs_cut(ctx, c, s, HS_CTR_FULL);
}

static __always_inline int hotspot_walk(void *ctx, const struct chain c)
{
	struct chain_slot *s = chain_slot(c);
	struct hs_walk w = {.stop = HS_STEP_NEXT};
	__u32 zero = 0;
	struct hs_scratch *scratch = bpf_map_lookup_elem(&hotspot_scratch, &zero);

	if (!s)
		return 0;
	w.p = bpf_map_lookup_elem(&pid_to_hotspot, &s->w.pid);
	if (!w.p)
		return hs_no_proc(ctx, c, s);
	if (!scratch)
		return hs_cut(ctx, c, s, HS_CTR_NO_PROC);
	hs_count(HS_CTR_WALKS);
	w.s = s;
	w.head = scratch->head;
	w.regs.pc = s->w.regs.pc;
	w.regs.sp = s->w.regs.sp;
	w.regs.fp = s->w.regs.fp;
	w.regs.pc_exact = s->w.regs.pc_exact;
	w.regs.bcp = s->w.regs.bcp;
	bpf_loop(HS_MAX_JAVA_FRAMES, hs_frame_cb, &w, 0);
	s->w.regs.pc = w.regs.pc;
	s->w.regs.sp = w.regs.sp;
	s->w.regs.fp = w.regs.fp;
	return hs_walk_ends(ctx, c, s, w.stop, w.frames);
}
EBPROF_WALKER(hotspot_walk)

/* Frames per program of the walker without bpf_loop: HS_MAX_JAVA_FRAMES in 4 programs,
 * as the native walker's 32. */
#define HS_FRAMES_PER_CALL 32

/* The walk across the walker's own tail calls (walk_state.rt). */
struct hs_resume {
	__u32 frames;
	__u32 stop;
	__u32 started;
};

/* One HotSpot frame resumed from the walk state: its registers are the walk state's, its
 * frame count and stop in rs. A global function takes no pointers before 5.12, so the
 * scratch is looked up here. */
static __always_inline long hs_frame_resumed(struct chain_slot *s, struct hs_resume *rs,
					     const struct hs_proc *p)
{
	__u32 zero = 0;
	struct hs_scratch *hs = bpf_map_lookup_elem(&hotspot_scratch, &zero);
	struct hs_walk w = {.s = s, .p = p};
	long stop;

	if (!hs)
		return 1;
	w.head = hs->head;
	w.regs.pc = s->w.regs.pc;
	w.regs.sp = s->w.regs.sp;
	w.regs.fp = s->w.regs.fp;
	w.regs.pc_exact = s->w.regs.pc_exact;
	w.regs.bcp = s->w.regs.bcp;
	w.frames = rs->frames;
	stop = hs_frame_cb(0, &w);
	s->w.regs.pc = w.regs.pc;
	s->w.regs.sp = w.regs.sp;
	s->w.regs.fp = w.regs.fp;
	s->w.regs.pc_exact = w.regs.pc_exact;
	rs->frames = w.frames;
	rs->stop = w.stop;
	return stop;
}

/* One HotSpot frame without bpf_loop (bpf/chain.bpf.h): hs_resume in rt, the hs_proc in
 * walking. */
CHAIN_FRAME(hs_frame, hs_frame_resumed, struct hs_resume, struct hs_proc, walking)

/* The HotSpot walker for kernels without bpf_loop (before 5.17): HS_FRAMES_PER_CALL
 * calls of hs_frame, then a tail call to itself while the walk goes on, up to
 * HS_MAX_JAVA_FRAMES frames per hand-over as with bpf_loop. */
static __always_inline int hotspot_walk_unrolled(void *ctx, const struct chain c)
{
	struct chain_slot *s = chain_slot(c);
	const struct hs_proc *p;
	struct hs_resume *rs;
	__u32 stop = 0, frames;

	if (!s)
		return 0;
	rs = (struct hs_resume *)s->w.rt;
	p = bpf_map_lookup_elem(&pid_to_hotspot, &s->w.pid);
	if (!p) {
		chain_resume_clear(s);
		return hs_no_proc(ctx, c, s);
	}
	__builtin_memcpy(s->w.walking, p, sizeof(*p));
	if (!rs->started) {
		hs_count(HS_CTR_WALKS);
		rs->stop = HS_STEP_NEXT;
		rs->started = 1;
	}
	for (__u32 i = 0; i < HS_FRAMES_PER_CALL && !stop; i++)
		stop = hs_frame(c.slot);
	if (!stop && rs->frames < HS_MAX_JAVA_FRAMES)
		return chain_next(ctx, c, s, WALKER_HOTSPOT);
	stop = rs->stop;
	frames = rs->frames;
	chain_resume_clear(s);
	return hs_walk_ends(ctx, c, s, stop, frames);
}
EBPROF_WALKER(hotspot_walk_unrolled)
