// SPDX-License-Identifier: GPL-2.0
/* The CPython walker, a deferred runtime of the chain (bpf/chain.h): the native walker
 * flagged each activation of the eval loop it met; this walker, run once afterwards,
 * walks the sampled thread's Python frames (code object and instruction index) from its
 * thread state, innermost first, and appends one group of frames per activation. Ingest
 * splices group k in place of the k-th flagged eval-loop frame, so Python and native
 * frames interleave in their true order. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "arch/arch.h"
#include "chain.bpf.h"
#include "python_proc.h"

char LICENSE[] SEC("license") = "GPL";

/* CPython processes userspace has described (python.c). */
CHAIN_PROCS(pid_to_python, struct py_proc);

/* tid -> its PyThreadState, so the thread list is searched once per thread, not per
 * sample; every hit is checked against the thread state's own id. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u64);
} python_threads SEC(".maps");

/* What this walker could not do, per CPU (enum py_counter, printed by python.c). */
CHAIN_COUNTERS(python_counters, py_count, PY_CTR__COUNT);

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

struct py_thread_search {
	__u64 tstate;
	__u64 key;
	__u16 next, id;
	__u64 found;
};

/* bpf_loop() callback (or an unrolled loop's body): one PyThreadState of the list. */
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

/* Returns the sampled thread's PyThreadState, or 0 when it has none. key is what
 * tstate_id holds for that thread. unrolled (a constant): without bpf_loop (< 5.17). */
static __always_inline __u64 py_thread_state(const struct py_proc *p, __u32 tid, __u64 key,
					     int unrolled)
{
	const struct py_offsets *o = &p->off;
	__u64 *cached = bpf_map_lookup_elem(&python_threads, &tid), interp = 0, id = 0;
	struct py_thread_search s = {.key = key, .next = o->tstate_next, .id = o->tstate_id};

	if (cached && !read_user(&id, sizeof(id), *cached + o->tstate_id) && id == key)
		return *cached;
	if (read_user(&interp, sizeof(interp), p->runtime + o->interp_head) || !interp ||
	    read_user(&s.tstate, sizeof(s.tstate), interp + o->threads_head))
		return 0;
	if (unrolled) {
#pragma unroll
		for (__u32 i = 0; i < PY_MAX_THREADS_UNROLLED; i++) {
			if (py_thread_step(i, &s))
				break;
		}
	} else {
		bpf_loop(PY_MAX_THREADS, py_thread_step, &s, 0);
	}
	if (s.found)
		bpf_map_update_elem(&python_threads, &tid, &s.found, BPF_ANY);
	return s.found;
}

