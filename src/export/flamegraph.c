// SPDX-License-Identifier: Apache-2.0
/* HTML flame graph writer. Merges the report's stacks into one tree in a single pass (a hash
 * map finds a node's child by name, so wide levels stay linear), then embeds the tree as
 * compact, fully escaped JSON in a page whose inline script (src/export/flamegraph.js,
 * embedded at build time) draws and explores it. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/flamegraph.h"
#include "flamegraph_js.h" /* generated from src/export/flamegraph.js: flamegraph_js[] */
#include "profile/frame.h"
#include "profile/report_view.h"
#include "util/arena.h"
#include "util/atomic_file.h"
#include "util/json.h"

#define NONE UINT32_MAX
#define DEFAULT_TITLE "ebprof flame graph"

/* Node kinds: the page's own two, then the frame kinds in their table's order. The page's
 * script reads what each number means from the data (put_kinds). */
enum fg_kind {
	FG_ROOT,
	FG_PROCESS,
	FG_FRAME, /* + enum frame_kind */
	/* After the frames, so a frame kind's number does not depend on the page's own. */
	FG_LABELS = FG_FRAME + FRAME_KIND__COUNT, /* the labels set on the sample (pprof.Do) */
	FG_KINDS,
};

/* The nodes that are not frames; colours and descriptions as frame_kinds.c gives them. */
static const struct frame_kind_info page_kinds[FG_FRAME] = {
    [FG_ROOT] = {.name = "root", .about = "all processes", .colour = {210, 0, 8, 82, 0}},
    [FG_PROCESS] = {.name = "process", .about = "process", .colour = {250, 25, 30, 76, 5}},
};

/* A label set's node: zooming on it shows only the samples that carry those labels. */
static const struct frame_kind_info labels_kind = {
    .name = "labels",
    .about = "labels the program set on these samples (pprof.Do); click to see only them",
    .colour = {170, 0, 45, 73, 0},
};

struct fg_node {
	uint64_t value;	 /* samples whose stack passes through this node */
	uint64_t count;	 /* their first value (objects, samples) when it is not the weight */
	uint32_t name;	 /* index into fg_tree.names */
	uint32_t kind;	 /* enum fg_kind */
	uint32_t parent; /* NONE for the root */
	uint32_t first;	 /* first child in name order, NONE for a leaf */
	uint32_t next;	 /* next sibling in name order */
	uint32_t nchildren;
};

/* Open addressing with linear probing. A slot holds an index into the tree's nodes or
 * names and that entry's hash, so the table grows without looking at the entries. */
struct fg_slot {
	uint32_t idx;
	uint32_t hash;
};

struct fg_map {
	struct fg_slot *slots;
	size_t mask;
	size_t len;
};

struct fg_tree {
	struct fg_node *nodes; /* nodes[0] is the root, "all" */
	size_t nnodes, nodes_cap;
	const char **names; /* borrowed from the report, or literals */
	size_t nnames, names_cap;
	struct fg_map children; /* (parent, name, kind) -> node */
	struct fg_map strings;	/* name text -> index into names */
	struct arena arena;	/* names made here (label sets) */
};

struct fg_child_key {
	uint32_t parent, name, kind;
};

typedef bool (*fg_eq_fn)(const struct fg_tree *t, uint32_t idx, const void *key);

static uint32_t hash_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return (uint32_t)x;
}

static uint32_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return hash_mix(h);
}

static uint32_t hash_child(const struct fg_child_key *k)
{
	return hash_mix(((uint64_t)k->parent << 32 | k->name) ^ (uint64_t)k->kind << 61);
}

/* Doubles an array's capacity (from 64). Returns the new array, or NULL with the old one
 * and *cap untouched. */
static void *grow_array(void *arr, size_t *cap, size_t size)
{
	size_t n = *cap ? *cap * 2 : 64;
	void *p = reallocarray(arr, n, size);

	if (p)
		*cap = n;
	return p;
}

