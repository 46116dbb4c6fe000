// SPDX-License-Identifier: GPL-2.0
/* The PHP walker, a deferred runtime of the chain (bpf/chain.h) with one walking duty.
 * Deferred: the native walker flagged each activation of execute_ex, the Zend VM's loop;
 * this walker, run once afterwards, follows the zend_execute_data chain from
 * EG(current_execute_data), innermost first, and appends one group of frames per
 * activation: a user frame whose call info has ZEND_CALL_TOP (entered from C) ends one.
 * Walking: opcache's JIT code runs on execute_ex's own native frame, so a pc in it
 * (claimed UNW_MARK_WALK) is moved to execute_ex's dispatch jump, where that frame's CFI
 * row applies, and handed back: the native walker flags it as any activation. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "chain.bpf.h"
#include "arch/arch.h"
#include "php_proc.h"

char LICENSE[] SEC("license") = "GPL";

/* PHP processes userspace has described (src/interp/php/php.c). */
CHAIN_PROCS(pid_to_php, struct php_proc);

/* Which activations of the sample being walked ran JIT code (bit k: the k-th flagged,
 * innermost first), per CPU and chain slot: the hand-over writes it, the deferred walk of
 * the same sample (the same time_ns) reads it. */
struct php_jit_acts {
	__u64 time_ns;
	__u64 mask;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCRATCH__COUNT);
	__type(key, __u32);
	__type(value, struct php_jit_acts);
} php_jit SEC(".maps");

/* What this walker could not do, and how often it did what, per CPU (enum php_counter,
 * printed by php.c). */
CHAIN_COUNTERS(php_counters, php_count, PHP_CTR__COUNT);

/* Words of the buffers a frame, its function and its opline are read into: powers of
 * two, so an index masked with words - 1 stays inside (variable-offset stack reads need a
 * bounded, initialized range). */
#define PHP_EX_WORDS (PHP_EX_READ / 8)
#define PHP_FN_WORDS 16 /* PHP_FUNC_READ bytes read, the rest zero */
#define PHP_OP_WORDS (PHP_OP_READ / 8)

_Static_assert(PHP_FUNC_READ <= PHP_FN_WORDS * 8, "the function's buffer holds its read");

/* The field at byte off of a buffer of words (mask: its words - 1). */
static __always_inline __u64 php_word(const __u64 *buf, __u32 mask, __u32 off)
{
	return buf[(off >> 3) & mask];
}

static __always_inline __u32 php_u32(const __u64 *buf, __u32 mask, __u32 off)
{
	return (__u32)(php_word(buf, mask, off) >> ((off & 4) * 8));
}

static __always_inline __u8 php_u8(const __u64 *buf, __u32 mask, __u32 off)
{
	return (__u8)(php_word(buf, mask, off) >> ((off & 7) * 8));
}

/* The walk's loop state, read by the callback through its context. */
struct php_walk {
	struct chain_slot *s;
	const struct php_proc *p;
	__u64 cursor;		/* the next zend_execute_data to read */
	__u64 vm_ex, vm_opline; /* the VM's registers at the sample (x86-64: r14, r15) */
	__u64 jit;		/* php_jit_acts.mask */
	__u32 acts;		/* activations flagged */
	__u32 groups;		/* activations still without their group */
	__u32 in_group;		/* frames written in the current group */
	__u32 jit_pending;	/* the group's first user frame gets PHP_F_JIT */
};

/* Appends a frame (or, with addr 0 and UF_GROUP_EMPTY, an empty group's marker); false
 * when the record is full. */
static __always_inline bool php_append(struct php_walk *pw, __u64 addr, __u32 pad)
{
	struct sample_record *r = &pw->s->r;
	__u32 n = r->ustack_len;
	struct user_frame *f;

	if (n >= UNW_MAX_FRAMES)
		return false;
	f = &r->ustack[n & (UNW_MAX_FRAMES - 1)]; /* the bound again, for the verifier */
	f->addr = addr;
	f->file_id = UF_RUNTIME_FILE(WALKER_PHP);
	f->pad = pad;
	r->ustack_len = n + 1;
	return true;
}

/* Ends the current group; an activation whose frames were none gets an empty marker. */
static __always_inline bool php_end_group(struct php_walk *pw)
{
	struct sample_record *r = &pw->s->r;
	__u32 last = r->ustack_len - 1;

	pw->groups--;
	pw->jit_pending = 0;
	if (!pw->in_group)
		return php_append(pw, 0, UF_GROUP_END | UF_GROUP_EMPTY);
	pw->in_group = 0;
	r->ustack[last & (UNW_MAX_FRAMES - 1)].pad |= UF_GROUP_END;
	return true;
}

