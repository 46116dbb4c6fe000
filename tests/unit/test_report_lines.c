// SPDX-License-Identifier: Apache-2.0
/* The report's DWARF lines are the same however the symbolizer holds DWARF: frames named
 * as the stacks come (the default), or file by file with every file's units dropped at
 * each new unit and its DWARF freed once named (what record does to stay small). Real
 * files: this test's own binary (many units, inline functions) and the inline_chain
 * workload built with compressed debug sections. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "native_frames.h"
#include "elf/elf_file.h"
#include "profile/profile.h"
#include "profile/report.h"
#include "proc/files.h"
#include "shell.h"
#include "symbol/symbolizer.h"

#define NFILES 2
#define ADDRS_PER_FILE 400
#define FRAMES_PER_STACK 8

static char tmpdir[] = "/tmp/test_report_lines.XXXXXX";
static char paths[NFILES][4096];
static uint64_t text_off[NFILES], text_size[NFILES];

/* Stacks alternating between the files, spread over their code. */
static int fill_profile(struct profile *p)
{
	return fill_native_profile(p, NFILES, text_off, text_size, ADDRS_PER_FILE,
				   FRAMES_PER_STACK);
}

/* A report of p over a fresh file table of the test's files. */
static struct report *build(const struct profile *p, bool by_file, struct symbolizer *sym,
			    struct file_table *t)
{
	file_table__init(t);
	for (int i = 0; i < NFILES; i++) {
		struct file_entry *f = file_table__intern(t, 1, i + 1, paths[i]);

		if (!f || f->id != (uint32_t)i + 1)
			return NULL;
		f->fd = open(paths[i], O_RDONLY | O_CLOEXEC);
	}
	symbolizer__init(sym, t, NULL);
	if (by_file) {
		sym->release_dwarf = true;
		sym->units_keep = 1; /* every new unit drops the others' */
	}
	return report__build(p, sym, NULL, 1000000, 0, 1000000000);
}

static bool same_frame(const struct report_frame *a, const struct report_frame *b)
{
	if (strcmp(a->name, b->name) || a->nlines != b->nlines)
		return false;
	for (uint32_t j = 0; j < a->nlines; j++)
		if (strcmp(a->lines[j].function, b->lines[j].function) ||
		    strcmp(a->lines[j].file, b->lines[j].file) ||
		    a->lines[j].line != b->lines[j].line ||
		    strcmp(a->lines[j].label, b->lines[j].label))
			return false;
	return true;
}

static void test_same_lines(void)
{
	struct symbolizer sa, sb;
	struct file_table ta, tb;
	struct report *a, *b;
	struct profile p;
	size_t lined = 0, inlined = 0, differ = 0;

	profile__init(&p);
	CHECK(fill_profile(&p) == 0);
	a = build(&p, false, &sa, &ta);
	b = build(&p, true, &sb, &tb);
	CHECK(a && b);
	if (a && b) {
		CHECK(a->nframes == b->nframes && a->nframes > ADDRS_PER_FILE);
		for (size_t i = 0; i < a->nframes && a->nframes == b->nframes; i++) {
			lined += a->frames[i].nlines > 0;
			inlined += a->frames[i].nlines > 1;
			if (!same_frame(&a->frames[i], &b->frames[i]) && differ++ < 3)
				fprintf(stderr,
					"  frame %zu: %s (%u lines) against %s (%u lines)\n", i,
					a->frames[i].name, a->frames[i].nlines, b->frames[i].name,
					b->frames[i].nlines);
		}
		fprintf(stderr, "  %zu frames, %zu with lines, %zu with inlined calls\n",
			a->nframes, lined, inlined);
		CHECK(differ == 0);
		/* Not vacuous: most frames have lines, some inlined calls, and the bound and the
		 * release happened. */
		CHECK(lined > a->nframes / 2 && inlined > 0);
		CHECK(sb.dwarf_resets > 0 && sb.dwarf_released == NFILES);
		CHECK(sa.dwarf_released == 0);
		CHECK(symbolizer__dwarf_memory(&sb, NULL) == 0);
		CHECK(symbolizer__dwarf_memory(&sa, NULL) > 0);
	}
	report__free(a);
	report__free(b);
	file_table__free(&ta);
	file_table__free(&tb);
	profile__free(&p);
}

int main(void)
{
	ssize_t n;

	if (!mkdtemp(tmpdir))
		return 1;
	n = readlink("/proc/self/exe", paths[0], sizeof(paths[0]) - 1);
	if (n <= 0)
		return 1;
	paths[0][n] = '\0';
	snprintf(paths[1], sizeof(paths[1]), "%s/inline_chain", tmpdir);
	if (run("gcc -O2 -g -gz=zlib tests/workloads/inline_chain.c -o %s", paths[1]) ||
	    text_range(paths[0], &text_off[0], &text_size[0]) ||
	    text_range(paths[1], &text_off[1], &text_size[1])) {
		fprintf(stderr, "test_report_lines: cannot prepare the files\n");
		return 1;
	}
	RUN_TEST(test_same_lines);
	run("rm -rf %s", tmpdir);
	HARNESS_EXIT();
}
