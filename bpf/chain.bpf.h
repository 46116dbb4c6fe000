/* SPDX-License-Identifier: GPL-2.0 */
/* The BPF half of the walker chain (bpf/chain.h), included by every walker object
 * (bpf/sample.bpf.c, src/interp/NAME/NAME.bpf.c): the maps all of them use (the loader makes a
 * later object's same-named maps reuse the first object's), hand-over between walkers,
 * and the macro that compiles a walker once per entry program type. */
#ifndef EBPROF_CHAIN_BPF_H
#define EBPROF_CHAIN_BPF_H

#include "chain.h"

struct chain {
	__u32 type; /* enum chain_type */
	__u32 slot; /* enum scratch_slot */
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20); /* resized by userspace before load */
} samples SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCRATCH__COUNT);
	__type(key, __u32);
	__type(value, struct chain_slot);
} scratch SEC(".maps");

/* Executable mappings of every described process, with the runtimes' markers
 * (userspace writes them): the native walker's map, and where a walking runtime
 * finds whether a pc is still its own. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* 6 KiB values: pay only for live processes */
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct unw_proc);
} pid_to_mappings SEC(".maps");

#define CHAIN_PROG_ARRAY(name)                         \
	struct {                                       \
		__uint(type, BPF_MAP_TYPE_PROG_ARRAY); \
		__uint(max_entries, WALKER__COUNT);    \
		__type(key, __u32);                    \
		__type(value, __u32);                  \
	} name SEC(".maps")

CHAIN_PROG_ARRAY(walkers_perf);
CHAIN_PROG_ARRAY(walkers_uprobe);
CHAIN_PROG_ARRAY(walkers_tp);
CHAIN_PROG_ARRAY(walkers_rawtp);

/* A runtime's processes userspace has described (its NAME.c writes them, read by its
 * walker): pid -> its description. */
#define CHAIN_PROCS(name, desc)                                                          \
	struct {                                                                         \
		__uint(type, BPF_MAP_TYPE_HASH);                                         \
		__uint(map_flags, BPF_F_NO_PREALLOC); /* pay only for those described */ \
		__uint(max_entries, 4096);                                               \
		__type(key, __u32);                                                      \
		__type(value, desc);                                                     \
	} name SEC(".maps")

/* A walker's own per-CPU counters (enum RUNTIME_counter, summed by its userspace half
 * with counters__sum()): the map and fn(id), which adds one. */
#define CHAIN_COUNTERS(map, fn, n)                         \
	struct {                                           \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);   \
		__uint(max_entries, n);                    \
		__type(key, __u32);                        \
		__type(value, __u64);                      \
	} map SEC(".maps");                                \
	static __always_inline void fn(__u32 id)           \
	{                                                  \
		__u64 *v = bpf_map_lookup_elem(&map, &id); \
                                                           \
		if (v)                                     \
			*v += 1;                           \
	}

CHAIN_COUNTERS(counters, count, CTR__COUNT);

/* When a process last caused a notice of a kind (pid | kind << 28), to rate-limit. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} notice_times SEC(".maps");

#define CHAIN_NOTICE_INTERVAL_NS 100000000ULL

/* Tells userspace about pid, at most once per 100 ms per process and kind: an "unknown
 * process" notice must not mute the "unknown mapping" that follows when the process was
 * described before ld.so had mapped its libraries. It wakes userspace at once (see
 * on_exec): notices are rare and every ms before the tracker acts is a sample without
 * its stack. Any walker may send one: an unknown mapping asks for the process to be
 * described again, which is also how a runtime found still starting is looked at again. */
static __always_inline void notice(__u32 type, __u32 pid, __u64 addr)
{
	__u32 key = pid | type << 28; /* pids fit in 22 bits (PID_MAX_LIMIT) */
	__u64 now = bpf_ktime_get_ns(), *last = bpf_map_lookup_elem(&notice_times, &key);
	struct notice_record n = {.type = type, .pid = pid, .addr = addr};

	if (last && now - *last < CHAIN_NOTICE_INTERVAL_NS)
		return;
	bpf_map_update_elem(&notice_times, &key, &now, BPF_ANY);
	if (bpf_ringbuf_output(&samples, &n, sizeof(n), BPF_RB_FORCE_WAKEUP))
		count(CTR_NOTICES_LOST);
}

