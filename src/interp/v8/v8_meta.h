/* SPDX-License-Identifier: Apache-2.0 */
/* V8's post-mortem metadata as a file gives it: the v8dbg_* ints the build exports (frame
 * slots, object layouts, instance types, tags), V8's version, and the embedded builtins'
 * code range, read once per file (libnode.so or a node executable). */
#ifndef EBPROF_V8_META_H
#define EBPROF_V8_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_file;

/* Every member ebprof reads: its id, whether a process is usable without it, and the
 * names it has had (v8dbg_ omitted), tried in order. */
#define V8_MEMBERS(X)                                                               \
	X(FP_FUNCTION, 1, "off_fp_function")                                        \
	X(FP_CONTEXT, 1, "off_fp_context")                                          \
	X(FP_BYTECODE_ARRAY, 1, "off_fp_bytecode_array")                            \
	X(FP_BYTECODE_OFFSET, 1, "off_fp_bytecode_offset")                          \
	X(SMI_SHIFT, 1, "SmiShiftSize")                                             \
	X(MAP_OF_OBJECT, 0, "class_HeapObject__map__Map")                           \
	X(MAP_TYPE, 1, "class_Map__instance_type__uint16_t")                        \
	X(FN_SHARED, 1, "class_JSFunction__shared__SharedFunctionInfo")             \
	X(SFI_NAME, 1, "class_SharedFunctionInfo__name_or_scope_info__Object")      \
	X(SFI_DATA, 1, "class_SharedFunctionInfo__function_data__Object")           \
	X(SFI_SCRIPT, 1,                                                            \
	  "class_SharedFunctionInfo__script_or_debug_info__HeapObject|"             \
	  "class_SharedFunctionInfo__script_or_debug_info__Object")                 \
	X(SCRIPT_NAME, 1, "class_Script__name__Object")                             \
	X(SCRIPT_LINE_ENDS, 1, "class_Script__line_ends__Object")                   \
	X(SCRIPT_SOURCE, 1, "class_Script__source__Object")                         \
	X(STR_LENGTH, 1, "class_String__length__int32_t")                           \
	X(SEQ1_CHARS, 1, "class_SeqOneByteString__chars__char")                     \
	X(SEQ2_CHARS, 1, "class_SeqTwoByteString__chars__char")                     \
	X(CONS_FIRST, 1, "class_ConsString__first__String")                         \
	X(CONS_SECOND, 1, "class_ConsString__second__String")                       \
	X(THIN_ACTUAL, 0, "class_ThinString__actual__String")                       \
	X(ARRAY_LENGTH, 1, "class_FixedArrayBase__length__SMI")                     \
	X(ARRAY_DATA, 1, "class_FixedArray__data__uintptr_t")                       \
	X(BYTECODE_DATA, 1, "class_BytecodeArray__data__uintptr_t")                 \
	X(CODE_BYTECODE, 0,                                                         \
	  "class_Code__bytecode_or_interpreter_data__HeapObject|"                   \
	  "class_Code__deoptimization_data__FixedArray")                            \
	X(SCOPE_FIRST_VARS, 0, "scopeinfo_idx_first_vars")                          \
	X(SCOPE_NCONTEXTLOCALS, 0, "scopeinfo_idx_ncontextlocals")                  \
	X(SCOPE_IS_HEAP_OBJECT, 0, "parent_ScopeInfo__HeapObject")                  \
	X(FIRST_NONSTRING, 1, "FirstNonstringType")                                 \
	X(STR_REPR_MASK, 1, "StringRepresentationMask")                             \
	X(STR_ENC_MASK, 1, "StringEncodingMask")                                    \
	X(STR_ONE_BYTE, 1, "OneByteStringTag")                                      \
	X(STR_CONS, 1, "ConsStringTag")                                             \
	X(STR_THIN, 0, "ThinStringTag")                                             \
	X(STR_SLICED, 0, "SlicedStringTag")                                         \
	X(T_SFI, 1, "type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE")           \
	X(T_SCRIPT, 1, "type_Script__SCRIPT_TYPE")                                  \
	X(T_SCOPE_INFO, 1, "type_ScopeInfo__SCOPE_INFO_TYPE")                       \
	X(T_BYTECODE, 1, "type_BytecodeArray__BYTECODE_ARRAY_TYPE")                 \
	X(T_BYTE_ARRAY, 1, "type_ByteArray__BYTE_ARRAY_TYPE")                       \
	X(T_FIXED_ARRAY, 1, "type_FixedArray__FIXED_ARRAY_TYPE")                    \
	X(T_CODE, 0, "type_Code__CODE_TYPE")                                        \
	X(REG_BYTECODE_ARRAY, 0, "InterpreterBytecodeArrayRegister")                \
	X(REG_BYTECODE_OFFSET, 0, "InterpreterBytecodeOffsetRegister")              \
	X(FN_CODE, 0, "class_JSFunction__code__CodeT|class_JSFunction__code__Code") \
	X(FN_FEEDBACK_CELL, 0, "class_JSFunction__raw_feedback_cell__FeedbackCell") \
	X(CODE_START, 0, "class_Code__instruction_start__uintptr_t")                \
	X(CODE_SIZE, 0, "class_Code__instruction_size__int")                        \
	X(IS_START, 0, "class_InstructionStream__instruction_start__uintptr_t")     \
	X(CODE_DEOPT, 0, "class_Code__deoptimization_data__FixedArray")             \
	X(CODE_POSITIONS, 0, "class_Code__source_position_table__ByteArray")        \
	X(DEOPT_COUNT, 0, "DeoptimizationDataInlinedFunctionCountIndex")            \
	X(DEOPT_LITERALS, 0, "DeoptimizationDataLiteralArrayIndex")                 \
	X(DEOPT_SFI, 0, "DeoptimizationDataSharedFunctionInfoIndex")                \
	X(DEOPT_INLINING, 0, "DeoptimizationDataInliningPositionsIndex")

