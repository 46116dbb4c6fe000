/* SPDX-License-Identifier: Apache-2.0 */
/* What the Go walker needs to cross a cgo call (go_cgo_step.h), read from a Go
 * binary's runtime.asmcgocall: where its code is, whether its prologue saves BP, and
 * where on the system stack it keeps the g it left and its depth in that g's stack. */
#ifndef EBPROF_INTERP_GO_CGO_H
#define EBPROF_INTERP_GO_CGO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_file;

struct go_cgo_switch {
	uint64_t off, len;    /* its code, as a file offset range; len 0: not found */
	uint8_t frame;	      /* 8: its prologue pushes BP, else 0 */
	uint8_t g, depth;     /* offsets from its SP at the call of the saved g and depth */
	bool slots_from_code; /* g and depth were found in its code */
	/* runtime.systemstack, the runtime's own switch to g0 (ss_len 0: not found). */
	uint64_t ss_off, ss_len;
	uint8_t ss_frame;
	/* runtime.morestack (ms_len 0: not found), and offsetof(g, sched.bp) as its code
	 * stores BP there ("MOVQ BP, (g_sched+gobuf_bp)(SI)"; 0: not found). */
	uint64_t ms_off, ms_len;
	uint8_t sched_bp;
};

/* Finds runtime.asmcgocall and runtime.systemstack in the Go binary open on fd (e, its
 * elf_file) and reads their code. Returns 0, or -ENOENT (neither: not Go), -EIO. */
int go_cgo__find(int fd, const struct elf_file *e, struct go_cgo_switch *out);

/* From asmcgocall's code (n bytes): the offsets of the two stores of the switched path
 * ("MOVQ DI, g(SP)", then "MOVQ DI, depth(SP)"), checked against the path taken on the
 * system stack ("MOVQ $0, g(SP)", "MOVQ DX, depth(SP)"). Returns 0 when exactly those
 * were found, else -ENOENT. */
int go_cgo__slots(const uint8_t *code, size_t n, uint8_t *g, uint8_t *depth);

/* offsetof(g, sched.bp) from morestack's code (n bytes): its one store of BP through
 * %rsi or %rdi at g.sched (56) plus 40 or 48. 0 when there is not exactly one. */
uint8_t go_cgo__sched_bp(const uint8_t *code, size_t n);

/* offsetof(g, sched.bp) for Go 1.MINOR: the release's table entry when morestack's code
 * agrees (or had none to say), else what the code says. 0: unknown. */
uint8_t go_cgo__sched_bp_of(uint8_t minor, const struct go_cgo_switch *sw);

/* The slots for a binary of Go 1.MINOR: the release's table entry when the code agrees
 * with it (or had none to say); for a release not in the table, what its code says (from
 * 1.19). Returns 0, or -ENOTSUP (the walker does not claim it). */
int go_cgo__layout(uint8_t minor, const struct go_cgo_switch *sw, uint8_t *g, uint8_t *depth);

#endif
