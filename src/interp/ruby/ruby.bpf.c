// SPDX-License-Identifier: GPL-2.0
/* The Ruby walker. Deferred (bpf/chain.h): the native walker flagged each activation of
 * the VM it met — vm_exec, one per entry from C, and vm_exec_core, the interpreter loop
 * inside it — and this walker, run once afterwards, walks the sampled thread's control
 * frames from its execution context, innermost first, and appends one group per flagged
 * frame: a vm_exec gets the Ruby frames down to the one pushed with VM_FRAME_FLAG_FINISH
 * (the frame that entry from C runs), vm_exec_core a frame that names nothing, so the
 * interpreter's own native frame goes. Walking, too: JIT code (YJIT, in anonymous memory,
 * claimed UNW_MARK_WALK) has no unwind table; the walker finds the return address into
 * vm_exec or vm_exec_core above its stack pointer and hands the registers back. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "arch/arch.h"
#include "chain.bpf.h"
#include "ruby_proc.h"

char LICENSE[] SEC("license") = "GPL";

/* CRuby processes userspace has described (src/interp/ruby/ruby.c). The walker writes
 * one member itself: objspace, the GC's state, found once per process. */
CHAIN_PROCS(pid_to_ruby, struct rb_proc);

/* tid -> where its execution context is found: the TLS slot (3.x) or the rb_thread_t
 * (2.7), with the fs base it was found for, so each hit is checked. */
struct rb_thread_at {
	__u64 fsbase;
	__u64 at;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct rb_thread_at);
} ruby_threads SEC(".maps");

/* What this walker could not do, per CPU (enum rb_counter, printed by ruby.c). */
CHAIN_COUNTERS(ruby_counters, rb_count, RB_CTR__COUNT);

static __always_inline __u64 read_u64(__u64 addr)
{
	__u64 v = 0;

	if (read_user(&v, sizeof(v), addr))
		return 0;
	return v;
}

/* 3.x: the TLS slot of ruby_current_ec for the thread whose fs base is fs: the thread's
 * DTV (the word at fs + 8) holds each module's TLS block, 16 bytes an entry, by the module
 * id libruby's GOT holds beside the variable's offset in the block. 0 when unreadable. */
static __always_inline __u64 rb_tls_slot(const struct rb_proc *p, __u64 fs)
{
	__u64 index[2] = {}, dtv, block;

	if (read_user(index, sizeof(index), p->tls_index))
		return 0;
	/* A module id is small; 0 is the GOT before ld.so relocated it. */
	if (!index[0] || index[0] > 4096 || index[1] > (1 << 20))
		return 0;
	dtv = read_u64(fs + 8);
	if (!dtv)
		return 0;
	block = read_u64(dtv + index[0] * 16);
	/* TLS_DTV_UNALLOCATED: a module loaded later, not yet touched by the thread. */
	if (!block || block == (__u64)-1)
		return 0;
	return block + index[1] + p->tls_off;
}

struct rb_thread_search {
	__u64 node, head, fs, found;
	__u16 th_node, th_id;
};

/* bpf_loop() callback (or an unrolled loop's body): one living thread of the VM (2.7). */
static long rb_thread_step(__u32 i, void *arg)
{
	struct rb_thread_search *t = arg;
	__u64 th;

	if (!t->node || t->node == t->head)
		return 1;
	th = t->node - t->th_node;
	if (read_u64(th + t->th_id) == t->fs) {
		t->found = th;
		return 1;
	}
	t->node = read_u64(t->node);
	return 0;
}

/* 2.7: the rb_thread_t whose pthread_t is fs, from the VM's list of living threads. */
static __always_inline __u64 rb_find_thread(const struct rb_proc *p, __u64 fs, int unrolled)
{
	struct rb_thread_search t = {.fs = fs, .th_node = p->th_node, .th_id = p->th_id};
	__u64 vm = read_u64(p->vm_ptr);

	if (!vm)
		return 0;
	t.head = vm + p->vm_threads;
	t.node = read_u64(t.head);
	if (unrolled) {
#pragma unroll
		for (__u32 i = 0; i < RB_MAX_THREADS; i++) {
			if (rb_thread_step(i, &t))
				break;
		}
	} else {
		bpf_loop(RB_MAX_THREADS, rb_thread_step, &t, 0);
	}
	return t.found;
}

/* The sampled thread's execution context, or 0. A thread's TLS slot (3.x) never moves;
 * a cached rb_thread_t (2.7) is checked against the thread's fs base again. */
