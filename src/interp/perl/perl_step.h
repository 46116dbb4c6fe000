/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* One step of the Perl walker over a thread's context stack, and the rule that splits
 * its frames into one group per runops activation. Pure logic, compiled into the BPF
 * walker and into tests/unit/test_perl_step.c; the includer supplies
 * PL_READ_USER(dst, size, addr) (0 when size bytes at addr were read) and PL_COUNT(id).
 *
 * Perl runs every Perl-to-Perl call in the runops loop it is in: a sub call pushes a
 * context (CXt_SUB) on the current stack info's context stack and goes on in the same
 * loop. A new runops activation begins only where C calls back into Perl, and each such
 * entry leaves a mark on the contexts:
 *  - a sub or eval context whose retop is NULL (call_sv, eval_sv, amagic_call, tie and
 *    signal handlers, MULTICALL as List::Util uses it, sort with a named sub): its
 *    frame is the first of its activation;
 *  - sort's bare block (CXt_NULL), run by S_sortcv in a runops of its own;
 *  - an eval, require or try entered while the JMPENV in effect has je_mustcatch set
 *    (the code was called from C without G_EVAL): S_docatch pushes a JMPENV of its own
 *    and runs everything from there to the end of that C entry's code in a nested
 *    runops. No context marks it once the eval is over; the JMPENV chain does.
 * Those callers push a new stack info first more often than not (PUSHSTACKi): a stack
 * info whose contexts are exhausted continues with its outer one, si_prev, never the
 * cached newer one (si_next). The outermost stack info's bottom is the main program. */
#ifndef EBPROF_PERL_STEP_H
#define EBPROF_PERL_STEP_H

#include "perl_proc.h"
#include "sample.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* A context is read into 16 words (PL_CX_READ bytes of them): fields are found by a
 * masked index, which the verifier bounds, the words past the read zeroed so every
 * word it may reach is initialized. */
#define PL_CX_WORDS 16
#define PL_SI_WORDS 8
_Static_assert(PL_SI_WORDS <= PL_CX_WORDS, "a context's buffer holds a stack info's");

enum pl_walk_flag {
	PL_W_IN_GROUP = 1,  /* the current group has a frame */
	PL_W_SPAN_EVAL = 2, /* an eval entered from Perl lies in the current C entry's span */
	PL_W_INNERMOST = 4, /* the next context is the current stack info's innermost */
	PL_W_IDLE = 8,	    /* PL_op is NULL: a runops loop just ended, C code runs */
	PL_W_SORT_SI = 16,  /* the stack info being walked is sort's (PERLSI_SORT) */
};

/* Where the walk is: kept across steps (and, without bpf_loop, across tail calls). */
struct pl_cursor {
	__u64 si;      /* the stack info being walked */
	__u64 cxstack; /* its contexts */
	__u64 cop;     /* the statement of the next frame */
	__u64 env;     /* the JMPENV in effect in the C entry's span being walked */
	__s32 ix;      /* the next context; < 0: the stack info is exhausted */
	__u16 pending; /* 1 + the frame of a sort block still without its sub; 0: none */
	__u8 groups;   /* activations still without their group */
	__u8 flags;    /* enum pl_walk_flag */
};

/* The cursor is the caller's: on the stack with bpf_loop, in map memory without it (the
 * walk goes on across tail calls), so the step's stack holds no copy of it. */
struct pl_walk {
	struct sample_record *r;
	const struct pl_proc *p;
	struct pl_cursor *c;
};

/* A field of a context read whole into cx: the index is bounded for the verifier
 * (variable-offset stack reads need an initialized, bounded range). */
static __always_inline __u64 pl_word(const __u64 *cx, __u16 off)
{
	return cx[(off >> 3) & (PL_CX_WORDS - 1)];
}

static __always_inline __u64 pl_read_u64(__u64 addr)
{
	__u64 v = 0;

	if (PL_READ_USER(&v, sizeof(v), addr))
		return 0;
	return v;
}

static __always_inline int pl_read_cx(const struct pl_walk *w, __s32 ix, __u64 *cx)
{
	__u64 at = w->c->cxstack + (__u64)(__u32)ix * w->p->off.cx_size;

	for (int i = PL_CX_READ / 8; i < PL_CX_WORDS; i++)
		cx[i] = 0;
	return PL_READ_USER(cx, PL_CX_READ, at);
}