/* Makes room for one more entry, keeping the load at most 3/4. Returns 0 or -ENOMEM. */
static int fg_map__reserve(struct fg_map *m)
{
	size_t cap = m->slots ? m->mask + 1 : 0, n = cap ? cap * 2 : 64;
	struct fg_slot *slots;

	if (cap && (m->len + 1) * 4 <= cap * 3)
		return 0;
	slots = malloc(n * sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	memset(slots, 0xff, n * sizeof(*slots)); /* every idx NONE */
	for (size_t i = 0; i < cap; i++) {
		size_t j = m->slots[i].hash & (n - 1);

		if (m->slots[i].idx == NONE)
			continue;
		while (slots[j].idx != NONE)
			j = (j + 1) & (n - 1);
		slots[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = slots;
	m->mask = n - 1;
	return 0;
}

/* Returns the slot holding the entry equal to key, or the empty slot where it belongs. */
static struct fg_slot *fg_map__probe(const struct fg_map *m, uint32_t hash, fg_eq_fn eq,
				     const struct fg_tree *t, const void *key)
{
	for (size_t i = hash & m->mask;; i = (i + 1) & m->mask) {
		struct fg_slot *s = &m->slots[i];

		if (s->idx == NONE || (s->hash == hash && eq(t, s->idx, key)))
			return s;
	}
}

static bool name_eq(const struct fg_tree *t, uint32_t idx, const void *key)
{
	return strcmp(t->names[idx], key) == 0;
}

static bool child_eq(const struct fg_tree *t, uint32_t idx, const void *key)
{
	const struct fg_child_key *k = key;
	const struct fg_node *n = &t->nodes[idx];

	return n->parent == k->parent && n->name == k->name && n->kind == k->kind;
}

/* Finds or adds the name s (borrowed, must outlive the tree). Returns 0 or -errno. */
static int fg_tree__intern(struct fg_tree *t, const char *s, uint32_t *id)
{
	uint32_t h = hash_str(s);
	struct fg_slot *slot;
	const char **names;
	int err;

	err = fg_map__reserve(&t->strings);
	if (err)
		return err;
	slot = fg_map__probe(&t->strings, h, name_eq, t, s);
	if (slot->idx == NONE) {
		if (t->nnames == t->names_cap) {
			names = grow_array(t->names, &t->names_cap, sizeof(*names));
			if (!names)
				return -ENOMEM;
			t->names = names;
		}
		t->names[t->nnames] = s;
		*slot = (struct fg_slot){.idx = t->nnames++, .hash = h};
		t->strings.len++;
	}
	*id = slot->idx;
	return 0;
}

static int fg_tree__add_node(struct fg_tree *t, const struct fg_child_key *k, uint32_t *id)
{
	struct fg_node *nodes;

	if (t->nnodes >= NONE)
		return -EOVERFLOW;
	if (t->nnodes == t->nodes_cap) {
		nodes = grow_array(t->nodes, &t->nodes_cap, sizeof(*nodes));
		if (!nodes)
			return -ENOMEM;
		t->nodes = nodes;
	}
	t->nodes[t->nnodes] = (struct fg_node){
	    .name = k->name,
	    .kind = k->kind,
	    .parent = k->parent,
	    .first = NONE,
	    .next = NONE,
	};
	if (k->parent != NONE)
		t->nodes[k->parent].nchildren++;
	*id = t->nnodes++;
	return 0;
}

/* What a stack adds to each node on its way: its weight, and its count (the event's
 * first value) when the page shows one beside the weight. */
struct fg_amount {
	uint64_t weight, count;
};

/* Moves *node to its child (name, kind), adding the child if new, and adds amount to
 * it. Returns 0 or -errno. */
static int fg_tree__descend(struct fg_tree *t, uint32_t *node, uint32_t name, uint32_t kind,
			    struct fg_amount amount)
{
	struct fg_child_key k = {.parent = *node, .name = name, .kind = kind};
	uint32_t h = hash_child(&k), id;
	struct fg_slot *slot;
	int err;

	err = fg_map__reserve(&t->children);
	if (err)
		return err;
	slot = fg_map__probe(&t->children, h, child_eq, t, &k);
	if (slot->idx == NONE) {
		err = fg_tree__add_node(t, &k, &id);
		if (err)
			return err;
		*slot = (struct fg_slot){.idx = id, .hash = h};
		t->children.len++;
	}
	*node = slot->idx;
	t->nodes[*node].value += amount.weight;
	t->nodes[*node].count += amount.count;
	return 0;
}

static uint32_t frame_kind(const struct report_frame *f)
{
	return FG_FRAME + ((uint32_t)f->kind < FRAME_KIND__COUNT ? f->kind : FRAME_UNKNOWN);
}

/* The name of a label set's node: "{key=value, key=value}", keys sorted. */
/* fg_tree__intern of a string that does not outlive the call: a new name is copied. */
static int fg_tree__intern_copy(struct fg_tree *t, const char *s, uint32_t *id)
{
	uint32_t before = t->nnames;
	int err = fg_tree__intern(t, s, id);

	if (err || t->nnames == before)
		return err;
	t->names[*id] = arena_strdup(&t->arena, s);
	return t->names[*id] ? 0 : -ENOMEM;
}

static const char *labels_name(struct fg_tree *t, const struct report_stack *s)
{
	size_t len = 3;
	char *p, *q;

	for (uint32_t i = 0; i < s->nlabels; i++)
		len += strlen(s->labels[i].key) + strlen(s->labels[i].value) + 3;
	p = q = arena_alloc(&t->arena, len);
	if (!p)
		return NULL;
	*q++ = '{';
	for (uint32_t i = 0; i < s->nlabels; i++)
		q += sprintf(q, "%s%s=%s", i ? ", " : "", s->labels[i].key, s->labels[i].value);
	strcpy(q, "}");
	return p;
}

/* The number shown beside the weight: the event's first value when it has several (the
 * objects of bytes allocated, the samples of time off the CPU), else none. */
static bool shows_count(const struct report *r)
{
	return r->nevents && r->events[0].nvalues >= 2 && r->events[0].nvalues <= REPORT_MAX_VALUES;
}

static uint64_t stack_count(const struct report *r, const struct report_stack *s)
{
	if (!shows_count(r) || !s->values || s->event >= r->nevents)
		return 0;
	return s->values[0];
}

/* Adds one stack: its root (its process; report.root may put its pid in the process's
 * name or its container above it), "[truncated]" if the root is missing, then its frames
 * outermost first (report stacks are leaf first). Line j of frame f has the name id
 * names[first_name[f] + j]. */
static int fg_tree__add_stack(struct fg_tree *t, const struct report *r, const uint32_t *names,
			      const uint32_t *first_name, const struct report_stack *s)
{
	char roots[REPORT_ROOTS_MAX][REPORT_ROOT_LEN];
	unsigned int nroots = report_stack_roots(s, r->root, roots);
	struct fg_amount w = {report_stack_weight(r, s), stack_count(r, s)};
	uint32_t node = 0, name;
	int err = 0;

	t->nodes[0].value += w.weight;
	t->nodes[0].count += w.count;
	for (unsigned int i = 0; !err && i < nroots; i++) {
		err = fg_tree__intern_copy(t, roots[i], &name);
		if (!err)
			err = fg_tree__descend(t, &node, name, FG_PROCESS, w);
	}
	if (!err && s->nlabels) { /* below the process: zooming on it shows only those samples */
		const char *labels = labels_name(t, s);

		err = labels ? fg_tree__intern(t, labels, &name) : -ENOMEM;
		if (!err)
			err = fg_tree__descend(t, &node, name, FG_LABELS, w);
	}
	if (!err && s->truncated)
		err = fg_tree__intern(t, "[truncated]", &name);
	if (!err && s->truncated)
		err = fg_tree__descend(t, &node, name, FG_FRAME + FRAME_UNKNOWN, w);
	for (uint32_t i = s->nframes; !err && i-- > 0;) {
		uint32_t f = s->frames[i];

		if (f >= r->nframes)
			return -EINVAL;
		/* One node per line of the frame's inline chain, outermost first. */
		for (uint32_t j = report_frame_depth(&r->frames[f]); !err && j-- > 0;)
			err = fg_tree__descend(t, &node, names[first_name[f] + j],
					       frame_kind(&r->frames[f]), w);
	}
	return err;
}

struct fg_named {
	const char *s;
	uint32_t id;
};

static int named_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fg_named *)a)->s, ((const struct fg_named *)b)->s);
}

