// SPDX-License-Identifier: Apache-2.0
/* Self-time ranking: a sample's self time belongs to its innermost frame; frames that
 * share a name (one function at several addresses) are ranked together. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ebprof_shared.h"
#include "export/summary.h"
#include "profile/report_view.h"
#include "unwind/cut.h"
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

/* Causes worth a line: every one counted with all, else those of at least 1 % of the
 * samples taken; largest first. Returns how many, their sum in *said. */
static size_t dominant_causes(const uint64_t *cut, uint64_t taken, bool all,
			      unsigned int order[CUT__COUNT], uint64_t *said)
{
	size_t n = 0;

	*said = 0;
	for (unsigned int c = 0; c < CUT__COUNT; c++) {
		size_t j;

		if (!cut[c] || (!all && cut[c] * 100 < taken))
			continue;
		*said += cut[c];
		for (j = n++; j > 0 && cut[order[j - 1]] < cut[c]; j--)
			order[j] = order[j - 1];
		order[j] = c;
	}
	return n;
}

void summary__print_cut(const struct report *r, const uint64_t *counters, bool all, FILE *out)
{
	const uint64_t *cut = &counters[CTR_CUT_FIRST];
	uint64_t taken = counters[CTR_SAMPLES] - counters[CTR_FILTERED];
	uint64_t total = 0, lost = 0, counted = 0, said;
	unsigned int order[CUT__COUNT];
	char a[32], b[32];
	size_t n, others = 0;

	for (size_t i = 0; i < r->nstacks; i++) {
		uint64_t w = report_stack_weight(r, &r->stacks[i]);

		total += w;
		lost += r->stacks[i].truncated ? w : 0;
	}
	if (!lost || (!all && lost * 100 < total))
		return;
	fprintf(out, "  stacks cut short: %s of %s samples (%.0f %%) lack their outermost frames\n",
		summary__format(a, sizeof(a), lost, "count"),
		summary__format(b, sizeof(b), total, "count"), 100.0 * lost / total);
	n = dominant_causes(cut, taken, all, order, &said);
	for (size_t i = 0; i < n; i++) {
		const struct cut_cause_info *c = cut_cause__info(order[i]);

		fprintf(out, "    %s %s: %s\n",
			summary__format(a, sizeof(a), cut[order[i]], "count"), c->what, c->remedy);
	}
	for (unsigned int c = 0; c < CUT__COUNT; c++) {
		counted += cut[c];
		others += cut[c] && !all && cut[c] * 100 < taken;
	}
	if (others)
		fprintf(out, "    %s for %zu other cause%s (-v lists them)\n",
			summary__format(a, sizeof(a), counted - said, "count"), others,
			others > 1 ? "s" : "");
	if (!counted)
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
