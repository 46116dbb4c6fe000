// SPDX-License-Identifier: GPL-2.0
/* CPU sampling: runs on every cpu-clock perf event, captures who was running, the
 * kernel stack, and the user stack unwound from compiled CFI tables (frames as file id
 * and offset), and sends one record through the ring buffer. Processes userspace has
 * not described yet fall back to frame pointers and trigger a notice. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "sample.h"

char LICENSE[] SEC("license") = "GPL";

/* Set before load: nonzero makes only the processes in profiled_pids count. */
const volatile __u32 filter_pids = 0;
/* Follow fork() of profiled processes (for "-- CMD" and its children). */
const volatile __u32 follow_children = 0;
/* Samples wake userspace only once this many bytes wait (a quarter of the ring),
 * instead of once per sample; userspace also polls on a timer. */
const volatile __u64 wakeup_bytes = 2 << 20;
/* Minimum gap between two notices about one process. */
const volatile __u64 notice_interval_ns = 100000000;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20); /* resized by userspace before load */
} samples SEC(".maps");

/* Thread group ids to profile when filter_pids is set. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} profiled_pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CTR__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* Executable mappings of every described process (userspace writes them). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* 5 KiB values: pay only for live processes */
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct unw_proc);
} pid_to_mappings SEC(".maps");

/* Which rows of the pool belong to which table. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct unw_table);
} unwind_tables SEC(".maps");

/* The shared pool of compiled CFI rows of every table. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 << 20); /* sized by userspace from the memory budget */
	__type(key, __u32);
	__type(value, struct unwind_row);
} unwind_rows SEC(".maps");

/* When a process last caused a notice of a kind (pid | kind << 28), to rate-limit. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} notice_times SEC(".maps");

/* The record under construction: too large for the 512-byte BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sample_record);
} scratch SEC(".maps");

static __always_inline void count(__u32 id)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &id);

	if (v)
		*v += 1;
}

static __always_inline const struct unwind_row *pool_row(__u32 idx)
{
	return bpf_map_lookup_elem(&unwind_rows, &idx);
}

static __always_inline int read_user(void *dst, __u32 size, __u64 addr)
{
	return bpf_probe_read_user(dst, size, (const void *)addr) ? -1 : 0;
}

#define UNW_READ_USER(dst, size, addr) read_user(dst, size, addr)
#define UNW_ROW(idx) pool_row(idx)
#define UNW_LOOP(n, fn, ctx) bpf_loop(n, fn, ctx, 0)
#include "unwind_step.h"
#include "python.h"

static __always_inline int wanted(__u32 pid)
{
	if (!filter_pids)
		return 1;
	return bpf_map_lookup_elem(&profiled_pids, &pid) != NULL;
}

/* Tells userspace about pid, at most once per notice_interval_ns per process and kind:
 * an "unknown process" notice must not mute the "unknown mapping" that follows when
 * the process was described before ld.so had mapped its libraries. */
static __always_inline void notice(__u32 type, __u32 pid, __u64 addr)
{
	__u32 key = pid | type << 28; /* pids fit in 22 bits (PID_MAX_LIMIT) */
	__u64 now = bpf_ktime_get_ns(), *last = bpf_map_lookup_elem(&notice_times, &key);
	struct notice_record n = {.type = type, .pid = pid, .addr = addr};

	if (last && now - *last < notice_interval_ns)
		return;
	bpf_map_update_elem(&notice_times, &key, &now, BPF_ANY);
	if (bpf_ringbuf_output(&samples, &n, sizeof(n), 0))
		count(CTR_NOTICES_LOST);
}

struct unw_ctx {
	struct unw_regs regs;
	struct sample_record *r;
	const struct unw_proc *proc;
	__u32 pid;
	__u32 stop;	   /* enum unw_step that ended the walk */
	__u32 noticed;	   /* an unknown mapping was reported for this sample */
	struct py_walk py; /* interpreter frames (python.h) */
};

/* Unwinds one frame of a mapping without a usable table: frame pointers. */
static __always_inline int fp_frame(struct unw_ctx *c, __u32 counter)
{
	count(counter);
	return unw_fp_step(&c->regs, c->r->ustack_len == 1);
}

static __always_inline int table_frame(struct unw_ctx *c, const struct unw_mapping *m, __u64 pc)
{
	__u32 id = m->table;
	const struct unw_table *t = id ? bpf_map_lookup_elem(&unwind_tables, &id) : 0;
	const struct unwind_row *row;
	long idx;
	int step;

	if (!t || !t->count)
		return fp_frame(c, CTR_NO_TABLE);
	idx = unw_find_row(t->first, t->count, (__u32)(pc - m->vaddr_bias));
	row = idx >= 0 ? pool_row((__u32)idx) : 0;
	step = row ? unw_apply_row(row, &c->regs) : UNW_STEP_NO_ROW;
	/* Code the CFI does not cover (built without unwind tables, hand-written assembly)
	 * may still keep frame pointers. */
	if (step == UNW_STEP_NO_ROW)
		return fp_frame(c, CTR_NO_ROW);
	return step;
}

