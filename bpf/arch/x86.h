/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* x86-64 for the BPF side: the user registers as struct pt_regs lays them out (the
 * UAPI's asm/ptrace.h, fixed on every kernel, so no CO-RE), where the kernel's signal
 * frame keeps the interrupted registers, and the syscall instruction. */
#ifndef EBPROF_ARCH_X86_H
#define EBPROF_ARCH_X86_H

/* x86-64 struct pt_regs: a perf event's regs and those saved at kernel entry. */
struct arch_regs {
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	__u64 ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

#define ARCH_PC(r) ((r)->ip)
#define ARCH_SP(r) ((r)->sp)
#define ARCH_FP(r) ((r)->bp)
/* No link register: a call pushes its return address. */
#define ARCH_LR(r) 0
/* The register a template interpreter keeps its bytecode pointer in (unw_regs.bcp). */
#define ARCH_BCP(r) ((r)->r13)
/* The first three integer arguments of a function, at its entry (SysV ABI). */
#define ARCH_ARG1(r) ((r)->di)
#define ARCH_ARG2(r) ((r)->si)
#define ARCH_ARG3(r) ((r)->dx)
/* The registers were saved in user mode: the code segment's privilege level is 3. */
#define ARCH_USER_MODE(r) (((r)->cs & 3) == 3)

/* Where the user registers saved at kernel entry lie without bpf_task_pt_regs (before
 * 5.15): the struct pt_regs at the top of the task's kernel stack (task_pt_regs() in
 * arch/x86/include/asm/processor.h), THREAD_SIZE 16 KiB (PAGE_SIZE << 2, without KASAN,
 * as Debian builds it); the padding above it is 0 without FRED (6.9+, where the helper
 * exists anyway). */
#define ARCH_THREAD_SIZE (16u << 10)
#define ARCH_TASK_PT_REGS(stack) ((stack) + ARCH_THREAD_SIZE - sizeof(struct arch_regs))

/* The thread pointer (the fs base: TLS variant II, pthread_self() itself) of a task,
 * read with CO-RE. */
#define ARCH_TASK_TP(task) BPF_CORE_READ(task, thread.fsbase)

/* After a syscall the saved pc follows the syscall instruction (0f 05). */
#define ARCH_SYSCALL_INSN 0x050f
#define ARCH_SYSCALL_INSN_LEN 2

/* rt_sigframe: when __restore_rt runs, sp points at the ucontext, whose uc_mcontext
 * (struct sigcontext) starts 40 bytes in; rbp, rsp and rip sit at 80, 120 and 128 within
 * it (arch/x86/include/uapi/asm/sigcontext.h). */
#define ARCH_SIGCTX_FP (40 + 80)
#define ARCH_SIGCTX_SP (40 + 120)
#define ARCH_SIGCTX_PC (40 + 128)
#define ARCH_SIGCTX_BCP (40 + 40) /* r13 */

/* A frame-pointer frame: [fp] holds the caller's fp and [fp + 8] the return address;
 * the caller's sp is fp + 16. */
#define ARCH_FP_RA_OFF 8
#define ARCH_FP_FRAME 16

/* Return addresses are plain addresses (no pointer authentication). */
#define ARCH_RA_STRIP(ra) (ra)

#endif