/* Sorts the names (the page lists them in byte order) and renumbers the nodes to match.
 * The strings map is stale afterwards; nothing is interned after this. */
static int fg_tree__sort_names(struct fg_tree *t)
{
	struct fg_named *v = calloc(t->nnames, sizeof(*v));
	uint32_t *rank = calloc(t->nnames, sizeof(*rank));
	int err = -ENOMEM;

	if (!v || !rank)
		goto cleanup;
	for (size_t i = 0; i < t->nnames; i++)
		v[i] = (struct fg_named){.s = t->names[i], .id = i};
	qsort(v, t->nnames, sizeof(*v), named_cmp);
	for (size_t i = 0; i < t->nnames; i++) {
		rank[v[i].id] = i;
		t->names[i] = v[i].s;
	}
	for (size_t i = 0; i < t->nnodes; i++)
		t->nodes[i].name = rank[t->nodes[i].name];
	err = 0;
cleanup:
	free(rank);
	free(v);
	return err;
}

struct fg_edge {
	uint32_t parent, name, kind, child;
};

static int edge_cmp(const void *a, const void *b)
{
	const struct fg_edge *x = a, *y = b;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

/* Links every node's children into a sibling list in name order, with one sort over all
 * parent-child edges. Returns 0 or -ENOMEM. */
static int fg_tree__link(struct fg_tree *t)
{
	size_t n = t->nnodes - 1;
	struct fg_edge *e = calloc(n ? n : 1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	for (size_t i = 1; i < t->nnodes; i++) {
		const struct fg_node *c = &t->nodes[i];

		e[i - 1] = (struct fg_edge){c->parent, c->name, c->kind, i};
	}
	qsort(e, n, sizeof(*e), edge_cmp);
	for (size_t i = n; i-- > 0;) {
		t->nodes[e[i].child].next = t->nodes[e[i].parent].first;
		t->nodes[e[i].parent].first = e[i].child;
	}
	free(e);
	return 0;
}

static int fg_tree__build(struct fg_tree *t, const struct report *r)
{
	struct fg_child_key root = {.parent = NONE, .kind = FG_ROOT};
	uint32_t *first = calloc(r->nframes ? r->nframes : 1, sizeof(*first)), *names, root_id;
	size_t nlines = 0;
	int err = -ENOMEM;

	for (size_t i = 0; i < r->nframes; i++)
		nlines += report_frame_depth(&r->frames[i]);
	names = calloc(nlines ? nlines : 1, sizeof(*names));
	if (!names || !first)
		goto cleanup;
	err = fg_tree__intern(t, "all", &root.name);
	if (!err)
		err = fg_tree__add_node(t, &root, &root_id); /* node 0 */
	nlines = 0;
	for (size_t i = 0; !err && i < r->nframes; i++) {
		const struct report_frame *fr = &r->frames[i];

		first[i] = nlines;
		for (uint32_t j = 0; !err && j < report_frame_depth(fr); j++) {
			const char *name = report_frame_label(fr, j);

			err = fg_tree__intern(t, name ? name : "[unknown]", &names[nlines++]);
		}
	}
	for (size_t i = 0; !err && i < r->nstacks; i++)
		if (report_stack_weight(r, &r->stacks[i]))
			err = fg_tree__add_stack(t, r, names, first, &r->stacks[i]);
	if (!err)
		err = fg_tree__sort_names(t);
	if (!err)
		err = fg_tree__link(t);
cleanup:
	free(names);
	free(first);
	return err;
}

static void fg_tree__free(struct fg_tree *t)
{
	free(t->strings.slots);
	free(t->children.slots);
	free(t->names);
	free(t->nodes);
	arena_free(&t->arena);
}

/* Text for an HTML element: markup characters as entities, control characters as
 * spaces, invalid UTF-8 as U+FFFD. */
static void put_html_text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t c;
	size_t n;

	for (; *p; p += n) {
		n = utf8_next(p, &c);
		if (c == '&')
			fputs("&amp;", f);
		else if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c == UTF8_BAD)
			fputs("\xef\xbf\xbd", f);
		else if (c < 0x20 || c == 0x7f)
			fputc(' ', f);
		else
			fwrite(p, 1, n, f);
	}
}

