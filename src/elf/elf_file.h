/* SPDX-License-Identifier: Apache-2.0 */
/* One view of an ELF file: its header, PT_LOAD segments, sections by name (decompressed
 * on request) and symbols by name, opened once and shared by the symbolizer, the unwind
 * table compiler and the runtime detectors. The file is hostile: every bound is checked. */
#ifndef EBPROF_ELF_ELF_FILE_H
#define EBPROF_ELF_ELF_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELF_FILE_MAX_SEGMENTS 16 /* PT_LOADs kept; real files have 2 to 5 */
#define ELF_BUILD_ID_MAX 64	 /* bytes; GNU ld writes 16 (md5/uuid) or 20 (sha1) */

struct elf_file;
typedef struct Elf Elf; /* libelf's handle, for libdw (dwarf_begin_elf) */

/* A PT_LOAD program header (flags: PF_R | PF_W | PF_X). */
struct elf_segment {
	uint64_t offset;
	uint64_t vaddr;
	uint64_t filesz;
	uint64_t memsz;
	uint32_t flags;
};

/* A section header found by name. Its data is read only by elf_file__section_data. */
struct elf_section {
	size_t index; /* for elf_file__section_data */
	uint64_t addr;
	uint64_t offset;
	uint64_t size;	/* sh_size as stored (compressed size for a compressed section) */
	uint32_t type;	/* SHT_* */
	uint64_t flags; /* SHF_* */
};

/* Opens the ELF file on fd through a dup of it (the caller keeps fd). Reads with pread,
 * never mmap: a file truncated under us is an error, not SIGBUS. Reads the header, the
 * PT_LOAD segments (at most ELF_FILE_MAX_SEGMENTS, in file order) and the GNU build id
 * (notes of program headers, then of sections). Returns NULL with errno set: EINVAL (not
 * a regular ELF file, unreadable header), ENOMEM, EBADF. Not thread-safe: one thread uses
 * an elf_file at a time (lookups fill caches). */
struct elf_file *elf_file__open(int fd);
void elf_file__free(struct elf_file *e);

/* The header's e_machine (EM_*), e_type (ET_*), and whether it is ELFCLASS64 little-endian. */
uint16_t elf_file__machine(const struct elf_file *e);
uint16_t elf_file__type(const struct elf_file *e);
bool elf_file__is_64le(const struct elf_file *e);

/* The PT_LOAD segments in file order; *n gets their count. Owned by e. */
const struct elf_segment *elf_file__segments(const struct elf_file *e, size_t *n);

/* The load bias (process address - ELF vaddr) of a mapping of the file that starts at
 * process address start, file offset pgoff: from the segment whose file range holds the
 * mapping's first byte, executable segments first (a read-only segment may share the
 * code's first page). Returns false when none does. The second form works on a copy of
 * the segments, for callers that keep them after freeing the file. */
bool elf_file__vaddr_bias(const struct elf_file *e, uint64_t start, uint64_t pgoff, uint64_t *bias);
bool elf_segments__vaddr_bias(const struct elf_segment *segs, size_t n, uint64_t start,
			      uint64_t pgoff, uint64_t *bias);

/* The file offset -> ELF vaddr of a byte in a segment's file range, executable segments
 * first. Returns false when no segment holds off. */
bool elf_file__off_to_vaddr(const struct elf_file *e, uint64_t off, uint64_t *vaddr);
bool elf_segments__off_to_vaddr(const struct elf_segment *segs, size_t n, uint64_t off,
				uint64_t *vaddr);

/* The other way: the file offset of ELF address vaddr, from the segment whose file-backed
 * range [vaddr, vaddr + filesz) holds it, executable segments first. Returns false when
 * none does (the address is in .bss or outside every segment). */
bool elf_file__vaddr_to_off(const struct elf_file *e, uint64_t vaddr, uint64_t *off);

/* The GNU build id: its length (0 when the file has none), the bytes in *id (owned by e). */
size_t elf_file__build_id(const struct elf_file *e, const uint8_t **id);
/* The build id as lowercase hex into out (2 * ELF_BUILD_ID_MAX + 1 bytes); "" for none. */
void elf_file__build_id_hex(const struct elf_file *e, char *out);

/* Finds the first section called name. Returns 0, or -ENOENT. */
int elf_file__section(const struct elf_file *e, const char *name, struct elf_section *out);
/* The first section of type (SHT_*). Returns 0, or -ENOENT. */
int elf_file__section_by_type(const struct elf_file *e, uint32_t type, struct elf_section *out);

/* The contents of section s, decompressed when it is SHF_COMPRESSED or a GNU ".zdebug"
 * section, at most max bytes (decompressed). *data stays valid until elf_file__free.
 * Returns 0; -ENOENT (SHT_NOBITS or empty), -EFBIG (past max), -EINVAL (unreadable or
 * badly compressed). */
int elf_file__section_data(const struct elf_file *e, const struct elf_section *s, size_t max,
			   const void **data, size_t *size);

/* Looks up a defined symbol (st_shndx not SHN_UNDEF) by exact name in .symtab, then
 * .dynsym (the first of a name in each). value and size may be NULL. A name absent from
 * .symtab's strings is looked up in .dynsym's GNU hash table, reading a few words: most
 * files are asked for names they lack (every runtime's detect asks every file). The
 * first name found in .symtab's strings, or any name in a file whose .dynsym has no
 * usable hash table, indexes the names of .symtab (and of .dynsym when it has no hash
 * table: one pass each); later calls are a hash lookup. Returns 0, -ENOENT, or -ENOMEM. */
int elf_file__symbol(const struct elf_file *e, const char *name, uint64_t *value, uint64_t *size);

/* The libelf handle, for readers the view does not cover (symbol tables sorted by
 * address, libdw). Owned by e: valid until elf_file__free. */
Elf *elf_file__elf(const struct elf_file *e);

/* The file's size when e was opened: a reader that finds it smaller later knows the file
 * shrank (an error), where a section past it is one the file lies about (malformed). */
uint64_t elf_file__size(const struct elf_file *e);

/* The descriptor e reads through (its own dup, closed by elf_file__free): a reader that
 * comes back to the file after e is freed (symbol names read on lookup) dups it. */
int elf_file__fd(const struct elf_file *e);

#endif
