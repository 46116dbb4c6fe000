// SPDX-License-Identifier: GPL-2.0
/* The V8 walker, a walking runtime of the chain (bpf/chain.h): the native walker hands it
 * the registers when a pc enters V8's code (the embedded builtins and the JIT's anonymous
 * executable memory, marked UNW_MARK_WALK by v8.c); it records the JavaScript and stub
 * frames there in place by frame pointer (v8_step.h), one bpf_loop() iteration each, or
 * before 5.17 one call of v8_frame, and hands the registers back when the pc leaves V8's
 * code (Node's C++, libuv, a native addon, libz). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "arch/arch.h"
#include "chain.bpf.h"
#include "v8_proc.h"

char LICENSE[] SEC("license") = "GPL";

#define V8_READ_USER(dst, size, addr) read_user((dst), (size), (__u64)(addr))
#include "v8_step.h"

/* Node.js processes userspace has described. */
CHAIN_PROCS(pid_to_v8, struct v8_proc);

CHAIN_COUNTERS(v8_counters, v8_count, V8_CTR__COUNT);

struct v8_walk {
	struct v8_regs regs;
	struct chain_slot *s;
	const struct v8_proc *p;
	__u32 frames;
	__u32 stop; /* enum v8_step that ended the loop, V8_STEP_NEXT when it ran out */
};

/* bpf_loop() callback: one frame. The verifier checks this body once. */
static long v8_frame_cb(__u32 i, void *arg)
{
	struct v8_walk *w = arg;
	struct sample_record *r = &w->s->r;
	__u32 n = r->ustack_len;
	struct user_frame *uf;
	struct v8_frame f = {};
	int step;

	if (n >= UNW_MAX_FRAMES) {
		r->flags |= SAMPLE_F_USER_TRUNCATED;
		w->stop = V8_STEP_NEXT;
		return 1;
	}
	step = v8_step(w->p, &w->regs, &f);
	/* A frame is recorded when it was read (f.pad has its type), even when its caller
	 * is impossible. */
	if (!f.pad) {
		w->stop = step;
		return 1;
	}
	/* The mask restates the bound for the verifier, which lost it through the map. */
	if (f.pre_pad && n + 1 < UNW_MAX_FRAMES) {
		uf = &r->ustack[n & (UNW_MAX_FRAMES - 1)];
		uf->addr = f.pre_addr;
		uf->file_id = UF_RUNTIME_FILE(WALKER_V8);
		uf->pad = f.pre_pad & UF_DATA_MASK;
		n++;
	}
	uf = &r->ustack[n & (UNW_MAX_FRAMES - 1)];
	uf->addr = f.addr;
	uf->file_id = UF_RUNTIME_FILE(WALKER_V8);
	uf->pad = f.pad & UF_DATA_MASK;
	r->ustack_len = n + 1;
	w->frames++;
	w->stop = step;
	return step != V8_STEP_NEXT;
}

/* The JavaScript part of the stack cannot go on: the stack ends here, incomplete unless
 * the walk reached the outermost frame. */
static __always_inline int v8_cut(void *ctx, const struct chain c, struct chain_slot *s,
				  __u32 counter, __u32 stop)
{
	if (counter < V8_CTR__COUNT)
		v8_count(counter);
	chain_stack_ends(s, stop);
	return chain_next(ctx, c, s, chain_deferred(&s->w));
}

/* Where the current task's user registers were saved at kernel entry: the helper, or
 * without bpf_loop (before 5.17; bpf_task_pt_regs is 5.15's) where the architecture
 * keeps them, at the top of the task's kernel stack. */
static __always_inline const void *v8_user_regs(int unrolled)
{
	struct task_struct *task;
	void *stack;

	if (!unrolled)
		return (const void *)bpf_task_pt_regs(bpf_get_current_task_btf());
	task = (struct task_struct *)bpf_get_current_task();
	stack = BPF_CORE_READ(task, stack);
	return stack ? ARCH_TASK_PT_REGS(stack) : NULL;
}

/* At the sample's innermost frame, when the interrupted user registers are the ones the
 * walk starts from: the interpreter's bytecode array and offset registers. */
static __always_inline void v8_interp_regs(const struct chain_slot *s, const struct v8_proc *p,
					   struct v8_regs *r, int unrolled)
{
	const void *regs;
	__u64 pc = 0;

	if (!p->interp_regs || s->r.ustack_len || !s->w.regs.pc_exact)
		return;
	regs = v8_user_regs(unrolled);
	if (!regs ||
	    bpf_probe_read_kernel(&pc, sizeof(pc), &ARCH_PC((const struct arch_regs *)regs)) ||
	    pc != s->w.regs.pc)
		return;
	/* The masks keep the reads inside the register set for the verifier's sake (a
	 * probe read takes any address, but a wrong offset would read another field). */
	bpf_probe_read_kernel(&r->bc_array, 8, regs + (p->reg_bc_array & 0x1f8));
	bpf_probe_read_kernel(&r->bc_offset, 8, regs + (p->reg_bc_offset & 0x1f8));
}

/* V8's code is claimed but not described (Node was still starting when it was last
 * described): ask the tracker for another look. */
static __always_inline int v8_no_proc(void *ctx, const struct chain c, struct chain_slot *s)
{
	notice(RECORD_UNKNOWN_MAPPING, s->w.pid, s->w.regs.pc);
	return v8_cut(ctx, c, s, V8_CTR_NO_PROC, UNW_STEP_BAD_FRAME);
}

/* The walk in V8's code stopped (stop: enum v8_step, V8_STEP_NEXT when its bound ran out)
 * after frames frames, the walk state's registers at the frame it stopped at: back to
 * the native walker when the pc left V8's code, else the stack ends here. */