/* The in-order part of the user stack ends here (stop: enum unw_step); the deferred
 * runtimes append after it. Anything but the stack's end marks the sample incomplete. */
static __always_inline void chain_stack_ends(struct chain_slot *s, __u32 stop)
{
	s->r.ustack_inorder = s->r.ustack_len;
	s->r.stop_reason = stop;
	if (stop != UNW_STEP_END)
		s->r.flags |= SAMPLE_F_USER_INCOMPLETE;
}

static __always_inline int read_user(void *dst, __u32 size, __u64 addr)
{
	return bpf_probe_read_user(dst, size, (const void *)addr) ? -1 : 0;
}

static __always_inline struct chain_slot *chain_slot(const struct chain c)
{
	__u32 slot = c.slot;

	return bpf_map_lookup_elem(&scratch, &slot);
}

/* The verifier needs the program array as a constant at each bpf_tail_call: c.type
 * is a constant in every walker the macro below expands, so only one case remains. */
static __always_inline void chain_tail_call(void *ctx, const struct chain c, struct chain_slot *s,
					    __u32 walker)
{
	volatile __u32 *next = &s->w.next;

	/* The index goes through map memory, whose contents the verifier does not track, so
	 * no tail call has a constant index. With one, the JIT patches a direct jump into
	 * the program and the array tracks it ("poke"); with those, program arrays stayed
	 * in the kernel after every program and fd was gone (6.18: 25 arrays over one suite
	 * run, 6 over the teardown tests). An indirect tail call costs a bounds check. */
	*next = walker;
	walker = *next;
	switch (c.type) {
	case CHAIN_PERF:
		bpf_tail_call(ctx, &walkers_perf, walker);
		break;
	case CHAIN_UPROBE:
		bpf_tail_call(ctx, &walkers_uprobe, walker);
		break;
	case CHAIN_TP:
		bpf_tail_call(ctx, &walkers_tp, walker);
		break;
	case CHAIN_RAWTP:
		bpf_tail_call(ctx, &walkers_rawtp, walker);
		break;
	}
}

/* Hands the walk to walker; returns only when that failed. One tail call is always
 * kept for WALKER_SUBMIT, so a stack that needs more hand-overs is cut, not lost. */
static __always_inline int chain_next(void *ctx, const struct chain c, struct chain_slot *s,
				      __u32 walker)
{
	if (walker != WALKER_SUBMIT && s->w.tail_calls >= WALK_MAX_TAIL_CALLS - 1) {
		count(CTR_TAIL_CALLS_OUT);
		s->r.flags |= SAMPLE_F_USER_INCOMPLETE;
		if (!s->w.cause)
			s->w.cause = CUT_DEPTH + 1;
		walker = WALKER_SUBMIT;
	}
	s->w.tail_calls++;
	chain_tail_call(ctx, c, s, walker);
	/* An exit's stack (WALK_FINISH_EXIT) runs the native walker alone: a runtime's
	 * region ends it there, incomplete, and is no failure. */
	if (s->w.finish == WALK_FINISH_EXIT && walker != WALKER_SUBMIT)
		s->r.flags |= SAMPLE_F_USER_INCOMPLETE;
	else
		count(CTR_TAIL_CALL_FAILED);
	if (walker == WALKER_SUBMIT)
		return -1; /* the record is lost: counted */
	/* A runtime's walker is missing: finish without it. */
	s->w.tail_calls++;
	chain_tail_call(ctx, c, s, WALKER_SUBMIT);
	return -1;
}

/* Calls fn(i, ctx) for i < n until it returns nonzero: with bpf_loop, or, when unrolled
 * (a constant: kernels without bpf_loop, before 5.17), in a loop the compiler unrolls up
 * to max (a constant, n's bound). Only for short loops: an unrolled body is verified
 * once per iteration, where a walker's frames take a global function (CHAIN_FRAME). */
#define CHAIN_LOOP(unrolled, n, max, fn, ctx)                                  \
	do {                                                                   \
		if (unrolled) {                                                \
			_Pragma("unroll") for (__u32 _i = 0; _i < (max); _i++) \
			{                                                      \
				if (_i >= (n) || fn(_i, ctx))                  \
					break;                                 \
			}                                                      \
		} else {                                                       \
			bpf_loop((n), fn, ctx, 0);                             \
		}                                                              \
	} while (0)

