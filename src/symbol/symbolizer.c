// SPDX-License-Identifier: Apache-2.0
/* Frame symbolization over the file registry and kallsyms. A file that fails to parse
 * is remembered as failed (its frames stay "file+0xOFF"), never retried per frame. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "symbol/elfsym.h"
#include "symbol/symbolizer.h"
#include "util/log.h"

void symbolizer__init(struct symbolizer *s, struct file_table *files, const struct ksyms *k)
{
	memset(s, 0, sizeof(*s));
	s->files = files;
	s->ksyms = k;
	s->debug_root = "/usr/lib/debug";
}

const char *symbolizer__kernel(struct symbolizer *s, uint64_t addr)
{
	return s->ksyms ? ksyms__lookup(s->ksyms, addr, NULL) : NULL;
}

static int open_debug_file(const struct symbolizer *s, struct file_entry *f)
{
	const char *id = elf_syms__build_id(f->syms), *link = elf_syms__debuglink(f->syms);
	char p[4096];
	int fd = -1;

	if (strlen(id) > 2) {
		snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s.debug", s->debug_root, id, id + 2);
		fd = open(p, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0 && link && f->path[0] == '/') {
		const char *slash = strrchr(f->path, '/');

		snprintf(p, sizeof(p), "%s%.*s/%s", s->debug_root, (int)(slash - f->path), f->path,
			 link);
		fd = open(p, O_RDONLY | O_CLOEXEC);
	}
	return fd;
}

/* Parses f's symbols on first use; returns NULL when the file is unusable. */
static struct elf_syms *file_syms(struct symbolizer *s, struct file_entry *f)
{
	int dfd;

	if (f->syms || f->syms_err)
		return f->syms;
	if (f->fd < 0) {
		f->syms_err = EBADF;
		return NULL;
	}
	f->syms = elf_syms__open(f->fd);
	f->syms_free = elf_syms__free;
	if (!f->syms) {
		f->syms_err = errno ? errno : EINVAL;
		s->elf_failures++;
		pr_debug("cannot read symbols of %s: %s", f->path, strerror(f->syms_err));
		return NULL;
	}
	dfd = open_debug_file(s, f);
	if (dfd >= 0) {
		if (elf_syms__add_debug_file(f->syms, dfd))
			pr_debug("debug file of %s unusable", f->path);
		close(dfd);
	}
	return f->syms;
}

const char *symbolizer__native(struct symbolizer *s, uint32_t file_id, uint64_t off)
{
	struct file_entry *f = file_table__get(s->files, file_id);
	struct elf_syms *syms = f ? file_syms(s, f) : NULL;
	uint64_t sym_off;

	return syms ? elf_syms__lookup(syms, off, &sym_off) : NULL;
}

const char *symbolizer__build_id(struct symbolizer *s, uint32_t file_id)
{
	struct file_entry *f = file_table__get(s->files, file_id);
	struct elf_syms *syms = f ? file_syms(s, f) : NULL;

	return syms ? elf_syms__build_id(syms) : "";
}
