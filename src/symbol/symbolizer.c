// SPDX-License-Identifier: Apache-2.0
/* Frame symbolization over the file registry and kallsyms. A file that fails to parse
 * is remembered as failed (its frames stay "file+0xOFF"), never retried per frame; so is
 * a file without DWARF, until debuginfod delivers its debug file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "symbol/debugcache.h"
#include "symbol/debuginfod.h"
#include "symbol/dwarfsym.h"
#include "symbol/elfsym.h"
#include "symbol/gopclntab.h"
#include "symbol/linecache.h"
#include "symbol/symbolizer.h"
#include "util/inflate_limit.h"
#include "util/log.h"
#include "util/mapguard.h"
#include "util/safe_file.h"

/* -DLINE_SPANS=0: a build whose line cache keeps each answer for its address alone, as it
 * did before spans, to compare (bench/lines_cost.c). */
#ifndef LINE_SPANS
#define LINE_SPANS 1
#endif

/* file_entry.debug_state: where the file's separate debug information stands. */
enum debug_state {
	DEBUG_UNKNOWN, /* symbols not read yet */
	DEBUG_NONE,    /* no local debug file: debuginfod may have one */
	DEBUG_LOCAL,   /* merged from /usr/lib/debug */
	DEBUG_FETCHED, /* merged from debuginfod */
	DEBUG_FINAL,   /* nothing more to look for */
};

void symbolizer__init(struct symbolizer *s, struct file_table *files, const struct ksyms *k)
{
	memset(s, 0, sizeof(*s));
	s->files = files;
	s->ksyms = k;
	s->debug_root = "/usr/lib/debug";
	s->lines = true;
	s->inlines = true;
	s->dwarf_budget = SYMBOLIZER_DWARF_MEMORY;
	s->lines_budget = SYMBOLIZER_LINES_MEMORY;
}

const char *symbolizer__kernel(struct symbolizer *s, uint64_t addr)
{
	return s->ksyms ? ksyms__lookup(s->ksyms, addr, NULL) : NULL;
}

/* Opens the debug file at p, if there is one; when say, says why one that is there cannot
 * be. */
static int open_debug_path(const char *p, bool say)
{
	char why[SAFE_FILE_WHY];
	int fd = safe_file__open(p, SAFE_FILE_FOLLOW, SYMBOLIZER_FILE_MAX, NULL, why);

	if (say && fd < 0 && fd != -ENOENT && fd != -ENOTDIR)
		pr_warn("debug file %s %s: not read", p, why);
	return fd;
}

/* f's local debug file. It is looked for twice, for the symbols and then for the DWARF:
 * the symbols' look (say) says what was refused, so a refusal is said once for the file. */
static int open_debug_file(const struct symbolizer *s, struct file_entry *f, bool say)
{
	const char *id = elf_syms__build_id(f->syms), *link = elf_syms__debuglink(f->syms);
	char p[4096];
	int fd = -1;

	if (strlen(id) > 2) {
		snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s.debug", s->debug_root, id, id + 2);
		fd = open_debug_path(p, say);
	}
	if (fd < 0 && link && f->path[0] == '/') {
		const char *slash = strrchr(f->path, '/');

		snprintf(p, sizeof(p), "%s%.*s/%s", s->debug_root, (int)(slash - f->path), f->path,
			 link);
		fd = open_debug_path(p, say);
	}
	return fd;
}

/* The DWARF of the file on fd: from its inflated copy in the debug cache when its debug
 * sections are compressed, else (or when the cache cannot serve) from fd itself. */
static struct dwarf_syms *dwarf_of(struct symbolizer *s, int fd)
{
	struct dwarf_syms *d;
	int cfd = -ENOENT;

	if (s->debug_cache)
		cfd = debug_cache__open(s->debug_cache, s->debug_cache_bytes, fd);
	if (cfd < 0)
		return dwarf_syms__open(fd);
	d = dwarf_syms__open(cfd);
	close(cfd);
	if (d) {
		s->dwarf_cached++;
		return d;
	}
	return dwarf_syms__open(fd);
}

/* A file (or its debug file) truncated under our mapping of it: said without -v, once for
 * the file, which is not read again. */
static void say_shrunk(struct symbolizer *s, const struct file_entry *f)
{
	s->dwarf_torn++;
	pr_warn("%s shrank while its DWARF was read: its frames keep their symbols only", f->path);
}

/* Opens f's DWARF: its own, else its local debug file's, else the one debuginfod
 * fetched. Remembers a failure in dwarf_err. */
