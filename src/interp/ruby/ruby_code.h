/* SPDX-License-Identifier: Apache-2.0 */
/* What libruby's machine code says where its symbols do not: Debian's builds export the
 * public API but neither the interpreter loop (3.3) nor the execution context's TLS
 * variable (3.3) nor the symbol table (any), so ebprof reads the few exported functions
 * that reach them. x86-64 only: a length decoder of the integer instructions compilers
 * emit, and matchers of the sequences each function compiles to. The bytes are the file's
 * (hostile input): every read is bounded, and an unknown instruction ends a scan. */
#ifndef EBPROF_RUBY_CODE_H
#define EBPROF_RUBY_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A function's first bytes and where they lie (ELF virtual address). */
struct rb_code {
	uint64_t vaddr;
	const uint8_t *bytes;
	size_t len;
};

/* One instruction, as far as the matchers need it. */
struct rb_insn {
	uint8_t len;
	uint8_t op;	      /* the opcode byte (the second one of 0F xx) */
	bool two_byte;	      /* 0F xx */
	bool has_modrm;	      /* modrm below is valid */
	uint8_t mod, reg, rm; /* ModRM fields, REX bits included in reg and rm */
	bool rex_w;
	bool rip;	 /* the memory operand is [rip + disp] */
	int64_t disp;	 /* the memory operand's displacement */
	int64_t imm;	 /* the immediate, sign-extended */
	uint64_t target; /* rip: the operand's address; jmp/call rel: the destination */
};

/* Decodes the instruction at code[0, len) whose address is vaddr. Returns 0, or -EINVAL
 * for what it does not know (or a truncated instruction). */
int rb_insn__decode(const uint8_t *code, size_t len, uint64_t vaddr, struct rb_insn *out);

/* rb_errinfo(): `lea rdi, [rip + tls_index]; call __tls_get_addr; mov r, [rax + off]`
 * (general- or local-dynamic TLS of ruby_current_ec). Sets *got to the tls_index's
 * address and *off to what the load adds to the address the call returns. 0 or -ENOENT. */
int rb_code__tls_index(const struct rb_code *c, uint64_t *got, int32_t *off);

/* What rb_during_gc() reads: the VM's pointer (through the GOT, *via_got, or its address
 * directly), rb_vm_t.objspace, the byte of objspace's flags holding during_gc, its bit. */
struct rb_gc_code {
	uint64_t vm_ptr; /* the address the first load reads */
	bool via_got;	 /* that address is a GOT slot holding the pointer's address */
	uint32_t objspace, flags;
	uint8_t bit;
};
int rb_code__during_gc(const struct rb_code *c, struct rb_gc_code *out);

/* rb_id2str() (and the function it jumps to, in next, may be empty): where the symbol
 * table (ruby_global_symbols) lies, from its last_id compared to the ID's serial, and the
 * last operator ID it compares with. 0 or -ENOENT. */
int rb_code__symbols(const struct rb_code *c, const struct rb_code *next, uint64_t *symbols,
		     uint32_t *last_op_id);
/* The first jmp rel32 (or rel8) of c; 0 or -ENOENT. */
int rb_code__first_jump(const struct rb_code *c, uint64_t *target);
/* The first jmp rel32 of c leaving [c->vaddr, end): a tail call. 0 or -ENOENT. */
int rb_code__tail_call(const struct rb_code *c, uint64_t end, uint64_t *target);
/* The targets of c's direct calls (call rel32), in order, at most max. Returns how many. */
size_t rb_code__calls(const struct rb_code *c, uint64_t *targets, size_t max);

/* .eh_frame_hdr's binary search table: the function that holds vaddr is [*start, *end),
 * from its FDE's initial location to the next one's (padding after it included, which
 * never runs). hdr is the section's contents at ELF address hdr_vaddr. 0, -ENOENT (no
 * FDE holds it, or it is the last), or -EINVAL (a header ebprof does not read). */
int rb_fde__bounds(const uint8_t *hdr, size_t len, uint64_t hdr_vaddr, uint64_t vaddr,
		   uint64_t *start, uint64_t *end);

#endif