/* The frame appended last is the callee of the frame whose opline is an include (or
 * eval): it runs that file's top-level code, and says how it was included. */
static __always_inline void php_mark_include(struct php_walk *pw, __u32 how)
{
	struct sample_record *r = &pw->s->r;
	__u32 n = r->ustack_len, kind;
	struct user_frame *f;

	if (n <= r->ustack_inorder || n > UNW_MAX_FRAMES)
		return;
	f = &r->ustack[(n - 1) & (UNW_MAX_FRAMES - 1)];
	if (f->file_id != UF_RUNTIME_FILE(WALKER_PHP) || !f->addr || !(f->pad & PHP_F_CODE))
		return;
	switch (how) {
	case PHP_INCLUDE:
		kind = PHP_CODE_INCLUDE;
		break;
	case PHP_INCLUDE_ONCE:
		kind = PHP_CODE_INCLUDE_ONCE;
		break;
	case PHP_REQUIRE:
		kind = PHP_CODE_REQUIRE;
		break;
	case PHP_REQUIRE_ONCE:
		kind = PHP_CODE_REQUIRE_ONCE;
		break;
	case PHP_EVAL:
		kind = PHP_CODE_EVAL;
		break;
	default:
		return;
	}
	f->pad |= kind << PHP_KIND_SHIFT;
}

/* The opline the user frame at `at` runs (ex and fn: its zend_execute_data and
 * zend_function read). The VM keeps the running frame's opline in a register and stores
 * it in the frame only before calls, so for the frame the VM's registers hold (vm_ex),
 * their opline is taken when it lies among the function's opcodes. */
static __always_inline __u64 php_opline(struct php_walk *pw, const __u64 *ex, const __u64 *fn,
					__u64 at)
{
	const struct php_offsets *o = &pw->p->off;
	__u64 opcodes = php_word(fn, PHP_FN_WORDS - 1, o->fn_opcodes);
	__u64 end = opcodes + (__u64)php_u32(fn, PHP_FN_WORDS - 1, o->fn_last) * PHP_OP_SIZE;

	if (at == pw->vm_ex && pw->vm_opline >= opcodes && pw->vm_opline < end &&
	    !((pw->vm_opline - opcodes) & (PHP_OP_SIZE - 1))) {
		php_count(PHP_CTR_LINE_FROM_VM);
		return pw->vm_opline;
	}
	return php_word(ex, PHP_EX_WORDS - 1, o->ex_opline);
}

/* The index of opline among fn's opcodes (ingest reads its line there), or PHP_POS_NONE. */
static __always_inline __u32 php_op_index(const struct php_walk *pw, const __u64 *fn, __u64 opline)
{
	const struct php_offsets *o = &pw->p->off;
	__u64 opcodes = php_word(fn, PHP_FN_WORDS - 1, o->fn_opcodes);
	__u64 n = php_u32(fn, PHP_FN_WORDS - 1, o->fn_last), at = (opline - opcodes) / PHP_OP_SIZE;

	if (opline < opcodes || at >= n || at >= PHP_POS_NONE || (opline - opcodes) % PHP_OP_SIZE)
		return PHP_POS_NONE;
	return (__u32)at;
}

/* Whether the frame appended last is top-level code, whose caller's opline says how it
 * ran (include, require, eval). */
static __always_inline bool php_after_code(const struct php_walk *pw)
{
	const struct sample_record *r = &pw->s->r;
	__u32 n = r->ustack_len;
	const struct user_frame *f;

	if (n <= r->ustack_inorder || n > UNW_MAX_FRAMES)
		return false;
	f = &r->ustack[(n - 1) & (UNW_MAX_FRAMES - 1)];
	return f->file_id == UF_RUNTIME_FILE(WALKER_PHP) && f->addr && (f->pad & PHP_F_CODE);
}

/* Reads opline's line, and when it is an include (or eval), says so on its callee's
 * frame, the one appended last. Only for top-level code and its callers: a function
 * frame's line is read at ingest from its opline's index, its code outliving the sample.
 * Returns the line, 0 when unknown. */
