// SPDX-License-Identifier: Apache-2.0
/* Builds a report from a profile: every distinct frame is symbolized once, every file
 * becomes one mapping, and all strings live in one arena freed with the report. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "profile/frame_source.h"
#include "profile/profile.h"
#include "profile/report.h"
#include "symbol/symbolizer.h"
#include "util/arena.h"
#include "util/hmap.h"

struct builder {
	struct report r; /* first: report__free casts back to the builder */
	struct arena arena;
	struct report_mapping *mappings;
	struct report_frame *frames;
	size_t frames_cap, mappings_cap;
	struct hmap frame_idx;	/* struct frame_ref by frame */
	int32_t *file_mapping;	/* by file id: mapping index + 1, 0 when none yet */
	int32_t kernel_mapping; /* mapping index + 1 */
	struct symbolizer *sym;
	const struct frame_source *src;	    /* names runtimes' frames; NULL: unknown */
	struct report_label **label_copies; /* by label set id - 1, while building */
	struct hmap lines_idx;		    /* struct line_ref by frame (with lines on) */
	struct arena scratch;		    /* the line_refs: freed when the report is built */
};

struct frame_ref {
	struct frame key;
	uint32_t index;
};

/* A native frame's lines, looked up before the stacks are built. */
struct line_ref {
	struct frame key;
	struct report_line *lines;
	uint32_t n;
};

static int line_eq(const void *entry, const void *key)
{
	const struct frame *a = &((const struct line_ref *)entry)->key, *b = key;

	return a->addr == b->addr && a->file_id == b->file_id && a->kind == b->kind;
}

static int frame_eq(const void *entry, const void *key)
{
	const struct frame *a = &((const struct frame_ref *)entry)->key, *b = key;

	return a->addr == b->addr && a->file_id == b->file_id && a->kind == b->kind;
}

static void *grow(void *v, size_t *cap, size_t len, size_t elem)
{
	size_t n = *cap ? *cap * 2 : 64;
	void *p;

	if (len < *cap)
		return v;
	p = realloc(v, n * elem);
	if (p)
		*cap = n;
	return p;
}

static int32_t add_mapping(struct builder *b, const struct report_mapping *m)
{
	struct report_mapping *v = grow(b->mappings, &b->mappings_cap, b->r.nmappings, sizeof(*v));

	if (!v)
		return -ENOMEM;
	b->mappings = v;
	v[b->r.nmappings] = *m;
	return (int32_t)b->r.nmappings++;
}

/* Returns the mapping index for a frame, creating it on first use; -1 for none. */
static int32_t frame_mapping(struct builder *b, const struct frame *f)
{
	struct report_mapping m = {0};
	struct file_entry *file;
	int32_t idx;

	if (frame_kind_is_runtime(f->kind))
		return -1; /* a runtime's frame has no file behind it */
	if (f->kind == FRAME_KERNEL) {
		if (b->kernel_mapping)
			return b->kernel_mapping - 1;
		m = (struct report_mapping){.limit = UINT64_MAX,
					    .path = "[kernel.kallsyms]",
					    .build_id = "",
					    .kernel = true};
		idx = add_mapping(b, &m);
		b->kernel_mapping = idx + 1;
		return idx;
	}
	file = file_table__get(b->sym->files, f->file_id);
	if (!file)
		return -1;
	if (b->file_mapping[f->file_id])
		return b->file_mapping[f->file_id] - 1;
	m.limit = UINT64_MAX; /* addresses are file offsets; the file's size is not needed */
	m.path = arena_strdup(&b->arena, file->path);
	m.build_id = arena_strdup(&b->arena, symbolizer__build_id(b->sym, f->file_id));
	if (!m.path || !m.build_id)
		return -ENOMEM;
	idx = add_mapping(b, &m);
	if (idx >= 0)
		b->file_mapping[f->file_id] = idx + 1;
	return idx;
}

