/* SPDX-License-Identifier: Apache-2.0 */
/* ELF symbol reader: resolves a file offset inside an executable or shared object to the
 * function covering it (.symtab and .dynsym, demangled), and reads the build id and
 * .gnu_debuglink that locate separate debug files. Input files are treated as hostile. */
#ifndef EBPROF_SYMBOL_ELFSYM_H
#define EBPROF_SYMBOL_ELFSYM_H

#include <stdbool.h>
#include <stdint.h>

struct elf_file;
struct elf_syms;

/* Reads the symbols' addresses, build id and debug link of the ELF file open on fd, and
 * keeps a dup of fd to read each name from when a lookup first lands on it: the caller
 * keeps fd and nothing stays mapped. The tables are read a window at a time (what the
 * load holds of them is bounded, however large), and a table past the file's end is left
 * out. Returns NULL with errno set (EINVAL: not a regular ELF file or unreadable header;
 * EIO: the file shrank while it was read; ENOMEM; EBADF; EMFILE). A file without symbols
 * opens fine and resolves nothing. */
struct elf_syms *elf_syms__open(int fd);
/* The same from a file already open (e is not freed; a dup of its descriptor is kept). */
struct elf_syms *elf_syms__open_elf(const struct elf_file *e);
void elf_syms__free(struct elf_syms *s);

/* Returns the demangled name of the function covering file offset off, or NULL; on
 * success *sym_off (if not NULL) gets off's distance from the function's start. The
 * string is owned by s and valid until elf_syms__free. Demangles on first use, so it
 * writes to s: callers serialise lookups on the same object. */
const char *elf_syms__lookup(struct elf_syms *s, uint64_t off, uint64_t *sym_off);

/* Converts file offset off to the ELF virtual address it is loaded at (what DWARF and the
 * symbol tables use). Returns false when no loadable segment holds off. */
bool elf_syms__vaddr(const struct elf_syms *s, uint64_t off, uint64_t *va);

/* The GNU build id as lowercase hex, "" if the file has none. Owned by s. */
const char *elf_syms__build_id(const struct elf_syms *s);

/* The file name (no directory; names with '/' are rejected) from .gnu_debuglink, or NULL.
 * Owned by s. */
const char *elf_syms__debuglink(const struct elf_syms *s);

/* Merges the function symbols of a separate debug file (e.g. from /usr/lib/debug) into s.
 * Returns 0, -EINVAL if fd is not ELF, its build id differs from s's or s has a debug
 * file already, or another negative errno. Keeps a dup of its descriptor for names.
 * Names returned earlier stay valid. */
int elf_syms__add_debug_file(struct elf_syms *s, int fd);
int elf_syms__add_debug_elf(struct elf_syms *s, const struct elf_file *e);

/* Returns a malloc'd demangled C++ or Rust (legacy and v0) name without Rust's "::h<hash>"
 * suffix, or NULL if mangled is not a mangled name (or longer than 8 KiB: libiberty's
 * demangler puts ~72 bytes of stack per input byte, so this needs ~600 KiB of stack). */
char *ebprof_demangle(const char *mangled);

#endif