static __always_inline __u32 php_op_line(struct php_walk *pw, __u64 opline)
{
	const struct php_offsets *o = &pw->p->off;
	__u64 op[PHP_OP_WORDS];
	__u32 line;

	if (!opline || read_user(op, sizeof(op), opline + PHP_OP_AT))
		return 0;
	/* The opline's bytes from PHP_OP_AT on: its offsets, less that, index op. */
	if (php_u8(op, PHP_OP_WORDS - 1, o->op_opcode - PHP_OP_AT) == PHP_OP_INCLUDE_OR_EVAL)
		php_mark_include(pw, php_u32(op, PHP_OP_WORDS - 1, o->op_extended - PHP_OP_AT));
	line = php_u32(op, PHP_OP_WORDS - 1, o->op_lineno - PHP_OP_AT);
	return line < PHP_POS_NONE ? line : 0;
}

/* The file name of the top-level code at func (a zend_string the code does not own: an
 * include's or an eval's code is freed as soon as it ends), and in *tag the tag of its
 * hash and its text's last 8 bytes (of none when shorter); 0 when unreadable. */
static __always_inline __u64 php_code_file(const struct php_walk *pw, __u64 func, __u16 *tag)
{
	__u64 file = 0, head[2] = {}, tail = 0; /* h, len */

	if (read_user(&file, sizeof(file), func + pw->p->off.fn_filename) || !file ||
	    read_user(head, sizeof(head), file + PHP_STR_HASH))
		return 0;
	if (head[1] >= sizeof(tail) &&
	    read_user(&tail, sizeof(tail), file + PHP_STR_VAL + head[1] - sizeof(tail)))
		return 0;
	*tag = php_tag(head[0] ^ tail);
	return file;
}

/* What a frame of the function fn (read at func) is sent as: its address and tag, or
 * for top-level code its file's (setting PHP_F_CODE and, for eval'd code, its kind in
 * *pad). */
static __always_inline __u64 php_ident(const struct php_walk *pw, const __u64 *fn, __u64 func,
				       __u32 *pad)
{
	const struct php_offsets *o = &pw->p->off;
	__u8 type = (__u8)fn[0]; /* zend_function.type */
	__u64 file;
	__u16 tag;

	if (type == PHP_INTERNAL_FUNCTION)
		return func | (__u64)php_tag(php_word(fn, PHP_FN_WORDS - 1, o->fn_name))
				  << PHP_TAG_SHIFT;
	if (php_word(fn, PHP_FN_WORDS - 1, o->fn_name) && type != PHP_EVAL_CODE)
		return func | (__u64)php_tag(php_word(fn, PHP_FN_WORDS - 1, o->fn_opcodes))
				  << PHP_TAG_SHIFT;
	file = php_code_file(pw, func, &tag);
	if (!file) /* named from the function while it lives */
		return func | (__u64)php_tag(php_word(fn, PHP_FN_WORDS - 1, o->fn_opcodes))
				  << PHP_TAG_SHIFT;
	*pad |= PHP_F_CODE;
	if (type == PHP_EVAL_CODE)
		*pad |= PHP_CODE_EVAL << PHP_KIND_SHIFT;
	return (file & PHP_ADDR_MASK) | (__u64)tag << PHP_TAG_SHIFT;
}

/* bpf_loop() callback (or the body of the walk without it): reads the frame at the
 * cursor and its function, appends it, and ends its group at a user frame entered from
 * C (ZEND_CALL_TOP: zend_execute, zend_call_function, a generator resumed). An internal
 * function called from C through zend_call_function has the flag too but runs on no
 * execute_ex of its own: its group goes on. */
