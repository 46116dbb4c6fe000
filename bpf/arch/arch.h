/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* The architecture seam of the BPF side: picks the one header that knows this
 * architecture's user registers, signal frame and syscall instruction. Compiled by the
 * BPF programs (-D__TARGET_ARCH_*) and by host unit tests (the compiler's own macros).
 * Each header defines struct arch_regs and ARCH_PC, _SP, _FP, _LR, _ARG1-3, _USER_MODE,
 * _TASK_PT_REGS, _TASK_TP, _SYSCALL_INSN(_LEN), _SIGCTX_FP, _SP, _PC, _LR, _FP_RA_OFF, _FP_FRAME
 * and _RA_STRIP; an architecture without a link register gives ARCH_LR 0 and no
 * ARCH_SIGCTX_LR. */
#ifndef EBPROF_ARCH_H
#define EBPROF_ARCH_H

#if defined(__TARGET_ARCH_x86) || (!defined(__bpf__) && defined(__x86_64__))
#include "arch/x86.h"
#elif defined(__TARGET_ARCH_arm64) || (!defined(__bpf__) && defined(__aarch64__))
#include "arch/arm64.h"
#else
#error "ebprof: no BPF arch header for this architecture (bpf/arch/)"
#endif

#endif
