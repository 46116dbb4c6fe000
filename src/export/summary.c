// SPDX-License-Identifier: Apache-2.0
/* Self-time ranking: a sample's self time belongs to its innermost frame; frames that
 * share a name (one function at several addresses) are ranked together. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ebprof_shared.h"
#include "export/summary.h"
#include "profile/report_view.h"
#include "util/hmap.h"

struct fn_count {
	const char *name;
	const char *module;
	uint64_t count;
};

static int fn_eq(const void *entry, const void *key)
{
	return strcmp(((const struct fn_count *)entry)->name, key) == 0;
}

static int u32_eq(const void *entry, const void *key)
{
	return *(const uint32_t *)entry == *(const uint32_t *)key;
}

size_t summary__processes(const struct report *r)
{
	struct hmap seen;
	size_t n;

	hmap_init(&seen, u32_eq);
	for (size_t i = 0; i < r->nstacks; i++) {
		const uint32_t *pid = &r->stacks[i].pid;
		uint64_t h = hash_u64(*pid);

		if (*pid && !hmap_find(&seen, h, pid))
			hmap_insert(&seen, h, (void *)pid);
	}
	n = seen.len;
	hmap_free(&seen);
	return n;
}

static int by_count_desc(const void *a, const void *b)
{
	const struct fn_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

static const char *frame_module(const struct report *r, const struct report_frame *f)
{
	const char *path, *s;

	if (f->mapping < 0)
		return "";
	path = r->mappings[f->mapping].path;
	s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* "libc.so.6" prints as " [libc.so.6]"; "[vdso]" is bracketed already. */
static const char *bracket(const char *module, const char *b)
{
	if (!module[0])
		return "";
	if (module[0] == '[')
		return b[0] == '[' ? " " : "";
	return b[0] == '[' ? " [" : b;
}

static int count_leaves(const struct report *r, struct hmap *m, struct fn_count *v, size_t *n,
			uint64_t *total)
{
	for (size_t i = 0; i < r->nstacks; i++) {
		const struct report_stack *s = &r->stacks[i];
		const struct report_frame *f;
		struct fn_count *c;
		uint64_t h;

		*total += report_stack_weight(r, s);
		if (!s->nframes)
			continue;
		f = &r->frames[s->frames[0]];
		h = hash_bytes(f->name, strlen(f->name), 0);
		c = hmap_find(m, h, f->name);
		if (!c) {
			c = &v[(*n)++];
			*c = (struct fn_count){f->name, frame_module(r, f), 0};
			if (hmap_insert(m, h, c))
				return -ENOMEM;
		}
		c->count += report_stack_weight(r, s);
	}
	return 0;
}

int summary__print_top(const struct report *r, size_t n, FILE *out)
{
	struct fn_count *v = calloc(r->nstacks + 1, sizeof(*v));
	uint64_t total = 0;
	size_t len = 0;
	struct hmap m;
	int err;

	if (!v)
		return -ENOMEM;
	hmap_init(&m, fn_eq);
	err = count_leaves(r, &m, v, &len, &total);
	if (err)
		goto out;
	if (!len)
		goto out;
	qsort(v, len, sizeof(*v), by_count_desc);
	fprintf(out, "  top functions by self time:\n    %6s %8s  %s\n", "self", "samples",
		"function");
	for (size_t i = 0; i < len && i < n; i++)
		fprintf(out, "    %5.1f%% %8llu  %s%s%s%s\n",
			100.0 * v[i].count / (total ? total : 1), (unsigned long long)v[i].count,
			v[i].name, bracket(v[i].module, "["), v[i].module,
			bracket(v[i].module, "]"));
out:
	hmap_free(&m);
	free(v);
	return err;
}

/* What each cause means to a user, and what they can do. `what` follows the count. */
struct cause_row {
	int counter; /* its CTR_ id, or -1 when the verb supplies the count */
	const char *what;
	const char *remedy;
};