static long php_step(__u32 i, void *arg)
{
	struct php_walk *pw = arg;
	const struct php_offsets *o = &pw->p->off;
	__u64 ex[PHP_EX_WORDS], fn[PHP_FN_WORDS] = {}, at = pw->cursor, func, ident, opline;
	__u32 pad = 0, line = 0, k;
	bool internal;

	if (!at || !pw->groups)
		return 1;
	if (read_user(ex, sizeof(ex), at)) {
		php_count(PHP_CTR_READ_FAULT);
		return 1;
	}
	pw->cursor = php_word(ex, PHP_EX_WORDS - 1, o->ex_prev);
	func = php_word(ex, PHP_EX_WORDS - 1, o->ex_func) & PHP_ADDR_MASK;
	if (!func) /* a frame C pushed without a function (a placeholder) */
		return 0;
	if (read_user(fn, PHP_FUNC_READ, func)) {
		php_count(PHP_CTR_READ_FAULT);
		return 1;
	}
	internal = (__u8)fn[0] == PHP_INTERNAL_FUNCTION; /* zend_function.type */
	if (!pw->in_group) {
		k = pw->acts - pw->groups;
		pw->jit_pending = k < 64 && (pw->jit >> k) & 1;
	}
	ident = php_ident(pw, fn, func, &pad);
	if (!internal) {
		opline = php_opline(pw, ex, fn, at);
		if ((pad & PHP_F_CODE) || php_after_code(pw))
			line = php_op_line(pw, opline);
		pad |= (pad & PHP_F_CODE) ? line : php_op_index(pw, fn, opline);
		if (pw->jit_pending)
			pad |= PHP_F_JIT;
		pw->jit_pending = 0;
	}
	if (!php_append(pw, ident, pad & UF_DATA_MASK))
		return 1;
	pw->in_group++;
	if (!internal && (php_u32(ex, PHP_EX_WORDS - 1, o->ex_info) & PHP_CALL_TOP) &&
	    !php_end_group(pw))
		return 1;
	return 0;
}

/* The innermost zend_execute_data, or 0. */
static __always_inline __u64 php_current_ex(const struct php_proc *p)
{
	__u64 ex = 0;

	if (read_user(&ex, sizeof(ex), p->current_ex) || !ex) {
		php_count(PHP_CTR_NO_FRAME);
		return 0;
	}
	return ex;
}

/* The VM's frame and opline registers (Zend/zend_execute.c's global registers of the
 * hybrid VM, r14 and r15 on x86-64) as the thread left user mode. unrolled (a constant):
 * without bpf_task_pt_regs (5.15) and the BTF task (5.11), the top of the kernel stack. */
static __always_inline void php_vm_regs(__u64 *ex, __u64 *opline, int unrolled)
{
#ifdef __TARGET_ARCH_x86
	struct pt_regs *regs;
	struct task_struct *task;
	void *stack;

	if (unrolled) {
		task = (struct task_struct *)bpf_get_current_task();
		stack = BPF_CORE_READ(task, stack);
		regs = stack ? (struct pt_regs *)ARCH_TASK_PT_REGS(stack) : 0;
	} else {
		regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	}
	if (!regs)
		return;
	*ex = BPF_CORE_READ(regs, r14);
	*opline = BPF_CORE_READ(regs, r15);
#endif
}

/* The JIT activations php_jit_frame noted for this sample. */
static __always_inline __u64 php_jit_mask(const struct chain c, const struct chain_slot *s)
{
	__u32 slot = c.slot;
	const struct php_jit_acts *j = bpf_map_lookup_elem(&php_jit, &slot);

	return j && j->time_ns == s->r.time_ns ? j->mask : 0;
}

/* A pc in opcache's JIT code, handed over by the native walker: JIT code runs on
 * execute_ex's frame (the hybrid VM keeps room for it there), so the frame unwinds by
 * execute_ex's row at its dispatch jump, to which the pc moves; the native walker then
 * flags that activation as any other, whose index is noted as JIT code's. */
static __always_inline int php_jit_frame(void *ctx, const struct chain c, struct chain_slot *s)
{
	const struct php_proc *p = bpf_map_lookup_elem(&pid_to_php, &s->w.pid);
	__u32 slot = c.slot, k = s->w.acts[WALKER_PHP];
	struct php_jit_acts *j;

	s->w.handover = 0;
	if (!p || !p->dispatch) {
		/* Claimed but not described: never bounced back to the native walker. */
		php_count(PHP_CTR_JIT_UNOWNED);
		chain_stack_ends(s, UNW_STEP_NO_ROW);
		return chain_next(ctx, c, s, chain_deferred(&s->w));
	}
	php_count(PHP_CTR_JIT_FRAMES);
	j = bpf_map_lookup_elem(&php_jit, &slot);
	if (j) {
		if (j->time_ns != s->r.time_ns) {
			j->time_ns = s->r.time_ns;
			j->mask = 0;
		}
		if (k < 64)
			j->mask |= 1ull << k;
	}
	s->w.regs.pc = p->dispatch;
	s->w.regs.pc_exact = 1;
	return chain_next(ctx, c, s, WALKER_NATIVE);
}