/* A pointer the frame can carry: 8-byte aligned, a user address; else 0 (unnamed). */
static __always_inline __u64 pl_pointer(__u64 v)
{
	if ((v & 7) || v >= PL_USER_LIMIT) {
		PL_COUNT(PL_CTR_BAD_POINTER);
		return 0;
	}
	return v;
}

/* Appends a frame (or an empty group's marker); false when the record is full. */
static __always_inline int pl_append(struct pl_walk *w, __u64 addr, __u32 pad)
{
	struct sample_record *r = w->r;
	__u32 n = r->ustack_len;
	struct user_frame *f;

	if (n >= UNW_MAX_FRAMES)
		return 0;
	/* The mask restates the bound for the verifier. */
	f = &r->ustack[n & (UNW_MAX_FRAMES - 1)];
	f->addr = addr;
	f->file_id = UF_RUNTIME_FILE(WALKER_PERL);
	f->pad = pad;
	r->ustack_len = n + 1;
	return 1;
}

/* Ends the current group: its last frame is marked, or an activation that ran none of
 * the frames gets an empty group (it keeps its native frame). False when full. */
static __always_inline int pl_end_group(struct pl_walk *w)
{
	struct sample_record *r = w->r;
	__u32 last = r->ustack_len - 1;

	if (!w->c->groups)
		return 1;
	w->c->groups--;
	if (!(w->c->flags & PL_W_IN_GROUP))
		return pl_append(w, 0, UF_GROUP_END | UF_GROUP_EMPTY);
	w->c->flags &= ~PL_W_IN_GROUP;
	r->ustack[last & (UNW_MAX_FRAMES - 1)].pad |= UF_GROUP_END;
	return 1;
}

/* The walk stops here (a fault, no more steps): a group begun is ended, so the frames
 * found still land on their activation. Returns 1 (stop). */
static __always_inline long pl_stop(struct pl_walk *w)
{
	if (w->c->flags & PL_W_IN_GROUP)
		pl_end_group(w);
	return 1;
}

/* Appends the frame of cv (0: the main program, or a sort block until its sub is
 * found) at the cursor's statement. A sort block's frame is named after the sub whose
 * code it is: the next CV outwards, patched in when found. False when full. */
static __always_inline int pl_emit(struct pl_walk *w, __u64 cv, int block)
{
	struct pl_cursor *c = w->c;
	__u64 cop = pl_pointer(c->cop);
	__u32 n = w->r->ustack_len;

	cv = pl_pointer(cv);
	if (cv && c->pending) {
		w->r->ustack[(c->pending - 1) & (UNW_MAX_FRAMES - 1)].addr |= cv >> 3;
		c->pending = 0;
	}
	if (!pl_append(w, pl_frame_addr(cv, cop), pl_frame_pad(cop)))
		return 0;
	if (block)
		c->pending = (__u16)(n + 1);
	c->flags |= PL_W_IN_GROUP;
	return 1;
}

/* Whether the context just outside the innermost one left is an eval block entered
 * from C (retop NULL): call_sv() with G_EVAL pushed it, then a JMPENV of its own, then
 * the sub. The span's JMPENV is then the one before the call, which it recorded. */
static __always_inline int pl_called_with_eval(struct pl_walk *w, __u64 *cx)
{
	const struct pl_offsets *o = &w->p->off;
	__u8 type;

	if (w->c->ix < 0 || pl_read_cx(w, w->c->ix, cx))
		return 0;
	type = (__u8)cx[0];
	if ((type & PL_CXTYPEMASK) != PL_CXt_EVAL || !(type & PL_CXp_EVALBLOCK) ||
	    pl_word(cx, o->cx_retop))
		return 0;
	w->c->env = pl_word(cx, o->cx_eval_env);
	return 1;
}

/* Whether the JMPENV in effect has je_mustcatch set (an unreadable one counts as set:
 * nothing is assumed of it). */
static __always_inline int pl_must_catch(const struct pl_walk *w)
{
	__u8 catch = 0;

	if (!w->c->env || PL_READ_USER(&catch, sizeof(catch), w->c->env + w->p->off.env_catch))
		return 1;
	return catch != 0;
}

/* The frame just appended was entered from C: its activation's group ends. The C entry
 * may have run in two activations (S_docatch, see above): then the outer one, which runs
 * none of the frames, gets an empty group. cx: a buffer it may overwrite. */
