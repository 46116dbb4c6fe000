/* SPDX-License-Identifier: Apache-2.0 */
/* OTLP Profiles encoder: builds the protobuf-c message tree of one
 * ExportProfilesServiceRequest from a report (every struct carved from one arena, the
 * dictionary's tables deduplicated through hash indexes), packs it, and frees the tree. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "export/otlp.h"
#include "profile/frame.h"
#include "profile/report.h"
#include "util/arena.h"
#include "util/hmap.h"
#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb-c.h"

/* The generated names are long; these keep the code within 100 columns. */
typedef Opentelemetry__Proto__Collector__Profiles__V1development__ExportProfilesServiceRequest
    pb_request;
typedef Opentelemetry__Proto__Profiles__V1development__ProfilesDictionary pb_dict;
typedef Opentelemetry__Proto__Profiles__V1development__ResourceProfiles pb_resource_profiles;
typedef Opentelemetry__Proto__Profiles__V1development__ScopeProfiles pb_scope_profiles;
typedef Opentelemetry__Proto__Profiles__V1development__Profile pb_profile;
typedef Opentelemetry__Proto__Profiles__V1development__ValueType pb_value_type;
typedef Opentelemetry__Proto__Profiles__V1development__Sample pb_sample;
typedef Opentelemetry__Proto__Profiles__V1development__Mapping pb_mapping;
typedef Opentelemetry__Proto__Profiles__V1development__Location pb_location;
typedef Opentelemetry__Proto__Profiles__V1development__Line pb_line;
typedef Opentelemetry__Proto__Profiles__V1development__Function pb_function;
typedef Opentelemetry__Proto__Profiles__V1development__Stack pb_stack;
typedef Opentelemetry__Proto__Profiles__V1development__Link pb_link;
typedef Opentelemetry__Proto__Profiles__V1development__KeyValueAndUnit pb_kvu;
typedef Opentelemetry__Proto__Resource__V1__Resource pb_resource;
typedef Opentelemetry__Proto__Common__V1__InstrumentationScope pb_scope;
typedef Opentelemetry__Proto__Common__V1__KeyValue pb_kv;
typedef Opentelemetry__Proto__Common__V1__AnyValue pb_any;

#define PB(x) opentelemetry__proto__profiles__v1development__##x
#define PB_COMMON(x) opentelemetry__proto__common__v1__##x
#define PB_COLLECTOR(x) opentelemetry__proto__collector__profiles__v1development__##x
#define ANY_STRING OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE
#define ANY_INT OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE

/* Dictionary indices are int32 on the wire. */
#define TABLE_MAX INT32_MAX

#define TRUNCATED_NAME "[truncated]"
#define UNKNOWN_NAME "[unknown]"

/* A growable array of pointers: the repeated fields of the dictionary's tables. */
struct ptrvec {
	void **v;
	size_t n, cap;
};

/* Index entries: the table slot an item went to, and what identifies the item. */
struct str_ent {
	const char *s;
	int32_t idx;
};

struct fn_ent {
	int32_t name;
	int32_t file; /* 0 ("") when the function's source is unknown */
	int32_t idx;
};

struct attr_ent {
	int32_t key;
	bool is_str;
	int64_t ival;
	const char *sval;
	int32_t idx;
};

struct stack_ent {
	const int32_t *locs;
	size_t n;
	int32_t idx;
};

/* Per report stack, computed once and shared by the Samples of each value type. */
struct stack_info {
	int32_t stack;
	uint32_t nattrs;
	/* thread.name, thread.id, cpu.logical_number, then the program's labels */
	int32_t attrs[3 + REPORT_MAX_LABELS];
};

/* Everything the request points into; freed together by enc__free(). */
struct enc {
	const struct report *r;
	const struct otlp_options *o;
	struct report_event cpu_event; /* stands for events[0] when the report has none */
	struct arena arena;
	struct ptrvec strings, mappings, locations, functions, attrs, stacks, links, resources;
	struct hmap str_idx, fn_idx, attr_idx, stack_idx;
	int32_t frame_type_attr[FRAME_KIND__COUNT]; /* profile.frame.type of each kind */
	struct stack_ent empty_stack;
	int32_t truncated_loc; /* location of the "[truncated]" root, 0 until needed */
	int32_t *scratch;      /* one stack's location indices, before dedup */
	uint32_t *order;       /* stacks sorted by (pid, event) */
	struct stack_info *info;
	int64_t *ones; /* a run of 1s: the values of timestamped samples */
	pb_request req;
	pb_dict dict;
};

/* -- small tools ---------------------------------------------------------------------- */

