// SPDX-License-Identifier: GPL-2.0
/* The V8 walker, a walking runtime of the chain (bpf/chain.h): the native walker hands it
 * the registers when a pc enters V8's code (the embedded builtins and the JIT's anonymous
 * executable memory, marked UNW_MARK_WALK by v8.c); it records the JavaScript
 * and stub frames there in place by frame pointer, one bpf_loop() iteration each
 * (v8_step.h), and hands the registers back when the pc leaves V8's code (Node's
 * C++, libuv, a native addon, libz). */
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
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* pay only for the processes described */
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct v8_proc);
} pid_to_v8 SEC(".maps");

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
	if (f.with_pc && n + 1 < UNW_MAX_FRAMES) {
		uf = &r->ustack[n & (UNW_MAX_FRAMES - 1)];
		uf->addr = f.pc;
		uf->file_id = UF_RUNTIME_FILE(WALKER_V8);
		uf->pad = V8_FRAME_PC << V8_TYPE_SHIFT;
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

/* At the sample's innermost frame, when the interrupted user registers are the ones the
 * walk starts from: the interpreter's bytecode array and offset registers. */
static __always_inline void v8_interp_regs(const struct chain_slot *s, const struct v8_proc *p,
					   struct v8_regs *r)
{
	const void *regs;
	__u64 pc = 0;

	if (!p->interp_regs || s->r.ustack_len || !s->w.regs.pc_exact)
		return;
	regs = (const void *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (!regs ||
	    bpf_probe_read_kernel(&pc, sizeof(pc), &ARCH_PC((const struct arch_regs *)regs)) ||
	    pc != s->w.regs.pc)
		return;
	/* The masks keep the reads inside the register set for the verifier's sake (a
	 * probe read takes any address, but a wrong offset would read another field). */
	bpf_probe_read_kernel(&r->bc_array, 8, regs + (p->reg_bc_array & 0x1f8));
	bpf_probe_read_kernel(&r->bc_offset, 8, regs + (p->reg_bc_offset & 0x1f8));
}

static __always_inline int v8_walk(void *ctx, const struct chain c)
{
	struct chain_slot *s = chain_slot(c);
	struct v8_walk w = {.stop = V8_STEP_NEXT};

	if (!s)
		return 0;
	w.p = bpf_map_lookup_elem(&pid_to_v8, &s->w.pid);
	if (!w.p) {
		/* V8's code is claimed but not described (Node was still starting when it
		 * was last described): ask the tracker for another look. */
		notice(RECORD_UNKNOWN_MAPPING, s->w.pid, s->w.regs.pc);
		return v8_cut(ctx, c, s, V8_CTR_NO_PROC, UNW_STEP_BAD_FRAME);
	}
	v8_count(V8_CTR_WALKS);
	w.s = s;
	w.regs.pc = s->w.regs.pc;
	w.regs.sp = s->w.regs.sp;
	w.regs.fp = s->w.regs.fp;
	v8_interp_regs(s, w.p, &w.regs);
	bpf_loop(V8_MAX_JS_FRAMES, v8_frame_cb, &w, 0);
	if (w.stop == V8_STEP_LEAVE) {
		/* Handed a pc it does not own: going back would bounce until the budget ends. */
		if (!w.frames)
			return v8_cut(ctx, c, s, V8_CTR_NO_PROGRESS, UNW_STEP_BAD_FRAME);
		s->w.regs.pc = w.regs.pc;
		s->w.regs.sp = w.regs.sp;
		s->w.regs.fp = w.regs.fp;
		s->w.regs.pc_exact = 0;
		return chain_next(ctx, c, s, WALKER_NATIVE);
	}
	if (w.stop == V8_STEP_END)
		return v8_cut(ctx, c, s, V8_CTR__COUNT, UNW_STEP_END);
	if (w.stop == V8_STEP_FAULT)
		return v8_cut(ctx, c, s, V8_CTR_FAULT, UNW_STEP_READ_FAULT);
	if (w.stop == V8_STEP_BAD)
		return v8_cut(ctx, c, s, V8_CTR_BAD, UNW_STEP_BAD_FRAME);
	return v8_cut(ctx, c, s, V8_CTR_FULL, UNW_STEP_BAD_FRAME);
}
EBPROF_WALKER(v8_walk)
