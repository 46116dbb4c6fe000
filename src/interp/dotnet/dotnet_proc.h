/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* What the .NET (CoreCLR) walker knows of one process (map pid_to_dotnet, written by
 * dotnet.c from the process's mappings), and how its frames travel in a struct
 * user_frame. Fixed-width and pointer-free: both sides compile it. */
#ifndef EBPROF_DOTNET_PROC_H
#define EBPROF_DOTNET_PROC_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Managed code's address ranges: runs of the JIT's executable views (memfd:doublemapper)
 * and the ready-to-run images (*.dll mapped executable) with no other executable mapping
 * between them. As many as a process's claims (RUNTIME_MAX_MARKS). */
#define DN_MAX_RANGES 8
#define DN_MAX_FRAMES 128

struct dn_range {
	__u64 low, high;
};

struct dn_proc {
	struct dn_range range[DN_MAX_RANGES];
	struct dn_range hull; /* from the lowest range's low to the highest's high */
	__u32 nranges;
	__u32 pad;
};

/* What the walker could not do, per CPU (map dotnet_counters, printed by dotnet.c). */
enum dn_counter {
	DN_CTR_WALKS,	    /* hand-overs into managed code */
	DN_CTR_NO_PROC,	    /* a marked pc in a process with no description: stack cut */
	DN_CTR_FAULT,	    /* a frame unreadable: stack cut */
	DN_CTR_BAD,	    /* an impossible caller (fp did not grow): stack cut */
	DN_CTR_NO_PROGRESS, /* handed a pc it does not own: stack cut (no ping-pong) */
	DN_CTR_FULL,	    /* the stack's slots or the loop's bound ran out */
	DN_CTR__COUNT,
};

/* A managed frame in struct user_frame (file_id = the runtime's id): addr is the pc (a
 * return address past the innermost frame), pad's flags: DN_FRAME_EXACT, the interrupted
 * instruction itself (else the call lies just before it); DN_FRAME_SCANNED, a word found
 * on the stack that may be a frameless method's return address (dotnet_step.h). */
#define DN_FRAME_EXACT 1u
#define DN_FRAME_SCANNED 2u

#endif