static void open_dwarf(struct symbolizer *s, struct file_entry *f)
{
	int dfd;

	f->dwarf = dwarf_of(s, f->fd);
	if (!f->dwarf) {
		dfd = open_debug_file(s, f, false);
		if (dfd < 0 && f->debug_state == DEBUG_FETCHED)
			dfd = debuginfod__find(s->debuginfod, elf_syms__build_id(f->syms));
		if (dfd >= 0) {
			f->dwarf = dwarf_of(s, dfd);
			close(dfd);
		}
	}
	f->dwarf_err = f->dwarf ? 0 : (errno ? errno : ENODATA);
	f->dwarf_free = dwarf_syms__free;
	s->dwarf_opened += f->dwarf != NULL;
	dwarf_syms__bound_units(f->dwarf, s->units_keep);
	/* What another user's file did to us is said without -v, once for the file. */
	if (f->dwarf_err == EIO)
		say_shrunk(s, f);
	else if (f->dwarf_err == EFBIG)
		pr_warn("%s: its compressed DWARF would inflate past %u times its size: not read",
			f->path, INFLATE_RATIO_MAX);
	else if (!f->dwarf)
		pr_debug("no DWARF for %s: %s", f->path, strerror(f->dwarf_err));
}

/* Asks debuginfod for f's debug file if nothing local has what it would bring; merges
 * its symbols when it has arrived and lets the DWARF be opened again from it. */
static void poll_fetch(struct symbolizer *s, struct file_entry *f)
{
	int dfd;

	if (s->lines && !f->dwarf && !f->dwarf_err)
		open_dwarf(s, f);
	if (f->dwarf) {
		f->debug_state = DEBUG_FINAL; /* the binary carries its own */
		return;
	}
	dfd = debuginfod__find(s->debuginfod, elf_syms__build_id(f->syms));
	if (dfd == -EAGAIN)
		return;
	if (dfd < 0) {
		f->debug_state = DEBUG_FINAL;
		return;
	}
	if (elf_syms__add_debug_file(f->syms, dfd))
		pr_debug("fetched debug file of %s unusable", f->path);
	close(dfd);
	f->debug_state = DEBUG_FETCHED;
	f->dwarf_err = 0;
}

static void open_syms(struct symbolizer *s, struct file_entry *f)
{
	int dfd;

	f->syms = elf_syms__open(f->fd);
	f->syms_free = elf_syms__free;
	if (!f->syms) {
		f->syms_err = errno ? errno : EINVAL;
		s->elf_failures++;
		pr_debug("cannot read symbols of %s: %s", f->path, strerror(f->syms_err));
		return;
	}
	f->debug_state = DEBUG_NONE;
	dfd = open_debug_file(s, f, true);
	if (dfd < 0)
		return;
	if (elf_syms__add_debug_file(f->syms, dfd))
		pr_debug("debug file of %s unusable", f->path);
	close(dfd);
	f->debug_state = DEBUG_LOCAL;
}

/* Parses f's symbols on first use; returns NULL when the file is unusable. */
static struct elf_syms *file_syms(struct symbolizer *s, struct file_entry *f)
{
	if (!f->syms && !f->syms_err) {
		if (f->fd < 0) {
			f->syms_err = EBADF;
			return NULL;
		}
		open_syms(s, f);
	}
	if (f->syms && f->debug_state == DEBUG_NONE && s->debuginfod)
		poll_fetch(s, f);
	return f->syms;
}

/* Reads f's Go pclntab on first use; NULL for files that are not Go (or unreadable). */
static struct go_table *file_go(struct file_entry *f)
{
	if (f->go || f->go_err)
		return f->go;
	if (f->fd < 0) {
		f->go_err = EBADF;
		return NULL;
	}
	f->go = go_table__open(f->fd);
	f->go_free = go_table__free;
	f->go_err = f->go ? 0 : (errno ? errno : EINVAL);
	if (f->go_err && f->go_err != ENOENT)
		pr_debug("Go pclntab of %s unusable: %s", f->path, strerror(f->go_err));
	return f->go;
}

/* Go code is named from its pclntab, stripped or not: the function the pc belongs to,
 * and with lines the calls inlined there. Returns how many positions, 0 if not Go code. */
static unsigned int go_lines(struct file_entry *f, uint64_t off, struct go_line *out,
			     unsigned int max)
{
	struct go_table *g = file_go(f);

	return g ? go_table__lookup(g, off, out, max) : 0;
}

const char *symbolizer__native(struct symbolizer *s, uint32_t file_id, uint64_t off)
{
	struct file_entry *f = file_table__get(s->files, file_id);
	struct go_line gl[GO_INLINE_MAX];
	struct elf_syms *syms;
	unsigned int n;
	uint64_t sym_off;

	if (!f)
		return NULL;
	n = go_lines(f, off, gl, GO_INLINE_MAX);
	if (n)
		return gl[n - 1].function;
	syms = file_syms(s, f);
	return syms ? elf_syms__lookup(syms, off, &sym_off) : NULL;
}

