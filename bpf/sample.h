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
};

#define SAMPLE_F_USER_TRUNCATED (1u << 0) /* the user stack filled every slot */
#define SAMPLE_F_KERNEL_TRUNCATED (1u << 1)
#define SAMPLE_F_USER_UNWOUND (1u << 2)	   /* user frames from the CFI unwinder */
#define SAMPLE_F_USER_INCOMPLETE (1u << 3) /* the unwinder stopped before the root */

/* A user frame. With file_id set, addr is the file offset of the call site (return
 * addresses already moved back into their call). With file_id 0, addr is the raw pc. */
struct user_frame {
	__u64 addr;
	__u32 file_id;
	__u32 pad;
};

/* Events are numbered by userspace: 0 is the CPU clock; probes and off-CPU time take
 * the indices userspace gives them (attach cookies, read-only settings). */
#define EVENT_CPU 0

/* A uretprobe's cookie carries this bit besides the event index: its pc is the return
 * address in the caller, to be looked up as one. */
#define PROBE_COOKIE_RETURN (1ull << 32)

struct sample_record {
	__u32 type;  /* RECORD_SAMPLE */
	__u32 event; /* EVENT_CPU, or the index of the probe or off-CPU event */
	__u32 pid;   /* thread group id */
	__u32 tid;
	__u64 time_ns; /* bpf_ktime_get_ns() */
	__u64 value;   /* 1 per sample or probe hit; nanoseconds for off-CPU time */
	__u32 cpu;
	__u32 flags; /* SAMPLE_F_* */
	__u16 kstack_len;
	__u16 ustack_len;
	__u32 stop_reason;			  /* enum unw_step that ended the user stack */
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
