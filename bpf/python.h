/* SPDX-License-Identifier: GPL-2.0 */
/* The Python unwinder, called by the native unwinder for every frame: when the pc is in
 * CPython's eval loop, that native frame is replaced by the Python frames its activation
 * runs (code object and instruction index), innermost first, one per call, after which
 * native unwinding goes on from the eval loop's caller. Python and native frames thus
 * interleave in their true order. The includer defines read_user() and count(). */
#ifndef EBPROF_PYTHON_H
#define EBPROF_PYTHON_H

#include "python_proc.h"

/* CPython processes userspace has described (src/interp/python.c). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct py_proc);
} pid_to_python SEC(".maps");

/* tid -> its PyThreadState, so the thread list is searched once per thread, not per
 * sample; every hit is checked against the thread state's own id. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u64);
} python_threads SEC(".maps");

enum py_result {
	PY_NONE = 0, /* not a Python frame: unwind natively */
	PY_MORE,     /* a Python frame was written; more of this activation follow */
	PY_LAST,     /* a Python frame was written, the last one: step past the eval loop */
	PY_END,	     /* nothing written, the activation is over: step past the eval loop */
};

/* The walk's state in the native unwinder's context. Only scalars: it reaches
 * python_frame() as plain memory, where a map pointer would not survive. */
struct py_walk {
	__u64 eval_start[PY_EVAL_RANGES]; /* copied from the process's py_proc */
	__u64 eval_end[PY_EVAL_RANGES];
	__u64 cursor;	  /* the next frame to emit */
	__u64 thread_key; /* what tstate_id holds for the sampled thread */
	__u32 pid;
	__u32 tid;
	__u8 on;      /* a Python process */
	__u8 started; /* the thread's current frame was looked up */
	__u8 active;  /* inside an activation: its frames are being emitted */
	__u8 pad[5];
};

/* Fields of a frame read whole into buf: the index is masked so the verifier sees it
 * inside the array (variable-offset stack reads need a bounded, initialized range). */
static __always_inline __u64 py_word(const __u64 *buf, __u16 off)
{
	return buf[(off >> 3) & (PY_FRAME_READ / 8 - 1)];
}

static __always_inline __u32 py_u32(const __u64 *buf, __u16 off)
{
	return (__u32)(py_word(buf, off) >> ((off & 4) * 8));
}

static __always_inline __u8 py_u8(const __u64 *buf, __u16 off)
{
	return (__u8)(py_word(buf, off) >> ((off & 7) * 8));
}

/* Whether the native unwinder must call python_frame() for the frame at pc. Built with
 * EBPROF_NO_PYTHON (bench/python.sh only), never: the native unwinder's cost alone. */
static __always_inline int python_wants(const struct py_walk *w, __u64 pc)
{
#ifdef EBPROF_NO_PYTHON
	return 0;
#endif
	if (!w->on)
		return 0;
	return w->active || (pc >= w->eval_start[0] && pc < w->eval_end[0]) ||
	       (pc >= w->eval_start[1] && pc < w->eval_end[1]);
}

struct py_thread_search {
	__u64 tstate;
	__u64 key;
	__u16 next, id;
	__u64 found;
};

/* bpf_loop() callback: one PyThreadState of the interpreter's list. */
static long py_thread_step(__u32 i, void *arg)
{
	struct py_thread_search *s = arg;
	__u64 id = 0;

	if (!s->tstate || read_user(&id, sizeof(id), s->tstate + s->id))
		return 1;
	if (id == s->key) {
		s->found = s->tstate;
		return 1;
	}
	if (read_user(&s->tstate, sizeof(s->tstate), s->tstate + s->next))
		return 1;
	return 0;
}

/* Returns the sampled thread's PyThreadState, or 0 when it has none. */
static __always_inline __u64 py_thread_state(const struct py_proc *p, struct py_walk *w)
{
	const struct py_offsets *o = &p->off;
	__u32 tid = w->tid; /* a map key on the stack: see python_frame() */
	__u64 *cached = bpf_map_lookup_elem(&python_threads, &tid), interp = 0, id = 0;
	struct py_thread_search s = {
	    .key = w->thread_key, .next = o->tstate_next, .id = o->tstate_id};

	if (cached && !read_user(&id, sizeof(id), *cached + o->tstate_id) && id == w->thread_key)
		return *cached;
	if (read_user(&interp, sizeof(interp), p->runtime + o->interp_head) || !interp ||
	    read_user(&s.tstate, sizeof(s.tstate), interp + o->threads_head))
		return 0;
	bpf_loop(PY_MAX_THREADS, py_thread_step, &s, 0);
	if (s.found)
		bpf_map_update_elem(&python_threads, &tid, &s.found, BPF_ANY);
	return s.found;
}

