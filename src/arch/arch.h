/* SPDX-License-Identifier: Apache-2.0 */
/* The userspace architecture seam: what ebprof's userspace knows about the CPU whose
 * programs it profiles (ELF machine, the DWARF registers the CFI compiler follows, where
 * a uprobe may go, the multiarch library directory). x86-64 and arm64, each a block here
 * and a src/arch/<ARCH>.c (the Makefile's ARCH= picks which file is built). The BPF side
 * has its own seam in bpf/arch/. */
#ifndef EBPROF_ARCH_ARCH_H
#define EBPROF_ARCH_ARCH_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)

#define ARCH_NAME "x86_64"
#define ARCH_ELF_MACHINE EM_X86_64
#define ARCH_MULTIARCH "x86_64-linux-gnu" /* Debian's library directory triplet */

/* DWARF register numbers (System V x86-64 psABI, "DWARF Register Number Mapping"): the
 * stack pointer, the frame pointer, and the return address column (the pc, rip). */
#define ARCH_DWARF_SP 7
#define ARCH_DWARF_FP 6
#define ARCH_DWARF_PC 16

/* The linkers' .plt entries describe their CFA with one expression (SP + off, plus 8
 * once the pc is past the push in its 16-byte entry): "breg7 off; breg16 0; lit15; and;
 * litT; ge; lit3; shl; plus". The CFI compiler recognises it as a PLT row. */
#define ARCH_HAS_PLT_CFA_EXPR 1

/* A call pushes its return address: every CIE gives it a rule. */
#define ARCH_HAS_LINK_REGISTER 0

#elif defined(__aarch64__)

#define ARCH_NAME "arm64"
#define ARCH_ELF_MACHINE EM_AARCH64
#define ARCH_MULTIARCH "aarch64-linux-gnu"

/* DWARF register numbers (the AArch64 DWARF ABI, "DWARF register names"): sp is 31, the
 * frame pointer x29, and the CIEs' return address column x30, the link register. */
#define ARCH_DWARF_SP 31
#define ARCH_DWARF_FP 29
#define ARCH_DWARF_PC 30

/* The linkers emit no CFI for .plt: its stubs (adrp, ldr, add, br; bti c first with
 * branch protection) touch neither sp nor x30, so the CFI compiler gives the section
 * rows of its own: CFA = SP, return address in the link register. */
#define ARCH_HAS_PLT_CFA_EXPR 0

/* bl leaves the return address in x30: until a function saves it (and after it
 * restores it), its CFI gives x30 no rule, which means the link register holds it. */
#define ARCH_HAS_LINK_REGISTER 1

#else
#error "ebprof's userspace is built for x86-64 and arm64 (the Makefile's ARCH=)"
#endif

/* Where an entry uprobe goes: the offset past the function's start that skips leading
 * instructions the kernel would single-step but that leave every register and the stack
 * as they were at entry (x86-64: endbr64, nops), when what follows is an instruction the
 * kernel emulates (x86-64: push %reg); 0 otherwise (always on arm64, whose uprobes step
 * a function's first instructions out of line either way). bytes are the function's
 * first len bytes. */
unsigned int arch__uprobe_entry_skip(const uint8_t *bytes, size_t len);

/* The byte offset of general register n (numbered as instructions encode it: x86-64 rax
 * 0 to r15 15, arm64 x0 to x30) in the user registers the kernel saves at kernel entry
 * (bpf/arch's struct arch_regs); -1 for a number that names none. */
int arch__user_reg_offset(unsigned int n);

#endif
