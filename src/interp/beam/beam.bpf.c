// SPDX-License-Identifier: GPL-2.0
/* The BEAM walker, a walking runtime of the chain (bpf/chain.h): the native walker hands
 * it the registers when a pc enters the JIT's code (the executable view of its memfd,
 * marked UNW_MARK_WALK by beam.c). At the sample's own pc the stack pointer is the
 * Erlang process's stack pointer: the walker records the pc, then scans that stack for
 * continuation pointers (beam_step.h), a word per bpf_loop() iteration (before 5.17 a
 * call of beam_word), reading a chunk of words at a time, up to
 * the process's first frame; a scan that does not reach it is dropped, the pc kept.
 * Reached from native code instead (C code called by JIT code), the stack pointer is the
 * scheduler's C stack: the JIT frame that called it is recorded and, when that is shared
 * code that saved the process's Erlang stack pointer first (BIFs, NIFs, the collector:
 * beam_in_bif), the scan starts there, at c_p->stop, found through the scheduler whose
 * registers block the C stack started at (map beam_scheds); else the stack ends there.
 * The scheduler's native frames below the Erlang stack are not walked. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "chain.bpf.h"
#include "beam_step.h"

char LICENSE[] SEC("license") = "GPL";

/* Erlang VMs userspace has described. */
CHAIN_PROCS(pid_to_beam, struct beam_proc);

CHAIN_COUNTERS(beam_counters, beam_count, BEAM_CTR__COUNT);

/* The schedulers of the VMs described, by their registers block (beam_proc.h). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct beam_sched_key);
	__type(value, __u64);
} beam_scheds SEC(".maps");

/* The chunk of the Erlang stack being scanned, per CPU: too big for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[BEAM_CHUNK_WORDS]);
} beam_chunk SEC(".maps");

struct beam_walk {
	struct chain_slot *s;
	const struct beam_proc *p;
	__u64 *chunk;
	__u64 sp;
	__u32 bottom; /* the scan reached the process's first frame */
	__u32 full;   /* frames found past the record's last slot */
};

static __always_inline void beam_frame(struct sample_record *r, __u64 addr, __u32 how)
{
	__u32 n = r->ustack_len;
	struct user_frame *uf;

	if (n >= UNW_MAX_FRAMES)
		return;
	/* The compiler drops a mask it can prove idle; the verifier needs it. */
	asm volatile("%0 &= 255" : "+r"(n));
	uf = &r->ustack[n];
	uf->addr = addr;
	uf->file_id = UF_RUNTIME_FILE(WALKER_BEAM);
	uf->pad = how;
	r->ustack_len = n + 1;
}

/* bpf_loop() callback: one word of the Erlang stack, its chunk read when it starts one.
 * One word per iteration keeps the body the verifier checks small. */
static long beam_word_cb(__u32 i, void *arg)
{
	struct beam_walk *w = arg;
	struct sample_record *r = &w->s->r;
	__u32 at = i & (BEAM_CHUNK_WORDS - 1);
	int kind;

	if (!at && read_user(w->chunk, BEAM_CHUNK_WORDS * 8, w->sp + (__u64)i * 8))
		return 1;
	kind = beam_word_kind(w->p, w->chunk[at]);
	if (kind == BEAM_WORD_BOTTOM) {
		w->bottom = 1;
		return 1;
	}
	if (kind != BEAM_WORD_CP)
		return 0;
	if (r->ustack_len >= UNW_MAX_FRAMES)
		w->full = 1; /* the scan goes on: only its bottom makes the frames right */
	else
		beam_frame(r, w->chunk[at], BEAM_FRAME_RETURN);
	return 0;
}

/* The Erlang part of the stack ends here. */
static __always_inline int beam_cut(void *ctx, const struct chain c, struct chain_slot *s,
				    __u32 counter, __u32 stop)
{
	if (counter < BEAM_CTR__COUNT)
		beam_count(counter);
	chain_stack_ends(s, stop);
	return chain_next(ctx, c, s, chain_deferred(&s->w));
}

