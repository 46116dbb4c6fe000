// SPDX-License-Identifier: Apache-2.0
/* x86-64 instruction decoding for uprobe placement (src/arch/arch.h): which entry
 * instructions change nothing, and which ones the kernel's uprobes emulate; where
 * struct pt_regs keeps each register. */
#include <stdbool.h>
#include <string.h>

#include "arch/arch.h"

/* endbr64 (f3 0f 1e fa) and the usual nops change no register and no memory. */
static unsigned int neutral_len(const uint8_t *b, size_t len)
{
	static const uint8_t endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};

	if (len >= 4 && !memcmp(b, endbr64, 4))
		return 4;
	if (len >= 1 && b[0] == 0x90)
		return 1;
	if (len >= 2 && b[0] == 0x66 && b[1] == 0x90)
		return 2;
	return 0;
}

/* push %reg: 50+r, or 41 50+r for r8..r15. x86 uprobes emulate it (no single-step). */
static bool emulated_push(const uint8_t *b, size_t len)
{
	if (len >= 1 && b[0] >= 0x50 && b[0] <= 0x57)
		return true;
	return len >= 2 && b[0] == 0x41 && b[1] >= 0x50 && b[1] <= 0x57;
}

unsigned int arch__uprobe_entry_skip(const uint8_t *bytes, size_t len)
{
	unsigned int at = 0, n;

	/* At most a few: compilers put one endbr64 and, with patchable entries, nops. */
	for (int i = 0; i < 4 && (n = neutral_len(bytes + at, len - at)); i++)
		at += n;
	return at && emulated_push(bytes + at, len - at) ? at : 0;
}

int arch__user_reg_offset(unsigned int n)
{
	/* struct pt_regs (arch/x86/include/uapi/asm/ptrace.h, 8-byte words): r15, r14, r13,
	 * r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp. */
	static const int8_t word[16] = {10, 11, 12, 5, 19, 4, 13, 14, 9, 8, 7, 6, 3, 2, 1, 0};

	return n < 16 ? word[n] * 8 : -1;
}
