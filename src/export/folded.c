// SPDX-License-Identifier: Apache-2.0
/* Folded-stack writer. Report stacks differ by pid and tid; folded lines do not carry
 * them (but see with_pid), so equal lines are merged before writing, each line printed
 * once with its sum. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/folded.h"
#include "profile/frame.h"
#include "profile/report_view.h"
#include "util/arena.h"
#include "util/atomic_file.h"
#include "util/hmap.h"

struct line {
	uint64_t count;
	char text[];
};

static int line_eq(const void *entry, const void *key)
{
	return strcmp(((const struct line *)entry)->text, key) == 0;
}

/* ';' separates frames and ' ' ends the stack, so neither may appear inside a name. */
static void put_name(FILE *f, const char *name)
{
	for (; *name; name++)
		fputc(*name == ';' ? ':' : (*name == '\n' ? ' ' : *name), f);
}

/* The report's root; EBPROF_FOLDED_PID=1 makes comm's "comm-PID", as record --root pid:
 * the suite records many processes of one program at once and reads each one's stacks
 * apart (tests/kernel/lib.sh: batch_stacks). */
static enum report_root root_mode(const struct report *r)
{
	const char *v = getenv("EBPROF_FOLDED_PID");

	if (r->root == REPORT_ROOT_COMM && v && v[0] && strcmp(v, "0") != 0)
		return REPORT_ROOT_PID;
	return r->root;
}

static void print_stack(FILE *f, const struct report *r, const struct report_stack *s,
			enum report_root mode)
{
	char roots[REPORT_ROOTS_MAX][REPORT_ROOT_LEN];
	unsigned int n = report_stack_roots(s, mode, roots);

	for (unsigned int i = 0; i < n; i++) {
		if (i)
			fputc(';', f);
		put_name(f, roots[i]);
	}
	if (s->truncated)
		fputs(";[truncated]", f);
	for (uint32_t i = s->nframes; i-- > 0;) {
		const struct report_frame *fr = &r->frames[s->frames[i]];

		/* A native frame with DWARF is its inline chain, outermost first. */
		for (uint32_t j = report_frame_depth(fr); j-- > 0;) {
			fputc(';', f);
			put_name(f, report_frame_label(fr, j));
		}
		fputs(report_kind(r, fr->kind)->folded_suffix, f);
	}
}

/* Merges the stacks of event into lines, each weighing values[vi], or its count when vi
 * is negative. */
static int merge(const struct report *r, struct hmap *lines, struct arena *a, uint32_t event,
		 int vi)
{
	char *buf = NULL;
	size_t len = 0;
	enum report_root mode = root_mode(r);
	FILE *mem;

	for (size_t i = 0; i < r->nstacks; i++) {
		const struct report_stack *s = &r->stacks[i];
		struct line *l;
		uint64_t h;

		if (s->event != event)
			continue;
		mem = open_memstream(&buf, &len);
		if (!mem)
			return -ENOMEM;
		print_stack(mem, r, &r->stacks[i], mode);
		if (fclose(mem))
			return -ENOMEM;
		h = hash_bytes(buf, len, 0);
		l = hmap_find(lines, h, buf);
		if (!l) {
			l = arena_alloc(a, sizeof(*l) + len + 1);
			if (!l || hmap_insert(lines, h, l))
				goto nomem;
			memcpy(l->text, buf, len + 1);
			l->count = 0;
		}
		l->count += vi >= 0 && s->values ? s->values[vi] : report_stack_weight(r, s);
		free(buf);
		buf = NULL;
	}
	return 0;
nomem:
	free(buf);
	return -ENOMEM;
}

int folded__fprint_value(const struct report *r, FILE *out, uint32_t event, int vi)
{
	struct hmap lines;
	struct arena a;
	int err;

	hmap_init(&lines, line_eq);
	arena_init(&a);
	err = merge(r, &lines, &a, event, vi);
	if (!err) {
		hmap_for_each(&lines, i)
		{
			const struct line *l = lines.slots[i].entry;

			fprintf(out, "%s %llu\n", l->text, (unsigned long long)l->count);
		}
		if (ferror(out))
			err = -EIO;
	}
	hmap_free(&lines);
	arena_free(&a);
	return err;
}

int folded__fprint(const struct report *r, FILE *out)
{
	return folded__fprint_value(r, out, 0, -1);
}

int folded__write_value(const struct report *r, const char *path, uint32_t event, int vi)
{
	struct atomic_file af;
	FILE *f;
	int err = atomic_file__open(&af, path);

	if (err)
		return err;
	f = atomic_file__stream(&af);
	err = f ? folded__fprint_value(r, f, event, vi) : -errno;
	return atomic_file__finish(&af, err);
}

int folded__write(const struct report *r, const char *path)
{
	return folded__write_value(r, path, 0, -1);
}