static int ptrvec__push(struct ptrvec *pv, void *p)
{
	void **v;
	size_t cap;

	if (pv->n == pv->cap) {
		if (pv->cap >= TABLE_MAX)
			return -E2BIG;
		cap = pv->cap ? 2 * pv->cap : 64;
		v = realloc(pv->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		pv->v = v;
		pv->cap = cap;
	}
	pv->v[pv->n++] = p;
	return 0;
}

/* arena_alloc, zeroed: the arena reuses nothing, but malloc'd chunks are not zero. */
static void *enc__zalloc(struct enc *e, size_t len)
{
	void *p = arena_alloc(&e->arena, len ? len : 1);

	if (p)
		memset(p, 0, len);
	return p;
}

static char *enc__strdup(struct enc *e, const char *s)
{
	return s ? arena_strdup(&e->arena, s) : NULL;
}

static bool is_set(const char *s)
{
	return s && *s;
}

static int str_eq(const void *entry, const void *key)
{
	return !strcmp(((const struct str_ent *)entry)->s, key);
}

static int fn_eq(const void *entry, const void *key)
{
	const struct fn_ent *a = entry, *b = key;

	return a->name == b->name && a->file == b->file;
}

static int attr_eq(const void *entry, const void *key)
{
	const struct attr_ent *a = entry, *b = key;

	if (a->key != b->key || a->is_str != b->is_str)
		return 0;
	return a->is_str ? !strcmp(a->sval, b->sval) : a->ival == b->ival;
}

static int stack_eq(const void *entry, const void *key)
{
	const struct stack_ent *a = entry, *b = key;

	return a->n == b->n && (!a->n || !memcmp(a->locs, b->locs, a->n * sizeof(*a->locs)));
}

/* -- dictionary tables ---------------------------------------------------------------- */

/* Returns the string_table index of s (NULL counts as ""), adding it if new. The string
 * is borrowed: it must outlive the encoding (report strings and arena copies do). */
static int32_t enc__string(struct enc *e, const char *s)
{
	uint64_t h;
	struct str_ent *ent;
	int err;

	if (!s)
		s = "";
	h = hash_bytes(s, strlen(s), 0);
	ent = hmap_find(&e->str_idx, h, s);
	if (ent)
		return ent->idx;
	ent = arena_alloc(&e->arena, sizeof(*ent));
	if (!ent)
		return -ENOMEM;
	ent->s = s;
	ent->idx = (int32_t)e->strings.n;
	err = ptrvec__push(&e->strings, (void *)s); /* protobuf-c only reads it */
	if (!err)
		err = hmap_insert(&e->str_idx, h, ent);
	return err ? err : ent->idx;
}

/* An attribute's value: the string when there is one, else the integer. */
static void any_set(pb_any *any, const char *sval, int64_t ival)
{
	PB_COMMON(any_value__init)(any);
	if (sval) {
		any->value_case = ANY_STRING;
		any->string_value = (char *)sval;
	} else {
		any->value_case = ANY_INT;
		any->int_value = ival;
	}
}

/* Returns the attribute_table index of key = string value (is_str) or key = ival. */
static int32_t enc__attr(struct enc *e, const char *key, const char *sval, int64_t ival)
{
	struct attr_ent probe = {.is_str = sval != NULL, .ival = sval ? 0 : ival, .sval = sval};
	struct attr_ent *ent;
	pb_kvu *kvu;
	pb_any *any;
	uint64_t h;
	int err;

	probe.key = enc__string(e, key);
	if (probe.key < 0)
		return probe.key;
	h = hash_u64((uint64_t)probe.key << 1 | probe.is_str) ^
	    (sval ? hash_bytes(sval, strlen(sval), 1) : hash_u64((uint64_t)ival));
	ent = hmap_find(&e->attr_idx, h, &probe);
	if (ent)
		return ent->idx;
	ent = arena_alloc(&e->arena, sizeof(*ent));
	kvu = arena_alloc(&e->arena, sizeof(*kvu));
	any = arena_alloc(&e->arena, sizeof(*any));
	if (!ent || !kvu || !any)
		return -ENOMEM;
	PB(key_value_and_unit__init)(kvu);
	any_set(any, sval, ival);
	kvu->key_strindex = probe.key;
	kvu->value = any;
	*ent = probe;
	ent->idx = (int32_t)e->attrs.n;
	err = ptrvec__push(&e->attrs, kvu);
	if (!err)
		err = hmap_insert(&e->attr_idx, h, ent);
	return err ? err : ent->idx;
}

/* Returns the function_table index of the function named name in source file file (NULL
 * or "" when unknown; "" name becomes "[unknown]": a Function must have a name, and the
 * all-zero one is reserved for index 0). */
static int32_t enc__function(struct enc *e, const char *name, const char *file)
{
	struct fn_ent probe, *ent;
	pb_function *fn;
	uint64_t h;
	int err;

	probe.name = enc__string(e, is_set(name) ? name : UNKNOWN_NAME);
	probe.file = enc__string(e, file ? file : "");
	if (probe.name < 0)
		return probe.name;
	if (probe.file < 0)
		return probe.file;
	h = hash_u64((uint64_t)probe.name << 32 | (uint32_t)probe.file);
	ent = hmap_find(&e->fn_idx, h, &probe);
	if (ent)
		return ent->idx;
	ent = arena_alloc(&e->arena, sizeof(*ent));
	fn = arena_alloc(&e->arena, sizeof(*fn));
	if (!ent || !fn)
		return -ENOMEM;
	PB(function__init)(fn);
	fn->name_strindex = probe.name;
	fn->filename_strindex = probe.file;
	*ent = probe;
	ent->idx = (int32_t)e->functions.n;
	err = ptrvec__push(&e->functions, fn);
	if (!err)
		err = hmap_insert(&e->fn_idx, h, ent);
	return err ? err : ent->idx;
}

/* Fills lines[] from the frame's lines (a native frame's DWARF inline chain, innermost
 * first as the specification orders it; a runtime frame's one), or with one Line of name
 * when it has none. */
static int enc__lines(struct enc *e, const struct report_frame *fr, const char *name,
		      pb_line **lines)
{
	uint32_t n = fr ? fr->nlines : 0;
	pb_line *line = arena_alloc(&e->arena, (n ? n : 1) * sizeof(*line));
	int32_t fn;

	if (!line)
		return -ENOMEM;
	for (uint32_t j = 0; j < (n ? n : 1); j++) {
		fn = n ? enc__function(e, fr->lines[j].function, fr->lines[j].file)
		       : enc__function(e, name, NULL);
		if (fn < 0)
			return fn;
		PB(line__init)(&line[j]);
		line[j].function_index = fn;
		line[j].line = n ? fr->lines[j].line : 0;
		line[j].column = n ? fr->lines[j].column : 0;
		lines[j] = &line[j];
	}
	return 0;
}

/* Appends a Location with the Lines of fr (NULL: one Line named name); returns its index.
 * attr < 0 means none. */
static int32_t enc__location(struct enc *e, int32_t mapping, uint64_t addr, const char *name,
			     const struct report_frame *fr, int32_t attr)
{
	uint32_t nlines = fr && fr->nlines ? fr->nlines : 1;
	pb_location *loc = arena_alloc(&e->arena, sizeof(*loc));
	pb_line **lines = arena_alloc(&e->arena, nlines * sizeof(*lines));
	int32_t *attrs = attr > 0 ? arena_alloc(&e->arena, sizeof(*attrs)) : NULL;
	int err;

	if (!loc || !lines || (attr > 0 && !attrs))
		return -ENOMEM;
	err = enc__lines(e, fr, name, lines);
	if (err)
		return err;
	PB(location__init)(loc);
	loc->mapping_index = mapping;
	loc->address = addr;
	loc->n_lines = nlines;
	loc->lines = lines;
	if (attr > 0) {
		attrs[0] = attr;
		loc->n_attribute_indices = 1;
		loc->attribute_indices = attrs;
	}
	err = ptrvec__push(&e->locations, loc);
	return err ? err : (int32_t)(e->locations.n - 1);
}

/* Index 0 of every table is its zero value; link_table[0] is 16 + 8 zero bytes, the form
 * the specification recommends for codecs that insist on id lengths. */
static int enc__zero_entries(struct enc *e)
{
	static uint8_t zeros[16];
	pb_mapping *m = arena_alloc(&e->arena, sizeof(*m));
	pb_location *l = arena_alloc(&e->arena, sizeof(*l));
	pb_function *f = arena_alloc(&e->arena, sizeof(*f));
	pb_link *k = arena_alloc(&e->arena, sizeof(*k));
	pb_kvu *a = arena_alloc(&e->arena, sizeof(*a));
	pb_stack *s = arena_alloc(&e->arena, sizeof(*s));

	if (!m || !l || !f || !k || !a || !s)
		return -ENOMEM;
	PB(mapping__init)(m);
	PB(location__init)(l);
	PB(function__init)(f);
	PB(link__init)(k);
	PB(key_value_and_unit__init)(a);
	PB(stack__init)(s);
	k->trace_id = (ProtobufCBinaryData){16, zeros};
	k->span_id = (ProtobufCBinaryData){8, zeros};
	if (enc__string(e, "") != 0 || ptrvec__push(&e->mappings, m) ||
	    ptrvec__push(&e->locations, l) || ptrvec__push(&e->functions, f) ||
	    ptrvec__push(&e->links, k) || ptrvec__push(&e->attrs, a) || ptrvec__push(&e->stacks, s))
		return -ENOMEM;
	/* A stack with no frames at all is the empty Stack at index 0, not a copy of it. */
	e->empty_stack = (struct stack_ent){.locs = NULL, .n = 0, .idx = 0};
	return hmap_insert(&e->stack_idx, hash_bytes(NULL, 0, 2), &e->empty_stack);
}

/* Mapping i of the report becomes mapping_table[i + 1], with its GNU build id. */
static int enc__mappings(struct enc *e)
{
	const struct report *r = e->r;
	int32_t attr;
	int err;

	if (r->nmappings >= TABLE_MAX)
		return -E2BIG;
	for (size_t i = 0; i < r->nmappings; i++) {
		const struct report_mapping *rm = &r->mappings[i];
		pb_mapping *m = arena_alloc(&e->arena, sizeof(*m));
		int32_t *attrs = arena_alloc(&e->arena, sizeof(*attrs));

		if (!m || !attrs)
			return -ENOMEM;
		PB(mapping__init)(m);
		m->memory_start = rm->start;
		m->memory_limit = rm->limit;
		m->file_offset = rm->offset;
		m->filename_strindex = enc__string(e, is_set(rm->path) ? rm->path : UNKNOWN_NAME);
		if (m->filename_strindex < 0)
			return m->filename_strindex;
		if (is_set(rm->build_id)) {
			attr = enc__attr(e, "process.executable.build_id.gnu", rm->build_id, 0);
			if (attr < 0)
				return attr;
			attrs[0] = attr;
			m->n_attribute_indices = 1;
			m->attribute_indices = attrs;
		}
		err = ptrvec__push(&e->mappings, m);
		if (err)
			return err;
	}
	return 0;
}

/* Returns the profile.frame.type attribute of kind (src/profile/frame_kinds.c). */
static int32_t enc__frame_type(struct enc *e, enum frame_kind kind)
{
	int32_t *slot;

	if ((uint32_t)kind >= FRAME_KIND__COUNT)
		kind = FRAME_UNKNOWN;
	slot = &e->frame_type_attr[kind];
	if (!*slot)
		*slot = enc__attr(e, "profile.frame.type", report_kind(e->r, kind)->otlp_type, 0);
	return *slot;
}

/* Frame i of the report becomes location_table[i + 1]: the address (a file offset for
 * native frames, a kernel address for kernel ones), its mapping, function and type. */
static int enc__locations(struct enc *e)
{
	const struct report *r = e->r;
	int32_t loc, type;

	if (r->nframes >= TABLE_MAX - 1)
		return -E2BIG;
	for (size_t i = 0; i < r->nframes; i++) {
		const struct report_frame *fr = &r->frames[i];

		if (fr->mapping < -1 || (fr->mapping >= 0 && (size_t)fr->mapping >= r->nmappings))
			return -EINVAL;
		type = enc__frame_type(e, fr->kind);
		if (type < 0)
			return type;
		loc = enc__location(e, fr->mapping + 1, fr->addr, fr->name, fr, type);
		if (loc < 0)
			return loc;
	}
	return 0;
}

/* -- samples -------------------------------------------------------------------------- */

static const struct report_event *enc__event(const struct enc *e, const struct report_stack *s)
{
	const struct report_event *ev;

	if (!e->r->nevents)
		return &e->cpu_event;
	if (s->event >= e->r->nevents)
		return NULL;
	ev = &e->r->events[s->event];
	return ev->nvalues >= 1 && ev->nvalues <= REPORT_MAX_VALUES ? ev : NULL;
}

/* Value v of a stack; before reports carried values, the count was the only one. */
static int64_t stack_value(const struct enc *e, const struct report_stack *s, uint32_t v)
{
	uint64_t x;

	if (!e->r->nevents || !s->values)
		x = v == 0 ? s->count : 0;
	else
		x = s->values[v];
	return x > INT64_MAX ? INT64_MAX : (int64_t)x;
}

/* Returns the stack_table index of report stack s, adding the Stack if new. */
static int32_t enc__stack(struct enc *e, const struct report_stack *s)
{
	struct stack_ent probe = {.locs = e->scratch, .n = s->nframes}, *ent;
	pb_stack *st;
	int32_t *locs;
	uint64_t h;
	int err;

	for (uint32_t j = 0; j < s->nframes; j++) {
		if (s->frames[j] >= e->r->nframes)
			return -EINVAL;
		e->scratch[j] = (int32_t)s->frames[j] + 1; /* leaf first, as in the report */
	}
	if (s->truncated) {
		if (!e->truncated_loc)
			e->truncated_loc = enc__location(e, 0, 0, TRUNCATED_NAME, NULL, 0);
		if (e->truncated_loc < 0)
			return e->truncated_loc;
		e->scratch[probe.n++] = e->truncated_loc; /* stands for the missing root */
	}
	h = hash_bytes(probe.locs, probe.n * sizeof(*probe.locs), 2);
	ent = hmap_find(&e->stack_idx, h, &probe);
	if (ent)
		return ent->idx;
	ent = arena_alloc(&e->arena, sizeof(*ent));
	st = arena_alloc(&e->arena, sizeof(*st));
	locs = enc__zalloc(e, probe.n * sizeof(*locs));
	if (!ent || !st || !locs)
		return -ENOMEM;
	memcpy(locs, probe.locs, probe.n * sizeof(*locs));
	PB(stack__init)(st);
	st->n_location_indices = probe.n;
	st->location_indices = locs;
	*ent = (struct stack_ent){.locs = locs, .n = probe.n, .idx = (int32_t)e->stacks.n};
	err = ptrvec__push(&e->stacks, st);
	if (!err)
		err = hmap_insert(&e->stack_idx, h, ent);
	return err ? err : ent->idx;
}

/* Fills info for report stack s: its Stack and its sample attributes. */
static int enc__stack_info(struct enc *e, const struct report_stack *s, struct stack_info *info)
{
	int32_t a;

	info->stack = enc__stack(e, s);
	if (info->stack < 0)
		return info->stack;
	info->nattrs = 0;
	if (is_set(s->thread)) {
		a = enc__attr(e, "thread.name", s->thread, 0);
		if (a < 0)
			return a;
		info->attrs[info->nattrs++] = a;
	}
	a = enc__attr(e, "thread.id", NULL, s->tid);
	if (a < 0)
		return a;
	info->attrs[info->nattrs++] = a;
	if (s->cpu >= 0) {
		a = enc__attr(e, "cpu.logical_number", NULL, s->cpu);
		if (a < 0)
			return a;
		info->attrs[info->nattrs++] = a;
	}
	/* Labels as string attributes under their own keys; one that would repeat an
	 * attribute of ours is left out (keys of one list must be unique). */
	for (uint32_t i = 0; i < s->nlabels && i < REPORT_MAX_LABELS; i++) {
		const char *k = s->labels[i].key;

		if (!strcmp(k, "thread.name") || !strcmp(k, "thread.id") ||
		    !strcmp(k, "cpu.logical_number"))
			continue;
		a = enc__attr(e, k, s->labels[i].value, 0);
		if (a < 0)
			return a;
		info->attrs[info->nattrs++] = a;
	}
	return 0;
}

/* Sorts stacks by (pid, event), keeping the report's order within a group. */
static int cmp_stack(const void *a, const void *b, void *ctx)
{
	const struct report_stack *st = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	if (st[i].pid != st[j].pid)
		return st[i].pid < st[j].pid ? -1 : 1;
	if (st[i].event != st[j].event)
		return st[i].event < st[j].event ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Builds every stack's Stack and attributes, and the (pid, event) order. */
static int enc__stacks(struct enc *e)
{
	const struct report *r = e->r;
	uint32_t maxframes = 0, maxtimes = 0;
	int err;

	if (r->nstacks >= UINT32_MAX)
		return -E2BIG;
	for (size_t i = 0; i < r->nstacks; i++) {
		if (r->stacks[i].nframes > maxframes)
			maxframes = r->stacks[i].nframes;
		if (r->stacks[i].ntimes > maxtimes)
			maxtimes = r->stacks[i].ntimes;
	}
	e->scratch = enc__zalloc(e, ((size_t)maxframes + 1) * sizeof(*e->scratch));
	e->order = enc__zalloc(e, r->nstacks * sizeof(*e->order));
	e->info = enc__zalloc(e, r->nstacks * sizeof(*e->info));
	e->ones = enc__zalloc(e, (size_t)maxtimes * sizeof(*e->ones));
	if (!e->scratch || !e->order || !e->info || !e->ones)
		return -ENOMEM;
	for (uint32_t i = 0; i < maxtimes; i++)
		e->ones[i] = 1;
	for (uint32_t i = 0; i < r->nstacks; i++) {
		if (!enc__event(e, &r->stacks[i]))
			return -EINVAL;
		err = enc__stack_info(e, &r->stacks[i], &e->info[i]);
		if (err)
			return err;
		e->order[i] = i;
	}
	qsort_r(e->order, r->nstacks, sizeof(*e->order), cmp_stack, (void *)r->stacks);
	return 0;
}

/* -- profiles and resources ----------------------------------------------------------- */

static pb_value_type *enc__value_type(struct enc *e, const struct report_value_type *vt)
{
	pb_value_type *t = arena_alloc(&e->arena, sizeof(*t));

	if (!t)
		return NULL;
	PB(value_type__init)(t);
	t->type_strindex = enc__string(e, vt->type);
	t->unit_strindex = enc__string(e, vt->unit);
	return t->type_strindex < 0 || t->unit_strindex < 0 ? NULL : t;
}

/*
 * One event's stacks are timestamped when each has one timestamp per event: then value
 * type 0 (the count) is sent as one 1 per timestamp, the shape whose values and
 * timestamps pair up. Other value types, and stacks without complete timestamps, are
 * sent as one aggregated value: a Sample's two arrays must have the same length.
 */
static bool run_is_timestamped(const struct enc *e, const uint32_t *run, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct report_stack *s = &e->r->stacks[run[i]];

		if (!s->ntimes || !s->times_unix_ns || s->ntimes != s->count)
			return false;
	}
	return n > 0;
}

static int enc__sample(struct enc *e, uint32_t si, uint32_t v, bool timestamped, pb_sample **out)
{
	const struct report_stack *s = &e->r->stacks[si];
	const struct stack_info *info = &e->info[si];
	pb_sample *smp = arena_alloc(&e->arena, sizeof(*smp));
	int64_t *value = arena_alloc(&e->arena, sizeof(*value));

	if (!smp || !value)
		return -ENOMEM;
	PB(sample__init)(smp);
	smp->stack_index = info->stack;
	smp->n_attribute_indices = info->nattrs;
	smp->attribute_indices = (int32_t *)info->attrs; /* shared by the value types */
	if (timestamped && v == 0) {
		smp->n_values = s->ntimes;
		smp->values = e->ones;
		smp->n_timestamps_unix_nano = s->ntimes;
		smp->timestamps_unix_nano = (uint64_t *)s->times_unix_ns; /* only read */
	} else {
		*value = stack_value(e, s, v);
		smp->n_values = 1;
		smp->values = value;
	}
	*out = smp;
	return 0;
}

/* A Profile of value type v over one event's stacks run[0..n). */
static int enc__profile(struct enc *e, const uint32_t *run, size_t n, uint32_t v, pb_profile **out)
{
	const struct report_event *ev = enc__event(e, &e->r->stacks[run[0]]);
	bool timestamped = run_is_timestamped(e, run, n);
	pb_profile *p = arena_alloc(&e->arena, sizeof(*p));
	pb_sample **samples = enc__zalloc(e, n * sizeof(*samples));
	uint8_t *id = arena_alloc(&e->arena, 16);
	int err;

	if (!p || !samples || !id)
		return -ENOMEM;
	PB(profile__init)(p);
	p->sample_type = enc__value_type(e, &ev->values[v]);
	if (!p->sample_type)
		return -ENOMEM;
	if (is_set(ev->period_type.type)) {
		p->period_type = enc__value_type(e, &ev->period_type);
		if (!p->period_type)
			return -ENOMEM;
		p->period = ev->period > INT64_MAX ? INT64_MAX : (int64_t)ev->period;
	}
	/* Two probes both count events/count: the event's name tells their profiles apart
	 * (no semantic convention names a profile's trigger yet, hence our namespace). */
	if (is_set(ev->name)) {
		int32_t *attr = arena_alloc(&e->arena, sizeof(*attr));

		if (!attr)
			return -ENOMEM;
		*attr = enc__attr(e, OTLP_EVENT_ATTR, ev->name, 0);
		if (*attr < 0)
			return *attr;
		p->n_attribute_indices = 1;
		p->attribute_indices = attr;
	}
	p->time_unix_nano = e->r->start_unix_ns;
	p->duration_nano = e->r->duration_ns;
	/* Optional, and only useful when unique: without randomness, leave it out. */
	if (getrandom(id, 16, GRND_NONBLOCK) == 16)
		p->profile_id = (ProtobufCBinaryData){16, id};
	for (size_t i = 0; i < n; i++) {
		err = enc__sample(e, run[i], v, timestamped, &samples[i]);
		if (err)
			return err;
	}
	p->n_samples = n;
	p->samples = samples;
	*out = p;
	return 0;
}

/* The scope and its profiles for one process's stacks run[0..n), sorted by event. */
static int enc__scope(struct enc *e, const uint32_t *run, size_t n, pb_scope_profiles **out)
{
	pb_scope_profiles *sp = arena_alloc(&e->arena, sizeof(*sp));
	pb_scope *scope = arena_alloc(&e->arena, sizeof(*scope));
	struct ptrvec profiles = {0};
	size_t i, j;
	int err = 0;

	if (!sp || !scope)
		return -ENOMEM;
	PB(scope_profiles__init)(sp);
	PB_COMMON(instrumentation_scope__init)(scope);
	scope->name = OTLP_SCOPE_NAME;
	scope->version = (char *)(e->o->scope_version ? e->o->scope_version : "");
	sp->scope = scope;
	for (i = 0; i < n && !err; i = j) {
		const struct report_event *ev = enc__event(e, &e->r->stacks[run[i]]);

		for (j = i; j < n && e->r->stacks[run[j]].event == e->r->stacks[run[i]].event; j++)
			;
		for (uint32_t v = 0; v < ev->nvalues && !err; v++) {
			pb_profile *p;

			err = enc__profile(e, run + i, j - i, v, &p);
			if (!err)
				err = ptrvec__push(&profiles, p);
		}
	}
	if (!err) {
		void **copy = enc__zalloc(e, profiles.n * sizeof(*copy));

		err = copy ? 0 : -ENOMEM;
		if (copy)
			memcpy(copy, profiles.v, profiles.n * sizeof(*copy));
		sp->n_profiles = profiles.n;
		sp->profiles = (pb_profile **)copy;
	}
	free(profiles.v);
	*out = sp;
	return err;
}

/* Appends key = value to a resource's attributes; sval NULL means the integer ival. */
static int enc__kv(struct enc *e, struct ptrvec *kvs, const char *key, const char *sval,
		   int64_t ival)
{
	pb_kv *kv = arena_alloc(&e->arena, sizeof(*kv));
	pb_any *any = arena_alloc(&e->arena, sizeof(*any));

	if (!kv || !any)
		return -ENOMEM;
	PB_COMMON(key_value__init)(kv);
	any_set(any, sval, ival);
	kv->key = (char *)key;
	kv->value = any;
	return ptrvec__push(kvs, kv);
}

static bool has_key(const struct ptrvec *kvs, const char *key)
{
	for (size_t i = 0; i < kvs->n; i++) {
		if (!strcmp(((pb_kv *)kvs->v[i])->key, key))
			return true;
	}
	return false;
}

/* Appends a string attribute when the value is set and the key is not there yet. */
static int enc__kv_str(struct enc *e, struct ptrvec *kvs, const char *key, const char *val)
{
	if (!is_set(val) || has_key(kvs, key))
		return 0;
	return enc__kv(e, kvs, key, enc__strdup(e, val), 0);
}

/* The resource attributes of one process: its own first, so they win over host-wide
 * ones with the same key; then service.name by the precedence in otlp.h. */
static int enc__resource_attrs(struct enc *e, const struct report_stack *s, struct ptrvec *kvs)
{
	const struct otlp_options *o = e->o;
	struct otlp_process p = {0};
	const char *service;
	int err;

	if (o->lookup && o->lookup(o->lookup_ctx, s->pid, &p) < 0)
		memset(&p, 0, sizeof(p));
	err = enc__kv(e, kvs, "process.pid", NULL, s->pid);
	/* The semantic conventions allow the comm (/proc/PID/status Name) as the name
	 * when the executable is unknown: a process gone before the export, a kthread. */
	err = err
		  ?: enc__kv_str(e, kvs, "process.executable.name",
				 is_set(p.exe_name) ? p.exe_name : s->comm);
	err = err ?: enc__kv_str(e, kvs, "process.executable.path", p.exe_path);
	err = err ?: enc__kv_str(e, kvs, "container.id", p.container_id);
	err = err ?: enc__kv_str(e, kvs, "k8s.pod.uid", p.pod_uid);
	err = err ?: enc__kv_str(e, kvs, "host.name", o->host_name);
	service = is_set(p.service_name)    ? p.service_name
		  : is_set(o->service_name) ? o->service_name
		  : is_set(p.exe_name)	    ? p.exe_name
					    : s->comm;
	err = err ?: enc__kv_str(e, kvs, "service.name", service);
	for (size_t i = 0; i < o->nattrs && !err; i++) {
		if (is_set(o->attrs[i].key))
			err = enc__kv_str(e, kvs, o->attrs[i].key, o->attrs[i].value);
	}
	return err;
}

/* One ResourceProfiles for one process's stacks run[0..n). */
static int enc__resource(struct enc *e, const uint32_t *run, size_t n)
{
	pb_resource_profiles *rp = arena_alloc(&e->arena, sizeof(*rp));
	pb_resource *res = arena_alloc(&e->arena, sizeof(*res));
	pb_scope_profiles **scopes = arena_alloc(&e->arena, sizeof(*scopes));
	struct ptrvec kvs = {0};
	void **copy;
	int err;

	if (!rp || !res || !scopes)
		return -ENOMEM;
	PB(resource_profiles__init)(rp);
	opentelemetry__proto__resource__v1__resource__init(res);
	err = enc__resource_attrs(e, &e->r->stacks[run[0]], &kvs);
	copy = enc__zalloc(e, kvs.n * sizeof(*copy));
	if (!err && !copy)
		err = -ENOMEM;
	if (!err) {
		memcpy(copy, kvs.v, kvs.n * sizeof(*copy));
		res->n_attributes = kvs.n;
		res->attributes = (pb_kv **)copy;
		err = enc__scope(e, run, n, &scopes[0]);
	}
	free(kvs.v);
	if (err)
		return err;
	rp->resource = res;
	rp->n_scope_profiles = 1;
	rp->scope_profiles = scopes;
	return ptrvec__push(&e->resources, rp);
}

static int enc__resources(struct enc *e)
{
	const struct report *r = e->r;
	size_t i, j;
	int err;

	for (i = 0; i < r->nstacks; i = j) {
		uint32_t pid = r->stacks[e->order[i]].pid;

		for (j = i; j < r->nstacks && r->stacks[e->order[j]].pid == pid; j++)
			;
		err = enc__resource(e, e->order + i, j - i);
		if (err)
			return err;
	}
	return 0;
}

/* -- the request ---------------------------------------------------------------------- */

static void enc__assemble(struct enc *e)
{
	pb_dict *d = &e->dict;

	PB(profiles_dictionary__init)(d);
	d->n_mapping_table = e->mappings.n;
	d->mapping_table = (pb_mapping **)e->mappings.v;
	d->n_location_table = e->locations.n;
	d->location_table = (pb_location **)e->locations.v;
	d->n_function_table = e->functions.n;
	d->function_table = (pb_function **)e->functions.v;
	d->n_link_table = e->links.n;
	d->link_table = (pb_link **)e->links.v;
	d->n_string_table = e->strings.n;
	d->string_table = (char **)e->strings.v;
	d->n_attribute_table = e->attrs.n;
	d->attribute_table = (pb_kvu **)e->attrs.v;
	d->n_stack_table = e->stacks.n;
	d->stack_table = (pb_stack **)e->stacks.v;
	PB_COLLECTOR(export_profiles_service_request__init)(&e->req);
	e->req.n_resource_profiles = e->resources.n;
	e->req.resource_profiles = (pb_resource_profiles **)e->resources.v;
	e->req.dictionary = d;
}

static void enc__init(struct enc *e, const struct report *r, const struct otlp_options *o)
{
	memset(e, 0, sizeof(*e));
	e->r = r;
	e->o = o;
	e->cpu_event = (struct report_event){
	    .name = "cpu",
	    .period_type = {"cpu", "nanoseconds"},
	    .period = r->period_ns,
	    .nvalues = 1,
	    .values = {{"samples", "count"}},
	};
	arena_init(&e->arena);
	hmap_init(&e->str_idx, str_eq);
	hmap_init(&e->fn_idx, fn_eq);
	hmap_init(&e->attr_idx, attr_eq);
	hmap_init(&e->stack_idx, stack_eq);
}

static void enc__free(struct enc *e)
{
	hmap_free(&e->stack_idx);
	hmap_free(&e->attr_idx);
	hmap_free(&e->fn_idx);
	hmap_free(&e->str_idx);
	free(e->resources.v);
	free(e->links.v);
	free(e->stacks.v);
	free(e->attrs.v);
	free(e->functions.v);
	free(e->locations.v);
	free(e->mappings.v);
	free(e->strings.v);
	arena_free(&e->arena);
}

int otlp__encode(const struct report *r, const struct otlp_options *o, uint8_t **out,
		 size_t *outlen)
{
	static const struct otlp_options no_options;
	struct enc e;
	uint8_t *buf = NULL;
	size_t len = 0;
	int err;

	*out = NULL;
	*outlen = 0;
	enc__init(&e, r, o ? o : &no_options);
	err = enc__zero_entries(&e);
	err = err ?: enc__mappings(&e);
	err = err ?: enc__locations(&e);
	err = err ?: enc__stacks(&e);
	err = err ?: enc__resources(&e);
	if (err)
		goto cleanup;
	enc__assemble(&e);
	len = PB_COLLECTOR(export_profiles_service_request__get_packed_size)(&e.req);
	buf = malloc(len ? len : 1);
	if (!buf) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (PB_COLLECTOR(export_profiles_service_request__pack)(&e.req, buf) != len) {
		err = -EIO; /* protobuf-c disagreeing with itself: never expected */
		goto cleanup;
	}
	*out = buf;
	*outlen = len;
	buf = NULL;
cleanup:
	free(buf);
	enc__free(&e);
	return err;
}