static __always_inline int php_walk(void *ctx, const struct chain c)
{
	struct chain_slot *s = chain_slot(c);
	struct php_walk pw = {};

	if (!s)
		return 0;
	if (s->w.handover == WALKER_PHP)
		return php_jit_frame(ctx, c, s);
	pw.s = s;
	pw.p = bpf_map_lookup_elem(&pid_to_php, &s->w.pid);
	pw.acts = pw.groups = s->w.acts[WALKER_PHP];
	if (pw.p && pw.groups) {
		pw.cursor = php_current_ex(pw.p);
		php_vm_regs(&pw.vm_ex, &pw.vm_opline, 0);
		pw.jit = php_jit_mask(c, s);
		bpf_loop(UNW_MAX_FRAMES, php_step, &pw, 0);
		/* Frames that did not fit: those activations keep their native frame. */
		if (pw.groups && pw.cursor && s->r.ustack_len >= UNW_MAX_FRAMES)
			count(CTR_RUNTIME_CUT);
	}
	return chain_done(ctx, c, s, WALKER_PHP);
}
EBPROF_WALKER(php_walk)

/* Frames per program of the walker without bpf_loop: with the native walker's 8
 * programs, 8 of these stay within the tail-call budget for UNW_MAX_FRAMES frames. */
#define PHP_FRAMES_PER_CALL 32

/* The walk across the walker's own tail calls (walk_state.rt). */
struct php_resume {
	__u64 cursor;
	__u64 vm_ex, vm_opline;
	__u8 groups, in_group, jit_pending, started;
	__u32 jit; /* the first 32 activations' php_jit_acts.mask */
};

/* php_step resumed from the walk state: the loop's state in from rs, one frame, back out
 * (vm_opline and jit the step only reads). */
static __always_inline long php_step_resumed(struct chain_slot *s, struct php_resume *rs,
					     const struct php_proc *p)
{
	struct php_walk pw = {.s = s, .p = p};
	long stop;

	pw.cursor = rs->cursor;
	pw.vm_ex = rs->vm_ex;
	pw.vm_opline = rs->vm_opline;
	pw.jit = rs->jit;
	pw.acts = s->w.acts[WALKER_PHP];
	pw.groups = rs->groups;
	pw.in_group = rs->in_group;
	pw.jit_pending = rs->jit_pending;
	stop = php_step(0, &pw);
	rs->cursor = pw.cursor;
	rs->vm_ex = pw.vm_ex;
	rs->groups = pw.groups;
	rs->in_group = pw.in_group;
	rs->jit_pending = pw.jit_pending;
	return stop;
}

/* One PHP frame without bpf_loop (bpf/chain.bpf.h): php_resume in rt, the php_proc in
 * deferred. */
CHAIN_FRAME(php_frame, php_step_resumed, struct php_resume, struct php_proc, deferred)

/* The PHP walker for kernels without bpf_loop (before 5.17): PHP_FRAMES_PER_CALL calls of
 * php_frame, then a tail call to itself while frames and activations remain. */
static __always_inline int php_walk_unrolled(void *ctx, const struct chain c)
{
	struct chain_slot *s = chain_slot(c);
	const struct php_proc *p;
	struct php_resume *rs;
	int stop = 0;

	if (!s)
		return 0;
	if (s->w.handover == WALKER_PHP)
		return php_jit_frame(ctx, c, s);
	rs = (struct php_resume *)s->w.rt;
	p = bpf_map_lookup_elem(&pid_to_php, &s->w.pid);
	if (!p)
		goto done;
	__builtin_memcpy(s->w.deferred, p, sizeof(*p));
	if (!rs->started) {
		rs->groups = s->w.acts[WALKER_PHP];
		if (!rs->groups)
			goto done;
		rs->cursor = php_current_ex(p);
		php_vm_regs(&rs->vm_ex, &rs->vm_opline, 1);
		rs->jit = (__u32)php_jit_mask(c, s);
		rs->in_group = 0;
		rs->jit_pending = 0;
		rs->started = 1;
	}
	for (__u32 i = 0; i < PHP_FRAMES_PER_CALL && !stop; i++)
		stop = php_frame(c.slot);
	if (!stop)
		return chain_next(ctx, c, s, WALKER_PHP);
	if (rs->groups && rs->cursor && s->r.ustack_len >= UNW_MAX_FRAMES)
		count(CTR_RUNTIME_CUT);
done:
	chain_resume_clear(s);
	return chain_done(ctx, c, s, WALKER_PHP);
}
EBPROF_WALKER(php_walk_unrolled)