/* bpf_loop() callback: records the frame at regs.pc and steps to its caller. The
 * verifier checks this body once, whatever the number of frames. */
static long unwind_frame(__u32 i, void *arg)
{
	struct unw_ctx *c = arg;
	struct sample_record *r = c->r;
	__u64 pc = unw_lookup_pc(&c->regs);
	const struct unw_mapping *m = c->proc ? unw_find_mapping(c->proc, pc) : 0;
	__u32 n = r->ustack_len;
	struct user_frame *f;
	int step, py;

	if (n >= UNW_MAX_FRAMES) {
		r->flags |= SAMPLE_F_USER_TRUNCATED;
		return 1;
	}
	/* The mask restates the bound for the verifier, which lost it through the map. */
	f = &r->ustack[n & (UNW_MAX_FRAMES - 1)];
	r->ustack_len = n + 1;
	/* --- interpreter hook: the eval loop's frame becomes the Python frames it runs,
	 * one per call; regs stay on the eval loop until its last one is out. --- */
	py = m && python_wants(&c->py, pc) ? python_frame(&c->py, f, pc) : PY_NONE;
	if (py == PY_MORE)
		return 0;
	if (py == PY_END)
		r->ustack_len = n;
	/* --- end of the interpreter hook --- */
	if (!m) {
		f->addr = c->regs.pc;
		f->file_id = 0;
		if (c->proc && !c->noticed) {
			c->noticed = 1;
			count(CTR_UNKNOWN_MAPPING);
			notice(RECORD_UNKNOWN_MAPPING, c->pid, c->regs.pc);
		}
		step = unw_fp_step(&c->regs, n == 0);
	} else {
		/* Anonymous code (JIT) has no file: keep the raw pc, as for unknown ones. */
		if (py == PY_NONE) {
			f->addr = m->file_id ? pc - m->off_bias : c->regs.pc;
			f->file_id = m->file_id;
		}
		step = m->table ? table_frame(c, m, pc) : fp_frame(c, CTR_NO_TABLE);
	}
	if (step == UNW_STEP_NEXT)
		return 0;
	c->stop = step;
	return 1;
}

/* x86-64 struct pt_regs as the UAPI fixes it (asm/ptrace.h): the perf event's regs and
 * the ones saved at kernel entry share this layout on every kernel, so no CO-RE. */
