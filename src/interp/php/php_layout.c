// SPDX-License-Identifier: Apache-2.0
/* The engine's layouts per PHP minor version, and what a PHP build says of itself. Every
 * offset below is offsetof() in the headers of Debian's php7.4-dev (7.4.33), php8.2-dev
 * (8.2.32) and php8.4-dev (8.4.27): Zend/zend_globals.h (zend_executor_globals),
 * Zend/zend_compile.h (zend_execute_data, zend_op_array, zend_internal_function, zend_op),
 * Zend/zend_types.h (zend_string, zval), Zend/zend.h (zend_class_entry). All three are
 * NTS builds: a ZTS build keeps its globals per thread and exports no executor_globals. */
#include <stdlib.h>
#include <string.h>

#include "interp/php/php_layout.h"

/* What is the same in the three: a frame's head, a function's common head, zend_op and
 * zend_string (zend_op's handler first, lineno at 24, opcode at 28; 32 bytes). */
#define PHP_EX_OFFSETS .ex_opline = 0, .ex_func = 24, .ex_info = 40, .ex_prev = 48
#define PHP_OP_OFFSETS .op_extended = 20, .op_lineno = 24, .op_opcode = 28
#define PHP_NAME_COMMON                                                                            \
	.fn_type = 0, .fn_name = 8, .fn_scope = 16, .class_name = 8, .str_len = 16, .str_val = 24, \
	.op_lineno = 24

/* Between the three only zend_op_array's members from last on moved. */
static const struct php_layout layouts[] = {
    {
	.version = 0x0704,
	.current_ex = 488,
	.bpf = {PHP_EX_OFFSETS, PHP_OP_OFFSETS, .fn_name = 8, .fn_last = 60, .fn_opcodes = 64,
		.fn_filename = 136},
	.names = {PHP_NAME_COMMON, .fn_last = 60, .fn_opcodes = 64, .fn_filename = 136,
		  .fn_line_start = 144},
    },
    {
	.version = 0x0802,
	.current_ex = 488,
	.bpf = {PHP_EX_OFFSETS, PHP_OP_OFFSETS, .fn_name = 8, .fn_last = 80, .fn_opcodes = 88,
		.fn_filename = 152},
	.names = {PHP_NAME_COMMON, .fn_last = 80, .fn_opcodes = 88, .fn_filename = 152,
		  .fn_line_start = 160},
    },
    {
	.version = 0x0804,
	.current_ex = 488,
	.bpf = {PHP_EX_OFFSETS, PHP_OP_OFFSETS, .fn_name = 8, .fn_last = 96, .fn_opcodes = 104,
		.fn_filename = 168},
	.names = {PHP_NAME_COMMON, .fn_last = 96, .fn_opcodes = 104, .fn_filename = 168,
		  .fn_line_start = 176},
    },
};

const struct php_layout *php_layout__table(uint16_t version)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		if (layouts[i].version == version)
			return &layouts[i];
	}
	return NULL;
}

const char *php_layout__known(void)
{
	return "7.4, 8.2, 8.4";
}

#define POWERED_BY "X-Powered-By: PHP/"

/* "8.2.32" -> 0x0802; 0 when text does not start with major.minor. */
static uint16_t parse_version(const char *text)
{
	char *end;
	unsigned long major = strtoul(text, &end, 10), minor;

	if (end == text || *end != '.' || major > 255)
		return 0;
	text = end + 1;
	minor = strtoul(text, &end, 10);
	if (end == text || minor > 255)
		return 0;
	return (uint16_t)(major << 8 | minor);
}

uint16_t php_layout__version(const void *data, size_t size, char *text, size_t cap)
{
	const char *at = memmem(data, size, POWERED_BY, sizeof(POWERED_BY) - 1), *end;
	size_t n = 0;

	if (!at || !cap)
		return 0;
	at += sizeof(POWERED_BY) - 1;
	end = (const char *)data + size;
	/* The version is digits, dots and a suffix ("8.2.0RC1", "7.4.33-nmm1"). */
	while (at + n < end && n + 1 < cap && n < PHP_VERSION_TEXT - 1 &&
	       (at[n] == '.' || at[n] == '-' || at[n] == '+' || at[n] == '~' ||
		(at[n] >= '0' && at[n] <= '9') || (at[n] >= 'A' && at[n] <= 'Z') ||
		(at[n] >= 'a' && at[n] <= 'z')))
		n++;
	memcpy(text, at, n);
	text[n] = '\0';
	return parse_version(text);
}

/* jmp *(%r15): REX.B, FF /4, ModRM 0x27 ([r15], no displacement). */
static const uint8_t dispatch_jump[] = {0x41, 0xff, 0x27};
/* The prologue pushes the callee-saved registers and makes the frame; no handler starts
 * in it. */
#define PROLOGUE_MIN 8

long php_layout__dispatch(const uint8_t *code, size_t size)
{
	const uint8_t *at;

	if (size <= PROLOGUE_MIN)
		return -1;
	at = memmem(code + PROLOGUE_MIN, size - PROLOGUE_MIN, dispatch_jump, sizeof(dispatch_jump));
	return at ? at - code : -1;
}
