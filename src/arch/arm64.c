// SPDX-License-Identifier: Apache-2.0
/* arm64's userspace seam (src/arch/arch.h). Uprobe placement: a probe stays on the
 * function's first instruction. Its first instructions (bti c, paciasp, stp x29, x30, [sp, #-N]!) are
 * single-stepped out of line like any other; skipping some would gain nothing and would
 * leave the return address signed or the frame half built at the probe. */
#include "arch/arch.h"

unsigned int arch__uprobe_entry_skip(const uint8_t *bytes, size_t len)
{
	(void)bytes;
	(void)len;
	return 0;
}

int arch__user_reg_offset(unsigned int n)
{
	/* struct user_pt_regs: x0 to x30, then sp, pc, pstate. */
	return n <= 30 ? (int)n * 8 : -1;
}
