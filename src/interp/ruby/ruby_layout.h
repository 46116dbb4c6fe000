/* SPDX-License-Identifier: Apache-2.0 */
/* Where CRuby keeps what the Ruby walker and symbolizer read, per minor version: what the
 * process's exported functions do not give (struct members, object layouts, flag bits).
 * Known: 2.7, 3.1, 3.3 (x86-64). Decoded facts cross-check it (ruby_code.h). */
#ifndef EBPROF_RUBY_LAYOUT_H
#define EBPROF_RUBY_LAYOUT_H

#include <stdint.h>

/* How a String keeps its length and bytes. */
enum rb_string_layout {
	RB_STRING_FLAGS_LEN = 1, /* 2.7, 3.1: an embedded string's length in its flags */
	RB_STRING_LEN_FIELD,	 /* 3.3: a length member, embedded bytes after it */
};

/* Where a class keeps its path (and a singleton class its object). */
enum rb_class_layout {
	RB_CLASS_IVARS = 1, /* 2.7, 3.1: __classpath__ / __attached__ in its ivar st_table */
	RB_CLASS_EXT,	    /* 3.3: members of the rb_classext_t that follows the RClass */
};

struct rb_layout {
	uint16_t version; /* 0x0207 */
	/* BPF (struct rb_proc) */
	uint16_t ec_thread, cfp_size, th_ec, th_id, th_node, vm_threads, th_ractor, ractor_ec;
	uint16_t vm_objspace;
	/* iseqs: rb_iseq_t.body and struct rb_iseq_constant_body */
	uint16_t iseq_body;
	uint16_t body_type, body_size, body_encoded, body_path, body_base_label, body_label;
	uint16_t body_first_lineno;
	uint16_t body_insns, body_positions, body_insns_size, body_succ, body_local_iseq;
	uint16_t insn_info_size; /* sizeof(struct iseq_insn_info_entry); line_no first */
	/* method entries and definitions */
	uint16_t me_def, me_owner, def_iseq, def_original_id, svar_cref_or_me;
	/* objects */
	uint64_t qnil;
	enum rb_string_layout string;
	uint16_t string_embed; /* where an embedded string's bytes start */
	uint32_t array_embed_mask;
	enum rb_class_layout klass;
	uint16_t class_ext;	/* IVARS: RClass.ptr; EXT: sizeof(struct RClass) */
	uint16_t ext_classpath; /* EXT: rb_classext_t.classpath */
	uint16_t ext_attached;	/* EXT: rb_classext_t.as.singleton_class.attached_object */
	uint16_t ext_iv_tbl;	/* IVARS: rb_classext_t.iv_tbl (st_table *) */
	uint32_t last_op_id;	/* tLAST_OP_ID: IDs up to it are operators, their own serial */
};

/* Bits and members every known version shares. */
#define RB_T_MASK 0x1f
#define RB_T_CLASS 0x02
#define RB_T_MODULE 0x03
#define RB_T_STRING 0x05
#define RB_T_ARRAY 0x07
#define RB_T_IMEMO 0x1a
#define RB_FL_USHIFT 12
#define RB_FL_SINGLETON 0x1000u	   /* FL_USER0 (2.7, 3.1) and RUBY_FL_SINGLETON (3.3) */
#define RB_STR_NOEMBED 0x2000u	   /* RSTRING_NOEMBED, FL_USER1 */
#define RB_STR_EMBED_LEN_SHIFT 14  /* 2.7, 3.1: RSTRING_EMBED_LEN_SHIFT */
#define RB_STR_EMBED_LEN_MASK 0x1f /* 2.7, 3.1: RSTRING_EMBED_LEN_MASK >> shift */
#define RB_ARY_EMBED 0x2000u	   /* RARRAY_EMBED_FLAG, FL_USER1 */
#define RB_ARY_EMBED_LEN_SHIFT 15
#define RB_ARRAY_LEN 16 /* RArray: heap length, or embedded elements */
#define RB_ARRAY_PTR 32
#define RB_STRING_LEN 16 /* RString: heap length (2.7, 3.1) or length (3.3) */
#define RB_STRING_PTR 24
#define RB_IMEMO_MASK 0x0f /* imemo type: (flags >> FL_USHIFT) & mask */
#define RB_IMEMO_SVAR 2
#define RB_IMEMO_MENT 6
#define RB_IMEMO_ISEQ 7
#define RB_METHOD_TYPE_ISEQ 0 /* rb_method_definition_t.type, its low 4 bits */
#define RB_METHOD_TYPE_MASK 0x0f
#define RB_ISEQ_TYPE_METHOD 1
#define RB_ISEQ_TYPE_BLOCK 2
#define RB_ID_SCOPE_SHIFT 4
#define RB_ID_ENTRY_UNIT 512 /* symbol.c: ids per entry of ruby_global_symbols.ids */
#define RB_SYMBOLS_LAST_ID 0 /* rb_symbols_t: last_id (uint32), ids (VALUE) */
#define RB_SYMBOLS_IDS 16
#define RB_ST_NUM_ENTRIES 16 /* st_table (2.7, 3.1) */
#define RB_ST_ENTRIES_START 32
#define RB_ST_ENTRIES_BOUND 40
#define RB_ST_ENTRIES 48
#define RB_ST_ENTRY_SIZE 24 /* st_table_entry: hash, key, record */

/* The layout of a version (0x0207, 0x0301, 0x0303), or NULL when ebprof has none. */
const struct rb_layout *rb_layout__get(uint16_t version);
/* "2.7, 3.1 and 3.3", for the message that names what is known. */
const char *rb_layout__known(void);

#endif