/* Where the Erlang stack of the process whose C code returns to pc (the JIT's shared code
 * that called it) starts: its c_p->stop, saved by that code before the call. The C
 * stack of a scheduler starts at its registers block, so the stack pointer a C frame
 * returns with names the scheduler, and the scheduler its current process. 0: not
 * known (a scheduler not described yet: the notice asks for another look; or none
 * running). */
static __always_inline __u64 beam_saved_stack(const struct beam_proc *p, const struct walk_state *w)
{
	struct beam_sched_key k = {.pid = w->pid, .regs = w->regs.sp};
	__u64 proc = 0, stop = 0;
	const __u64 *cur;

	cur = p->stop_off ? bpf_map_lookup_elem(&beam_scheds, &k) : NULL;
	if (!cur) {
		notice(RECORD_UNKNOWN_MAPPING, w->pid, w->regs.pc);
		return 0;
	}
	if (read_user(&proc, sizeof(proc), *cur) || !proc ||
	    read_user(&stop, sizeof(stop), proc + p->stop_off) || !stop || (stop & 7))
		return 0;
	return stop;
}

/* The walk's start, the same with bpf_loop or without: the VM's description (NULL when
 * the stack was cut, *ret what to return then) and the leaf frame recorded. */
static __always_inline const struct beam_proc *beam_start(void *ctx, const struct chain c,
							  struct chain_slot *s, int *ret)
{
	const struct beam_proc *p = bpf_map_lookup_elem(&pid_to_beam, &s->w.pid);

	if (!p || !p->normal_exit) {
		/* The JIT's code is claimed but this VM not described (it was starting when
		 * last looked at): ask the tracker for another look. */
		notice(RECORD_UNKNOWN_MAPPING, s->w.pid, s->w.regs.pc);
		*ret = beam_cut(ctx, c, s, BEAM_CTR_NO_PROC, UNW_STEP_BAD_FRAME);
		return NULL;
	}
	if (!beam_in_code(p, s->w.regs.pc)) {
		*ret = beam_cut(ctx, c, s, BEAM_CTR_NO_PROGRESS, UNW_STEP_BAD_FRAME);
		return NULL;
	}
	beam_count(BEAM_CTR_WALKS);
	if (!s->w.regs.pc_exact) {
		__u64 stop = 0;

		beam_frame(&s->r, s->w.regs.pc, BEAM_FRAME_RETURN);
		if (!beam_in_bif(p, s->w.regs.pc)) {
			*ret = beam_cut(ctx, c, s, BEAM_CTR_FROM_NATIVE, UNW_STEP_BAD_FRAME);
			return NULL;
		}
		stop = beam_saved_stack(p, &s->w);
		if (!stop) {
			*ret = beam_cut(ctx, c, s, BEAM_CTR_NO_SCHED, UNW_STEP_BAD_FRAME);
			return NULL;
		}
		/* The scan starts at the caller's continuation pointer. */
		beam_count(BEAM_CTR_FROM_BIF);
		s->w.regs.sp = stop;
		return p;
	}
	beam_frame(&s->r, s->w.regs.pc, BEAM_FRAME_EXACT);
	return p;
}

/* The scan is over: the frames found kept when it reached the bottom, else the leaf's
 * pc alone (the record cut back to leaf frames). */
static __always_inline int beam_scanned(void *ctx, const struct chain c, struct chain_slot *s,
					__u32 leaf, __u32 bottom, __u32 full)
{
	if (!bottom) {
		/* Not known to be an Erlang stack, or too deep to check: the pc alone. */
		s->r.ustack_len = leaf;
		return beam_cut(ctx, c, s, BEAM_CTR_NO_BOTTOM, UNW_STEP_BAD_FRAME);
	}
	if (full) {
		s->r.flags |= SAMPLE_F_USER_TRUNCATED;
		beam_count(BEAM_CTR_FULL);
	}
	return beam_cut(ctx, c, s, BEAM_CTR__COUNT, UNW_STEP_END);
}