static void put_names(FILE *f, const struct fg_tree *t)
{
	fputs("\"names\":[", f);
	for (size_t i = 0; i < t->nnames; i++) {
		if (i)
			fputc(',', f);
		json_put_string(f, t->names[i], JSON_IN_SCRIPT);
	}
	fputc(']', f);
}

/* The tree in preorder, four numbers a node: name, kind, samples, number of children;
 * or, with counts, one: the node's count. Walks the sibling lists with parent links, so
 * depth costs no stack. */
static void put_nodes(FILE *f, const struct fg_tree *t, bool counts)
{
	uint32_t i = 0;

	fputs(counts ? "\"counts\":[" : "\"nodes\":[", f);
	for (;;) {
		const struct fg_node *n = &t->nodes[i];

		if (counts)
			fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)n->count);
		else
			fprintf(f, "%s%u,%u,%llu,%u", i ? "," : "", n->name, n->kind,
				(unsigned long long)n->value, n->nchildren);
		if (n->first != NONE) {
			i = n->first;
			continue;
		}
		while (i != 0 && t->nodes[i].next == NONE)
			i = t->nodes[i].parent;
		if (i == 0)
			break;
		i = t->nodes[i].next;
	}
	fputc(']', f);
}

static const struct frame_kind_info *fg_kind_info(const struct report *r, uint32_t k)
{
	if (k == FG_LABELS)
		return &labels_kind;
	return k < FG_FRAME ? &page_kinds[k] : report_kind(r, k - FG_FRAME);
}

