// SPDX-License-Identifier: GPL-2.0
/* The Go walker. Go frames are native code, named from the pclntab in userspace; the
 * walker does two things the native walker cannot. Handed the registers at
 * runtime.asmcgocall (claimed UNW_MARK_WALK), it crosses a cgo call from the system stack
 * back to the goroutine's (go_cgo_step.h), and at runtime.systemstack the runtime's
own switches to it (systemstack, morestack), and hands them back. Run after the native
 * walk of every sample of a Go process (unw_proc.always), it reads what only the
 * sample's moment knows, the pprof labels (pprof.Do) of the goroutine the thread was
 * running: it finds the thread's g in its TLS, that M's current goroutine, its labels,
 * and appends each label's key and value as a pair of frames (address and length of the
 * string; userspace reads the bytes). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "arch/arch.h"
#include "chain.bpf.h"
#include "go_proc.h"

#define GO_READ_USER(dst, size, addr) read_user((dst), (size), (addr))
#include "go_cgo_step.h"

char LICENSE[] SEC("license") = "GPL";

/* Go processes userspace has described (go.c). */
CHAIN_PROCS(pid_to_go, struct go_proc);

/* What this walker could not do, per CPU (enum go_counter, printed by go.c). */
CHAIN_COUNTERS(go_counters, go_count, GO_CTR__COUNT);

struct go_string {
	__u64 ptr;
	__u64 len;
};

/* Appends one string as a frame; false when the record is full. */
static __always_inline bool push_string(struct sample_record *r, const struct go_string *s,
					__u32 flags)
{
	__u32 i = r->ustack_len;
	__u64 len = s->len < GO_LABEL_LEN_MAX ? s->len : GO_LABEL_LEN_MAX;

	if (i >= UNW_MAX_FRAMES)
		return false;
	/* The verifier wants the index inside the array: i < UNW_MAX_FRAMES, a power of 2. */
	r->ustack[i & (UNW_MAX_FRAMES - 1)] = (struct user_frame){
	    .addr = s->ptr,
	    .file_id = UF_RUNTIME_FILE(WALKER_GO),
	    .pad = UF_LABEL | flags | (__u32)len,
	};
	r->ustack_len = i + 1;
	return true;
}

/* One label at addr: two string headers, key then value. Returns 1 when added. */
static __always_inline int push_label(struct sample_record *r, __u64 key, __u64 value)
{
	struct go_string k, v;

	if (read_user(&k, sizeof(k), key) || read_user(&v, sizeof(v), value)) {
		go_count(GO_CTR_READ_FAULT);
		return 0;
	}
	if (r->ustack_len + 2 > UNW_MAX_FRAMES) {
		go_count(GO_CTR_NO_ROOM);
		return 0;
	}
	push_string(r, &k, 0);
	push_string(r, &v, UF_LABEL_VALUE);
	return 1;
}

/* What the bpf_loop() callbacks below share: one callback body is verified once,
 * where unrolled label reads cost 17 k verified instructions (6.18). */
struct go_labels_walk {
	struct sample_record *r;
	__u64 base;					/* the slice's array, or the first bucket */
	__u64 len;					/* slice: its length */
	__u8 top[GO_MAP_BUCKETS_MAX * GO_BUCKET_SLOTS]; /* map: the buckets' top hashes */
	int n;
};

/* bpf_loop() callback: label i of a 1.24+ labelMap (struct { list []label }, label =
 * {key, value string}, 32 bytes). */
static long slice_label(__u32 i, void *arg)
{
	struct go_labels_walk *w = arg;
	__u64 at = w->base + 32 * (__u64)i;

	if (i >= w->len || w->n >= GO_LABELS_MAX)
		return 1;
	w->n += push_label(w->r, at, at + 16);
	return 0;
}

