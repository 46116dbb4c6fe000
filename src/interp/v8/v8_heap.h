/* SPDX-License-Identifier: Apache-2.0 */
/* V8's heap objects read from another process, as the metadata (v8_meta.h) lays them
 * out: strings, a SharedFunctionInfo's name, script and bytecode source positions, a
 * script's line ends. Everything read is untrusted: bounded, type-checked, fuzzed. */
#ifndef EBPROF_V8_HEAP_H
#define EBPROF_V8_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "interp/v8/v8_meta.h"

/* Reads len bytes at addr of the process: 0 or -errno. */
typedef int (*v8_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

struct v8_mem {
	v8_read_fn read;
	void *ctx;
};

#define V8_NAME_MAX 256		    /* bytes of a function or script name kept */
#define V8_LINES_MAX (1u << 20)	    /* lines of a script kept (4 MiB of ends) */
#define V8_SOURCE_MAX (16u << 20)   /* characters of a source scanned for its lines */
#define V8_POSITIONS_MAX (1u << 20) /* bytes of a source position table */

/* What naming a function needs, read once per SharedFunctionInfo. */
struct v8_func {
	char name[V8_NAME_MAX]; /* "" when anonymous */
	uint64_t script;	/* its Script (tagged), 0 when none (a builtin) */
	int32_t start;		/* its source position (script offset), -1 unknown */
	uint8_t *positions;	/* its bytecode's source position table (malloc), or NULL */
	uint32_t npositions;
};

/* A script's name and line ends (offsets of each line's last character). */
struct v8_script {
	char name[V8_NAME_MAX];
	uint32_t *ends; /* malloc, or NULL when neither line ends nor a readable source */
	uint32_t nends;
};

/* The object at tagged pointer v: its instance type. 0 or -errno (-EINVAL: not a heap
 * object). */
int v8_heap__type(const struct v8_mem *mem, const struct v8_meta *m, uint64_t v, uint16_t *type);
/* The string at tagged pointer v into out (cap bytes, NUL-terminated; non-ASCII
 * characters as '?'). Returns its length kept, or -errno. */
int v8_heap__string(const struct v8_mem *mem, const struct v8_meta *m, uint64_t v, char *out,
		    size_t cap);
/* Reads the SharedFunctionInfo at tagged pointer sfi. 0 or -errno; free with
 * v8_func__release. */
int v8_heap__func(const struct v8_mem *mem, const struct v8_meta *m, uint64_t sfi,
		  struct v8_func *out);
void v8_func__release(struct v8_func *f);
/* Reads the Script at tagged pointer script. 0 or -errno; free with v8_script__release. */
int v8_heap__script(const struct v8_mem *mem, const struct v8_meta *m, uint64_t script,
		    struct v8_script *out);
void v8_script__release(struct v8_script *s);

/* The raw source position of code offset off (bytecode or machine code) in a source
 * position table (V8's entries: a zigzag VLQ code offset delta, negative for
 * non-statements, then a source position delta), or -1 when it has none at or before off. */
int64_t v8_positions__find(const uint8_t *t, size_t len, uint32_t off);
/* A raw source position's script offset (-1: none) and inlining id (-1: not inlined). */
int32_t v8_position__offset(int64_t raw);
int32_t v8_position__inlining(int64_t raw);

#define V8_INLINE_MAX 16 /* inlined functions followed at one pc */

/* One function running at a pc of optimized code: its SharedFunctionInfo (tagged) and
 * its script offset (-1 unknown). */
struct v8_inlined {
	uint64_t sfi;
	int32_t pos;
};

/* The Code object (tagged) whose instructions, starting at *start, hold pc: searched
 * back from pc within 64 KiB (instructions start 64-byte aligned; the candidate's own
 * fields must agree). 0, -ENOENT, or -errno. */
int v8_heap__find_code(const struct v8_mem *mem, const struct v8_meta *m,
		       const struct v8_code_layout *l, uint64_t pc, uint64_t *code,
		       uint64_t *start);
/* The functions running at offset off of the instructions of Code object code (tagged),
 * innermost (the most deeply inlined) first, at most max. Returns how many, 0 when the
 * code is no optimized code (baseline code keeps no inlining), or -errno. */
int v8_heap__code_frames_at(const struct v8_mem *mem, const struct v8_meta *m,
			    const struct v8_code_layout *l, uint64_t code, uint32_t off,
			    struct v8_inlined *out, int max);
/* 1-based line and column of script offset pos from line ends; 0 when pos is past them. */
void v8_lines__find(const uint32_t *ends, uint32_t n, uint32_t pos, uint32_t *line, uint32_t *col);

#endif
