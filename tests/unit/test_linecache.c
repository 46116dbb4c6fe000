// SPDX-License-Identifier: Apache-2.0
/* The line cache (symbol/linecache.c) on its own, then under the symbolizer on this
 * test's own binary (many units, inline functions): a second report names every frame
 * from the cache without opening DWARF again and gives the same lines; the bound drops
 * caches; releasing a file drops its cache; a costly DWARF is kept while it is needed. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "native_frames.h"
#include "elf/elf_file.h"
#include "profile/profile.h"
#include "profile/report.h"
#include "proc/files.h"
#include "symbol/linecache.h"
#include "symbol/symbolizer.h"

#define FRAMES 400
#define FRAMES_PER_STACK 8

static char self[4096];
static uint64_t text_off, text_size;

static void test_cache_basics(void)
{
	const struct dwarf_line chain[] = {
	    {"leaf", "/src/a.h", 7}, {"mid", "/src/a.h", 12}, {"outer", "/src/b.c", 40}};
	struct line_cache *c = line_cache__new();
	struct dwarf_line out[DWARF_LINES_MAX], again[DWARF_LINES_MAX];
	size_t empty;

	CHECK(c != NULL);
	if (!c)
		return;
	empty = line_cache__memory(c);
	CHECK(line_cache__get(c, 0x1000, out, DWARF_LINES_MAX) == -ENOENT);
	CHECK(line_cache__put(c, 0x1000, 0x1000, 0x1004, chain, 3) == 0);
	CHECK(line_cache__put(c, 0x1003, 0x1003, 0x1004, chain, 3) == -EEXIST);
	CHECK(line_cache__put(c, 0x1004, 0x1004, 0x1005, chain + 1, 2) == 0);
	CHECK(line_cache__put(c, 0x2000, 0x2000, 0x2001, NULL, 0) == 0); /* DWARF had nothing */
	CHECK(line_cache__put(c, 0x3000, 0x3000, 0x3001, chain, DWARF_LINES_MAX + 1) == -EINVAL);
	CHECK(line_cache__put(c, 0x3000, 0x3001, 0x3002, chain, 1) == -EINVAL); /* not its span */
	CHECK(line_cache__get(c, 0x1000, out, DWARF_LINES_MAX) == 3);
	for (int i = 0; i < 3; i++)
		CHECK(!strcmp(out[i].function, chain[i].function) &&
		      !strcmp(out[i].file, chain[i].file) && out[i].line == chain[i].line);
	CHECK(out[0].function != chain[0].function); /* a copy, not the caller's string */
	CHECK(line_cache__get(c, 0x1003, again, DWARF_LINES_MAX) == 3); /* the same range */
	CHECK(again[0].function == out[0].function);
	CHECK(line_cache__get(c, 0x1004, again, DWARF_LINES_MAX) == 2);
	CHECK(again[0].function == out[1].function); /* (mid, a.h) is stored once */
	CHECK(line_cache__get(c, 0x1005, out, DWARF_LINES_MAX) == -ENOENT);
	CHECK(line_cache__get(c, 0x2000, out, DWARF_LINES_MAX) == 0);
	CHECK(line_cache__get(c, 0x1000, out, 2) == -ENOSPC);
	/* A span over its neighbours is cut to the gap between them. */
	CHECK(line_cache__put(c, 0x1800, 0x0, 0x10000, chain + 2, 1) == 0);
	CHECK(line_cache__get(c, 0x1004, out, DWARF_LINES_MAX) == 2);
	CHECK(line_cache__get(c, 0x1005, out, DWARF_LINES_MAX) == 1);
	CHECK(line_cache__get(c, 0x1fff, out, DWARF_LINES_MAX) == 1);
	CHECK(line_cache__get(c, 0x2000, out, DWARF_LINES_MAX) == 0);
	CHECK(line_cache__get(c, 0x2001, out, DWARF_LINES_MAX) == -ENOENT);
	CHECK(line_cache__get(c, 0xfff, out, DWARF_LINES_MAX) == -ENOENT);
	CHECK(line_cache__frames(c) == 4 && line_cache__names(c) == 3);
	CHECK(line_cache__memory(c) > empty);
	line_cache__free(c);
}

