/* SPDX-License-Identifier: Apache-2.0 */
/* Go's own symbol table (.gopclntab, Go 1.16 and later): names, file:line and the inline
 * tree of every Go function, present in every Go binary even when it is stripped
 * (-ldflags=-s -w). Input files are treated as hostile. */
#ifndef EBPROF_SYMBOL_GOPCLNTAB_H
#define EBPROF_SYMBOL_GOPCLNTAB_H

#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>

struct go_table;

/* One source position of a pc: the function running there and its file and line. */
struct go_line {
	const char *function; /* never NULL */
	const char *file;     /* full path as the compiler saw it; "?" when unknown */
	uint32_t line;	      /* 0 when unknown */
};

/* Inlined calls expanded for one pc, the physical function included. */
#define GO_INLINE_MAX 16

/* Reads the pclntab of the ELF file open on fd: found from its section (.gopclntab, or
 * .data.rel.ro.gopclntab in PIE binaries), else by searching the loadable segments for
 * the table's header. Keeps a dup of fd and reads the table on demand (only the sorted
 * function entries are copied). Returns NULL with errno set: ENOENT when the file holds
 * no pclntab of a known version (not Go, Go before 1.16, big-endian, 32-bit), EINVAL for
 * a table that does not check out, ENOMEM, EBADF. */
struct go_table *go_table__open(int fd);
void go_table__free(struct go_table *t);

/* Resolves file offset off to at most max positions, innermost first: the functions
 * inlined at that pc, then the physical function, which is always last. Returns how many
 * were written, 0 when off is not in Go code (e.g. cgo's C functions). Strings are owned
 * by t and valid until go_table__free. Reads and caches, so it writes to t: callers
 * serialise lookups on the same table. */
unsigned int go_table__lookup(struct go_table *t, uint64_t off, struct go_line *out,
			      unsigned int max);

/* One range of a function's code for the unwinder: at pc in [pc, end) the stack pointer
 * is sp bytes below its value at the function's entry (-1: unknown), i.e. the return
 * address is at SP + sp. flags are the function's abi.FuncFlag bits, plus
 * GO_FUNC_SIGRETURN for the signal restorer. Functions with TOPFRAME, SPWRITE or
 * SIGRETURN come as one range with sp = -1: their pcsp table does not tell where the
 * caller is. Addresses are ELF virtual addresses. */
enum go_func_flag {
	GO_FUNC_TOPFRAME = 1, /* outermost frame of a stack (goexit, mstart, rt0_go) */
	GO_FUNC_SPWRITE = 2,  /* writes SP: switches stacks (systemstack, mcall, morestack) */
	GO_FUNC_ASM = 4,      /* written in assembly */
	GO_FUNC_SIGRETURN = 0x80,
};

struct go_sp_range {
	uint64_t pc, end;
	int32_t sp;
	uint8_t flags;
};

typedef int (*go_sp_fn)(void *ctx, const struct go_sp_range *r);

/* Calls fn for every range of every function, in address order; stops at and returns
 * fn's first nonzero result. Functions whose record does not check out come as one
 * range with sp = -1. */
int go_table__each_sp(struct go_table *t, go_sp_fn fn, void *ctx);

/* The ELF address range [*entry, *end) of the assembly function called name (such as
 * "runtime.asmcgocall"): a scan of every function record, for the few the runtime's
 * walker must know. Returns 0, or -ENOENT when there is none (or it is not assembly). */
#define GO_FUNC_NAME_MAX 64
int go_table__asm_func(const struct go_table *t, const char *name, uint64_t *entry, uint64_t *end);

/* The same for n names in one pass over the functions: out[k] is names[k]'s range, {0, 0}
 * when there is none. Returns 0 when any was found, else -ENOENT. */
struct go_func_range {
	uint64_t entry, end;
};
int go_table__asm_funcs(const struct go_table *t, const char *const *names, size_t n,
			struct go_func_range *out);

/* Whether the ELF file has the note with Go's build id, as every Go binary does. */
bool go_elf__has_note(Elf *elf);

/* The format's first Go release: "1.16", "1.18" or "1.20". */
const char *go_table__version(const struct go_table *t);
/* Whether inline trees can be read (Go 1.18+ needs the module data, found only in
 * position-dependent executables). Without them an inlined pc names its physical
 * function with no line. */
bool go_table__has_inline(const struct go_table *t);

#endif