static __always_inline __u64 rb_current_ec(const struct rb_proc *p, __u32 tid, int unrolled)
{
	/* bpf_get_current_task(), not its BTF flavour (5.11): the same read on 5.10. */
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct rb_thread_at at = {.fsbase = ARCH_TASK_TP(task)};
	struct rb_thread_at *cached = bpf_map_lookup_elem(&ruby_threads, &tid);

	if (!at.fsbase)
		return 0;
	if (cached && cached->fsbase == at.fsbase) {
		if (p->ec_mode == RB_EC_TLS)
			return read_u64(cached->at);
		if (read_u64(cached->at + p->th_id) == at.fsbase)
			return read_u64(cached->at + p->th_ec);
	}
	if (p->ec_mode == RB_EC_TLS)
		at.at = rb_tls_slot(p, at.fsbase);
	else if (p->ec_mode == RB_EC_THREADS)
		at.at = rb_find_thread(p, at.fsbase, unrolled);
	if (!at.at)
		return 0;
	bpf_map_update_elem(&ruby_threads, &tid, &at, BPF_ANY);
	return read_u64(at.at + (p->ec_mode == RB_EC_TLS ? 0 : p->th_ec));
}

/* Whether the garbage collector runs on the thread of ec: during_gc is the VM's, so the
 * thread must also hold the GVL (2.7's global context; 3.x: its ractor's running one). */
static __always_inline bool rb_gc_running(struct rb_proc *p, __u64 ec)
{
	__u8 flags = 0;
	__u64 holder;

	if (!p->objspace) {
		__u64 vm = read_u64(p->vm_ptr);

		/* Set once the VM is up; written here, one process's walkers agree on it. */
		p->objspace = vm ? read_u64(vm + p->vm_objspace) : 0;
		if (!p->objspace)
			return false;
	}
	if (read_user(&flags, sizeof(flags), p->objspace + p->gc_flags) ||
	    !(flags & (1u << (p->gc_bit & 7))))
		return false;
	if (p->ec_global)
		holder = read_u64(p->ec_global);
	else
		holder =
		    read_u64(read_u64(read_u64(ec + p->ec_thread) + p->th_ractor) + p->ractor_ec);
	return holder == ec;
}

/* Where the walk is, across bpf_loop iterations or the unrolled walker's tail calls
 * (walk_state.rt). */
enum rb_walk_state {
	RB_WANT_ACT = 0, /* find the next flagged activation in the in-order frames */
	RB_IN_GROUP,	 /* emit control frames into a vm_exec's group */
};

struct rb_resume {
	__u64 cfp;	/* the next control frame; 0: none left */
	__u64 end;	/* the end of the control frames (the VM stack's end) */
	__u16 scan;	/* the next in-order frame to look at */
	__u16 in_group; /* frames written in the current group */
	__u8 groups;	/* flagged activations still without their group */
	__u8 state;	/* enum rb_walk_state */
	__u8 gc;	/* a GC frame waits for the innermost vm_exec's group */
	__u8 started;
};

struct rb_walk {
	struct chain_slot *s;
	const struct rb_proc *p;
	struct rb_resume r;
};

/* Appends a Ruby frame; false when the record is full. */
static __always_inline bool rb_append(struct rb_walk *w, __u64 addr, __u32 kind, __u32 data,
				      __u32 flags)
{
	struct sample_record *r = &w->s->r;
	__u32 n = r->ustack_len;
	struct user_frame *f;

	if (n >= UNW_MAX_FRAMES) {
		count(CTR_RUNTIME_CUT);
		return false;
	}
	/* The mask restates the bound for the verifier. */
	f = &r->ustack[n & (UNW_MAX_FRAMES - 1)];
	f->addr = addr;
	f->file_id = UF_RUNTIME_FILE(WALKER_RUBY);
	f->pad = flags | ((kind << RB_KIND_SHIFT) & UF_DATA_MASK) | (data & RB_PC_MASK);
	r->ustack_len = n + 1;
	w->r.in_group++;
	return true;
}

/* A frame that runs bytecode at pc: the object in addr's low bits, pc's bits around. */
static __always_inline bool rb_append_pc(struct rb_walk *w, __u64 obj, __u32 kind, __u64 pc)
{
	return rb_append(w, (obj & RB_PTR_MASK) | (__u64)RB_PC_TAG(pc) << RB_TAG_SHIFT, kind,
			 RB_PC_DATA(pc), 0);
}