/* Stacks of native frames spread over this binary's code. */
static int fill_profile(struct profile *p)
{
	return fill_native_profile(p, 1, &text_off, &text_size, FRAMES, FRAMES_PER_STACK);
}

/* A file table of this binary and a symbolizer freeing its DWARF once named. */
static int setup(struct file_table *t, struct symbolizer *sym)
{
	struct file_entry *f;

	file_table__init(t);
	f = file_table__intern(t, 1, 1, self);
	if (!f)
		return -ENOMEM;
	f->fd = open(self, O_RDONLY | O_CLOEXEC);
	symbolizer__init(sym, t, NULL);
	sym->release_dwarf = true;
	sym->units_keep = SYMBOLIZER_UNITS_KEEP;
	return f->fd < 0 ? -errno : 0;
}

static struct report *build(const struct profile *p, struct symbolizer *sym)
{
	return report__build(p, sym, NULL, 1000000, 0, 1000000000);
}

/* Counts the frames of a and b that differ (name, lines, labels); -1 if not comparable. */
static long differ(const struct report *a, const struct report *b, size_t *lined)
{
	long n = 0;

	if (!a || !b || a->nframes != b->nframes)
		return -1;
	*lined = 0;
	for (size_t i = 0; i < a->nframes; i++) {
		const struct report_frame *x = &a->frames[i], *y = &b->frames[i];
		bool same = !strcmp(x->name, y->name) && x->nlines == y->nlines;

		*lined += x->nlines > 0;
		for (uint32_t j = 0; same && j < x->nlines; j++)
			same = !strcmp(x->lines[j].function, y->lines[j].function) &&
			       !strcmp(x->lines[j].file, y->lines[j].file) &&
			       x->lines[j].line == y->lines[j].line &&
			       !strcmp(x->lines[j].label, y->lines[j].label);
		n += !same;
	}
	return n;
}

static void test_named_again(void)
{
	struct report *first = NULL, *second = NULL;
	struct symbolizer sym;
	struct file_table t;
	struct profile p;
	uint32_t opened;
	uint64_t hits;
	size_t lined = 0;

	profile__init(&p);
	CHECK(fill_profile(&p) == 0);
	CHECK(setup(&t, &sym) == 0);
	first = build(&p, &sym);
	opened = sym.dwarf_opened;
	hits = sym.lines_hits; /* frames in a range named before in this report */
	CHECK(first && opened == 1 && sym.lines_misses > 0);
	CHECK(symbolizer__dwarf_memory(&sym, NULL) == 0); /* freed once named */
	second = build(&p, &sym);
	CHECK(second && sym.dwarf_opened == opened); /* every frame from the cache */
	CHECK(sym.lines_hits == 2 * hits + sym.lines_misses);
	CHECK(differ(first, second, &lined) == 0);
	fprintf(stderr, "  %zu frames, %zu with lines, %llu cached\n", first ? first->nframes : 0,
		lined, (unsigned long long)sym.lines_misses);
	CHECK(lined > FRAMES / 2); /* not vacuous: most frames have lines */
	/* Released from the file table: the file's cache goes with its DWARF and symbols. */
	CHECK(file_table__get(&t, 1)->lines != NULL);
	file_entry__release(file_table__get(&t, 1));
	CHECK(file_table__get(&t, 1)->lines == NULL);
	CHECK(symbolizer__lines_memory(&sym, NULL, NULL) == 0);
	report__free(first);
	report__free(second);
	file_table__free(&t);
	profile__free(&p);
}