/* Returns the innermost frame the sampled thread runs, or 0. */
static __always_inline __u64 py_current_frame(const struct py_proc *p, struct py_walk *w)
{
	const struct py_offsets *o = &p->off;
	__u64 tstate = py_thread_state(p, w), frame = 0;

	if (!tstate) {
		count(CTR_PY_NO_THREAD);
		return 0;
	}
	if (read_user(&frame, sizeof(frame), tstate + o->tstate_frame))
		return 0;
	if (o->cframe_frame != PY_NO_OFFSET && frame &&
	    read_user(&frame, sizeof(frame), frame + o->cframe_frame))
		return 0;
	return frame;
}

/* The instruction index (code units) the frame in buf runs. */
static __always_inline __u32 py_lasti(const struct py_proc *p, const __u64 *buf, __u64 code)
{
	const struct py_offsets *o = &p->off;
	__u64 first, instr;
	__s32 lasti;

	if (p->layout == PY_LAYOUT_FRAMEOBJ_LASTI_BYTES || p->layout == PY_LAYOUT_FRAMEOBJ) {
		lasti = (__s32)py_u32(buf, o->frame_instr);
		if (lasti < 0) /* -1 before the first instruction */
			return 0;
		return p->layout == PY_LAYOUT_FRAMEOBJ ? lasti : lasti / 2;
	}
	first = code + o->code_first;
	instr = py_word(buf, o->frame_instr);
	/* prev_instr sits one unit before the first before the frame starts. */
	return instr > first ? (__u32)((instr - first) / 2) : 0;
}

/* Writes the frame at the cursor into f and moves the cursor to its caller. */
static __always_inline int py_emit(const struct py_proc *p, struct py_walk *w, struct user_frame *f)
{
	const struct py_offsets *o = &p->off;
	__u64 buf[PY_FRAME_READ / 8], code;
	__u32 lineno = 0;

	if (!w->cursor)
		return PY_END;
	if (read_user(buf, sizeof(buf), w->cursor)) {
		count(CTR_PY_READ_FAULT);
		w->cursor = 0;
		return PY_END;
	}
	w->cursor = py_word(buf, o->frame_back);
	if (p->layout == PY_LAYOUT_IFRAME_SHIM && py_u8(buf, o->frame_owner) == PY_OWNED_BY_CSTACK)
		return PY_END;
	code = py_word(buf, o->frame_code);
	read_user(&lineno, sizeof(lineno), code + o->code_lineno);
	f->addr = (code & PY_ADDR_MASK) | (__u64)(lineno & 0xffff) << PY_TAG_SHIFT;
	f->file_id = PY_FILE_ID;
	f->pad = py_lasti(p, buf, code);
	if (p->layout == PY_LAYOUT_FRAMEOBJ_LASTI_BYTES || p->layout == PY_LAYOUT_FRAMEOBJ)
		return PY_LAST; /* one frame object per activation */
	if (p->layout == PY_LAYOUT_IFRAME_ENTRY && py_u8(buf, o->frame_entry))
		return PY_LAST;
	return PY_MORE;
}

/* The hook of the native unwinder, for a frame python_wants(): fills the slot f for the
 * frame at pc and returns an enum py_result. A global function, so the verifier checks
 * it once on its own instead of once for every path of the unwinder that reaches it. */
__noinline int python_frame(struct py_walk *w, struct user_frame *f, __u64 pc)
{
	const struct py_proc *p;
	__u32 pid;
	int ret;

	/* Arguments of a global function may be NULL as far as the verifier knows. */
	if (!w || !f)
		return PY_NONE;
	/* Map keys are copied to the stack: w is the plain memory (PTR_TO_MEM) a global
	 * function's argument is, which 6.1's verifier refuses as a key ("R2 type=mem
	 * expected=fp, pkt, pkt_meta, map_key, map_value"); later kernels accept it. */
	pid = w->pid;
	p = bpf_map_lookup_elem(&pid_to_python, &pid);
	if (!p) {
		w->on = 0;
		return PY_NONE;
	}
	if (w->active) {
		ret = py_emit(p, w, f);
		w->active = ret == PY_MORE;
		return ret;
	}
	if (!w->started) {
		w->started = 1;
		w->cursor = py_current_frame(p, w);
	}
	ret = py_emit(p, w, f);
	/* No frame for this activation (its prologue or epilogue, or no thread state):
	 * keep the eval loop as a native frame. */
	if (ret == PY_END)
		return PY_NONE;
	w->active = ret == PY_MORE;
	return ret;
}

/* Sets up the walk for the sampled process; task is the current task. */
static __always_inline void python_start(struct py_walk *w, __u32 pid, __u32 tid,
					 struct task_struct *task)
{
	const struct py_proc *p = bpf_map_lookup_elem(&pid_to_python, &pid);

	w->pid = pid;
	w->tid = tid;
	if (!p)
		return;
	w->on = 1;
	w->thread_key = p->tid_is_fsbase ? BPF_CORE_READ(task, thread.fsbase) : tid;
	for (int i = 0; i < PY_EVAL_RANGES; i++) {
		w->eval_start[i] = p->eval_start[i];
		w->eval_end[i] = p->eval_end[i];
	}
}

#endif