static const char *frame_name(struct builder *b, const struct frame *f, int32_t mapping)
{
	const char *name = NULL;

	if (f->kind == FRAME_KERNEL)
		name = symbolizer__kernel(b->sym, f->addr);
	else if (f->kind == FRAME_NATIVE)
		name = symbolizer__native(b->sym, f->file_id, f->addr);
	if (name)
		return arena_strdup(&b->arena, name);
	if (mapping >= 0)
		return arena_printf(&b->arena, "%s+0x%llx", basename(b->mappings[mapping].path),
				    (unsigned long long)f->addr);
	return "[unknown]";
}

/* "function (file.c:LINE)": the file without its directory, as runtimes name theirs. */
static const char *line_label(struct builder *b, const struct dwarf_line *l, bool inlined)
{
	const char *mark = inlined ? " [inlined]" : "";

	if (!l->file[0])
		return arena_printf(&b->arena, "%s%s", l->function, mark);
	if (!l->line)
		return arena_printf(&b->arena, "%s (%s)%s", l->function, basename(l->file), mark);
	return arena_printf(&b->arena, "%s (%s:%u)%s", l->function, basename(l->file), l->line,
			    mark);
}

/* What text outputs show of a runtime frame: "function (file:LINE:COLUMN)", the parts
 * it has; the file's base name unless its kind shows paths (frame_kind_info.label_path). */
static const char *symbol_label(struct builder *b, const struct report_line *l, bool path)
{
	const char *file = path ? l->file : basename(l->file);

	if (!l->file[0])
		return l->function;
	if (!l->line)
		return arena_printf(&b->arena, "%s (%s)", l->function, file);
	if (!l->column)
		return arena_printf(&b->arena, "%s (%s:%u)", l->function, file, l->line);
	return arena_printf(&b->arena, "%s (%s:%u:%u)", l->function, file, l->line, l->column);
}

/* A runtime frame: its name and one line holding function, file and position apart,
 * copied into the report (the runtime's strings do not outlive it). Returns 0 or
 * -ENOMEM; a frame no runtime names is "[unknown]". */
static int runtime_frame(struct builder *b, const struct frame *f, struct report_frame *rf)
{
	struct frame_symbol s = {0};
	struct report_line *l;

	rf->name = "[unknown]";
	if (!b->src || !b->src->symbol || !b->src->symbol(b->src->ctx, f, &b->arena, &s) ||
	    !s.function)
		return 0;
	l = arena_alloc(&b->arena, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->function = arena_strdup(&b->arena, s.function);
	l->file = arena_strdup(&b->arena, s.file ? s.file : "");
	l->line = s.line;
	l->column = s.column;
	if (!l->function || !l->file)
		return -ENOMEM;
	l->label = symbol_label(b, l, report_kind(&b->r, f->kind)->label_path);
	if (!l->label)
		return -ENOMEM;
	rf->name = l->function;
	rf->lines = l;
	rf->nlines = 1;
	return 0;
}

/* Copies n DWARF lines into the report's arena. Returns 0 or -ENOMEM. */
static int copy_lines(struct builder *b, const struct dwarf_line *dl, int n,
		      struct report_line **out)
{
	struct report_line *rl = arena_alloc(&b->arena, n * sizeof(*rl));

	if (!rl)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		rl[i].function = arena_strdup(&b->arena, dl[i].function);
		rl[i].file = arena_strdup(&b->arena, dl[i].file);
		rl[i].line = dl[i].line;
		rl[i].label = line_label(b, &dl[i], i < n - 1);
		if (!rl[i].function || !rl[i].file || !rl[i].label)
			return -ENOMEM;
	}
	*out = rl;
	return 0;
}

