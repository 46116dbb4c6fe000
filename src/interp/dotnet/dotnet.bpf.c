// SPDX-License-Identifier: GPL-2.0
/* The .NET (CoreCLR) walker, a walking runtime of the chain (bpf/chain.h): the native
 * walker hands it the registers when a pc enters managed code (the JIT's executable
 * views and the ready-to-run images, marked UNW_MARK_WALK by dotnet.c); it records the
 * managed frames there by frame pointer (dotnet_step.h), one bpf_loop() iteration each,
 * or before 5.17 one call of dn_frame, and hands the registers back to the native walker
 * when the pc leaves managed code (libcoreclr's helpers, a P/Invoke target, libc). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "chain.bpf.h"
#include "dotnet_proc.h"

char LICENSE[] SEC("license") = "GPL";

#define DN_READ_USER(dst, size, addr) read_user((dst), (size), (__u64)(addr))
#include "dotnet_step.h"

/* CoreCLR processes userspace has described. */
CHAIN_PROCS(pid_to_dotnet, struct dn_proc);

CHAIN_COUNTERS(dotnet_counters, dn_count, DN_CTR__COUNT);

/* The window of stack words a frame's scan reads: too big for the BPF stack. */
struct dn_window {
	__u64 w[DN_SCAN_WORDS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dn_window);
} dotnet_window SEC(".maps");

struct dn_walk {
	struct dn_regs regs;
	struct chain_slot *s;
	const struct dn_proc *p;
	__u64 *window; /* dotnet_window's words; NULL: no scans (the walker without bpf_loop) */
	__u32 frames;
	__u32 stop; /* enum dn_step that ended the loop, DN_STEP_NEXT when it ran out */
};

/* Appends one managed frame to the sample; false when its slots ran out. */
static __always_inline bool dn_record(struct sample_record *r, __u64 addr, __u32 flags)
{
	__u32 n = r->ustack_len;
	struct user_frame *uf;

	if (n >= UNW_MAX_FRAMES) {
		r->flags |= SAMPLE_F_USER_TRUNCATED;
		return false;
	}
	/* The mask restates the bound for the verifier, which lost it through the map. */
	uf = &r->ustack[n & (UNW_MAX_FRAMES - 1)];
	uf->addr = addr;
	uf->file_id = UF_RUNTIME_FILE(WALKER_DOTNET);
	uf->pad = flags & UF_DATA_MASK;
	r->ustack_len = n + 1;
	return true;
}

struct dn_scan {
	struct dn_walk *w;
	__u64 sp;    /* the window's first word */
	__u32 total; /* words in the window */
	__u32 words; /* in the chunk read */
	__u32 found;
	__u32 full; /* the sample's slots ran out */
};

/* bpf_loop() callback: word i of a chunk of a frame's window, sent when it may be a
 * frameless caller's return address. */
static long dn_scan_cb(__u32 i, void *arg)
{
	struct dn_scan *sc = arg;
	__u64 v;

	if (i >= sc->words || sc->found >= DN_SCAN_MAX)
		return 1;
	v = sc->w->window[i & (DN_SCAN_WORDS - 1)];
	if (!dn_in_hull(sc->w->p, v))
		return 0;
	if (!dn_record(&sc->w->s->r, v, DN_FRAME_SCANNED)) {
		sc->full = 1;
		return 1;
	}
	sc->found++;
	return 0;
}

/* bpf_loop() callback: chunk c of a frame's window (frameless recursion puts many frames
 * there), read whole or, the stack's top being near, as much of it as the window holds,
 * then scanned. A loop of its own: the verifier checks its body once (8 chunks inlined in
 * the frame's body took it 86 k instructions, this 12.5 k). */
static long dn_chunk_cb(__u32 c, void *arg)
{
	struct dn_scan *sc = arg;
	__u64 at = sc->sp + (__u64)c * DN_SCAN_WORDS * 8;
	__u32 left = sc->total > c * DN_SCAN_WORDS ? sc->total - c * DN_SCAN_WORDS : 0;

	if (!left || sc->full || sc->found >= DN_SCAN_MAX)
		return 1;
	sc->words = left < DN_SCAN_WORDS ? left : DN_SCAN_WORDS;
	/* The mask keeps the second read's size a known bound for the verifier; it is only
	 * tried when the chunk is smaller than the whole. */
	if (read_user(sc->w->window, DN_SCAN_WORDS * 8, at) &&
	    (sc->words >= DN_SCAN_WORDS ||
	     read_user(sc->w->window, (sc->words & (DN_SCAN_WORDS - 1)) * 8, at)))
		return 1;
	bpf_loop(DN_SCAN_WORDS, dn_scan_cb, sc, 0);
	return 0;
}

