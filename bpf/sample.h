/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* Records the BPF programs send to userspace: a stack collected on an event (a CPU
 * sample, a probe hit, a stretch of off-CPU time) with the event's index and value, or a
 * notice that the unwinder met a process or mapping userspace has not described yet. */
#ifndef EBPROF_SAMPLE_H
#define EBPROF_SAMPLE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "ebprof_shared.h"
#include "unwind.h"

enum record_type {
	RECORD_SAMPLE = 1,
	RECORD_UNKNOWN_PID,	/* a sampled process has no unwind description */
	RECORD_UNKNOWN_MAPPING, /* a pc outside every known mapping (dlopen, JIT, exec) */
	RECORD_PROCESS_EXIT,	/* a thread group leader exited */
	RECORD_ALLOC_FREE,	/* a sampled block was freed (notice_record, addr = the block) */
};

#define SAMPLE_F_USER_TRUNCATED (1u << 0) /* the user stack filled every slot */
#define SAMPLE_F_KERNEL_TRUNCATED (1u << 1)
#define SAMPLE_F_USER_UNWOUND (1u << 2)	   /* user frames from the CFI unwinder */
#define SAMPLE_F_USER_INCOMPLETE (1u << 3) /* the unwinder stopped before the root */

/* A user frame. With file_id set, addr is the file offset of the call site (return
 * addresses already moved back into their call). With file_id 0, addr is the raw pc.
 * A runtime's frame has file_id UF_RUNTIME_FILE(runtime) (real file ids are small and
 * never reach it); addr and the low 24 bits of pad are that runtime's own encoding. */
struct user_frame {
	__u64 addr;
	__u32 file_id;
	__u32 pad;
};

#define UF_RUNTIME_BASE 0xff000000u
#define UF_RUNTIME_FILE(rt) (UF_RUNTIME_BASE | (__u32)(rt) << 16)
#define UF_IS_RUNTIME(file_id) (((file_id)&0xff000000u) == UF_RUNTIME_BASE)
#define UF_RUNTIME_OF(file_id) (((file_id) >> 16) & 0xff)
/* Flags in pad. A native frame in a UNW_MARK_ACTIVATION range: the low byte is the
 * runtime whose activation it is. A runtime frame after ustack_inorder: the last of
 * its activation's group; or a group that has no frame at all (its one frame is only
 * the marker, and the activation keeps its native frame). */
#define UF_ACTIVATION (1u << 31)
#define UF_GROUP_END (1u << 30)
#define UF_GROUP_EMPTY (1u << 29)
/* A runtime's label of the sample (Go's pprof labels), after the in-order part: the
 * runtime's own encoding in addr and the data bits; the value follows its key. */
#define UF_LABEL (1u << 28)
#define UF_LABEL_VALUE (1u << 27)
#define UF_DATA_MASK ((1u << 24) - 1)

/* Events are numbered by userspace: 0 is the CPU clock; probes and off-CPU time take
 * the indices userspace gives them (attach cookies, read-only settings). */
#define EVENT_CPU 0

/* A uretprobe's cookie carries this bit besides the event index: its pc is the return
 * address in the caller, to be looked up as one. */
#define PROBE_COOKIE_RETURN (1ull << 32)

/* Kernel-only allocation probes: which argument of the allocator entry point holds the
 * size, in the cookie's bits 40..47 (enum alloc_size_arg) besides the event index. */
enum alloc_size_arg {
	ALLOC_ARG_1,	     /* malloc, valloc, pvalloc */
	ALLOC_ARG_2,	     /* realloc, memalign, aligned_alloc */
	ALLOC_ARG_3,	     /* posix_memalign */
	ALLOC_ARG_1_TIMES_2, /* calloc */
};
#define ALLOC_COOKIE_ARG_SHIFT 40
#define ALLOC_LOG2_STEPS 256 /* entries (plus one) of the in-BPF log2 table */

struct sample_record {
	__u32 type;  /* RECORD_SAMPLE */
	__u32 event; /* EVENT_CPU, or the index of the probe or off-CPU event */
	__u32 pid;   /* thread group id */
	__u32 tid;
	__u64 time_ns;	  /* bpf_ktime_get_ns() */
	__u64 value;	  /* 1 per sample or probe hit; nanoseconds for off-CPU time; for an
			* allocation the bytes it stands for (0: userspace weighs it) */
	__u64 alloc_ptr;  /* allocations: the block, 0 when its free will not be reported */
	__u64 alloc_size; /* allocations: the bytes the program asked for */
	__u64 cgroup_id;  /* the task's cgroup v2 group (bpf_get_current_cgroup_id) */
	__u32 cpu;
	__u32 flags; /* SAMPLE_F_* */
	__u16 kstack_len;
	__u16 ustack_len;
	/* ustack[0, ustack_inorder) is in call order (native and walked runtime frames);
	 * the rest are the groups of frames deferred runtimes found for the activations
	 * flagged UF_ACTIVATION there, innermost activation first, spliced in by ingest. */
	__u16 ustack_inorder;
	__u16 stop_reason;			  /* enum unw_step that ended the user stack */
	char comm[EBPROF_COMM_LEN];		  /* the thread's name */
	char pcomm[EBPROF_COMM_LEN];		  /* the process's (group leader's) name */
	__u64 kstack[EBPROF_MAX_KSTACK];	  /* innermost first */
	struct user_frame ustack[UNW_MAX_FRAMES]; /* innermost first */
};

struct notice_record {
	__u32 type; /* RECORD_UNKNOWN_PID, RECORD_UNKNOWN_MAPPING, RECORD_PROCESS_EXIT */
	__u32 pid;
	__u64 addr;
};

#endif