/* The DWARF lines of a native frame, looked up already (name_by_file). */
static void frame_lines(struct builder *b, const struct frame *f, struct report_frame *rf)
{
	const struct line_ref *ref = NULL;

	if (f->kind == FRAME_NATIVE)
		ref = hmap_find(&b->lines_idx, hash_bytes(f, sizeof(*f), 0), f);
	rf->lines = ref ? ref->lines : NULL;
	rf->nlines = ref ? ref->n : 0;
}

/* Returns the report index of frame f, symbolizing it the first time; <0 on ENOMEM. */
static int64_t intern_frame(struct builder *b, const struct frame *f)
{
	uint64_t h = hash_bytes(f, sizeof(*f), 0);
	struct frame_ref *ref = hmap_find(&b->frame_idx, h, f);
	struct report_frame *v, *rf;
	int32_t mapping;

	if (ref)
		return ref->index;
	mapping = frame_mapping(b, f);
	if (mapping < -1)
		return mapping;
	v = grow(b->frames, &b->frames_cap, b->r.nframes, sizeof(*v));
	ref = arena_alloc(&b->arena, sizeof(*ref));
	if (!v || !ref)
		return -ENOMEM;
	b->frames = v;
	rf = &v[b->r.nframes];
	*rf = (struct report_frame){.addr = f->addr, .mapping = mapping, .kind = f->kind};
	ref->key = *f;
	ref->index = b->r.nframes++;
	if (frame_kind_is_runtime(f->kind)) {
		if (runtime_frame(b, f, rf))
			return -ENOMEM;
	} else {
		rf->name = frame_name(b, f, mapping);
		frame_lines(b, f, rf);
	}
	if (!rf->name || hmap_insert(&b->frame_idx, h, ref))
		return -ENOMEM;
	/* No ELF symbol, but DWARF knows the function: better than "module+0xOFF". */
	if (rf->nlines && mapping >= 0 && !symbolizer__native(b->sym, f->file_id, f->addr))
		rf->name = rf->lines[rf->nlines - 1].function;
	return ref->index;
}

/* The report's copy of label set id (made once per set); NULL for none or ENOMEM, which
 * *err tells apart. */
static const struct report_label *stack_labels(struct builder *b, const struct profile *p,
					       uint32_t id, uint32_t *n, int *err)
{
	const struct label_set *set = label_sets__get(&p->labels, id);
	struct report_label *rl;

	*n = 0;
	if (!set || !b->label_copies)
		return NULL;
	if (b->label_copies[id - 1]) {
		*n = set->n;
		return b->label_copies[id - 1];
	}
	rl = arena_alloc(&b->arena, set->n * sizeof(*rl));
	for (uint32_t i = 0; rl && i < set->n; i++) {
		rl[i].key = arena_strdup(&b->arena, set->labels[i].key);
		rl[i].value = arena_strdup(&b->arena, set->labels[i].value);
		if (!rl[i].key || !rl[i].value)
			rl = NULL;
	}
	if (!rl) {
		*err = -ENOMEM;
		return NULL;
	}
	b->label_copies[id - 1] = rl;
	*n = set->n;
	return rl;
}

/* Whether the innermost kernel frame f is the tracing machinery that ran our program
 * (a raw tracepoint's iterator and runner): how many of those frames the kernel keeps
 * depends on its build (6.18's sched_switch adds __traceiter_sched_switch past the
 * frames the BPF side skips), so they are dropped by name. */
static bool tracing_frame(struct builder *b, const struct frame *f)
{
	static const char *const prefixes[] = {"__traceiter_", "__bpf_trace_", "bpf_trace_run"};
	const char *name;

	if (f->kind != FRAME_KERNEL)
		return false;
	name = symbolizer__kernel(b->sym, f->addr);
	if (!name)
		return false;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	}
	return false;
}