static __always_inline long pl_entered_from_c(struct pl_walk *w, __u8 type, __u64 *cx)
{
	const struct pl_offsets *o = &w->p->off;
	struct pl_cursor *c = w->c;
	int evals = c->flags & PL_W_SPAN_EVAL;

	c->flags &= ~PL_W_SPAN_EVAL;
	if (!pl_end_group(w))
		return 1;
	/* eval_sv(): its JMPENV was pushed before the eval, which recorded it. */
	if ((type & PL_CXTYPEMASK) == PL_CXt_EVAL) {
		c->env = pl_read_u64(c->env + o->env_prev);
		return 0;
	}
	if (pl_called_with_eval(w, cx))
		return 0;
	/* Entered with je_mustcatch set, no eval since: one activation. Else the first eval
	 * entered ran the rest in a nested runops on a JMPENV of its own (je_mustcatch clear
	 * unless a call from C runs inside it now: see README.md's limits). */
	if (!evals && pl_must_catch(w))
		return 0;
	if (!pl_end_group(w))
		return 1;
	c->env = pl_read_u64(c->env + o->env_prev);
	return 0;
}

/* A frame's context: cv's frame at the cursor's statement; the next frame out is at
 * the statement that pushed this one. cx is the context, read whole (then reused). */
static __always_inline long pl_frame_context(struct pl_walk *w, __u64 *cx, __u64 cv, __u8 type)
{
	const struct pl_offsets *o = &w->p->off;
	int from_c = (type & PL_CXTYPEMASK) == PL_CXt_NULL || !pl_word(cx, o->cx_retop);

	if (!pl_emit(w, cv, (type & PL_CXTYPEMASK) == PL_CXt_NULL))
		return pl_stop(w);
	w->c->cop = pl_word(cx, o->cx_oldcop);
	return from_c ? pl_entered_from_c(w, type, cx) : 0;
}

/* Whether cv is C code (an XSUB): sort runs an XS comparator with a context but no
 * runops. */
static __always_inline int pl_is_xsub(const struct pl_walk *w, __u64 cv)
{
	__u64 body = pl_read_u64(cv);
	__u32 flags = 0;

	if (!body || PL_READ_USER(&flags, sizeof(flags), body + w->p->off.cv_flags))
		return 0;
	return (flags & PL_CVf_ISXSUB) != 0;
}

/* A sub (or format) context. first: the cursor's flags before this context. */
static __always_inline long pl_sub(struct pl_walk *w, __u64 *cx, __u8 type, __u8 first)
{
	const struct pl_offsets *o = &w->p->off;
	__u64 cv = pl_word(cx, o->cx_sub_cv), oldcop = pl_word(cx, o->cx_oldcop);

	if (type & PL_CXp_MULTICALL) {
		/* Between two calls of a MULTICALL or sort sub (the loop ended, PL_op is
		 * NULL): its context stays, it runs nothing. An XS sort sub never runs in
		 * a runops loop. Either way the caller is at the statement that pushed it. */
		if ((first & (PL_W_INNERMOST | PL_W_IDLE)) == (PL_W_INNERMOST | PL_W_IDLE) ||
		    pl_is_xsub(w, cv)) {
			w->c->cop = oldcop;
			return 0;
		}
	}
	return pl_frame_context(w, cx, cv, type);
}

/* An eval context: eval {} and try {} are no frames; eval '', require and do FILE are. */
static __always_inline long pl_eval(struct pl_walk *w, __u64 *cx, __u8 type)
{
	const struct pl_offsets *o = &w->p->off;

	w->c->env = pl_word(cx, o->cx_eval_env);
	if (pl_word(cx, o->cx_retop))
		w->c->flags |= PL_W_SPAN_EVAL;
	if (type & PL_CXp_EVALBLOCK)
		return 0;
	return pl_frame_context(w, cx, pl_word(cx, o->cx_eval_cv), type);
}

/* Moves the cursor to stack info si: its contexts from the innermost. head: a buffer of
 * PL_SI_WORDS words it may overwrite. False when the stack info cannot be read. */
