/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* The architecture seam of the BPF side: picks the one header that knows this
 * architecture's user registers, signal frame and syscall instruction. Compiled by the
 * BPF programs (-D__TARGET_ARCH_*) and by host unit tests (the compiler's own macros). */
#ifndef EBPROF_ARCH_H
#define EBPROF_ARCH_H

#if defined(__TARGET_ARCH_x86) || (!defined(__bpf__) && defined(__x86_64__))
#include "arch/x86.h"
#else
#error "ebprof: no BPF arch header for this architecture (bpf/arch/)"
#endif

#endif