struct x86_regs {
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	__u64 ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

/* The user registers at the moment of the sample: the perf event's own when it
 * interrupted user mode, else those saved at kernel entry (bpf_task_pt_regs, 5.15). */
static __always_inline int user_regs(struct bpf_perf_event_data *ctx, struct unw_regs *u)
{
	const struct x86_regs *ev = (const struct x86_regs *)&ctx->regs;
	struct x86_regs saved;
	__u16 insn = 0;
	void *regs;

	if ((ev->cs & 3) == 3) {
		u->pc = ev->ip;
		u->sp = ev->sp;
		u->fp = ev->bp;
		u->pc_exact = 1;
		return 0;
	}
	regs = (void *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (!regs || bpf_probe_read_kernel(&saved, sizeof(saved), regs))
		return -1;
	u->pc = saved.ip;
	u->sp = saved.sp;
	u->fp = saved.bp;
	if (!u->pc || (saved.cs & 3) != 3)
		return -1;
	/* After a syscall the pc follows the syscall instruction (0f 05) and is looked up
	 * like a return address; after an interrupt or a fault it is the exact
	 * instruction, and looking up the byte before it can land in another row. */
	u->pc_exact =
	    bpf_probe_read_user(&insn, sizeof(insn), (void *)(u->pc - 2)) || insn != 0x050f;
	return 0;
}

static __always_inline void unwind_user(struct bpf_perf_event_data *ctx, struct sample_record *r)
{
	struct unw_ctx c = {.r = r, .pid = r->pid, .stop = UNW_STEP_END};

	if (!r->pid || user_regs(ctx, &c.regs))
		return;
	c.proc = bpf_map_lookup_elem(&pid_to_mappings, &c.pid);
	if (c.proc) {
		r->flags |= SAMPLE_F_USER_UNWOUND;
		python_start(&c.py, c.pid, r->tid, bpf_get_current_task_btf());
	} else {
		/* Not described yet: frame pointers until the tracker has read it. */
		count(CTR_UNKNOWN_PID);
		notice(RECORD_UNKNOWN_PID, r->pid, 0);
	}
	/* One iteration more than there are slots: it finds them full and marks the
	 * stack truncated instead of passing it off as complete. */
	bpf_loop(UNW_MAX_FRAMES + 1, unwind_frame, &c, 0);
	r->stop_reason = c.stop;
	if (c.stop == UNW_STEP_NO_ROW)
		count(CTR_NO_ROW);
	else if (c.stop == UNW_STEP_READ_FAULT)
		count(CTR_READ_FAULT);
	else if (c.stop == UNW_STEP_BAD_FRAME)
		count(CTR_BAD_FRAME);
	if (c.stop != UNW_STEP_END)
		r->flags |= SAMPLE_F_USER_INCOMPLETE;
}

static __always_inline void fill_kernel_stack(struct bpf_perf_event_data *ctx,
					      struct sample_record *r)
{
	long n = bpf_get_stack(ctx, r->kstack, sizeof(r->kstack), 0);

	r->kstack_len = 0;
	if (n < 0) {
		count(CTR_KSTACK_ERR);
		return;
	}
	r->kstack_len = n / sizeof(__u64);
	if (r->kstack_len == EBPROF_MAX_KSTACK)
		r->flags |= SAMPLE_F_KERNEL_TRUNCATED;
}

/* A wakeup costs the consumer a context switch: batch them. */
static __always_inline __u64 wakeup_flag(void)
{
	return bpf_ringbuf_query(&samples, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP
									      : BPF_RB_NO_WAKEUP;
}

/* Sends the used part of the record: most samples have a few dozen frames. */
static __always_inline void submit(struct sample_record *r)
{
	__u64 size = offsetof(struct sample_record, ustack) +
		     (__u64)(r->ustack_len & (2 * UNW_MAX_FRAMES - 1)) * sizeof(struct user_frame);

	/* Restated bound for the verifier: never past the record. */
	if (size > sizeof(*r))
		size = sizeof(*r);
	if (bpf_ringbuf_output(&samples, r, size, wakeup_flag()))
		count(CTR_RINGBUF_FULL);
}

SEC("perf_event")
int on_cpu_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct *task;
	struct sample_record *r;
	__u32 zero = 0;

	count(CTR_SAMPLES);
	if (!wanted(id >> 32)) {
		count(CTR_FILTERED);
		return 0;
	}
	r = bpf_map_lookup_elem(&scratch, &zero);
	if (!r)
		return 0;
	r->type = RECORD_SAMPLE;
	r->time_ns = bpf_ktime_get_ns();
	r->pid = id >> 32;
	r->tid = (__u32)id;
	r->cpu = bpf_get_smp_processor_id();
	r->flags = 0;
	r->ustack_len = 0;
	r->stop_reason = 0;
	r->pad = 0;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	task = (struct task_struct *)bpf_get_current_task();
	BPF_CORE_READ_STR_INTO(&r->pcomm, task, group_leader, comm);
	fill_kernel_stack(ctx, r);
	unwind_user(ctx, r);
	submit(r);
	return 0;
}

/* A child of a profiled process is profiled too ("-- CMD" follows its children). A raw
 * tracepoint, not tp_btf: it needs no attach BTF, so loading never parses vmlinux BTF. */
SEC("raw_tp/sched_process_fork")
int on_fork(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *parent = (struct task_struct *)ctx->args[0];
	struct task_struct *child = (struct task_struct *)ctx->args[1];
	__u32 ppid = BPF_CORE_READ(parent, tgid);
	__u32 cpid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (!follow_children || ppid == cpid)
		return 0;
	if (!bpf_map_lookup_elem(&profiled_pids, &ppid))
		return 0;
	if (bpf_map_update_elem(&profiled_pids, &cpid, &one, BPF_ANY))
		count(CTR_FILTER_FULL);
	return 0;
}

/* A process replaced its image: its mappings are stale. Described processes, and with
 * a process filter every wanted one, are (re)described right away; elsewhere a new
 * image waits for its first sample, so a burst of short execs costs nothing. */
SEC("raw_tp/sched_process_exec")
int on_exec(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	struct notice_record n = {.type = RECORD_UNKNOWN_PID, .pid = pid};
	bool described = bpf_map_lookup_elem(&pid_to_mappings, &pid) != NULL;

	if (!wanted(pid) || (!described && !filter_pids))
		return 0;
	if (described)
		bpf_map_delete_elem(&pid_to_mappings, &pid);
	if (bpf_ringbuf_output(&samples, &n, sizeof(n), 0))
		count(CTR_NOTICES_LOST);
	return 0;
}

/* A process ended: userspace releases what it held for it. */
SEC("raw_tp/sched_process_exit")
int on_exit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct notice_record n = {.type = RECORD_PROCESS_EXIT, .pid = id >> 32};

	/* Threads exit one by one; the process ends with its leader. */
	if ((__u32)id != (__u32)(id >> 32) || !bpf_map_lookup_elem(&pid_to_mappings, &n.pid))
		return 0;
	if (bpf_ringbuf_output(&samples, &n, sizeof(n), 0))
		count(CTR_NOTICES_LOST);
	return 0;
}
