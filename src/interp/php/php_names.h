/* SPDX-License-Identifier: Apache-2.0 */
/* A zend_function read from a PHP process, as the layout (php_layout.h) places its
 * parts: its kind, the tag the walker gave it, its name ("Class::method", "function",
 * "{closure}") and its file; and the name a frame of it shows. Everything read is
 * untrusted: lengths bounded, strings cut, the decoder fuzzed (tests/fuzz/fuzz_php.c). */
#ifndef EBPROF_PHP_NAMES_H
#define EBPROF_PHP_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "interp/php/php_layout.h"

/* Reads len bytes at addr of the process: 0 or -errno. */
typedef int (*php_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

struct php_mem {
	php_read_fn read;
	void *ctx;
};

#define PHP_NAME_MAX 512 /* bytes of a name or a file kept, the NUL included */

#define PHP_FN_USER 2	   /* zend_function.type: ZEND_USER_FUNCTION */
#define PHP_FN_EVAL_CODE 4 /* ZEND_EVAL_CODE: eval()'d top-level code */

struct php_func {
	uint8_t type;	  /* zend_function.type: PHP_INTERNAL_FUNCTION, PHP_FN_USER, ... */
	uint16_t tag;	  /* php_tag of what the walker tags it by (php_proc.h) */
	bool code;	  /* a file's top-level code (or eval'd code): it has no name */
	uint64_t opcodes; /* a user function's oplines (0 otherwise), and how many */
	uint32_t last;
	char name[PHP_NAME_MAX]; /* "Class::method", "function", "{closure}"; "" for code */
	char file[PHP_NAME_MAX]; /* the source file; "" for an internal function */
};

/* Reads the zend_function at addr into out. Returns 0, -EINVAL when it does not read as
 * a function of a kind ebprof names, or the reader's -errno. */
int php_func__read(const struct php_mem *mem, const struct php_layout *l, uint64_t addr,
		   struct php_func *out);

#define PHP_LINES_MAX (1u << 16) /* oplines of a function whose lines are read */

/* Reads the line of each of f's first oplines (at most PHP_LINES_MAX) into *lines (malloc,
 * the caller frees) and their count into *n. Returns 0, -ENOENT when f has none, -ENOMEM
 * or the reader's -errno (nothing is kept then). */
int php_func__lines(const struct php_mem *mem, const struct php_layout *l, const struct php_func *f,
		    uint32_t **lines, uint32_t *n);

/* Reads the file name (a zend_string) at addr, which a frame of top-level code was sent
 * as, into out: code, its file, and the tag of its hash and its text's last 8 bytes
 * (php_proc.h). Returns 0, -EINVAL for an empty name, or the reader's -errno. */
int php_code__read(const struct php_mem *mem, const struct php_layout *l, uint64_t addr,
		   struct php_func *out);

/* The name a frame of f shows: its own, or for top-level code what ran it (kind: enum
 * php_code_kind, from the frame; eval'd code read from its function says so itself):
 * "{main}", "include", "require_once", "eval"... Static or f's. */
const char *php_func__frame_name(const struct php_func *f, unsigned int kind);

#endif
