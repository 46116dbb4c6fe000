/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* What the BEAM walker knows of one Erlang VM (map pid_to_beam, written by beam.c from
 * the VM's own GDB JIT records), and how its frames travel in a struct user_frame.
 * Fixed-width and pointer-free: both sides compile it. */
#ifndef EBPROF_BEAM_PROC_H
#define EBPROF_BEAM_PROC_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* The JIT's code: the executable view of its memfd, or with +JPperf (single-mapped
 * code for perf) its anonymous executable regions. */
#define BEAM_MAX_RANGES 8
/* The Erlang stack is read BEAM_CHUNK_WORDS words at a time, at most BEAM_SCAN_WORDS
 * words: 64 KiB of stack, past which a process's frames are cut (counted). */
#define BEAM_CHUNK_WORDS 64
#define BEAM_SCAN_WORDS 8192
/* The JIT's shared code that calls C with the process's Erlang stack pointer saved in
 * its Process (c_p->stop): BIFs, NIFs and the garbage collector (beam.c names them). */
#define BEAM_MAX_BIF 3

struct beam_range {
	__u64 low, high;
};

struct beam_proc {
	struct beam_range range[BEAM_MAX_RANGES];
	__u32 nranges;
	__u16 nbif;	/* the ranges in bif */
	__u16 stop_off; /* offsetof(Process, stop); 0: the schedulers are not described */
	/* The continuation pointer every process's stack ends with (beam_normal_exit's
	 * value): the scan stops there, and only a scan that reached it is kept. */
	__u64 normal_exit;
	/* Code returned to from C whose caller saved c_p->stop (BEAM_MAX_BIF). */
	struct beam_range bif[BEAM_MAX_BIF];
};

/* A scheduler of an Erlang VM (map beam_scheds): its registers block, which the JIT
 * keeps at the top of the scheduler thread's C stack, where the stack pointer of C code
 * called from Erlang starts; the value is the address of the scheduler's
 * current_process (ErtsSchedulerData), the Process whose stop the walk reads. */
struct beam_sched_key {
	__u32 pid;
	__u32 pad;
	__u64 regs;
};

/* What the walker could not do, per CPU (map beam_counters, printed by beam.c). */
enum beam_counter {
	BEAM_CTR_WALKS,	      /* hand-overs into the JIT's code */
	BEAM_CTR_NO_PROC,     /* a marked pc in a process with no description: stack cut */
	BEAM_CTR_FROM_NATIVE, /* reached from native code (a BIF, NIF or the VM): its caller
				 is on the C stack, the Erlang stack unknown: cut after it */
	BEAM_CTR_NO_BOTTOM,   /* the scan ended short of the process's bottom frame (a deep
				 stack, an unreadable one, or not an Erlang stack): leaf kept */
	BEAM_CTR_FULL,	      /* the record's frames ran out: the stack is truncated */
	BEAM_CTR_NO_PROGRESS, /* handed a pc it does not own: stack cut */
	BEAM_CTR_FROM_BIF,    /* reached from a BIF, NIF or the collector: the Erlang stack
				 scanned from the saved c_p->stop */
	BEAM_CTR_NO_SCHED,    /* reached from C code called from Erlang on a scheduler not
				 described (or between processes): cut after it */
	BEAM_CTR__COUNT,
};

/* A BEAM frame in struct user_frame (file_id = the runtime's id): addr is a code address
 * of the JIT; pad says whether it is a return address (named at addr - 1) or the pc the
 * sample interrupted. */
#define BEAM_FRAME_RETURN 1u
#define BEAM_FRAME_EXACT 2u

#endif
