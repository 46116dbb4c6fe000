/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* One step of the Go walker across a cgo call: from the registers of a frame whose pc is
 * in runtime.asmcgocall, on the system stack (g0) where it called the C function, the
 * registers of its caller on the goroutine's stack (runtime.cgocall). Likewise for
 * runtime.systemstack, which runs a runtime function on g0 for the goroutine m.curg:
 * it leaves its SP on the goroutine's stack in curg.sched.sp (and no callback runs on
 * that goroutine meanwhile, to rewrite it), and returns by it. And runtime.morestack,
 * which leaves in curg.sched where the goroutine resumes once newstack has grown (and
 * moved) its stack: Go's own traceback goes on from there too. Pure logic, shared
 * by go.bpf.c and tests/unit/test_go_cgo.c; the includer supplies
 * GO_READ_USER(dst, size, addr): 0 when size bytes at addr were read.
 *
 * What asmcgocall leaves (asm_amd64.s, every release from 1.19 to 1.27): on the
 * goroutine's stack its frame is the return address, under the caller's BP when the
 * assembler gave it a frame pointer (1.21 on: go_proc.cgo_frame); it takes that SP,
 * switches to g0's stack, and before the call stores there the g it left and that g's
 * stack.hi minus the SP (a depth, not the SP: a callback may grow and move the
 * goroutine's stack meanwhile). It returns by the same two words, so they are exactly
 * what Go itself unwinds by; C keeps BP. Called on g0 already, it stores 0 for the g and
 * the SP itself. */
#ifndef EBPROF_GO_CGO_STEP_H
#define EBPROF_GO_CGO_STEP_H

#include "go_proc.h"
#include "unwind.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

enum go_cgo_step {
	GO_CGO_NEXT = 0, /* regs describe asmcgocall's caller */
	GO_CGO_LEAF,	 /* sampled in asmcgocall itself: its registers are mid-switch */
	GO_CGO_FAULT,	 /* a stack word could not be read */
	GO_CGO_BAD,	 /* the saved g or depth does not check out */
};

static __always_inline int go_cgo_read(__u64 addr, __u64 *v)
{
	return GO_READ_USER(v, sizeof(*v), addr);
}

/* asmcgocall's SP on the goroutine's stack, from its two words at sp (on g0's). */
static __always_inline int go_cgo_caller_sp(const struct go_proc *gp, __u64 sp, __u64 *orig)
{
	__u64 g = 0, depth = 0, lo = 0, hi = 0;

	if (go_cgo_read(sp + gp->cgo_g, &g) || go_cgo_read(sp + gp->cgo_depth, &depth))
		return GO_CGO_FAULT;
	if (!g) {
		/* Called on the system stack: the word is the SP, a few bytes above. */
		if (depth <= sp || depth - sp > GO_CGO_FRAME_MAX || (depth & 7))
			return GO_CGO_BAD;
		*orig = depth;
		return GO_CGO_NEXT;
	}
	if (go_cgo_read(g + GO_G_STACK_LO, &lo) || go_cgo_read(g + GO_G_STACK_HI, &hi))
		return GO_CGO_FAULT;
	/* A goroutine's stack, other than the one sp is on, holding the SP. */
	if (lo >= hi || hi - lo > GO_STACK_MAX || (sp >= lo && sp < hi) || !depth ||
	    depth > hi - lo || (depth & 7))
		return GO_CGO_BAD;
	*orig = hi - depth;
	return GO_CGO_NEXT;
}

/* systemstack's SP on the goroutine's stack: where gosave_systemstack_switch left it in
 * curg.sched, on curg's stack [lo, hi). */
static __always_inline int go_systemstack_caller_sp(__u64 curg, __u64 lo, __u64 hi, __u64 *orig)
{
	if (!curg)
		return GO_CGO_BAD;
	if (go_cgo_read(curg + GO_G_SCHED_SP, orig))
		return GO_CGO_FAULT;
	/* 0 once it has switched back; a stack that is one, holding it. */
	if (lo >= hi || hi - lo > GO_STACK_MAX || *orig < lo || *orig >= hi || (*orig & 7))
		return GO_CGO_BAD;
	return GO_CGO_NEXT;
}

/* morestack, on g0 in newstack: the goroutine goes on where curg.sched says, in the
 * function whose prologue called morestack (its frame not set up yet). */
static __always_inline int go_morestack_step(const struct go_proc *gp, __u64 curg, __u64 lo,
					     __u64 hi, struct unw_regs *r)
{
	__u64 sp = 0, pc = 0, fp = r->fp;

	if (!curg || (r->sp >= lo && r->sp < hi))
		return GO_CGO_BAD; /* on the goroutine's stack, morestack calls only abort */
	if (go_cgo_read(curg + GO_G_SCHED_SP, &sp) || go_cgo_read(curg + GO_G_SCHED_PC, &pc) ||
	    (gp->sched_bp && go_cgo_read(curg + gp->sched_bp, &fp)))
		return GO_CGO_FAULT;
	if (lo >= hi || hi - lo > GO_STACK_MAX || sp < lo || sp >= hi || (sp & 7) || !pc)
		return GO_CGO_BAD;
	r->pc = pc; /* a return address into that function, after its call of morestack */
	r->sp = sp;
	r->fp = fp;
	r->pc_exact = 0;
	return GO_CGO_NEXT;
}

/* One step from the frame at r of the switch kind (enum go_switch). curg is the thread's
 * current goroutine (m.curg, 0 when unknown): while r's SP is on its stack, asmcgocall
 * or systemstack has not switched yet (or has switched back: a return address from a
 * call of its own there), and r's SP is its own. */
static __always_inline int go_cgo_step(const struct go_proc *gp, __u64 curg, struct unw_regs *r,
				       int kind)
{
	__u64 lo = 0, hi = 0, orig = r->sp, ra = 0, fp = r->fp;
	int systemstack = kind == GO_SWITCH_SYSTEMSTACK;
	__u8 frame = systemstack ? gp->ss_frame : gp->cgo_frame;
	int err = 0;

	if (r->pc_exact)
		return GO_CGO_LEAF;
	if (curg &&
	    (go_cgo_read(curg + GO_G_STACK_LO, &lo) || go_cgo_read(curg + GO_G_STACK_HI, &hi)))
		return GO_CGO_FAULT;
	if (kind == GO_SWITCH_MORESTACK)
		return go_morestack_step(gp, curg, lo, hi, r);
	if (!curg || r->sp < lo || r->sp >= hi) {
		err = systemstack ? go_systemstack_caller_sp(curg, lo, hi, &orig)
				  : go_cgo_caller_sp(gp, r->sp, &orig);
		if (err)
			return err;
	}
	if (frame && go_cgo_read(orig, &fp))
		return GO_CGO_FAULT;
	orig += frame;
	if (go_cgo_read(orig, &ra))
		return GO_CGO_FAULT;
	r->pc = ra;
	r->sp = orig + 8;
	r->fp = fp;
	r->pc_exact = 0;
	return GO_CGO_NEXT;
}

#endif
