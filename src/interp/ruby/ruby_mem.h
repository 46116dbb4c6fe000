/* SPDX-License-Identifier: Apache-2.0 */
/* CRuby's objects as the symbolizer reads them from a traced process (or, in the fuzz
 * harness, from a stand-in): strings, arrays, the symbol table's ID names, iseqs with
 * their line tables, method entries and class paths. Everything read is untrusted: each
 * object's type is checked before it is used, and every length is bounded. */
#ifndef EBPROF_RUBY_MEM_H
#define EBPROF_RUBY_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "interp/ruby/ruby_layout.h"

#define RB_NAME_MAX 256	 /* bytes of a label, method or class path kept */
#define RB_PATH_MAX 1024 /* bytes of a source path kept */

/* A process's memory: read(ctx, addr, buf, len) returns 0 or -errno. */
struct rb_mem {
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *ctx;
	const struct rb_layout *l;
	uint64_t symbols; /* ruby_global_symbols; 0: IDs cannot be named */
	uint32_t last_op_id;
};

/* The String at v, as text (NUL-terminated, cut to cap - 1 bytes). 0 or -errno
 * (-EINVAL: not a String). */
int rb_mem__string(const struct rb_mem *m, uint64_t v, char *out, size_t cap);
/* Element i of the Array at v. 0 or -errno (-ERANGE past its end). */
int rb_mem__array_at(const struct rb_mem *m, uint64_t v, uint64_t i, uint64_t *out);
/* The name of an ID, from the symbol table. 0 or -errno. */
int rb_mem__id_name(const struct rb_mem *m, uint64_t id, char *out, size_t cap);

/* An iseq: what names its frames and turns a pc into a line. lines, succ and positions
 * are malloc'd (rb_iseq__release). */
struct rb_iseq {
	uint64_t encoded;    /* its instructions */
	uint64_t local_iseq; /* a block's method (or <main>, class body): its own iseq */
	uint32_t size;	     /* in words */
	uint32_t type;	     /* ISEQ_TYPE_* */
	int32_t first_lineno;
	char label[RB_NAME_MAX];
	char base_label[RB_NAME_MAX];
	char path[RB_PATH_MAX];
	int32_t *lines; /* insns_info's line numbers */
	uint32_t nlines;
	uint8_t *succ; /* the succinct table, or NULL when positions holds them */
	size_t succ_len;
	uint32_t *positions;
};

/* Reads the iseq at v (type-checked: an imemo_iseq). 0 or -errno; out needs release
 * either way. */
int rb_mem__iseq(const struct rb_mem *m, uint64_t v, struct rb_iseq *out);
void rb_iseq__release(struct rb_iseq *i);
/* The line of the instruction a frame runs, its pc pointing after it (Ruby's own
 * backtraces take the word before). 0 when unknown. */
int rb_iseq__line(const struct rb_iseq *i, uint64_t pc);
/* The pc a frame ran, from the bits it carries (RB_PC_TAG and RB_PC_DATA of ruby_proc.h:
 * bits 24..39 and 3..23) and the iseq's instructions: false when that pc does not lie among
 * them, the iseq now at that address not being the one sampled. */
bool rb_iseq__pc(const struct rb_iseq *i, uint32_t tag, uint32_t data, uint64_t *pc);

/* A method entry (v may be an svar holding one, as a method's environment may). */
struct rb_method {
	uint64_t me;
	uint64_t def, called_id;
	uint64_t owner;
	uint64_t iseq;	      /* its body, for a method written in Ruby; else 0 */
	uint64_t original_id; /* its name */
};
/* 0, or -errno (-EINVAL: v is neither a method entry nor an svar holding one). */
int rb_mem__method(const struct rb_mem *m, uint64_t v, struct rb_method *out);

/* "Owner#name", "Owner.name" for a singleton class's, or name alone when the owner has
 * no path (anonymous), into out. Returns out. */
const char *rb_mem__qualify(const struct rb_mem *m, uint64_t owner, const char *name, char *out,
			    size_t cap);

#endif