static int add_stack(struct builder *b, const struct profile *p, struct report_stack *out,
		     const struct stack *s)
{
	uint32_t *idx = arena_alloc(&b->arena, (s->nframes + 1) * sizeof(*idx));
	uint64_t *values = arena_alloc(&b->arena, sizeof(s->values));
	uint64_t *times = NULL;
	uint16_t skip = 0;
	int err = 0;

	if (!idx || !values)
		return -ENOMEM;
	memcpy(values, s->values, sizeof(s->values));
	if (s->ntimes) {
		times = arena_alloc(&b->arena, s->ntimes * sizeof(*times));
		if (!times)
			return -ENOMEM;
		memcpy(times, s->times, s->ntimes * sizeof(*times));
	}
	while (skip < s->nframes && tracing_frame(b, &s->frames[skip]))
		skip++;
	for (uint16_t i = skip; i < s->nframes; i++) {
		int64_t fi = intern_frame(b, &s->frames[i]);

		if (fi < 0)
			return (int)fi;
		idx[i - skip] = (uint32_t)fi;
	}
	*out = (struct report_stack){
	    .pid = s->pid,
	    .tid = s->tid,
	    .event = s->event,
	    .cpu = s->cpu,
	    .values = values,
	    .ntimes = s->ntimes,
	    .times_unix_ns = times,
	    .comm = arena_strdup(&b->arena, s->comm),
	    .thread = arena_strdup(&b->arena, s->thread),
	    .count = s->count,
	    .nframes = s->nframes - skip,
	    .truncated = s->truncated,
	    .frames = idx,
	};
	out->labels = stack_labels(b, p, s->labels, &out->nlabels, &err);
	return out->comm && out->thread && !err ? 0 : -ENOMEM;
}

/* Adds the native frames of s that have no line_ref yet to lines_idx and to *v. */
static int collect_native(struct builder *b, const struct stack *s, struct line_ref ***v, size_t *n,
			  size_t *cap)
{
	for (uint16_t i = 0; i < s->nframes; i++) {
		const struct frame *f = &s->frames[i];
		uint64_t h = hash_bytes(f, sizeof(*f), 0);
		struct line_ref *ref, **p;

		if (f->kind != FRAME_NATIVE || hmap_find(&b->lines_idx, h, f))
			continue;
		p = grow(*v, cap, *n, sizeof(**v));
		ref = arena_alloc(&b->scratch, sizeof(*ref));
		if (!p || !ref)
			return -ENOMEM;
		*v = p;
		*ref = (struct line_ref){.key = *f};
		(*v)[(*n)++] = ref;
		if (hmap_insert(&b->lines_idx, h, ref))
			return -ENOMEM;
	}
	return 0;
}