/* Ends the current group (an empty one gets the marker that keeps its native frame). */
static __always_inline bool rb_end_group(struct rb_walk *w)
{
	struct sample_record *r = &w->s->r;
	__u32 last = r->ustack_len - 1;

	w->r.state = RB_WANT_ACT;
	if (!w->r.in_group)
		return rb_append(w, 0, 0, 0, UF_GROUP_END | UF_GROUP_EMPTY);
	r->ustack[last & (UNW_MAX_FRAMES - 1)].pad |= UF_GROUP_END;
	return true;
}

/* A C method's frame: its method entry, tagged by its definition and called id. */
static __always_inline bool rb_cfunc(struct rb_walk *w, __u64 me)
{
	__u64 def[2] = {};

	if (read_user(def, sizeof(def), me + 16)) /* rb_method_entry_t: def, called_id */
		return true;
	return rb_append(w,
			 (me & RB_PTR_MASK) | (((def[0] >> 3) ^ def[1]) & 0xffff) << RB_TAG_SHIFT,
			 RB_FRAME_CFUNC, 0, 0);
}

/* A block's method: its environment's chain up to the method's own (VM_ENV_FLAG_LOCAL),
 * whose me_cref is the method entry (or an svar holding it). 0 when the block is not in
 * a method (<main>, a class body) or the chain is longer than RB_ENV_HOPS. */
static __always_inline __u64 rb_block_method(__u64 prev)
{
	__u64 env[3];

#pragma unroll
	for (int i = 0; i < RB_ENV_HOPS; i++) {
		prev &= ~3ULL; /* VM_GUARDED_PREV_EP */
		if (!prev || read_user(env, sizeof(env), prev - 16))
			return 0;
		if (env[2] & RB_ENV_LOCAL)
			return (env[2] & RB_FRAME_MAGIC_MASK) == RB_MAGIC_METHOD ? env[0] : 0;
		prev = env[1];
	}
	return 0;
}

/* The next flagged activation among the in-order frames (a few per call): a vm_exec
 * opens a group, vm_exec_core gets its one VM frame. 1 when the walk is over. */
static __always_inline long rb_next_activation(struct rb_walk *w)
{
	const struct rb_proc *p = w->p;
	struct sample_record *r = &w->s->r;
	struct user_frame *f;

#pragma unroll
	for (int k = 0; k < 8; k++) {
		__u32 i = w->r.scan;

		if (!w->r.groups || i >= r->ustack_inorder || i >= UNW_MAX_FRAMES)
			return 1;
		w->r.scan = i + 1;
		f = &r->ustack[i & (UNW_MAX_FRAMES - 1)];
		if (!(f->pad & UF_ACTIVATION) || (f->pad & 0xff) != WALKER_RUBY)
			continue;
		w->r.groups--;
		w->r.in_group = 0;
		if (f->file_id != p->file_id || f->addr < p->exec_off[0] ||
		    f->addr >= p->exec_off[1])
			return rb_append(w, 0, RB_FRAME_VM, 0, UF_GROUP_END) ? 0 : 1;
		w->r.state = RB_IN_GROUP;
		if (w->r.gc) {
			w->r.gc = 0;
			return rb_append(w, 0, RB_FRAME_GC, 0, 0) ? 0 : 1;
		}
		return 0;
	}
	return 0;
}

/* No control frame left for a vm_exec's group: it ends, and the later ones stay native. */
static __always_inline long rb_out_of_frames(struct rb_walk *w, __u32 why)
{
	rb_count(why);
	w->r.cfp = 0;
	return rb_end_group(w) ? 0 : 1;
}

