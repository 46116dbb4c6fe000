// SPDX-License-Identifier: GPL-2.0
/* The Perl walker, a deferred runtime of the chain (bpf/chain.h): the native walker
 * flagged each runops activation it met (Perl_runops_standard, Perl_runops_debug); this
 * walker, run once afterwards, walks the sampled thread's context stacks from its
 * interpreter, innermost first, and appends one group of frames (CV, COP) per activation
 * by the rule of perl_step.h. Ingest splices group k in place of the k-th flagged runops
 * frame, so Perl subs and the C between them (XS, sort, the regex engine) interleave in
 * their true order. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "arch/arch.h"
#include "chain.bpf.h"
#include "perl_proc.h"

char LICENSE[] SEC("license") = "GPL";

/* perl processes userspace has described (src/interp/perl/perl.c). */
CHAIN_PROCS(pid_to_perl, struct pl_proc);

/* What this walker could not do, per CPU (enum pl_counter, printed by perl.c). */
CHAIN_COUNTERS(perl_counters, pl_count, PL_CTR__COUNT);

#define PL_READ_USER(dst, size, addr) read_user(dst, size, addr)
#define PL_COUNT(id) pl_count(id)
#include "perl_step.h"

/* The sampled thread's interpreter: PL_current_context in its TLS block where the
 * build has one (from the thread pointer: bpf/arch/), else the main interpreter (only the
 * main thread runs it: pl_start asks). 0 when there is none. */
static __always_inline __u64 pl_interp(const struct pl_proc *p)
{
	/* bpf_get_current_task(), not its BTF flavour (5.11): the same read on 5.10. */
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 interp = 0;

	if (p->tls)
		read_user(&interp, sizeof(interp), ARCH_TASK_TP(task) + p->tls);
	else
		read_user(&interp, sizeof(interp), p->curinterp);
	return interp;
}

/* The process's description, or NULL: a runops range is claimed before the process
 * can be described (the interpreter not built yet, its TLS slot not relocated): ask
 * the tracker for another look, as an unknown mapping does. */
static __always_inline const struct pl_proc *pl_described(struct chain_slot *s)
{
	const struct pl_proc *p = bpf_map_lookup_elem(&pid_to_perl, &s->w.pid);

	if (!p)
		notice(RECORD_UNKNOWN_MAPPING, s->w.pid, s->w.regs.pc);
	return p;
}

/* The walk's state, in walk_state.rt (zero when the walker first runs) and
 * walk_state.deferred (free once the in-order walk is over): its progress, the process's
 * description and the cursor, where the step, a global function, finds them. */
struct pl_progress {
	__u32 started;
	__u32 steps;
};

struct pl_resume {
	struct pl_proc p;
	struct pl_cursor c;
};

/* One step of the walk: its state is the description and the cursor in deferred, which
 * pl_step moves on in place; its progress (rt) is the unrolled walker's alone. */
static __always_inline long pl_step_resumed(struct chain_slot *s, struct pl_progress *pg,
					    struct pl_resume *rs)
{
	struct pl_walk w = {.r = &s->r, .p = &rs->p, .c = &rs->c};

	return pl_step(&w);
}

/* One step of the walk of scratch slot slot, a global function (bpf/chain.bpf.h): with
 * bpf_loop too, where a step inlined in the loop's callback was checked once per path
 * into it (34 k instructions against 4.7 k for the whole walker this way). */
CHAIN_FRAME(pl_frame, pl_step_resumed, struct pl_progress, struct pl_resume, deferred)

/* The walk's first part: the description copied where pl_frame finds it, the cursor
 * set up. False when there is nothing to walk. */
static __always_inline int pl_start(struct chain_slot *s)
{
	struct pl_resume *rs = (struct pl_resume *)s->w.deferred;
	const struct pl_proc *p = pl_described(s);
	struct pl_walk w = {.r = &s->r, .p = &rs->p, .c = &rs->c};

	if (!p)
		return 0;
	if (!p->tls && s->w.tid != s->w.pid) {
		pl_count(PL_CTR_OTHER_THREAD);
		return 0;
	}
	__builtin_memcpy(&rs->p, p, sizeof(*p));
	return pl_begin(&w, pl_interp(p), s->w.acts[WALKER_PERL]);
}

/* After the walk: what was left is counted, a group begun is ended. */
static __always_inline void pl_finish(struct chain_slot *s, int out_of_steps)
{
	struct pl_resume *rs = (struct pl_resume *)s->w.deferred;
	struct pl_walk w = {.r = &s->r, .p = &rs->p, .c = &rs->c};

	if (!rs->c.groups)
		return;
	if (s->r.ustack_len >= UNW_MAX_FRAMES)
		count(CTR_RUNTIME_CUT);
	else if (out_of_steps)
		pl_count(PL_CTR_TOO_DEEP);
	pl_stop(&w);
}

static long pl_loop(__u32 i, void *arg)
{
	/* A global function's int is any int to the verifier: a callback returns 0 or 1. */
	return pl_frame(*(__u32 *)arg) ? 1 : 0;
}

static __always_inline int perl_walk(void *ctx, const struct chain c)
{
	struct chain_slot *s = chain_slot(c);
	__u32 slot = c.slot;
	long steps;

	if (!s)
		return 0;
	if (s->w.acts[WALKER_PERL] && pl_start(s)) {
		steps = bpf_loop(PL_MAX_STEPS, pl_loop, &slot, 0);
		pl_finish(s, steps >= PL_MAX_STEPS);
	}
	return chain_done(ctx, c, s, WALKER_PERL);
}
EBPROF_WALKER(perl_walk)

/* Steps per program of the walker without bpf_loop: with the native walker's 8
 * programs, 8 of these stay within the tail-call budget for PL_MAX_STEPS steps. */
#define PL_STEPS_PER_CALL 32

/* The Perl walker for kernels without bpf_loop (before 5.17): PL_STEPS_PER_CALL calls
 * of pl_frame, then a tail call to itself while steps and activations remain. */
static __always_inline int perl_walk_unrolled(void *ctx, const struct chain c)
{
	struct chain_slot *s = chain_slot(c);
	struct pl_progress *pg;
	int stop = 0;

	if (!s)
		return 0;
	pg = (struct pl_progress *)s->w.rt;
	if (!pg->started) {
		if (!s->w.acts[WALKER_PERL] || !pl_start(s))
			goto done;
		pg->started = 1;
	}
	for (__u32 i = 0; i < PL_STEPS_PER_CALL && !stop; i++)
		stop = pl_frame(c.slot);
	pg->steps += PL_STEPS_PER_CALL;
	if (!stop && pg->steps < PL_MAX_STEPS)
		return chain_next(ctx, c, s, WALKER_PERL);
	pl_finish(s, !stop);
done:
	chain_resume_clear(s);
	return chain_done(ctx, c, s, WALKER_PERL);
}
EBPROF_WALKER(perl_walk_unrolled)