static const struct cause_row causes_table[CAUSE__COUNT] = {
    [CAUSE_UNDESCRIBED] = {CTR_UNKNOWN_PID,
			   "samples of processes ebprof had not described yet, unwound by "
			   "frame pointers only",
			   "processes started while recording; start the program after ebprof, "
			   "or under 'ebprof record -- CMD'"},
    [CAUSE_NO_TABLE] = {CTR_NO_TABLE, "frames in files whose unwind table was not built yet",
			"tables are built once per file: a longer recording has fewer"},
    [CAUSE_BAD_FRAME] = {CTR_BAD_FRAME, "stacks cut at a caller that could not be right",
			 "code with neither unwind tables nor frame pointers (build it with "
			 "-fno-omit-frame-pointer)"},
    [CAUSE_READ_FAULT] = {CTR_READ_FAULT, "stacks cut where the stack could not be read",
			  "its memory was not resident, or the thread had switched stacks"},
    [CAUSE_HANDOVERS] = {CTR_TAIL_CALLS_OUT, "stacks deeper than the walkers can follow",
			 "their outermost frames are missing"},
    [CAUSE_RUNTIME_CUT] = {CTR_RUNTIME_CUT, "stacks whose runtime frames did not fit the record",
			   "those frames show as native code"},
};

void summary__causes_from_counters(const uint64_t *counters, uint64_t causes[CAUSE__COUNT])
{
	for (int i = 0; i < CAUSE__COUNT; i++) {
		int c = causes_table[i].counter;

		causes[i] = c >= 0 && c < CTR__COUNT ? counters[c] : 0;
	}
}

/* Causes worth a line: at least 1 % of the samples taken, largest first. */
static size_t dominant_causes(const uint64_t causes[CAUSE__COUNT], uint64_t taken,
			      int order[CAUSE__COUNT])
{
	size_t n = 0;

	for (int i = 0; i < CAUSE__COUNT; i++) {
		size_t j;

		if (!causes[i] || causes[i] * 100 < taken)
			continue;
		for (j = n++; j > 0 && causes[order[j - 1]] < causes[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	return n;
}

void summary__print_cut(const struct report *r, const uint64_t causes[CAUSE__COUNT], uint64_t taken,
			FILE *out)
{
	uint64_t total = 0, cut = 0;
	int order[CAUSE__COUNT];
	char a[32], b[32];
	size_t n;

	for (size_t i = 0; i < r->nstacks; i++) {
		uint64_t w = report_stack_weight(r, &r->stacks[i]);

		total += w;
		cut += r->stacks[i].truncated ? w : 0;
	}
	if (!cut || cut * 100 < total)
		return;
	fprintf(out, "  stacks cut short: %s of %s samples (%.0f %%) lack their outermost frames\n",
		summary__format(a, sizeof(a), cut, "count"),
		summary__format(b, sizeof(b), total, "count"), 100.0 * cut / total);
	n = dominant_causes(causes, taken, order);
	for (size_t i = 0; i < n; i++) {
		const struct cause_row *c = &causes_table[order[i]];

		fprintf(out, "    %s %s: %s\n",
			summary__format(a, sizeof(a), causes[order[i]], "count"), c->what,
			c->remedy);
	}
	if (!n)
		fprintf(out, "    (no counter explains them: -v shows the unwinder's)\n");
}

const char *summary__format(char *buf, size_t len, uint64_t v, const char *unit)
{
	static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double x = (double)v;
	size_t u = 0;

	if (strcmp(unit, "nanoseconds") == 0) {
		snprintf(buf, len, "%.3f s", v / 1e9);
		return buf;
	}
	if (strcmp(unit, "bytes") != 0) {
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return buf;
	}
	while (x >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		x /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu bytes", (unsigned long long)v);
	else
		snprintf(buf, len, "%.2f %s", x, units[u]);
	return buf;
}