/* One control frame into the current group. 1 when the walk stops. */
static __always_inline long rb_next_frame(struct rb_walk *w)
{
	__u64 cfp = w->r.cfp, buf[RB_CFP_READ / 8], env[3], me;
	__u32 magic;
	bool ok = true;

	if (!cfp) /* ran out before: the later groups are empty */
		return rb_end_group(w) ? 0 : 1;
	if (cfp >= w->r.end)
		return rb_out_of_frames(w, RB_CTR_OUT_OF_CFP);
	if (read_user(buf, sizeof(buf), cfp) ||
	    read_user(env, sizeof(env), buf[RB_CFP_EP / 8] - 16))
		return rb_out_of_frames(w, RB_CTR_READ_FAULT);
	w->r.cfp = cfp + w->p->cfp_size;
	magic = env[2] & RB_FRAME_MAGIC_MASK;
	if (magic == RB_MAGIC_CFUNC) {
		ok = rb_cfunc(w, env[0]);
	} else if (magic == RB_MAGIC_METHOD) {
		ok = rb_append_pc(w, env[0], RB_FRAME_METHOD, buf[RB_CFP_PC / 8]);
	} else if (magic != RB_MAGIC_IFUNC && magic != RB_MAGIC_DUMMY && buf[RB_CFP_ISEQ / 8]) {
		__u64 iseq = buf[RB_CFP_ISEQ / 8], kind = RB_FRAME_ISEQ;

		me = 0;
		if (env[2] & RB_FLAG_BMETHOD) {
			me = env[0];
			kind = RB_FRAME_BMETHOD;
		} else if (magic == RB_MAGIC_BLOCK) {
			me = rb_block_method(env[1]);
		}
		if (me)
			ok = rb_append(w,
				       (me & RB_PTR_MASK) | (__u64)RB_CTX_TAG(iseq) << RB_TAG_SHIFT,
				       RB_FRAME_CTX, 0, 0);
		if (ok)
			ok = rb_append_pc(w, iseq, kind, buf[RB_CFP_PC / 8]);
	}
	if (!ok)
		return 1;
	if (env[2] & RB_FLAG_FINISH)
		return rb_end_group(w) ? 0 : 1;
	return 0;
}

static __always_inline long rb_step(struct rb_walk *w)
{
	if (w->r.state == RB_WANT_ACT)
		return rb_next_activation(w);
	return rb_next_frame(w);
}

/* bpf_loop() callback: one step of the walk. */
static long rb_step_cb(__u32 i, void *arg)
{
	return rb_step(arg);
}

/* Starts the walk at the sampled thread's current control frame; false when there is
 * none to walk. */
static __always_inline bool rb_start(struct rb_walk *w, struct rb_proc *p, int unrolled)
{
	__u64 ec = rb_current_ec(p, w->s->w.tid, unrolled), head[3];

	w->r.groups = w->s->w.acts[WALKER_RUBY];
	if (!ec || read_user(head, sizeof(head), ec + RB_EC_VM_STACK)) {
		rb_count(RB_CTR_NO_EC);
		return false;
	}
	/* rb_execution_context_t: vm_stack, vm_stack_size (words), cfp. The control frames
	 * grow down from the stack's end; a frame outside the stack is not one. */
	w->r.end = head[0] + (head[1] << 3);
	w->r.cfp = head[2];
	if (head[1] > (1 << 24) || w->r.cfp < head[0] || w->r.cfp >= w->r.end) {
		rb_count(RB_CTR_NO_EC);
		return false;
	}
	w->r.gc = rb_gc_running(p, ec);
	if (w->r.gc)
		rb_count(RB_CTR_GC);
	return true;
}

/* The registers back to the native walker, or (when they cannot be) the stack's end. */
static __always_inline int rb_jit_leave(void *ctx, const struct chain c, struct chain_slot *s,
					__u32 why)
{
	s->w.handover = 0; /* from here on this walker runs as the deferred one */
	if (why < RB_CTR__COUNT) {
		rb_count(why);
		chain_stack_ends(s, UNW_STEP_BAD_FRAME);
		return chain_next(ctx, c, s, chain_deferred(&s->w));
	}
	return chain_next(ctx, c, s, WALKER_NATIVE);
}

/* Whether the 8 bytes before a return address end in an indirect call: call *%reg (FF
 * D0+r), call *d8(%reg) (FF 50+r d8, or FF 54 24 d8 through rsp), call *d32(%reg) (FF 90+r
 * d32): how C calls a function pointer such as an iseq's JIT code. */
static __always_inline bool rb_indirect_call(__u64 ra)
{
	__u8 b[RB_CALL_READ];

	if (read_user(b, sizeof(b), ra - sizeof(b)))
		return false;
	return (b[6] == 0xff && (b[7] & 0xf8) == 0xd0) ||
	       (b[5] == 0xff && (b[6] & 0xf8) == 0x50 && b[6] != 0x54) ||
	       (b[4] == 0xff && b[5] == 0x54 && b[6] == 0x24) ||
	       (b[2] == 0xff && (b[3] & 0xf8) == 0x90 && b[3] != 0x94);
}

/* A JIT frame, handed over by the native walker (UNW_MARK_WALK). YJIT's entry pushes
 * three registers (and, around a few calls, two more words) and keeps no frame pointer:
 * its return address is the first word above sp that lies in libruby's code right after
 * an indirect call (vm_exec, or the interpreter's send, calls JIT code through the iseq's
 * function pointer). The frame itself names nothing: its Ruby frames are the control
 * frames of the activation below. */
