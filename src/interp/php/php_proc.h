/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* What userspace tells the in-kernel PHP walker about one PHP process (map pid_to_php),
 * and how a PHP frame travels in a sample's user stack. Shared by php.bpf.c and the
 * userspace half (php.c, php_layout.c, php_names.c); fixed-width and pointer-free. */
#ifndef EBPROF_PHP_PROC_H
#define EBPROF_PHP_PROC_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* A PHP frame in struct user_frame (file_id UF_RUNTIME_FILE(WALKER_PHP)): addr holds, in
 * its low 48 bits (user addresses on x86-64 fit 47), the zend_function's address, or for
 * a file's top-level code (PHP_F_CODE), which an include or eval frees as soon as it
 * ends, its file name's zend_string, which outlives it at least in PHP 7.4 and 8.2; above
 * them a 16-bit tag of what it points to (php_tag: of a user function's opcodes, of an
 * internal function's name, of a file name's hash and its text's last 8 bytes), which
 * tells it from another one later allocated at the same address, or freed (the
 * allocator's free-list pointers land in a freed string's last bytes). pad's data bits
 * hold the position (PHP_POS_MASK), the marks and the code's kind. */
#define PHP_ADDR_MASK ((1ull << 48) - 1)
#define PHP_TAG_SHIFT 48
/* A function frame's opline index among its opcodes (ingest finds the line there), or
 * a top-level code frame's line, whose code may be gone by then; PHP_POS_NONE: unknown. */
#define PHP_POS_MASK ((1u << 19) - 1)
#define PHP_POS_NONE PHP_POS_MASK
#define PHP_F_CODE (1u << 19) /* addr is top-level code's file name */
#define PHP_F_JIT (1u << 20)  /* the activation ran the frame's JIT code */
#define PHP_KIND_SHIFT 21     /* 3 bits: enum php_code_kind */
#define PHP_KIND_MASK 7u

/* What ran a file's top-level code: the caller's ZEND_INCLUDE_OR_EVAL, or nothing (the
 * script itself, {main}). Sent for the frame the include runs. */
enum php_code_kind {
	PHP_CODE_MAIN = 0,
	PHP_CODE_INCLUDE,
	PHP_CODE_INCLUDE_ONCE,
	PHP_CODE_REQUIRE,
	PHP_CODE_REQUIRE_ONCE,
	PHP_CODE_EVAL,
};

/* The tag of a pointer or a hash: its four 16-bit quarters folded into one. */
static inline __u16 php_tag(__u64 v)
{
	return (__u16)(v ^ (v >> 16) ^ (v >> 32) ^ (v >> 48));
}

/* The PHP walker's own counters (map php_counters). */
enum php_counter {
	PHP_CTR_NO_FRAME,     /* execute_ex on the stack, EG(current_execute_data) unreadable */
	PHP_CTR_READ_FAULT,   /* a frame or its function could not be read: PHP frames cut */
	PHP_CTR_JIT_UNOWNED,  /* a JIT pc of a process with no description: stack cut there */
	PHP_CTR_JIT_FRAMES,   /* JIT code's frames unwound as execute_ex's */
	PHP_CTR_LINE_FROM_VM, /* the innermost frame's line read from the VM's opline register */
	PHP_CTR__COUNT,
};

/* The Zend engine's constants the walker tests, the same in PHP 7.4, 8.2 and 8.4
 * (Zend/zend_compile.h, Zend/zend_vm_opcodes.h, Zend/zend_types.h). */
#define PHP_INTERNAL_FUNCTION 1	  /* zend_function.type of a C function */
#define PHP_EVAL_CODE 4		  /* zend_function.type of eval()'d code */
#define PHP_STR_HASH 8		  /* zend_string.h: its hash; .len follows it */
#define PHP_STR_VAL 24		  /* zend_string.val: its text */
#define PHP_CALL_TOP (1u << 17)	  /* ZEND_CALL_TOP in the call info (This.u1.type_info) */
#define PHP_OP_INCLUDE_OR_EVAL 73 /* ZEND_INCLUDE_OR_EVAL */
/* ZEND_INCLUDE_OR_EVAL's extended_value */
#define PHP_EVAL 1
#define PHP_INCLUDE 2
#define PHP_INCLUDE_ONCE 4
#define PHP_REQUIRE 8
#define PHP_REQUIRE_ONCE 16

/* Bytes the walker reads at once: a zend_execute_data's head (opline to symbol_table;
 * every frame is at least 72 bytes), a zend_function's (type to op_array.opcodes: 112 in
 * 8.4, also the size of the smallest internal function, 7.4's), and a zend_op's from
 * PHP_OP_AT on (extended_value, lineno, opcode). */
#define PHP_EX_READ 64
#define PHP_FUNC_READ 112
#define PHP_OP_AT 16
#define PHP_OP_READ 16
#define PHP_OP_SIZE 32 /* sizeof(zend_op) */

/* Byte offsets inside the engine's structures, per version (php_layout.c). The frame's
 * are below PHP_EX_READ, the function's below PHP_FUNC_READ, the opline's within
 * [PHP_OP_AT, PHP_OP_AT + PHP_OP_READ). */
struct php_offsets {
	__u16 ex_opline;   /* zend_execute_data.opline */
	__u16 ex_func;	   /* .func */
	__u16 ex_info;	   /* .This.u1.type_info: the call info */
	__u16 ex_prev;	   /* .prev_execute_data */
	__u16 fn_name;	   /* zend_function.common.function_name */
	__u16 fn_last;	   /* .op_array.last (opcodes) */
	__u16 fn_opcodes;  /* .op_array.opcodes */
	__u16 fn_filename; /* .op_array.filename (read apart: past PHP_FUNC_READ) */
	__u16 op_extended; /* zend_op.extended_value */
	__u16 op_lineno;   /* .lineno */
	__u16 op_opcode;   /* .opcode */
	__u16 pad;
};

struct php_proc {
	__u64 current_ex; /* absolute address of EG(current_execute_data) */
	/* Absolute: execute_ex's dispatch jump, where a JIT pc's frame is unwound from (JIT
	 * code runs on execute_ex's frame); 0 when it was not found. */
	__u64 dispatch;
	struct php_offsets off;
};

#endif