/* bpf_loop() callback: slot i of the map's first buckets (before 1.24). */
static long map_label(__u32 i, void *arg)
{
	struct go_labels_walk *w = arg;
	__u32 slot = i % GO_BUCKET_SLOTS;
	__u64 bucket = w->base + GO_BUCKET_SIZE * (__u64)(i / GO_BUCKET_SLOTS);

	if (w->n >= GO_LABELS_MAX)
		return 1;
	/* The mask keeps the index inside top[] for the verifier. */
	if (w->top[i & (GO_MAP_BUCKETS_MAX * GO_BUCKET_SLOTS - 1)] < GO_MIN_TOPHASH)
		return 0;
	w->n += push_label(w->r, bucket + GO_BUCKET_KEYS + 16 * slot,
			   bucket + GO_BUCKET_VALUES + 16 * slot);
	return 0;
}

static __always_inline int slice_labels(struct sample_record *r, __u64 lm, int unrolled)
{
	struct go_labels_walk w = {.r = r};
	struct go_string list; /* the slice's pointer and length (its cap follows) */

	if (read_user(&list, sizeof(list), lm)) {
		go_count(GO_CTR_READ_FAULT);
		return 0;
	}
	w.base = list.ptr;
	w.len = list.len;
	CHAIN_LOOP(unrolled, GO_LABELS_MAX, GO_LABELS_MAX, slice_label, &w);
	return w.n;
}

/* Up to 1.23: labelMap is map[string]string; the labels pointer points at the map
 * variable, which points at the hmap. Small maps have one or two buckets. */
static __always_inline int map_labels(struct sample_record *r, __u64 lm, int unrolled)
{
	struct go_labels_walk w = {.r = r};
	__u64 hmap = 0;
	__u8 b = 0;

	if (read_user(&hmap, sizeof(hmap), lm) || !hmap ||
	    read_user(&b, sizeof(b), hmap + GO_HMAP_B) ||
	    read_user(&w.base, sizeof(w.base), hmap + GO_HMAP_BUCKETS) || !w.base) {
		go_count(GO_CTR_READ_FAULT);
		return 0;
	}
	if (b >= 2)
		go_count(GO_CTR_BIG_MAP);
	if (read_user(w.top, GO_BUCKET_SLOTS, w.base) ||
	    (b && read_user(w.top + GO_BUCKET_SLOTS, GO_BUCKET_SLOTS, w.base + GO_BUCKET_SIZE))) {
		go_count(GO_CTR_READ_FAULT);
		return 0;
	}
	CHAIN_LOOP(unrolled, b ? 2 * GO_BUCKET_SLOTS : GO_BUCKET_SLOTS,
		   GO_MAP_BUCKETS_MAX * GO_BUCKET_SLOTS, map_label, &w);
	return w.n;
}

/* The goroutine the sampled thread runs (m.curg: also while the thread is on g0 or the
 * signal stack on that goroutine's behalf); 0 when none. */
static __always_inline __u64 thread_curg(const struct go_proc *gp)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 fs = ARCH_TASK_TP(task), g = 0, m = 0, curg = 0;

	if (!fs || read_user(&g, sizeof(g), fs + gp->tls_g) || !g) {
		go_count(GO_CTR_NO_G);
		return 0;
	}
	if (read_user(&m, sizeof(m), g + gp->g_m) || !m ||
	    read_user(&curg, sizeof(curg), m + gp->m_curg))
		return 0; /* no M (exiting), or an idle M: no goroutine */
	return curg;
}

/* The labels pointer of the goroutine the sampled thread runs; 0 when none. */
static __always_inline __u64 curg_labels(const struct go_proc *gp)
{
	__u64 curg = thread_curg(gp), lm = 0;

	if (!curg || read_user(&lm, sizeof(lm), curg + gp->g_labels))
		return 0;
	return lm;
}

/* The in-order walk cannot go on past asmcgocall: the stack ends here, incomplete. */
static __always_inline int cgo_cut(void *ctx, const struct chain c, struct chain_slot *s,
				   __u32 counter, __u32 stop)
{
	go_count(counter);
	chain_stack_ends(s, stop);
	return chain_next(ctx, c, s, chain_deferred(&s->w));
}

/* Handed the registers at asmcgocall or systemstack: records its frame (the native walker
 * stopped before it) and gives the native walker its caller, on the goroutine's stack. */