static void test_bound(void)
{
	struct report *unbounded = NULL, *bounded = NULL;
	struct symbolizer sa, sb;
	struct file_table ta, tb;
	struct profile p;
	size_t lined = 0;
	uint64_t hits;

	profile__init(&p);
	CHECK(fill_profile(&p) == 0);
	CHECK(setup(&ta, &sa) == 0 && setup(&tb, &sb) == 0);
	sb.lines_budget = 1; /* any cache is over it */
	unbounded = build(&p, &sa);
	bounded = build(&p, &sb);
	CHECK(differ(unbounded, bounded, &lined) == 0);
	CHECK(sa.lines_dropped == 0 && symbolizer__lines_memory(&sa, NULL, NULL) > 0);
	CHECK(sb.lines_dropped == 1 && symbolizer__lines_memory(&sb, NULL, NULL) == 0);
	report__free(bounded);
	hits = sb.lines_hits;	  /* frames in a span named before in the same report */
	bounded = build(&p, &sb); /* dropped: named from DWARF again */
	CHECK(bounded && sb.dwarf_opened == 2 && sb.lines_hits == 2 * hits);
	CHECK(differ(unbounded, bounded, &lined) == 0);
	report__free(unbounded);
	report__free(bounded);
	file_table__free(&ta);
	file_table__free(&tb);
	profile__free(&p);
}

/* Addresses never looked up, each a byte past one that was: those in the span of a cached
 * answer are named from the cache, and every name is the one a symbolizer without a cache
 * gives. */
static void test_ranges(void)
{
	struct report *first = NULL, *cached = NULL, *fresh = NULL;
	struct profile p, q;
	struct symbolizer sa, sb;
	struct file_table ta, tb;
	uint64_t next_off = text_off + 1, hits, misses;
	size_t lined = 0;

	profile__init(&p);
	profile__init(&q);
	CHECK(fill_profile(&p) == 0);
	CHECK(fill_native_profile(&q, 1, &next_off, &text_size, FRAMES, FRAMES_PER_STACK) == 0);
	CHECK(setup(&ta, &sa) == 0 && setup(&tb, &sb) == 0);
	first = build(&p, &sa);
	hits = sa.lines_hits;
	misses = sa.lines_misses;
	cached = build(&q, &sa);
	fresh = build(&q, &sb);
	CHECK(first && cached && fresh);
	CHECK(differ(cached, fresh, &lined) == 0);
	fprintf(stderr, "  a byte further: %llu of %llu frames named from the cached spans\n",
		(unsigned long long)(sa.lines_hits - hits),
		(unsigned long long)(sa.lines_hits - hits + sa.lines_misses - misses));
	CHECK(sa.lines_hits - hits > (sa.lines_misses - misses) / 2);
	CHECK(lined > FRAMES / 2);
	report__free(first);
	report__free(cached);
	report__free(fresh);
	file_table__free(&ta);
	file_table__free(&tb);
	profile__free(&p);
	profile__free(&q);
}

/* With dwarf_idle_max, a DWARF stays until that many reports in a row did not need it. */
static void test_keep(void)
{
	struct symbolizer sym;
	struct file_table t;
	struct report *r;
	struct profile p;

	profile__init(&p);
	CHECK(fill_profile(&p) == 0);
	CHECK(setup(&t, &sym) == 0);
	sym.dwarf_idle_max = 1;
	r = build(&p, &sym);
	CHECK(r && sym.dwarf_kept == 1 && sym.dwarf_released == 0);
	CHECK(symbolizer__dwarf_memory(&sym, NULL) > 0);
	report__free(r);
	r = build(&p, &sym); /* nothing new: the kept DWARF is not needed, and freed */
	CHECK(r && sym.dwarf_opened == 1 && sym.dwarf_released == 1);
	CHECK(symbolizer__dwarf_memory(&sym, NULL) == 0);
	report__free(r);
	file_table__free(&t);
	profile__free(&p);
}

int main(void)
{
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return 1;
	self[n] = '\0';
	RUN_TEST(test_cache_basics);
	if (text_range(self, &text_off, &text_size)) {
		fprintf(stderr, "test_linecache: cannot read this binary's .text\n");
		return 1;
	}
	RUN_TEST(test_named_again);
	RUN_TEST(test_ranges);
	RUN_TEST(test_bound);
	RUN_TEST(test_keep);
	HARNESS_EXIT();
}
