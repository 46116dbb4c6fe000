/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* The record the sampling program sends to userspace for every CPU sample. */
#ifndef EBPROF_SAMPLE_H
#define EBPROF_SAMPLE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "ebprof_shared.h"

#define SAMPLE_F_USER_TRUNCATED (1u << 0) /* the user stack filled every slot */
#define SAMPLE_F_KERNEL_TRUNCATED (1u << 1)

struct sample_record {
	__u64 time_ns; /* bpf_ktime_get_ns() */
	__u32 pid;     /* thread group id */
	__u32 tid;
	__u32 cpu;
	__u32 flags;	  /* SAMPLE_F_* */
	__u16 kstack_len; /* entries used in kstack */
	__u16 ustack_len;
	__u32 pad;
	char comm[EBPROF_COMM_LEN];	 /* the thread's name */
	char pcomm[EBPROF_COMM_LEN];	 /* the process's (group leader's) name */
	__u64 kstack[EBPROF_MAX_KSTACK]; /* innermost first */
	__u64 ustack[EBPROF_MAX_USTACK]; /* innermost first */
};

#endif