#define V8_MEMBER_ID(id, req, names) V8_M_##id,
enum v8_member { V8_MEMBERS(V8_MEMBER_ID) V8_M__COUNT };
#undef V8_MEMBER_ID

/* V8's frame type markers (v8dbg_frametype_NAME), for stub frames' names. */
#define V8_MAX_FRAME_TYPES 64

/* Where a JIT frame's code is, as the walker and the namer read it (v8_meta__code). */
struct v8_code_layout {
	uint16_t fn_code;     /* JSFunction::code; 0: unknown */
	uint16_t start, size; /* instructions: at start in the Code object, or at *start */
	bool start_is_field;
	uint16_t deopt, positions; /* Code's deoptimization data, source position table */
	uint8_t d_count, d_literals, d_sfi, d_inlining; /* DeoptimizationData indices */
};

struct v8_meta {
	int32_t v[V8_M__COUNT];
	bool has[V8_M__COUNT];
	uint32_t version[4];	      /* major, minor, build, patch; all 0 when not exported */
	uint64_t blob_off, blob_size; /* the embedded builtins' code (file offset); 0: none */
	char frame_type[V8_MAX_FRAME_TYPES][32]; /* "" where no marker has the value */
};

/* Whether the file's symbols hold V8's metadata (v8dbg_off_fp_function). */
bool v8_meta__present(const struct elf_file *e);
/* Reads every member, the version, the builtins' range and the frame types from the
 * file open on fd (e is its view). Returns 0, or -ENOENT with *missing the first
 * required member absent (a static string). */
int v8_meta__read(const struct elf_file *e, int fd, struct v8_meta *m, const char **missing);

/* The code layout of m's build: its metadata, and what V8 10 and 11 lay out the same way
 * without saying so (checked at run time: a pc outside what it gives is not named by it). */
void v8_meta__code(const struct v8_meta *m, struct v8_code_layout *out);

/* What a function of a few instructions returns (v8_meta__decode_return): the address
 * target (width 0), or the value of width bytes there (4 or 8); with derefs 1, target
 * holds the address to use instead (arm64 code reaching a variable through the GOT). */
struct v8_return {
	uint64_t target;
	int width;
	int derefs;
};

/* Decodes such a function, as V8's DefaultEmbeddedBlobCode() and
 * DefaultEmbeddedBlobCodeSize() read in the builds seen, for the ELF machine given.
 * x86-64: "lea disp32(%rip), %rax; ret" or "mov $imm32, %eax; ret" (an address); "lea
 * disp32(%rip), %rax; mov (%rax), %eax|%rax; ret" or "mov disp32(%rip), %eax; ret" (a
 * value). arm64: adrp, then add (an address), ldr of a GOT slot (its pointer), both or
 * neither; then ldr w0|x0 of the value, or nothing; then ret (bti c first, if any).
 * code holds len bytes at vaddr. Returns 0, or -EINVAL for any other code. Exposed for
 * the fuzzer. */
int v8_meta__decode_return(uint16_t machine, const uint8_t *code, size_t len, uint64_t vaddr,
			   struct v8_return *r);

#endif
