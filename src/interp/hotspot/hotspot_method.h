/* SPDX-License-Identifier: Apache-2.0 */
/* Naming Java code read out of a JVM: a Method* becomes its class, name, source file and
 * line-number table; an nmethod and a pc become the chain of (inlined) methods and
 * bytecode indices that pc stands for. Every pointer and size comes from the process and
 * is bounded before use. */
#ifndef EBPROF_HOTSPOT_METHOD_H
#define EBPROF_HOTSPOT_METHOD_H

#include <stdbool.h>
#include <stdint.h>

#include "interp/hotspot/hotspot_layout.h"

#define HS_NAME_MAX 256		/* bytes of a class or method name kept */
#define HS_LINES_MAX (8 << 10)	/* bytes of a line-number table read */
#define HS_PCS_MAX (256 << 10)	/* bytes of an nmethod's PcDesc table read */
#define HS_SCOPES_MAX (1 << 20) /* bytes of its scope records read */
#define HS_INLINE_MAX 16	/* inlined methods followed per pc */

struct hs_method {
	char klass[HS_NAME_MAX]; /* java.lang.Thread */
	char name[HS_NAME_MAX];	 /* run */
	char file[HS_NAME_MAX];	 /* Thread.java, "" when the class has none */
	bool native;		 /* a native method (JVM_ACC_NATIVE): it has no lines */
	uint8_t *lines;		 /* malloc'd compressed line-number table, or NULL */
	uint32_t nlines;
};

/* Reads the method at addr. Returns 0 (free out->lines) or a negative errno. */
int hs_method__read(const struct hs_mem *mem, const struct hs_layout *l, uint64_t addr,
		    struct hs_method *out);
/* The line of bci in m, or 0 when it has none. */
int hs_method__line(const struct hs_layout *l, const struct hs_method *m, int bci);

struct hs_scope_frame {
	uint64_t method; /* Method* */
	int32_t bci;
};

/* The compile id of the nmethod at nm (a tag: a blob freed and reused gets another). */
int hs_nmethod__compile_id(const struct hs_mem *mem, const struct hs_layout *l, uint64_t nm,
			   int32_t *id);
/* The methods pc of the nmethod at nm runs, innermost (the inlined leaf) first. Returns
 * how many (at most max), or a negative errno. */
int hs_nmethod__scopes(const struct hs_mem *mem, const struct hs_layout *l, uint64_t nm,
		       uint64_t pc, struct hs_scope_frame *out, int max);

/* The pc offsets of the nmethod's debug points (its PcDesc table), and its code's start in
 * *code. Returns how many (at most max), or a negative errno. For diagnostics and tests. */
int hs_nmethod__pc_offsets(const struct hs_mem *mem, const struct hs_layout *l, uint64_t nm,
			   uint64_t *code, int32_t *out, int max);

#endif
