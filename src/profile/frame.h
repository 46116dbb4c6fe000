/* SPDX-License-Identifier: Apache-2.0 */
/* The frame of a stack as the profile stores it, and the table of frame kinds: each kind's
 * display name, OTLP profile.frame.type, flame-graph colour and tooltip, and what the
 * folded and pprof writers add. Every exporter reads the table; none names a kind itself. */
#ifndef EBPROF_PROFILE_FRAME_H
#define EBPROF_PROFILE_FRAME_H

#include <stdbool.h>
#include <stdint.h>

enum frame_kind {
	FRAME_KERNEL,  /* addr is a kernel text address */
	FRAME_NATIVE,  /* addr is a file offset inside the mapping's file */
	FRAME_UNKNOWN, /* no file behind the address (anonymous memory, JIT code) */
	FRAME_PYTHON,  /* addr is the line, the name "qualname (file.py:LINE)"; no mapping */
	FRAME_JVM,     /* addr is the line, the name "package.Class.method (File.java:LINE)" */
	FRAME_V8,      /* addr is line << 20 | column, the name "function (file:LINE:COLUMN)" */
	FRAME_PHP,     /* addr is the line, the name "Class::method (file.php:LINE)" */
	FRAME_PERL,    /* addr is the line, the name "Package::sub (file.pl:LINE)" */
	FRAME_RUBY,    /* addr is the line, the name "Owner#method (file.rb:LINE)" */
	FRAME_BEAM,    /* addr is the line, the name "module:function/arity (file.erl:LINE)" */
	FRAME_DOTNET,  /* the name where the code lies: "[.NET JIT code]" */
	FRAME_KIND__COUNT,
};

/* Kinds past the native ones are runtimes' frames (src/interp/runtime.h): each named by
 * its runtime, with no mapping behind it. A runtime adds its kind above (a slot, like its
 * enum walker slot: kinds are the ids profiles store) and its row in its runtime_ops. */
static inline bool frame_kind_is_runtime(uint32_t kind)
{
	return kind > FRAME_UNKNOWN;
}

struct frame {
	uint64_t addr;	  /* file offset (native), kernel address, or raw address */
	uint32_t file_id; /* files.h id for FRAME_NATIVE, else 0 */
	uint32_t kind;	  /* enum frame_kind */
};

/* A flame-graph colour: hsl(hue + hue_span * s, sat %, light + light_span * s %), where s
 * in [0, 1) is a hash of the frame's name, so a name keeps its colour and kinds stay apart. */
struct frame_colour {
	uint16_t hue, hue_span;
	uint8_t sat, light, light_span;
};

struct frame_kind_info {
	const char *name;      /* display name: flame-graph legend and CSS class, "native" */
	const char *otlp_type; /* OTLP profile.frame.type (semantic conventions' values) */
	const char *about;     /* flame-graph tooltip: "native frame" */
	struct frame_colour colour;
	const char *folded_suffix; /* appended to the name in folded stacks: "_[k]", or "" */
	const char *pprof_file;	   /* pprof Function.filename of a frame without mapping, or
				    * NULL for none */
	/* Text outputs show a frame's source file with its directories (V8: index.js is in
	 * every package); false: the file's base name, as for native frames. */
	bool label_path;
};

/* The row of a native kind (kernel, native, unknown); any other kind gets FRAME_UNKNOWN's.
 * Never NULL. A runtime's row is in its runtime_ops; exporters read every row from the
 * report (report_kind), which the report's frame source filled. */
const struct frame_kind_info *frame_kind__info(uint32_t kind);

#endif