/* The frameless callers of the frame at r: its window, DN_SCAN_WORDS words at a time. */
static __always_inline void dn_scan(struct dn_walk *w, const struct dn_regs *r)
{
	struct dn_scan sc = {.w = w, .sp = r->sp, .total = dn_window_words(r)};

	if (w->window && sc.total)
		bpf_loop(DN_SCAN_CHUNKS, dn_chunk_cb, &sc, 0);
}

/* One frame and, with scan, the frameless callers found above it. scan is a constant:
 * false leaves no bpf_loop() and no callback in the walker without bpf_loop, whose kernels
 * (before 5.13) refuse a program holding a callback's address ("number of funcs in
 * func_info doesn't match number of subprogs"). */
static __always_inline long dn_frame_body(struct dn_walk *w, const bool scan)
{
	struct sample_record *r = &w->s->r;
	struct dn_regs at = w->regs;
	struct dn_frame f = {};
	int step;

	step = dn_step(w->p, &w->regs, &f);
	w->stop = step;
	/* A frame is recorded when its pc was managed, even when its caller is not
	 * reachable. */
	if (!f.pc)
		return 1;
	if (!dn_record(r, f.pc, f.flags)) {
		w->stop = DN_STEP_NEXT;
		return 1;
	}
	w->frames++;
	if (scan && (step == DN_STEP_NEXT || step == DN_STEP_END))
		dn_scan(w, &at);
	return step != DN_STEP_NEXT;
}

/* bpf_loop() callback: one frame and its frameless callers. The verifier checks this body
 * once. */
static long dn_frame_cb(__u32 i, void *arg)
{
	return dn_frame_body(arg, true);
}

/* The managed part of the stack cannot go on: the stack ends here, incomplete unless
 * the walk reached the outermost frame. */
static __always_inline int dn_cut(void *ctx, const struct chain c, struct chain_slot *s,
				  __u32 counter, __u32 stop)
{
	if (counter < DN_CTR__COUNT)
		dn_count(counter);
	chain_stack_ends(s, stop);
	return chain_next(ctx, c, s, chain_deferred(&s->w));
}

/* Managed code is claimed but not described: ask the tracker for another look. */
static __always_inline int dn_no_proc(void *ctx, const struct chain c, struct chain_slot *s)
{
	notice(RECORD_UNKNOWN_MAPPING, s->w.pid, s->w.regs.pc);
	return dn_cut(ctx, c, s, DN_CTR_NO_PROC, UNW_STEP_BAD_FRAME);
}

/* The walk in managed code stopped (stop: enum dn_step, DN_STEP_NEXT when its bound ran
 * out) after frames frames, the walk state's registers at the frame it stopped at: back
 * to the native walker when the pc left managed code, else the stack ends here. */
static __always_inline int dn_walk_ends(void *ctx, const struct chain c, struct chain_slot *s,
					__u32 stop, __u32 frames)
{
	if (stop == DN_STEP_LEAVE) {
		/* Handed a pc it does not own: going back would bounce until the budget ends. */
		if (!frames)
			return dn_cut(ctx, c, s, DN_CTR_NO_PROGRESS, UNW_STEP_BAD_FRAME);
		s->w.regs.pc_exact = 0;
		return chain_next(ctx, c, s, WALKER_NATIVE);
	}
	if (stop == DN_STEP_END)
		return dn_cut(ctx, c, s, DN_CTR__COUNT, UNW_STEP_END);
	if (stop == DN_STEP_FAULT)
		return dn_cut(ctx, c, s, DN_CTR_FAULT, UNW_STEP_READ_FAULT);
	if (stop == DN_STEP_BAD)
		return dn_cut(ctx, c, s, DN_CTR_BAD, UNW_STEP_BAD_FRAME);
	return dn_cut(ctx, c, s, DN_CTR_FULL, UNW_STEP_BAD_FRAME);
}