/* What each node kind is: [{"name", "about", "colour": [hue, hue span, saturation,
 * lightness, lightness span]}, ...], indexed by enum fg_kind. */
static void put_kinds(FILE *f, const struct report *r)
{
	fputs("\"kinds\":[", f);
	for (uint32_t k = 0; k < FG_KINDS; k++) {
		const struct frame_kind_info *i = fg_kind_info(r, k);
		const struct frame_colour *c = &i->colour;

		fputs(k ? ",{\"name\":" : "{\"name\":", f);
		json_put_string(f, i->name, JSON_IN_SCRIPT);
		fputs(",\"about\":", f);
		json_put_string(f, i->about, JSON_IN_SCRIPT);
		fprintf(f, ",\"colour\":[%u,%u,%u,%u,%u]}", c->hue, c->hue_span, c->sat, c->light,
			c->light_span);
	}
	fputc(']', f);
}

/* What a node's number counts: the type of the event's weighed value (samples, events),
 * or "nanoseconds" when it is time (off-CPU). */
static const char *weight_unit(const struct report *r)
{
	const struct report_value_type *v;

	if (!r->nevents || !r->events[0].nvalues || r->events[0].nvalues > REPORT_MAX_VALUES)
		return "samples";
	v = &r->events[0].values[r->events[0].nvalues - 1];
	return strcmp(v->unit, "count") == 0 ? v->type : v->unit;
}

/* The CPU time a sample stands for, when the nodes count CPU samples; 0 for any other
 * event (an allocation's period is bytes, a probe has none). */
static uint64_t cpu_period_ns(const struct report *r)
{
	const struct report_value_type *p;

	if (!r->nevents)
		return r->period_ns;
	p = &r->events[0].period_type;
	if (!p->type || !p->unit || strcmp(p->type, "cpu") || strcmp(p->unit, "nanoseconds"))
		return 0;
	return r->events[0].period;
}

/* What the count beside the weight counts: "objects" of alloc_objects, "samples". */
static const char *count_unit(const struct report *r)
{
	const char *type = r->events[0].values[0].type, *us;

	if (!type)
		return "count";
	us = strrchr(type, '_');
	return us ? us + 1 : type;
}

