/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* AArch64 for the BPF side: the user registers as struct user_pt_regs lays them out (the
 * UAPI's asm/ptrace.h: the head of the kernel's struct pt_regs, and a perf event's
 * bpf_user_pt_regs_t), the link register, where the kernel's signal frame keeps the
 * interrupted registers, the syscall instruction, and the pointer-authentication bits a
 * return address carries. */
#ifndef EBPROF_ARCH_ARM64_H
#define EBPROF_ARCH_ARM64_H

struct arch_regs {
	__u64 regs[31]; /* x0-x30: x29 is the frame pointer, x30 the link register */
	__u64 sp, pc, pstate;
};

#define ARCH_PC(r) ((r)->pc)
#define ARCH_SP(r) ((r)->sp)
#define ARCH_FP(r) ((r)->regs[29])
/* Where a call leaves its return address (bl writes it to x30); a leaf function, a
 * prologue before it stores x30 and a PLT stub return through it. */
#define ARCH_LR(r) ((r)->regs[30])
/* The register a template interpreter keeps its bytecode pointer in (unw_regs.bcp). */
#define ARCH_BCP(r) ((r)->regs[22])
/* The first three integer arguments of a function, at its entry (AAPCS64). */
#define ARCH_ARG1(r) ((r)->regs[0])
#define ARCH_ARG2(r) ((r)->regs[1])
#define ARCH_ARG3(r) ((r)->regs[2])
/* The registers were saved at EL0 in AArch64 state: pstate's mode field (M[4:0], bit 4
 * set for AArch32) is 0, PSR_MODE_EL0t. 32-bit tasks are not unwound. */
#define ARCH_USER_MODE(r) (((r)->pstate & 0x1f) == 0)

/* Where the user registers saved at kernel entry lie without bpf_task_pt_regs (before
 * 5.15): the struct pt_regs at the top of the task's kernel stack (task_pt_regs() in
 * arch/arm64/include/asm/processor.h), THREAD_SIZE 16 KiB (MIN_THREAD_SHIFT 14 with 4 KiB
 * pages, without KASAN, as Debian builds it). struct pt_regs grew after user_pt_regs
 * across releases: its size is the running kernel's (CO-RE). */
#define ARCH_THREAD_SIZE (16u << 10)
#define ARCH_TASK_PT_REGS(stack) ((stack) + ARCH_THREAD_SIZE - bpf_core_type_size(struct pt_regs))

/* The thread pointer (tpidr_el0: TLS variant I, the TCB that follows glibc's struct
 * pthread) of a task, read with CO-RE. */
#define ARCH_TASK_TP(task) BPF_CORE_READ(task, thread.uw.tp_value)

/* After a syscall the saved pc follows the syscall instruction, svc #0 (d4000001). */
#define ARCH_SYSCALL_INSN 0xd4000001u
#define ARCH_SYSCALL_INSN_LEN 4

/* rt_sigframe: when the vDSO's __kernel_rt_sigreturn runs, sp points at the frame, a
 * 128-byte siginfo then the ucontext, whose uc_mcontext (struct sigcontext: fault_address,
 * regs[31], sp, pc, pstate) starts 176 bytes in (after uc_flags, uc_link, uc_stack,
 * uc_sigmask and the 1024-bit glibc sigset's room, aligned to 16):
 * arch/arm64/include/uapi/asm/{ucontext,sigcontext}.h. */
#define ARCH_SIGCTX_REGS (128 + 176 + 8)
#define ARCH_SIGCTX_FP (ARCH_SIGCTX_REGS + 29 * 8)
#define ARCH_SIGCTX_LR (ARCH_SIGCTX_REGS + 30 * 8)
#define ARCH_SIGCTX_SP (ARCH_SIGCTX_REGS + 31 * 8)
#define ARCH_SIGCTX_PC (ARCH_SIGCTX_REGS + 32 * 8)
#define ARCH_SIGCTX_BCP (ARCH_SIGCTX_REGS + 22 * 8)

/* A frame record: [fp] holds the caller's fp and [fp + 8] the return address. GCC and
 * clang put it at the bottom of the frame, so fp + 16 is only a lower bound of the
 * caller's sp (x86-64's is exact). */
#define ARCH_FP_RA_OFF 8
#define ARCH_FP_FRAME 16

/* Return addresses signed by pointer authentication (paciasp: Debian's arm64 userland is
 * built with -mbranch-protection=standard) carry the signature above the virtual address
 * bits, and with top-byte-ignore a tag in bits 56-63. User code lives below 2^48 (48-bit
 * VA kernels; 52-bit ones map above it only on request), so the low 48 bits are the
 * address, whichever key signed it. */
#define ARCH_RA_STRIP(ra) ((ra) & ((1ull << 48) - 1))

#endif