static __always_inline int pl_enter_si(struct pl_walk *w, __u64 si, __u64 *head)
{
	const struct pl_offsets *o = &w->p->off;

	for (int i = PL_SI_READ / 8; i < PL_SI_WORDS; i++)
		head[i] = 0;
	if (PL_READ_USER(head, PL_SI_READ, si)) {
		PL_COUNT(PL_CTR_READ_FAULT);
		return 0;
	}
	w->c->si = si;
	w->c->cxstack = head[(o->si_cxstack >> 3) & (PL_SI_WORDS - 1)];
	/* si_cxix is an I32: -1 when the stack info holds no context. */
	w->c->ix =
	    (__s32)(__u32)(head[(o->si_cxix >> 3) & (PL_SI_WORDS - 1)] >> ((o->si_cxix & 4) * 8));
	w->c->flags &= ~(PL_W_INNERMOST | PL_W_IDLE | PL_W_SORT_SI);
	if ((__u32)(head[(o->si_type >> 3) & (PL_SI_WORDS - 1)] >> ((o->si_type & 4) * 8)) ==
	    PL_SI_SORT)
		w->c->flags |= PL_W_SORT_SI;
	return 1;
}

/* The stack info is exhausted: on to its outer one, or the main program at the bottom.
 * buf: a buffer of PL_SI_WORDS words it may overwrite. */
static __always_inline long pl_outer(struct pl_walk *w, __u64 *buf)
{
	__u64 si = 0;

	if (PL_READ_USER(&si, sizeof(si), w->c->si + w->p->off.si_prev)) {
		PL_COUNT(PL_CTR_READ_FAULT);
		return pl_stop(w);
	}
	if (!si) {
		if (!pl_emit(w, 0, 0))
			return pl_stop(w);
		pl_end_group(w);
		return 1;
	}
	return pl_enter_si(w, si, buf) ? 0 : pl_stop(w);
}

/* One context, or one stack info's end. Returns 1 when the walk is over. */
static __always_inline long pl_step(struct pl_walk *w)
{
	struct pl_cursor *c = w->c;
	__u64 cx[PL_CX_WORDS];
	__u8 first = c->flags, type;

	if (!c->groups)
		return 1;
	if (c->ix < 0)
		return pl_outer(w, cx);
	if (pl_read_cx(w, c->ix, cx)) {
		PL_COUNT(PL_CTR_READ_FAULT);
		return pl_stop(w);
	}
	c->ix--;
	c->flags &= ~(PL_W_INNERMOST | PL_W_IDLE);
	type = (__u8)cx[0];
	/* The innermost sub or eval has run no statement: it is being pushed (its other
	 * fields may still be an older context's) or has not started. Costs the top frame
	 * at most; the frame outside it is at the current statement. A MULTICALL's
	 * context stays between its calls: its own test is below. */
	if ((first & PL_W_INNERMOST) && pl_word(cx, w->p->off.cx_oldcop) == c->cop &&
	    !(type & PL_CXp_MULTICALL) && (type & PL_CXTYPEMASK) >= PL_CXt_SUB)
		return 0;
	switch (type & PL_CXTYPEMASK) {
	case PL_CXt_SUB:
	case PL_CXt_FORMAT:
		return pl_sub(w, cx, type, first);
	case PL_CXt_EVAL:
		return pl_eval(w, cx, type);
	case PL_CXt_NULL:
		/* pp_sort pushes its bare block first on a stack info of its own; anything
		 * else is a context being pushed (its type not written yet: the slot's old
		 * or fresh bytes) and no frame. */
		if (!(c->flags & PL_W_SORT_SI) || c->ix != -1)
			return 0;
		/* sort's bare block between two comparisons: it runs nothing. */
		if (first & PL_W_IDLE) {
			c->cop = pl_word(cx, w->p->off.cx_oldcop);
			return 0;
		}
		return pl_frame_context(w, cx, 0, type);
	}
	return 0; /* loops, bare blocks, substitutions: no frame */
}

/* Sets the walk up from the thread's interpreter: its current statement, stack info and
 * JMPENV. False when it has none to walk (counted). */
static __always_inline int pl_begin(struct pl_walk *w, __u64 interp, __u8 groups)
{
	const struct pl_offsets *o = &w->p->off;
	struct pl_cursor *c = w->c;
	__u64 op, si, head[PL_SI_WORDS];

	__builtin_memset(c, 0, sizeof(*c));
	si = interp ? pl_read_u64(interp + o->curstackinfo) : 0;
	if (!si) {
		PL_COUNT(PL_CTR_NO_INTERP);
		return 0;
	}
	op = pl_read_u64(interp + o->op);
	c->cop = pl_read_u64(interp + o->curcop);
	c->env = pl_read_u64(interp + o->top_env);
	c->groups = groups;
	if (!pl_enter_si(w, si, head))
		return 0;
	c->flags |= PL_W_INNERMOST | (op ? 0 : PL_W_IDLE);
	return 1;
}

#endif
