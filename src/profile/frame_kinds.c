// SPDX-License-Identifier: Apache-2.0
/* The table of frame kinds (src/profile/frame.h): one row per kind, read by every exporter
 * and written into the flame graph's page, so a new kind is one row here. */
#include "profile/frame.h"

/* profile.frame.type takes the OTel semantic conventions' well-known values: "kernel",
 * "native", "cpython", "jvm" today; runtimes add "v8js", "go", "ruby", "php", "perl" and
 * "beam" with their walkers. Frames of unknown code are machine code at an address with
 * no file behind it (JIT code, anonymous memory): "native". */
static const struct frame_kind_info kinds[FRAME_KIND__COUNT] = {
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
	    .colour = {5, 30, 85, 58, 8}, /* warm: red to orange, short of Python's yellow */
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
    [FRAME_PYTHON] =
	{
	    .name = "python",
	    .otlp_type = "cpython",
	    .about = "Python frame",
	    .colour = {48, 12, 80, 60, 8}, /* yellow */
	    .folded_suffix = "",
	},
    [FRAME_JVM] =
	{
	    .name = "jvm",
	    .otlp_type = "jvm",
	    .about = "Java frame",
	    .colour = {150, 25, 50, 55, 8}, /* teal: between unknown's green and kernel's blue */
	    .folded_suffix = "",
	},
    [FRAME_V8] =
	{
	    .name = "v8js",
	    .otlp_type = "v8js",
	    .about = "JavaScript frame (V8)",
	    .colour = {275, 25, 55, 60, 8}, /* violet: apart from every other kind's hue */
	    .folded_suffix = "",
	},
};

const struct frame_kind_info *frame_kind__info(uint32_t kind)
{
	return &kinds[kind < FRAME_KIND__COUNT ? kind : FRAME_UNKNOWN];
}