/* A runtime walker without bpf_loop (before 5.17) does a few frames per program and
 * tail-calls itself; each frame is a call of a global function, which the verifier checks
 * once, where frames inlined in the loop were checked once per path into them (Python's
 * 32 frames: 40 k instructions on 5.10, 63 k on 6.18). Before 5.12 a global function
 * takes no pointers, so it is given the scratch slot and looks it up itself, and what it
 * resumes from is in that slot's walk state: the walk's own state in rt (zero when the
 * walker first runs, zeroed by chain_resume_clear() when it hands over for good) and the
 * process's description, which the walker's program copied there, in deferred (a
 * deferred runtime: the searches are dead once the in-order walk is over) or walking (a
 * walking runtime: dead while it has the registers).
 *
 * CHAIN_FRAME(fn, step, resume, desc, where) asserts that resume fits rt and desc fits
 * walk_state.where, and defines that global function, __noinline int fn(__u32 slot): 1
 * when the walk stops. It calls the runtime's step, which copies its loop state in from
 * rs, does one frame and copies it back out:
 *	static __always_inline long step(struct chain_slot *s, resume *rs, desc *p)
 * nonzero when the walk stops. */
#define CHAIN_FRAME(fn, step, resume, desc, where)                              \
	_Static_assert(sizeof(resume) <= sizeof(((struct walk_state *)0)->rt),  \
		       #fn ": walk_state.rt holds " #resume);                   \
	_Static_assert(sizeof(desc) <= sizeof(((struct walk_state *)0)->where), \
		       #fn ": walk_state." #where " holds " #desc);             \
	__noinline int fn(__u32 slot)                                           \
	{                                                                       \
		struct chain_slot *s = bpf_map_lookup_elem(&scratch, &slot);    \
                                                                                \
		if (!s)                                                         \
			return 1;                                               \
		return step(s, (resume *)s->w.rt, (desc *)s->w.where) ? 1 : 0;  \
	}

/* For a walker without bpf_loop when it hands over for good (done, or gone to another
 * walker): the next walker to use rt, or this one at the next sample, finds it zero. */
static __always_inline void chain_resume_clear(struct chain_slot *s)
{
	__builtin_memset(s->w.rt, 0, sizeof(s->w.rt));
}

/* The next deferred runtime still pending, else WALKER_SUBMIT. Unrolled: a dozen
 * compares, where a bit-scan loop would need bpf_loop on every kernel. */
static __always_inline __u32 chain_deferred(const struct walk_state *w)
{
#pragma unroll
	for (__u32 i = WALKER_SUBMIT + 1; i < WALKER__COUNT; i++) {
		if (w->pending & (1u << i))
			return i;
	}
	return WALKER_SUBMIT;
}

/* For a deferred runtime's walker when it is done: the next one, or the submitter. */
static __always_inline int chain_done(void *ctx, const struct chain c, struct chain_slot *s,
				      __u32 self)
{
	s->w.pending &= ~(1u << self);
	return chain_next(ctx, c, s, chain_deferred(&s->w));
}

/* Compiles walker fn (static __always_inline int fn(void *ctx, const struct chain c))
 * once per entry type, as fn_perf, fn_uprobe, fn_tp and fn_rawtp. Each is '?': userspace
 * loads only the types whose entry programs it loads, each as its own loader job. */
#define EBPROF_WALKER(fn)                                                   \
	SEC("?perf_event")                                                  \
	int fn##_perf(void *ctx)                                            \
	{                                                                   \
		return fn(ctx, (struct chain){CHAIN_PERF, SCRATCH_IRQ});    \
	}                                                                   \
	SEC("?uprobe")                                                      \
	int fn##_uprobe(void *ctx)                                          \
	{                                                                   \
		return fn(ctx, (struct chain){CHAIN_UPROBE, SCRATCH_TASK}); \
	}                                                                   \
	SEC("?tracepoint")                                                  \
	int fn##_tp(void *ctx)                                              \
	{                                                                   \
		return fn(ctx, (struct chain){CHAIN_TP, SCRATCH_TRACE});    \
	}                                                                   \
	SEC("?raw_tp")                                                      \
	int fn##_rawtp(void *ctx)                                           \
	{                                                                   \
		return fn(ctx, (struct chain){CHAIN_RAWTP, SCRATCH_TRACE}); \
	}

#endif