const char *symbolizer__build_id(struct symbolizer *s, uint32_t file_id)
{
	struct file_entry *f = file_table__get(s->files, file_id);
	struct elf_syms *syms = f ? file_syms(s, f) : NULL;

	return syms ? elf_syms__build_id(syms) : "";
}

uint64_t symbolizer__dwarf_memory(const struct symbolizer *s, uint32_t *nfiles)
{
	uint64_t total = 0;
	uint32_t n = 0;

	for (uint32_t id = 1; id <= s->files->count; id++) {
		const struct file_entry *f = file_table__get(s->files, id);

		if (f && f->dwarf) {
			total += dwarf_syms__memory(f->dwarf);
			n++;
		}
	}
	if (nfiles)
		*nfiles = n;
	return total;
}

/* Frees f's DWARF; it is opened again when a frame of f needs it. */
static void release_dwarf(struct file_entry *f)
{
	dwarf_syms__free(f->dwarf);
	f->dwarf = NULL;
	f->dwarf_err = 0;
	f->dwarf_idle = 0;
}

/* Notes the peak; over budget, drops every other file's DWARF (it is opened again when
 * needed): the indexes of the file in use are what the next lookups need. */
static void enforce_budget(struct symbolizer *s, const struct file_entry *keep)
{
	uint64_t total = symbolizer__dwarf_memory(s, NULL);

	if (total > s->dwarf_peak)
		s->dwarf_peak = total;
	if (total <= s->dwarf_budget)
		return;
	for (uint32_t id = 1; id <= s->files->count; id++) {
		struct file_entry *f = file_table__get(s->files, id);

		if (!f || f == keep || !f->dwarf)
			continue;
		release_dwarf(f);
		s->dwarf_evictions++;
	}
}

/* A Go frame's positions as DWARF-shaped lines: the pclntab's, innermost first; only
 * the physical function's with inlines off. */
static int symbolizer__go_lines(struct symbolizer *s, struct file_entry *f, uint64_t off,
				struct dwarf_line *out, int max)
{
	struct go_line gl[GO_INLINE_MAX];
	unsigned int n = go_lines(f, off, gl, GO_INLINE_MAX), first;

	if (!n || max <= 0)
		return 0;
	first = s->inlines ? 0 : n - 1;
	if (n - first > (unsigned int)max)
		first = n - (unsigned int)max; /* keep the physical function, cut inside */
	for (unsigned int i = first; i < n; i++) {
		out[i - first].function = gl[i].function;
		out[i - first].file = strcmp(gl[i].file, "?") ? gl[i].file : "";
		out[i - first].line = gl[i].line;
	}
	return (int)(n - first);
}

/* The lines of va from f's DWARF, opened if need be, and in *sp the addresses they are
 * the answer for. */
static int dwarf_lines(struct symbolizer *s, struct file_entry *f, uint64_t va,
		       struct dwarf_line *out, int max, struct dwarf_span *sp)
{
	size_t before;
	int n;

	if (!f->dwarf && !f->dwarf_err)
		open_dwarf(s, f);
	if (!f->dwarf)
		return 0;
	before = dwarf_syms__memory(f->dwarf);
	n = dwarf_syms__lookup_span(f->dwarf, va, s->inlines, out, max, LINE_SPANS ? sp : NULL);
	if (!LINE_SPANS)
		*sp = (struct dwarf_span){va, va + 1};
	f->dwarf_missed = true;
	if (dwarf_syms__torn(f->dwarf)) {
		release_dwarf(f);
		f->dwarf_err = EIO; /* not opened again: the file is not what was mapped */
		say_shrunk(s, f);
		return 0;
	}
	if (dwarf_syms__memory(f->dwarf) > before)
		enforce_budget(s, f);
	return n;
}

/* f's line cache, made on first use; NULL on ENOMEM (lookups then go to DWARF). */
static struct line_cache *file_lines(struct file_entry *f)
{
	if (!f->lines) {
		f->lines = line_cache__new();
		f->lines_free = line_cache__free;
	}
	return f->lines;
}

int symbolizer__native_lines(struct symbolizer *s, uint32_t file_id, uint64_t off,
			     struct dwarf_line *out, int max)
{
	struct file_entry *f = file_table__get(s->files, file_id);
	struct dwarf_span sp;
	struct line_cache *c;
	uint64_t va;
	int n;