static void put_data(FILE *f, const struct fg_tree *t, const struct report *r, const char *title)
{
	fputs("{\"version\":1,\"title\":", f);
	json_put_string(f, title, JSON_IN_SCRIPT);
	fputs(",\"unit\":", f);
	json_put_string(f, weight_unit(r), JSON_IN_SCRIPT);
	fprintf(f, ",\"period_ns\":%llu,\"duration_ns\":%llu,\"start_unix_ns\":%llu,",
		(unsigned long long)cpu_period_ns(r), (unsigned long long)r->duration_ns,
		(unsigned long long)r->start_unix_ns);
	if (shows_count(r)) {
		fputs("\"count_unit\":", f);
		json_put_string(f, count_unit(r), JSON_IN_SCRIPT);
		fputc(',', f);
		put_nodes(f, t, true);
		fputc(',', f);
	}
	put_kinds(f, r);
	fputc(',', f);
	put_names(f, t);
	fputc(',', f);
	put_nodes(f, t, false);
	fputc('}', f);
}

/* The page, in parts around the title, the data and the script. The script reads what
 * put_data writes: {"version":1, "title", "unit" (of the weight: samples, events, bytes,
 * nanoseconds), "period_ns" (CPU time a sample stands for, 0 when not CPU samples),
 * "duration_ns", "start_unix_ns", ["count_unit", "counts": [a count per node, in
 * preorder]], "kinds": [what each node kind is], "names": [sorted strings], "nodes":
 * [name, kind, weight, children, ...] in preorder}, kinds as in enum fg_kind. Names reach
 * the page only as JSON data or textContent, never as markup. */
static const char page_head[] =
    "<!DOCTYPE html>\n"
    "<html lang=\"en\">\n"
    "<head>\n"
    "<meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<meta http-equiv=\"Content-Security-Policy\"\n"
    " content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline';\n"
    " script-src 'unsafe-inline'\">\n"
    "<link rel=\"icon\" href=\"data:,\">\n"
    "<title>";