/* Returns the innermost frame the sampled thread runs, or 0. */
static __always_inline __u64 py_current_frame(const struct py_proc *p, __u32 tid, int unrolled)
{
	const struct py_offsets *o = &p->off;
	/* bpf_get_current_task(), not its BTF flavour (5.11): the same read on 5.10. */
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 key = p->tid_is_fsbase ? ARCH_TASK_TP(task) : tid;
	__u64 tstate = py_thread_state(p, tid, key, unrolled), frame = 0;

	if (!tstate) {
		py_count(PY_CTR_NO_THREAD);
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

/* The walk's loop state, read by the callback through its context. */
struct py_walk {
	struct chain_slot *s;
	const struct py_proc *p;
	__u64 cursor;	/* the next frame to read */
	__u32 groups;	/* activations still without their group */
	__u32 in_group; /* frames written in the current group */
};

/* Appends a frame (or, with file_id's data 0 and UF_GROUP_EMPTY, an empty group's
 * marker) to the record; false when the record is full. */
static __always_inline bool py_append(struct py_walk *pw, __u64 addr, __u32 pad)
{
	struct sample_record *r = &pw->s->r;
	__u32 n = r->ustack_len;
	struct user_frame *f;

	if (n >= UNW_MAX_FRAMES)
		return false;
	/* The mask restates the bound for the verifier. */
	f = &r->ustack[n & (UNW_MAX_FRAMES - 1)];
	f->addr = addr;
	f->file_id = UF_RUNTIME_FILE(WALKER_PYTHON);
	f->pad = pad;
	r->ustack_len = n + 1;
	return true;
}

/* Ends the current group; an activation whose frames were none gets an empty marker. */
static __always_inline bool py_end_group(struct py_walk *pw)
{
	struct sample_record *r = &pw->s->r;
	__u32 last = r->ustack_len - 1;

	pw->groups--;
	if (!pw->in_group)
		return py_append(pw, 0, UF_GROUP_END | UF_GROUP_EMPTY);
	pw->in_group = 0;
	r->ustack[last & (UNW_MAX_FRAMES - 1)].pad |= UF_GROUP_END;
	return true;
}

/* bpf_loop() callback: reads the frame at the cursor, appends it, and ends its group
 * at an activation's first frame (3.9/3.10: every frame; 3.11: is_entry; 3.12+: the
 * shim frame the C stack owns, which is not a frame of its own). */
static long py_step(__u32 i, void *arg)
{
	struct py_walk *pw = arg;
	const struct py_proc *p = pw->p;
	const struct py_offsets *o = &p->off;
	__u64 buf[PY_FRAME_READ / 8], code;
	__u32 lineno = 0;
	bool entry;

	if (!pw->cursor || !pw->groups)
		return 1;
	if (read_user(buf, sizeof(buf), pw->cursor)) {
		py_count(PY_CTR_READ_FAULT);
		return 1;
	}
	pw->cursor = py_word(buf, o->frame_back);
	if (p->layout == PY_LAYOUT_IFRAME_SHIM && py_u8(buf, o->frame_owner) == PY_OWNED_BY_CSTACK)
		return py_end_group(pw) ? 0 : 1;
	code = py_word(buf, o->frame_code);
	read_user(&lineno, sizeof(lineno), code + o->code_lineno);
	if (!py_append(pw, (code & PY_ADDR_MASK) | (__u64)(lineno & 0xffff) << PY_TAG_SHIFT,
		       py_lasti(p, buf, code) & UF_DATA_MASK))
		return 1;
	pw->in_group++;
	entry = p->layout == PY_LAYOUT_FRAMEOBJ_LASTI_BYTES || p->layout == PY_LAYOUT_FRAMEOBJ ||
		(p->layout == PY_LAYOUT_IFRAME_ENTRY && py_u8(buf, o->frame_entry));
	if (entry && !py_end_group(pw))
		return 1;
	return 0;
}

static __always_inline int python_walk(void *ctx, const struct chain c)
{
	struct chain_slot *s = chain_slot(c);
	struct py_walk pw = {};

	if (!s)
		return 0;
	pw.s = s;
	pw.p = bpf_map_lookup_elem(&pid_to_python, &s->w.pid);
	pw.groups = s->w.acts[WALKER_PYTHON];
	if (pw.p && pw.groups) {
		pw.cursor = py_current_frame(pw.p, s->w.tid, 0);
		bpf_loop(UNW_MAX_FRAMES, py_step, &pw, 0);
		/* Frames that did not fit: those activations keep their native frame. */
		if (pw.groups && pw.cursor && s->r.ustack_len >= UNW_MAX_FRAMES)
			count(CTR_RUNTIME_CUT);
	}
	return chain_done(ctx, c, s, WALKER_PYTHON);
}
EBPROF_WALKER(python_walk)

/* Frames per program of the walker without bpf_loop: with the native walker's 8
 * programs, 8 of these stay within the tail-call budget for UNW_MAX_FRAMES frames. */
#define PY_FRAMES_PER_CALL 32

/* The walk across the walker's own tail calls (walk_state.rt). */
struct py_resume {
	__u64 cursor;
	__u32 groups;
	__u32 in_group;
	__u32 started;
};

/* py_step resumed from the walk state: the loop's state in from rs, one frame, back out. */
static __always_inline long py_step_resumed(struct chain_slot *s, struct py_resume *rs,
					    const struct py_proc *p)
{
	struct py_walk pw = {.s = s, .p = p};
	long stop;

	pw.cursor = rs->cursor;
	pw.groups = rs->groups;
	pw.in_group = rs->in_group;
	stop = py_step(0, &pw);
	rs->cursor = pw.cursor;
	rs->groups = pw.groups;
	rs->in_group = pw.in_group;
	return stop;
}

/* One Python frame without bpf_loop (bpf/chain.bpf.h): py_resume in rt, the py_proc in
 * deferred. */
CHAIN_FRAME(py_frame, py_step_resumed, struct py_resume, struct py_proc, deferred)

/* The Python walker for kernels without bpf_loop (before 5.17): PY_FRAMES_PER_CALL
 * calls of py_frame, then a tail call to itself while frames and activations remain. */
static __always_inline int python_walk_unrolled(void *ctx, const struct chain c)
{
	struct chain_slot *s = chain_slot(c);
	const struct py_proc *p;
	struct py_resume *rs;
	int stop = 0;

	if (!s)
		return 0;
	rs = (struct py_resume *)s->w.rt;
	p = bpf_map_lookup_elem(&pid_to_python, &s->w.pid);
	if (!p)
		goto done;
	__builtin_memcpy(s->w.deferred, p, sizeof(*p));
	if (!rs->started) {
		rs->groups = s->w.acts[WALKER_PYTHON];
		if (!rs->groups)
			goto done;
		rs->cursor = py_current_frame(p, s->w.tid, 1);
		rs->in_group = 0;
		rs->started = 1;
	}
	for (__u32 i = 0; i < PY_FRAMES_PER_CALL && !stop; i++)
		stop = py_frame(c.slot);
	if (!stop)
		return chain_next(ctx, c, s, WALKER_PYTHON);
	if (rs->groups && rs->cursor && s->r.ustack_len >= UNW_MAX_FRAMES)
		count(CTR_RUNTIME_CUT);
done:
	chain_resume_clear(s);
	return chain_done(ctx, c, s, WALKER_PYTHON);
}
EBPROF_WALKER(python_walk_unrolled)