static __always_inline int cgo_cross(void *ctx, const struct chain c, struct chain_slot *s,
				     const struct go_proc *gp)
{
	struct sample_record *r = &s->r;
	struct unw_regs regs = s->w.regs;
	__u32 n = r->ustack_len;
	int step, kind;

	s->w.handover = 0; /* from here on this walker runs as the deferred one */
	/* A pc it does not own: handing it back would bounce until the budget ends. */
	if (!gp)
		return cgo_cut(ctx, c, s, GO_CTR_CGO_BAD, UNW_STEP_BAD_FRAME);
	if (regs.pc >= gp->ss_lo && regs.pc < gp->ss_hi)
		kind = GO_SWITCH_SYSTEMSTACK;
	else if (regs.pc >= gp->ms_lo && regs.pc < gp->ms_hi)
		kind = GO_SWITCH_MORESTACK;
	else if (regs.pc >= gp->cgo_lo && regs.pc < gp->cgo_hi)
		kind = GO_SWITCH_CGO;
	else
		return cgo_cut(ctx, c, s, GO_CTR_CGO_BAD, UNW_STEP_BAD_FRAME);
	if (n >= UNW_MAX_FRAMES) {
		r->flags |= SAMPLE_F_USER_TRUNCATED;
		chain_stack_ends(s, UNW_STEP_END);
		return chain_next(ctx, c, s, chain_deferred(&s->w));
	}
	/* The mask restates the bound for the verifier, which lost it through the map. */
	r->ustack[n & (UNW_MAX_FRAMES - 1)] = (struct user_frame){
	    .addr = (regs.pc_exact ? regs.pc : regs.pc - 1) - gp->sw_off_bias,
	    .file_id = gp->sw_file_id,
	};
	r->ustack_len = n + 1;
	step = go_cgo_step(gp, thread_curg(gp), &regs, kind);
	if (step == GO_CGO_LEAF)
		return cgo_cut(ctx, c, s, GO_CTR_CGO_LEAF, UNW_STEP_NO_ROW);
	if (step == GO_CGO_FAULT)
		return cgo_cut(ctx, c, s, GO_CTR_CGO_FAULT, UNW_STEP_READ_FAULT);
	if (step != GO_CGO_NEXT)
		return cgo_cut(ctx, c, s, GO_CTR_CGO_BAD, UNW_STEP_BAD_FRAME);
	if (kind == GO_SWITCH_SYSTEMSTACK)
		go_count(GO_CTR_SYSTEMSTACK);
	else if (kind == GO_SWITCH_MORESTACK)
		go_count(GO_CTR_MORESTACK);
	else
		go_count(GO_CTR_CGO);
	s->w.regs = regs;
	return chain_next(ctx, c, s, WALKER_NATIVE);
}

/* The walker: crossing a stack switch when handed the registers, else the labels.
 * unrolled (a constant): without bpf_loop (before 5.17), the label loops unrolled (at
 * most GO_MAP_BUCKETS_MAX * GO_BUCKET_SLOTS slots, so no tail call to itself). */
static __always_inline int go_walk_any(void *ctx, const struct chain c, int unrolled)
{
	struct chain_slot *s = chain_slot(c);
	const struct go_proc *gp;
	__u64 lm;
	int n = 0;

	if (!s)
		return 0;
	gp = bpf_map_lookup_elem(&pid_to_go, &s->w.pid);
	if (s->w.handover == WALKER_GO)
		return cgo_cross(ctx, c, s, gp);
	lm = gp && gp->labels_kind != GO_LABELS_NONE ? curg_labels(gp) : 0;
	if (lm && gp->labels_kind == GO_LABELS_SLICE)
		n = slice_labels(&s->r, lm, unrolled);
	else if (lm)
		n = map_labels(&s->r, lm, unrolled);
	if (n)
		go_count(GO_CTR_LABELS);
	return chain_done(ctx, c, s, WALKER_GO);
}

static __always_inline int go_walk(void *ctx, const struct chain c)
{
	return go_walk_any(ctx, c, 0);
}
EBPROF_WALKER(go_walk)

static __always_inline int go_walk_unrolled(void *ctx, const struct chain c)
{
	return go_walk_any(ctx, c, 1);
}
EBPROF_WALKER(go_walk_unrolled)