static __always_inline int beam_walk(void *ctx, const struct chain c)
{
	struct chain_slot *s = chain_slot(c);
	struct beam_walk w = {};
	__u32 leaf, zero = 0;
	int ret = 0;

	if (!s)
		return 0;
	w.p = beam_start(ctx, c, s, &ret);
	if (!w.p)
		return ret;
	leaf = s->r.ustack_len;
	w.chunk = bpf_map_lookup_elem(&beam_chunk, &zero);
	if (!w.chunk)
		return beam_cut(ctx, c, s, BEAM_CTR__COUNT, UNW_STEP_BAD_FRAME);
	w.s = s;
	w.sp = s->w.regs.sp;
	bpf_loop(BEAM_SCAN_WORDS, beam_word_cb, &w, 0);
	return beam_scanned(ctx, c, s, leaf, w.bottom, w.full);
}
EBPROF_WALKER(beam_walk)

/* Words per program of the walker without bpf_loop: BEAM_SCAN_WORDS in 8 programs. */
#define BEAM_WORDS_PER_CALL 1024

/* The scan across the walker's own tail calls (walk_state.rt). */
struct beam_resume {
	__u32 words; /* scanned so far */
	__u32 leaf;  /* the record's length after the leaf frame */
	__u32 bottom, full;
	__u32 started;
};

/* One word of the scan resumed from the walk state: its stack pointer is the walk
 * state's, its progress in from rs and back out. A global function takes no pointers
 * before 5.12, so the chunk is looked up here. */
static __always_inline long beam_word_resumed(struct chain_slot *s, struct beam_resume *rs,
					      const struct beam_proc *p)
{
	__u32 zero = 0;
	__u64 *chunk = bpf_map_lookup_elem(&beam_chunk, &zero);
	struct beam_walk w = {.s = s, .p = p};
	long stop;

	if (!chunk)
		return 1;
	w.chunk = chunk;
	w.sp = s->w.regs.sp;
	w.full = rs->full;
	stop = beam_word_cb(rs->words, &w);
	rs->words++;
	rs->bottom = w.bottom;
	rs->full = w.full;
	return stop;
}

/* One word of the scan without bpf_loop (bpf/chain.bpf.h): beam_resume in rt, the
 * beam_proc in walking. */
CHAIN_FRAME(beam_word, beam_word_resumed, struct beam_resume, struct beam_proc, walking)

/* The BEAM walker for kernels without bpf_loop (before 5.17): BEAM_WORDS_PER_CALL calls
 * of beam_word, then a tail call to itself while the scan goes on, up to the same
 * BEAM_SCAN_WORDS words as with bpf_loop. */
static __always_inline int beam_walk_unrolled(void *ctx, const struct chain c)
{
	struct chain_slot *s = chain_slot(c);
	const struct beam_proc *p;
	struct beam_resume *rs;
	__u32 stop = 0, leaf, bottom, full;
	int ret = 0;

	if (!s)
		return 0;
	rs = (struct beam_resume *)s->w.rt;
	if (!rs->started) {
		p = beam_start(ctx, c, s, &ret);
		if (!p)
			return ret;
		rs->leaf = s->r.ustack_len;
		rs->started = 1;
	} else {
		p = bpf_map_lookup_elem(&pid_to_beam, &s->w.pid);
	}
	if (!p) {
		chain_resume_clear(s);
		return beam_cut(ctx, c, s, BEAM_CTR_NO_PROC, UNW_STEP_BAD_FRAME);
	}
	__builtin_memcpy(s->w.walking, p, sizeof(*p));
	for (__u32 i = 0; i < BEAM_WORDS_PER_CALL && !stop; i++)
		stop = beam_word(c.slot);
	if (!stop && rs->words < BEAM_SCAN_WORDS)
		return chain_next(ctx, c, s, WALKER_BEAM);
	leaf = rs->leaf;
	bottom = rs->bottom;
	full = rs->full;
	chain_resume_clear(s);
	return beam_scanned(ctx, c, s, leaf, bottom, full);
}
EBPROF_WALKER(beam_walk_unrolled)
