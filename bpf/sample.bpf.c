// SPDX-License-Identifier: GPL-2.0
/* CPU sampling: runs on every cpu-clock perf event, captures who was running and both
 * stacks, and sends one sample_record through the ring buffer. The user stack comes
 * from bpf_get_stack() (frame pointers) for now; the .eh_frame unwinder replaces
 * fill_user_stack() behind the same record layout. */
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

static __always_inline void count(__u32 id)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &id);

	if (v)
		*v += 1;
}

static __always_inline int wanted(__u32 pid)
{
	if (!filter_pids)
		return 1;
	return bpf_map_lookup_elem(&profiled_pids, &pid) != NULL;
}

/* PF_KTHREAD from include/linux/sched.h: kernel threads have no user half. */
#define PF_KTHREAD 0x00200000

static __always_inline void fill_user_stack(struct bpf_perf_event_data *ctx,
					    struct task_struct *task, struct sample_record *r)
{
	long n;

	r->ustack_len = 0;
	if (BPF_CORE_READ(task, flags) & PF_KTHREAD)
		return;
	n = bpf_get_stack(ctx, r->ustack, sizeof(r->ustack), BPF_F_USER_STACK);
	if (n < 0) {
		count(CTR_USTACK_ERR);
		return;
	}
	r->ustack_len = n / sizeof(__u64);
	if (r->ustack_len == EBPROF_MAX_USTACK)
		r->flags |= SAMPLE_F_USER_TRUNCATED;
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

SEC("perf_event")
int on_cpu_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct *task;
	struct sample_record *r;

	count(CTR_SAMPLES);
	if (!wanted(id >> 32)) {
		count(CTR_FILTERED);
		return 0;
	}
	r = bpf_ringbuf_reserve(&samples, sizeof(*r), 0);
	if (!r) {
		count(CTR_RINGBUF_FULL);
		return 0;
	}
	r->time_ns = bpf_ktime_get_ns();
	r->pid = id >> 32;
	r->tid = (__u32)id;
	r->cpu = bpf_get_smp_processor_id();
	r->flags = 0;
	r->pad = 0;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	task = (struct task_struct *)bpf_get_current_task();
	BPF_CORE_READ_STR_INTO(&r->pcomm, task, group_leader, comm);
	fill_kernel_stack(ctx, r);
	fill_user_stack(ctx, task, r);
	bpf_ringbuf_submit(r, 0);
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
