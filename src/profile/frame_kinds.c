// SPDX-License-Identifier: Apache-2.0
/* The rows of the native frame kinds (src/profile/frame.h). Each runtime's row is in its
 * struct runtime_ops (src/interp/runtime.h), so a new kind is one row in its runtime; the
 * report gathers both (report.kinds), and every exporter reads them there. */
#include "profile/frame.h"

/* profile.frame.type takes the OTel semantic conventions' well-known values ("kernel",
 * "native", and one per runtime, in its row). Frames of unknown code are machine code at
 * an address with no file behind it (JIT code, anonymous memory): "native". */
static const struct frame_kind_info kinds[FRAME_UNKNOWN + 1] = {
    [FRAME_KERNEL] =
	{
	    .name = "kernel",
	    .otlp_type = "kernel",
	    .about = "kernel frame",
	    .colour = {190, 30, 65, 63, 8}, /* blue */
	    .folded_suffix = "_[k]",	    /* FlameGraph's convention for kernel frames */
	    .pprof_file = "[kernel.kallsyms]",
	},
    [FRAME_NATIVE] =
	{
	    .name = "native",
	    .otlp_type = "native",
	    .about = "native frame",
	    .colour = {5, 30, 85, 58, 8}, /* warm: red to orange, short of the runtimes' hues */
	    .folded_suffix = "",
	},
    [FRAME_UNKNOWN] =
	{
	    .name = "unknown",
	    .otlp_type = "native",
	    .about = "frame of unknown code (no file behind it)",
	    .colour = {90, 35, 40, 60, 8}, /* green */
	    .folded_suffix = "",
	},
};

const struct frame_kind_info *frame_kind__info(uint32_t kind)
{
	return &kinds[kind <= FRAME_UNKNOWN ? kind : FRAME_UNKNOWN];
}
