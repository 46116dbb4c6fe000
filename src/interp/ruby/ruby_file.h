/* SPDX-License-Identifier: Apache-2.0 */
/* What a libruby (or a ruby linked statically) says of itself, read once per file: its
 * release (the ruby_version string it exports), and, decoded from its exported functions
 * where Debian's builds export nothing better (ruby_code.h), the VM's entry and
 * interpreter loop, the execution context's TLS slot, the VM's pointer and GC flag, and
 * the symbol table. ELF virtual addresses throughout; ruby.c adds each process's bias. */
#ifndef EBPROF_RUBY_FILE_H
#define EBPROF_RUBY_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "interp/ruby/ruby_code.h"
#include "interp/ruby/ruby_layout.h"

struct elf_file;

struct rb_file_info {
	uint16_t version;	   /* 0x0301 */
	char release[16];	   /* "3.1.2" */
	const struct rb_layout *l; /* NULL: a version ebprof has no layout for */
	const char *missing;	   /* what could not be found (static text), or NULL */
	uint64_t exec[2];	   /* vm_exec: [start, end) */
	uint64_t exec_off[2];	   /* the same as file offsets */
	uint64_t core[2];	   /* vm_exec_core, the interpreter loop */
	uint64_t tls_index;	   /* 3.x: the tls_index of ruby_current_ec; 0 in 2.7 */
	int32_t tls_off;
	uint64_t vm_ptr;    /* ruby_current_vm_ptr */
	uint64_t ec_global; /* 2.7: ruby_current_execution_context_ptr */
	struct rb_gc_code gc;
	uint64_t symbols; /* ruby_global_symbols */
	uint32_t last_op_id;
};

/* Whether e exports ruby_version: a Ruby interpreter. */
bool rb_file__is_ruby(const struct elf_file *e);
/* Fills out from e. Returns 0 when the file can be unwound; -ENOTSUP (unknown version)
 * or -ENOENT (out->missing says what) when its processes keep native stacks. */
int rb_file__inspect(const struct elf_file *e, struct rb_file_info *out);

#endif
