/* SPDX-License-Identifier: Apache-2.0 */
/* What the Go walker needs to cross a cgo call (bpf/go_cgo_step.h), read from a Go
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
};

/* Finds runtime.asmcgocall and runtime.systemstack in the Go binary open on fd (e, its
 * elf_file) and reads their code. Returns 0, or -ENOENT (neither: not Go), -EIO. */
int go_cgo__find(int fd, const struct elf_file *e, struct go_cgo_switch *out);

/* From asmcgocall's code (n bytes): the offsets of the two stores of the switched path
 * ("MOVQ DI, g(SP)", then "MOVQ DI, depth(SP)"), checked against the path taken on the
 * system stack ("MOVQ $0, g(SP)", "MOVQ DX, depth(SP)"). Returns 0 when exactly those
 * were found, else -ENOENT. */
int go_cgo__slots(const uint8_t *code, size_t n, uint8_t *g, uint8_t *depth);

/* The slots for a binary of Go 1.MINOR: the release's table entry when the code agrees
 * with it (or had none to say); for a release not in the table, what its code says (from
 * 1.19). Returns 0, or -ENOTSUP (the walker does not claim it). */
int go_cgo__layout(uint8_t minor, const struct go_cgo_switch *sw, uint8_t *g, uint8_t *depth);

#endif