/* Styles and markup, up to the embedded data. */
static const char page_body[] =
    "</title>\n"
    "<style>\n"
    ":root { --row: 18px; }\n"
    "* { box-sizing: border-box; }\n"
    "body {\n"
    "\tmargin: 0; padding-bottom: 40px; color: #1f2328; background: #fff;\n"
    "\tfont: 13px/1.4 system-ui, -apple-system, 'Segoe UI', sans-serif;\n"
    "}\n"
    "header { padding: 12px 16px 8px; border-bottom: 1px solid #d8dee4; background: #f6f8fa }\n"
    "h1 { margin: 0; font-size: 17px; font-weight: 600; overflow-wrap: anywhere; }\n"
    "#summary { color: #57606a; margin-top: 2px; }\n"
    ".bar { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 14px; margin-top: 8px }\n"
    "button {\n"
    "\tfont: inherit; padding: 3px 10px; border: 1px solid #c4cbd3; border-radius: 6px;\n"
    "\tbackground: #fff; color: inherit; cursor: pointer;\n"
    "}\n"
    "button:hover:not(:disabled) { background: #eef1f4; }\n"
    "button:disabled { color: #8c959f; cursor: default; }\n"
    "button[aria-pressed=true] { background: #dde4ec; }\n"
    "input[type=search] {\n"
    "\tfont: inherit; width: 260px; padding: 3px 8px; border: 1px solid #c4cbd3;\n"
    "\tborder-radius: 6px;\n"
    "}\n"
    "input.bad { border-color: #cf222e; outline-color: #cf222e; }\n"
    "label { user-select: none; color: #57606a; }\n"
    "#match { font-weight: 600; color: #8250df; }\n"
    ".top { display: flex; align-items: flex-start; gap: 16px; }\n"
    ".legend {\n"
    "\tdisplay: flex; flex: none; gap: 12px; margin: 3px 0 0 auto;\n"
    "\tcolor: #57606a; font-size: 12px;\n"
    "}\n"
    ".legend span::before {\n"
    "\tcontent: ''; display: inline-block; width: 10px; height: 10px; margin-right: 4px;\n"
    "\tborder-radius: 2px; vertical-align: -1px; background: var(--c);\n"
    "}\n"
    "main { padding: 10px 16px; }\n"
    "#chart { position: relative; width: 100%; min-height: var(--row); }\n"
    "#chart .f {\n"
    "\tposition: absolute; height: calc(var(--row) - 1px); padding: 0; border-radius: 2px;\n"
    "\toverflow: hidden; white-space: pre; text-overflow: ellipsis; color: #111;\n"
    "\tcursor: pointer;\n"
    "\tfont: 12px/17px ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace;\n"
    "}\n"
    "#chart .f.l { padding: 0 4px; }\n"
    "#chart .f:hover { outline: 1px solid #1f2328; z-index: 1; }\n"
    "#chart .f.anc { opacity: 0.55; }\n"
    "#chart .f.hit { background: hsl(295, 70%, 70%) !important; }\n"
    "#empty { color: #57606a; padding: 20px 0; }\n"
    "#tip {\n"
    "\tposition: fixed; z-index: 10; max-width: 640px; padding: 6px 9px; border-radius: 6px;\n"
    "\tbackground: #1f2328; color: #f6f8fa; font-size: 12px; pointer-events: none;\n"
    "\tbox-shadow: 0 3px 12px rgba(0, 0, 0, .25);\n"
    "}\n"
    "#tip b {\n"
    "\tdisplay: block; font: 600 12px/1.4 ui-monospace, Menlo, monospace; word-break: break-all;\n"
    "}\n"
    "#status {\n"
    "\tposition: fixed; left: 0; right: 0; bottom: 0; padding: 6px 16px; background: #f6f8fa;\n"
    "\tborder-top: 1px solid #d8dee4; font: 12px/1.5 ui-monospace, Menlo, monospace;\n"
    "\twhite-space: nowrap; overflow: hidden; text-overflow: ellipsis;\n"
    "}\n"
    "</style>\n"
    "</head>\n"
    "<body>\n"
    "<header>\n"
    "<div class=\"top\">\n"
    "<div><h1 id=\"title\"></h1><div id=\"summary\"></div></div>\n"
    "<div class=\"legend\" id=\"legend\"></div>\n"
    "</div>\n"
    "<div class=\"bar\">\n"
    "<button id=\"reset\" type=\"button\" disabled title=\"Esc\">Reset zoom</button>\n"
    "<button id=\"flip\" type=\"button\" aria-pressed=\"false\">Root at bottom</button>\n"
    "<input id=\"search\" type=\"search\" placeholder=\"Search frames (Ctrl+F)\"\n"
    " spellcheck=\"false\" autocomplete=\"off\" aria-label=\"Search frames\">\n"
    "<label><input id=\"regex\" type=\"checkbox\"> regex</label>\n"
    "<span id=\"match\" aria-live=\"polite\"></span>\n"
    "</div>\n"
    "</header>\n"
    "<main><div id=\"chart\"></div></main>\n"
    "<div id=\"tip\" hidden></div>\n"
    "<div id=\"status\">Hover a frame for details; click it to zoom.</div>\n"
    "<script type=\"application/json\" id=\"fg-data\">";

/* Between the data and the viewer (flamegraph_js), and after it. */
static const char page_script[] = "</script>\n<script>\n";
static const char page_tail[] = "</script>\n</body>\n</html>\n";

/* Returns 0, or -errno for the first write error stdio met. */
static int put_page(FILE *f, const struct fg_tree *t, const struct report *r, const char *title)
{
	errno = 0;
	fputs(page_head, f);
	put_html_text(f, title);
	fputs(page_body, f);
	put_data(f, t, r, title);
	fputs(page_script, f);
	fputs(flamegraph_js, f);
	fputs(page_tail, f);
	if (ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

int flamegraph__write(const struct report *r, const char *path, const char *title)
{
	struct fg_tree t = {0};
	struct atomic_file af;
	FILE *f;
	int err;

	if (!r || !path)
		return -EINVAL;
	err = fg_tree__build(&t, r);
	if (err)
		goto cleanup;
	err = atomic_file__open(&af, path);
	if (err)
		goto cleanup;
	f = atomic_file__stream(&af);
	err = f ? put_page(f, &t, r, title ? title : DEFAULT_TITLE) : -errno;
	err = atomic_file__finish(&af, err);
cleanup:
	fg_tree__free(&t);
	return err;
}
