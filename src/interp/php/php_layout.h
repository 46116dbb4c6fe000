/* SPDX-License-Identifier: Apache-2.0 */
/* What ebprof knows of each PHP release's engine: the layout of the structures the
 * walker and the namer read, per minor version (the extension ABI, fixed within one), and
 * what a build says of itself: its version text and its VM's dispatch jump. */
#ifndef EBPROF_PHP_LAYOUT_H
#define EBPROF_PHP_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "interp/php/php_proc.h"

/* Where the namer finds a function's parts (byte offsets). */
struct php_name_offsets {
	uint16_t fn_type;	/* zend_function.type */
	uint16_t fn_name;	/* .common.function_name (zend_string *) */
	uint16_t fn_scope;	/* .common.scope (zend_class_entry *) */
	uint16_t fn_last;	/* .op_array.last: how many opcodes */
	uint16_t fn_opcodes;	/* .op_array.opcodes */
	uint16_t fn_filename;	/* .op_array.filename (zend_string *) */
	uint16_t fn_line_start; /* .op_array.line_start */
	uint16_t class_name;	/* zend_class_entry.name (zend_string *) */
	uint16_t str_len;	/* zend_string.len */
	uint16_t str_val;	/* zend_string.val */
	uint16_t op_lineno;	/* zend_op.lineno */
};

struct php_layout {
	uint16_t version;    /* 0x0802 for 8.2 */
	uint16_t current_ex; /* zend_executor_globals.current_execute_data */
	struct php_offsets bpf;
	struct php_name_offsets names;
};

/* The layout of PHP major.minor (0x0802), or NULL for a version ebprof does not know. */
const struct php_layout *php_layout__table(uint16_t version);
/* The versions php_layout__table knows, for messages: "7.4, 8.2, 8.4". */
const char *php_layout__known(void);

#define PHP_VERSION_TEXT 32

/* The version of the PHP build whose bytes (its read-only data) are data[0, size): what
 * follows its "X-Powered-By: PHP/" header text, as 0x0802 for "8.2.32", the text in text
 * (cap bytes, NUL-terminated). Returns 0 when the bytes hold no such text. */
uint16_t php_layout__version(const void *data, size_t size, char *text, size_t cap);

/* The offset in code[0, size) (the first bytes of execute_ex) of the hybrid VM's first
 * dispatch jump, "jmp *(%r15)" on x86-64, past the function's prologue: a pc on the
 * frame every handler and all JIT code runs on. Returns -1 when there is none. */
long php_layout__dispatch(const uint8_t *code, size_t size);

#endif
