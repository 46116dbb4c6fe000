/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* The BEAM walker's scan: which words of the Erlang stack are continuation pointers. Pure logic, shared by the walker and the fuzzer.
 *
 * The JIT runs Erlang code on the process's own stack (rsp is the Erlang stack pointer
 * while JIT code runs) and calls with the machine's call instruction, so the return
 * addresses on that stack are the continuation pointers the VM's own stack walks
 * (exceptions, the garbage collector, erlang:process_info/2) find. Every other word there
 * is a tagged term: an immediate (low bits 11), a list (01) or a boxed pointer (10) into
 * a heap, or a saved frame pointer into the stack itself when the frame layout keeps one.
 * A continuation pointer is the one kind whose low two bits are 00 and which points into
 * the JIT's code: the VM tells them apart the same way. The process's first frame holds
 * beam_normal_exit's continuation: the scan ends there. */
#ifndef EBPROF_BEAM_STEP_H
#define EBPROF_BEAM_STEP_H

#include "beam_proc.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

enum beam_word {
	BEAM_WORD_TERM = 0, /* anything but a continuation pointer */
	BEAM_WORD_CP,	    /* a return address into the JIT's code */
	BEAM_WORD_BOTTOM,   /* the process's first frame: the stack ends */
};

/* Whether pc lies in the JIT's code. */
static __always_inline int beam_in_code(const struct beam_proc *p, __u64 pc)
{
	for (int i = 0; i < BEAM_MAX_RANGES; i++)
		if ((__u32)i < p->nranges && pc >= p->range[i].low && pc < p->range[i].high)
			return 1;
	return 0;
}

/* Whether a return address from C lies in the JIT's shared code that saved the
 * process's Erlang stack pointer before calling it. */
static __always_inline int beam_in_bif(const struct beam_proc *p, __u64 pc)
{
	for (int i = 0; i < BEAM_MAX_BIF; i++)
		if ((__u32)i < p->nbif && pc >= p->bif[i].low && pc < p->bif[i].high)
			return 1;
	return 0;
}

static __always_inline int beam_word_kind(const struct beam_proc *p, __u64 w)
{
	if (w & 3)
		return BEAM_WORD_TERM;
	if (w == p->normal_exit)
		return BEAM_WORD_BOTTOM;
	return beam_in_code(p, w) ? BEAM_WORD_CP : BEAM_WORD_TERM;
}

#endif
