/* SPDX-License-Identifier: Apache-2.0 */
/* Names for frames: kernel addresses through kallsyms, (file, offset) through the file's
 * ELF symbols, merged with its separate debug file when the system has one. Each file
 * is parsed once, on the first frame that needs it. */
#ifndef EBPROF_SYMBOLIZER_H
#define EBPROF_SYMBOLIZER_H

#include <stdint.h>

#include "proc/files.h"
#include "symbol/ksyms.h"

struct runtime_set;

struct symbolizer {
	struct file_table *files;
	const struct ksyms *ksyms;	    /* NULL when kallsyms was unreadable */
	const char *debug_root;		    /* normally "/usr/lib/debug" */
	uint32_t elf_failures;		    /* files we could not parse */
	const struct runtime_set *runtimes; /* names of runtimes' frames; NULL: unnamed */
};

void symbolizer__init(struct symbolizer *s, struct file_table *files, const struct ksyms *k);
/* Returns the function name, or NULL when the address has no symbol. The pointer lives
 * as long as the file table / ksyms. */
const char *symbolizer__kernel(struct symbolizer *s, uint64_t addr);
const char *symbolizer__native(struct symbolizer *s, uint32_t file_id, uint64_t off);
/* Returns the file's GNU build id in hex, "" when it has none or cannot be read. */
const char *symbolizer__build_id(struct symbolizer *s, uint32_t file_id);

#endif