static __always_inline int v8_walk_ends(void *ctx, const struct chain c, struct chain_slot *s,
					__u32 stop, __u32 frames)
{
	if (stop == V8_STEP_LEAVE) {
		/* Handed a pc it does not own: going back would bounce until the budget ends. */
		if (!frames)
			return v8_cut(ctx, c, s, V8_CTR_NO_PROGRESS, UNW_STEP_BAD_FRAME);
		s->w.regs.pc_exact = 0;
		return chain_next(ctx, c, s, WALKER_NATIVE);
	}
	if (stop == V8_STEP_END)
		return v8_cut(ctx, c, s, V8_CTR__COUNT, UNW_STEP_END);
	if (stop == V8_STEP_FAULT)
		return v8_cut(ctx, c, s, V8_CTR_FAULT, UNW_STEP_READ_FAULT);
	if (stop == V8_STEP_BAD)
		return v8_cut(ctx, c, s, V8_CTR_BAD, UNW_STEP_BAD_FRAME);
	return v8_cut(ctx, c, s, V8_CTR_FULL, UNW_STEP_BAD_FRAME);
}

static __always_inline int v8_walk(void *ctx, const struct chain c)
{
	struct chain_slot *s = chain_slot(c);
	struct v8_walk w = {.stop = V8_STEP_NEXT};

	if (!s)
		return 0;
	w.p = bpf_map_lookup_elem(&pid_to_v8, &s->w.pid);
	if (!w.p)
		return v8_no_proc(ctx, c, s);
	v8_count(V8_CTR_WALKS);
	w.s = s;
	w.regs.pc = s->w.regs.pc;
	w.regs.sp = s->w.regs.sp;
	w.regs.fp = s->w.regs.fp;
	v8_interp_regs(s, w.p, &w.regs, 0);
	bpf_loop(V8_MAX_JS_FRAMES, v8_frame_cb, &w, 0);
	s->w.regs.pc = w.regs.pc;
	s->w.regs.sp = w.regs.sp;
	s->w.regs.fp = w.regs.fp;
	return v8_walk_ends(ctx, c, s, w.stop, w.frames);
}
EBPROF_WALKER(v8_walk)

/* Frames per program of the walker without bpf_loop: V8_MAX_JS_FRAMES in 4 programs, as
 * the native walker's 32. */
#define V8_FRAMES_PER_CALL 32

/* The walk across the walker's own tail calls (walk_state.rt): the interpreter's
 * registers until the first frame has used them, and how the walk goes. */
struct v8_resume {
	__u64 bc_array;
	__u64 bc_offset;
	__u32 frames;
	__u32 stop;
	__u32 started;
	__u32 pad;
};

/* One V8 frame resumed from the walk state: its registers are the walk state's, the rest
 * of its state in from rs and back out. */
static __always_inline long v8_frame_resumed(struct chain_slot *s, struct v8_resume *rs,
					     const struct v8_proc *p)
{
	struct v8_walk w = {.s = s, .p = p};
	long stop;

	w.regs.pc = s->w.regs.pc;
	w.regs.sp = s->w.regs.sp;
	w.regs.fp = s->w.regs.fp;
	w.regs.bc_array = rs->bc_array;
	w.regs.bc_offset = rs->bc_offset;
	w.frames = rs->frames;
	stop = v8_frame_cb(0, &w);
	s->w.regs.pc = w.regs.pc;
	s->w.regs.sp = w.regs.sp;
	s->w.regs.fp = w.regs.fp;
	rs->bc_array = w.regs.bc_array;
	rs->frames = w.frames;
	rs->stop = w.stop;
	return stop;
}

/* One V8 frame without bpf_loop (bpf/chain.bpf.h): v8_resume in rt, the v8_proc in
 * walking. */
CHAIN_FRAME(v8_frame, v8_frame_resumed, struct v8_resume, struct v8_proc, walking)

/* The V8 walker for kernels without bpf_loop (before 5.17): V8_FRAMES_PER_CALL calls of
 * v8_frame, then a tail call to itself while the walk goes on, up to V8_MAX_JS_FRAMES
 * frames per hand-over as with bpf_loop. */
static __always_inline int v8_walk_unrolled(void *ctx, const struct chain c)
{
	struct chain_slot *s = chain_slot(c);
	struct v8_regs r = {};
	const struct v8_proc *p;
	struct v8_resume *rs;
	__u32 stop = 0, frames;

	if (!s)
		return 0;
	rs = (struct v8_resume *)s->w.rt;
	p = bpf_map_lookup_elem(&pid_to_v8, &s->w.pid);
	if (!p) {
		chain_resume_clear(s);
		return v8_no_proc(ctx, c, s);
	}
	__builtin_memcpy(s->w.walking, p, sizeof(*p));
	if (!rs->started) {
		v8_count(V8_CTR_WALKS);
		v8_interp_regs(s, p, &r, 1);
		rs->bc_array = r.bc_array;
		rs->bc_offset = r.bc_offset;
		rs->started = 1;
	}
	for (__u32 i = 0; i < V8_FRAMES_PER_CALL && !stop; i++)
		stop = v8_frame(c.slot);
	if (!stop && rs->frames < V8_MAX_JS_FRAMES)
		return chain_next(ctx, c, s, WALKER_V8);
	stop = rs->stop;
	frames = rs->frames;
	chain_resume_clear(s);
	return v8_walk_ends(ctx, c, s, stop, frames);
}
EBPROF_WALKER(v8_walk_unrolled)