static int ref_cmp(const void *a, const void *b)
{
	const struct frame *x = &(*(struct line_ref *const *)a)->key;
	const struct frame *y = &(*(struct line_ref *const *)b)->key;

	if (x->file_id != y->file_id)
		return x->file_id < y->file_id ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Looks up the lines of every distinct native frame, one file after another in address
 * order (so one unit after another), copying each at once: the symbolizer may then drop
 * the units done with, and a file's DWARF need not outlive its frames. */
static int name_by_file(struct builder *b, const struct profile *p)
{
	struct dwarf_line dl[DWARF_LINES_MAX];
	struct line_ref **v = NULL;
	size_t n = 0, cap = 0, i;
	int err = 0, k;

	hmap_for_each(&p->stacks, si)
	{
		err = collect_native(b, p->stacks.slots[si].entry, &v, &n, &cap);
		if (err)
			goto out;
	}
	if (n)
		qsort(v, n, sizeof(*v), ref_cmp);
	for (i = 0; i < n && !err; i++) {
		struct line_ref *r = v[i];

		k = symbolizer__native_lines(b->sym, r->key.file_id, r->key.addr, dl,
					     DWARF_LINES_MAX);
		if (k > 0 && !(err = copy_lines(b, dl, k, &r->lines)))
			r->n = (uint32_t)k;
		if (i + 1 == n || v[i + 1]->key.file_id != r->key.file_id)
			symbolizer__file_named(b->sym, r->key.file_id);
	}
	symbolizer__report_done(b->sym);
out:
	free(v);
	return err;
}

static int build_stacks(struct builder *b, const struct profile *p)
{
	struct report_stack *stacks = calloc(p->stacks.len + 1, sizeof(*stacks));
	size_t n = 0;
	int err;

	if (!stacks)
		return -ENOMEM;
	b->r.stacks = stacks;
	b->label_copies = calloc(p->labels.count + 1, sizeof(*b->label_copies));
	if (!b->label_copies)
		return -ENOMEM;
	hmap_for_each(&p->stacks, i)
	{
		err = add_stack(b, p, &stacks[n], p->stacks.slots[i].entry);
		if (err)
			return err;
		b->r.nstacks = ++n;
	}
	return 0;
}

/* Copies the profile's events, or declares the one every profile has: CPU samples. */
static int build_events(struct builder *b, const struct profile *p, uint64_t period_ns)
{
	const struct report_event cpu = {
	    .name = "cpu",
	    .period_type = {"cpu", "nanoseconds"},
	    .period = period_ns,
	    .nvalues = 1,
	    .values = {{"samples", "count"}},
	};
	uint32_t n = p->nevents ? p->nevents : 1;
	struct report_event *ev = arena_alloc(&b->arena, n * sizeof(*ev));

	if (!ev)
		return -ENOMEM;
	if (!p->nevents)
		ev[0] = cpu;
	for (uint32_t i = 0; i < p->nevents; i++) {
		ev[i] = p->events[i];
		ev[i].name = arena_strdup(&b->arena, ev[i].name);
		if (!ev[i].name)
			return -ENOMEM;
	}
	b->r.events = ev;
	b->r.nevents = n;
	return 0;
}

void report__fill_kinds(struct report *r, const struct frame_source *frames)
{
	for (uint32_t k = 0; k < FRAME_KIND__COUNT; k++) {
		if (!frame_kind_is_runtime(k))
			r->kinds[k] = frame_kind__info(k);
		else
			r->kinds[k] = frames && frames->kind ? frames->kind(k) : NULL;
	}
}

struct report *report__build(const struct profile *p, struct symbolizer *sym,
			     const struct frame_source *frames, uint64_t period_ns,
			     uint64_t start_unix_ns, uint64_t duration_ns)
{
	struct builder *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	arena_init(&b->arena);
	hmap_init(&b->frame_idx, frame_eq);
	b->sym = sym;
	b->src = frames;
	report__fill_kinds(&b->r, frames);
	b->r.period_ns = period_ns;
	b->r.start_unix_ns = start_unix_ns;
	b->r.duration_ns = duration_ns;
	hmap_init(&b->lines_idx, line_eq);
	arena_init(&b->scratch);
	b->file_mapping = calloc(sym->files->count + 1, sizeof(*b->file_mapping));
	if (!b->file_mapping || build_events(b, p, period_ns) ||
	    (sym->lines && name_by_file(b, p)) || build_stacks(b, p))
		goto fail;
	b->r.mappings = b->mappings;
	b->r.frames = b->frames;
	hmap_free(&b->frame_idx);
	hmap_free(&b->lines_idx);
	arena_free(&b->scratch);
	free(b->file_mapping);
	free(b->label_copies);
	b->file_mapping = NULL;
	b->label_copies = NULL;
	return &b->r;
fail:
	b->r.mappings = b->mappings;
	b->r.frames = b->frames;
	report__free(&b->r);
	errno = ENOMEM;
	return NULL;
}

void report__free(struct report *r)
{
	struct builder *b = (struct builder *)r;

	if (!r)
		return;
	hmap_free(&b->frame_idx);
	hmap_free(&b->lines_idx);
	arena_free(&b->scratch);
	free(b->file_mapping);
	free(b->label_copies);
	free((void *)r->stacks);
	free(b->mappings);
	free(b->frames);
	arena_free(&b->arena);
	free(b);
}