static __always_inline int rb_jit_step(void *ctx, const struct chain c, struct chain_slot *s)
{
	const struct rb_proc *p = bpf_map_lookup_elem(&pid_to_ruby, &s->w.pid);
	__u64 words[RB_JIT_SCAN];

	if (!p) {
		notice(RECORD_UNKNOWN_MAPPING, s->w.pid, s->w.regs.pc);
		return rb_jit_leave(ctx, c, s, RB_CTR_NO_PROC);
	}
	if (read_user(words, sizeof(words), s->w.regs.sp))
		return rb_jit_leave(ctx, c, s, RB_CTR_JIT_LOST);
	for (int j = 0; j < RB_JIT_SCAN; j++) {
		__u64 ra = words[j];

		if (ra < p->text[0] || ra >= p->text[1] || !rb_indirect_call(ra))
			continue;
		s->w.regs.pc = ra;
		s->w.regs.sp += (j + 1) * 8;
		s->w.regs.pc_exact = 0;
		rb_count(RB_CTR_JIT_FRAMES);
		return rb_jit_leave(ctx, c, s, RB_CTR__COUNT);
	}
	return rb_jit_leave(ctx, c, s, RB_CTR_JIT_LOST);
}

static __always_inline int ruby_walk(void *ctx, const struct chain c)
{
	struct chain_slot *s = chain_slot(c);
	struct rb_walk w = {};
	struct rb_proc *p;

	if (!s)
		return 0;
	if (s->w.handover == WALKER_RUBY)
		return rb_jit_step(ctx, c, s);
	p = bpf_map_lookup_elem(&pid_to_ruby, &s->w.pid);
	w.s = s;
	w.p = p;
	if (p && s->w.acts[WALKER_RUBY] && rb_start(&w, p, 0))
		bpf_loop(2 * UNW_MAX_FRAMES, rb_step_cb, &w, 0);
	return chain_done(ctx, c, s, WALKER_RUBY);
}
EBPROF_WALKER(ruby_walk)

/* Steps per program of the walker without bpf_loop: the in-order frames and the control
 * frames together need at most 2 * UNW_MAX_FRAMES, 8 programs of these, which with the
 * native walker's 8 stay within the tail-call budget. */
#define RB_STEPS_PER_CALL 64

/* rb_step resumed from the walk state: rb_resume in from rt, one step, back out. */
static __always_inline long rb_step_resumed(struct chain_slot *s, struct rb_resume *rs,
					    const struct rb_proc *p)
{
	struct rb_walk w = {.s = s, .p = p};
	long stop;

	__builtin_memcpy(&w.r, rs, sizeof(w.r));
	stop = rb_step(&w);
	__builtin_memcpy(rs, &w.r, sizeof(w.r));
	return stop;
}

/* One step without bpf_loop (bpf/chain.bpf.h): rb_resume in rt, the rb_proc in
 * deferred. */
CHAIN_FRAME(rb_frame, rb_step_resumed, struct rb_resume, struct rb_proc, deferred)

/* The Ruby walker for kernels without bpf_loop (before 5.17): RB_STEPS_PER_CALL calls of
 * rb_frame, then a tail call to itself while the walk goes on. */
static __always_inline int ruby_walk_unrolled(void *ctx, const struct chain c)
{
	struct chain_slot *s = chain_slot(c);
	struct rb_resume *rs;
	struct rb_proc *p;
	struct rb_walk w = {};
	int stop = 0;

	if (!s)
		return 0;
	if (s->w.handover == WALKER_RUBY)
		return rb_jit_step(ctx, c, s);
	rs = (struct rb_resume *)s->w.rt;
	p = bpf_map_lookup_elem(&pid_to_ruby, &s->w.pid);
	if (!p)
		goto done;
	if (!rs->started) {
		w.s = s;
		if (!s->w.acts[WALKER_RUBY] || !rb_start(&w, p, 1))
			goto done;
		w.r.started = 1;
		__builtin_memcpy(rs, &w.r, sizeof(w.r));
	}
	__builtin_memcpy(s->w.deferred, p, sizeof(*p));
	for (__u32 i = 0; i < RB_STEPS_PER_CALL && !stop; i++)
		stop = rb_frame(c.slot);
	if (!stop)
		return chain_next(ctx, c, s, WALKER_RUBY);
done:
	chain_resume_clear(s);
	return chain_done(ctx, c, s, WALKER_RUBY);
}
EBPROF_WALKER(ruby_walk_unrolled)