static __always_inline int dotnet_walk(void *ctx, const struct chain c)
{
	struct chain_slot *s = chain_slot(c);
	struct dn_walk w = {.stop = DN_STEP_NEXT};
	__u32 zero = 0;

	if (!s)
		return 0;
	w.window = bpf_map_lookup_elem(&dotnet_window, &zero);
	w.p = bpf_map_lookup_elem(&pid_to_dotnet, &s->w.pid);
	if (!w.p)
		return dn_no_proc(ctx, c, s);
	dn_count(DN_CTR_WALKS);
	w.s = s;
	w.regs.pc = s->w.regs.pc;
	w.regs.sp = s->w.regs.sp;
	w.regs.fp = s->w.regs.fp;
	w.regs.pc_exact = s->w.regs.pc_exact;
	bpf_loop(DN_MAX_FRAMES, dn_frame_cb, &w, 0);
	s->w.regs.pc = w.regs.pc;
	s->w.regs.sp = w.regs.sp;
	s->w.regs.fp = w.regs.fp;
	return dn_walk_ends(ctx, c, s, w.stop, w.frames);
}
EBPROF_WALKER(dotnet_walk)

/* Frames per program of the walker without bpf_loop: DN_MAX_FRAMES in 4 programs, as
 * the native walker's 32. */
#define DN_FRAMES_PER_CALL 32

/* The walk across the walker's own tail calls (walk_state.rt). */
struct dn_resume {
	__u32 frames;
	__u32 stop;
	__u32 started;
	__u32 pad;
};

/* One managed frame resumed from the walk state: its registers are the walk state's,
 * the rest of its state in from rs and back out. */
static __always_inline long dn_frame_resumed(struct chain_slot *s, struct dn_resume *rs,
					     const struct dn_proc *p)
{
	struct dn_walk w = {.s = s, .p = p};
	long stop;

	w.regs.pc = s->w.regs.pc;
	w.regs.sp = s->w.regs.sp;
	w.regs.fp = s->w.regs.fp;
	w.regs.pc_exact = s->w.regs.pc_exact;
	w.frames = rs->frames;
	stop = dn_frame_body(&w, false);
	s->w.regs.pc = w.regs.pc;
	s->w.regs.sp = w.regs.sp;
	s->w.regs.fp = w.regs.fp;
	s->w.regs.pc_exact = w.regs.pc_exact;
	rs->frames = w.frames;
	rs->stop = w.stop;
	return stop;
}

/* One managed frame without bpf_loop (bpf/chain.bpf.h): dn_resume in rt, the dn_proc
 * in walking. */
CHAIN_FRAME(dn_frame, dn_frame_resumed, struct dn_resume, struct dn_proc, walking)

/* The walker for kernels without bpf_loop (before 5.17): DN_FRAMES_PER_CALL calls of
 * dn_frame, then a tail call to itself while the walk goes on, up to DN_MAX_FRAMES
 * frames per hand-over as with bpf_loop. */
static __always_inline int dotnet_walk_unrolled(void *ctx, const struct chain c)
{
	struct chain_slot *s = chain_slot(c);
	const struct dn_proc *p;
	struct dn_resume *rs;
	__u32 stop = 0, frames;

	if (!s)
		return 0;
	rs = (struct dn_resume *)s->w.rt;
	p = bpf_map_lookup_elem(&pid_to_dotnet, &s->w.pid);
	if (!p) {
		chain_resume_clear(s);
		return dn_no_proc(ctx, c, s);
	}
	__builtin_memcpy(s->w.walking, p, sizeof(*p));
	if (!rs->started) {
		dn_count(DN_CTR_WALKS);
		rs->started = 1;
	}
	for (__u32 i = 0; i < DN_FRAMES_PER_CALL && !stop; i++)
		stop = dn_frame(c.slot);
	if (!stop && rs->frames < DN_MAX_FRAMES)
		return chain_next(ctx, c, s, WALKER_DOTNET);
	stop = rs->stop;
	frames = rs->frames;
	chain_resume_clear(s);
	return dn_walk_ends(ctx, c, s, stop, frames);
}
EBPROF_WALKER(dotnet_walk_unrolled)