	if (!s->lines || !f)
		return 0;
	n = symbolizer__go_lines(s, f, off, out, max);
	if (n || !file_syms(s, f) || !elf_syms__vaddr(f->syms, off, &va))
		return n;
	c = max >= DWARF_LINES_MAX ? file_lines(f) : NULL;
	n = c ? line_cache__get(c, va, out, max) : -ENOENT;
	if (n >= 0) {
		s->lines_hits++;
		return n;
	}
	if (!f->dwarf && f->dwarf_err)
		return 0; /* no DWARF: nothing to cache, and nothing to open */
	n = dwarf_lines(s, f, va, out, max, &sp);
	/* Without DWARF nothing is cached: a debug file debuginfod delivers later names it.
	 * The answer is cached for its whole span: a later address of the same line-table
	 * row and inline scope is named without opening the DWARF again. */
	if (!f->dwarf || !c || line_cache__put(c, va, sp.lo, sp.hi, out, n))
		return n; /* DWARF's strings, valid until the next lookup */
	s->lines_misses++;
	return line_cache__get(c, va, out, max); /* the cache's copies outlive the DWARF */
}

uint64_t symbolizer__lines_memory(const struct symbolizer *s, uint32_t *nfiles, uint64_t *nframes)
{
	uint64_t total = 0, frames = 0;
	uint32_t n = 0;

	for (uint32_t id = 1; id <= s->files->count; id++) {
		const struct file_entry *f = file_table__get(s->files, id);

		if (f && f->lines) {
			total += line_cache__memory(f->lines);
			frames += line_cache__frames(f->lines);
			n++;
		}
	}
	if (nfiles)
		*nfiles = n;
	if (nframes)
		*nframes = frames;
	return total;
}

/* Past lines_budget, drops the largest line caches until the rest fit: their frames are
 * named from DWARF again, once, when next seen. */
static void enforce_lines_budget(struct symbolizer *s)
{
	uint64_t total = symbolizer__lines_memory(s, NULL, NULL);

	while (total > s->lines_budget) {
		struct file_entry *big = NULL;
		size_t most = 0;

		for (uint32_t id = 1; id <= s->files->count; id++) {
			struct file_entry *f = file_table__get(s->files, id);
			size_t m = f && f->lines ? line_cache__memory(f->lines) : 0;

			if (m > most) {
				most = m;
				big = f;
			}
		}
		if (!big)
			return;
		line_cache__free(big->lines);
		big->lines = NULL;
		total -= most;
		s->lines_dropped++;
	}
}

void symbolizer__file_named(struct symbolizer *s, uint32_t file_id)
{
	struct file_entry *f = file_table__get(s->files, file_id);

	enforce_lines_budget(s);
	if (!s->release_dwarf || !f || !f->dwarf)
		return;
	if (s->dwarf_idle_max && (!s->dwarf_keep_inflated || dwarf_syms__inflated(f->dwarf))) {
		s->dwarf_kept++;
		return;
	}
	pr_debug("DWARF of %s: %.1f MiB at the end, units dropped %u times, mapped pages %u "
		 "times, freed once named",
		 f->path, dwarf_syms__memory(f->dwarf) / 1048576.0, dwarf_syms__resets(f->dwarf),
		 dwarf_syms__mapped_drops(f->dwarf));
	s->dwarf_resets += dwarf_syms__resets(f->dwarf);
	release_dwarf(f);
	s->dwarf_released++;
}

void symbolizer__report_done(struct symbolizer *s)
{
	for (uint32_t id = 1; id <= s->files->count; id++) {
		struct file_entry *f = file_table__get(s->files, id);

		if (!f)
			continue;
		if (f->dwarf_missed)
			f->dwarf_idle = 0;
		else if (f->dwarf && f->dwarf_idle < UINT8_MAX)
			f->dwarf_idle++;
		if (s->release_dwarf && s->dwarf_idle_max && f->dwarf &&
		    f->dwarf_idle >= s->dwarf_idle_max) {
			pr_debug("DWARF of %s: not needed by %u reports, freed", f->path,
				 f->dwarf_idle);
			s->dwarf_resets += dwarf_syms__resets(f->dwarf);
			release_dwarf(f);
			s->dwarf_released++;
		}
		f->dwarf_missed = false;
	}
}

void symbolizer__prefetch(struct symbolizer *s)
{
	if (!s->debuginfod)
		return;
	for (uint32_t id = 1; id <= s->files->count; id++) {
		struct file_entry *f = file_table__get(s->files, id);

		if (f && f->fd >= 0)
			file_syms(s, f);
	}
}

void symbolizer__print_refused(const struct symbolizer *s, FILE *out)
{
	uint64_t refused = inflate_limit__refused(), faults = mapguard__faults();

	if (!refused && !faults && !s->dwarf_torn)
		return;
	fprintf(out,
		"  hostile files: %llu inflations refused (past %u times a file's size), %llu "
		"reads past a shrunk file's end absorbed, %u files' DWARF dropped for it\n",
		(unsigned long long)refused, INFLATE_RATIO_MAX, (unsigned long long)faults,
		s->dwarf_torn);
}
