// SPDX-License-Identifier: Apache-2.0
/* Names of HotSpot frames (see hotspot_names.h). Two caches: methods by Method* (name,
 * class, file, line table: one read, then any bci is a table lookup), and recorded frames
 * by their whole encoding, so a compiled frame's tag (its compile id) is part of the key:
 * code recompiled at the same address is another frame, read again. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/hotspot/hotspot_proc.h"
#include "interp/hotspot/hotspot_method.h"
#include "interp/hotspot/hotspot_names.h"
#include "util/hmap.h"

struct method_entry {
	uint64_t addr;
	char *func, *file;
	struct hs_method m; /* only the line table is kept; names are in func/file */
	int err;
};

struct frame_entry {
	uint64_t addr;
	uint32_t pad;
	int n;
	struct hs_named f[HS_INLINE_MAX];
};

struct hs_names {
	const struct hs_mem *mem;
	const struct hs_layout *l;
	struct hmap methods; /* struct method_entry by addr */
	struct hmap frames;  /* struct frame_entry by (addr, pad) */
	struct hmap strings; /* char * by text: every name handed out lives here */
	struct hs_names_stats st;
};

static int method_eq(const void *e, const void *k)
{
	return ((const struct method_entry *)e)->addr == *(const uint64_t *)k;
}

static int frame_eq(const void *e, const void *k)
{
	const struct frame_entry *a = e, *b = k;

	return a->addr == b->addr && a->pad == b->pad;
}

static int string_eq(const void *e, const void *k)
{
	return !strcmp(e, k);
}

/* The cache's copy of s (kept until hs_names__free); "?" on ENOMEM. */
static const char *intern(struct hs_names *n, const char *s)
{
	uint64_t h = hash_bytes(s, strlen(s), 0);
	char *c = hmap_find(&n->strings, h, s);

	if (c)
		return c;
	c = strdup(s);
	if (!c || hmap_insert(&n->strings, h, c)) {
		free(c);
		return "?";
	}
	return c;
}

struct hs_names *hs_names__new(const struct hs_mem *mem, const struct hs_layout *l)
{
	struct hs_names *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->mem = mem;
	n->l = l;
	hmap_init(&n->methods, method_eq);
	hmap_init(&n->frames, frame_eq);
	hmap_init(&n->strings, string_eq);
	return n;
}

static void clear(struct hs_names *n)
{
	hmap_for_each(&n->methods, i)
	{
		struct method_entry *e = n->methods.slots[i].entry;

		free(e->m.lines);
		free(e);
	}
	hmap_free(&n->methods);
	hmap_for_each(&n->frames, i) free(n->frames.slots[i].entry);
	hmap_free(&n->frames);
	hmap_init(&n->methods, method_eq);
	hmap_init(&n->frames, frame_eq);
}

void hs_names__free(struct hs_names *n)
{
	if (!n)
		return;
	clear(n);
	hmap_for_each(&n->strings, i) free(n->strings.slots[i].entry);
	hmap_free(&n->strings);
	free(n);
}

/* The method at addr, read on the first use; NULL on ENOMEM. */
static struct method_entry *method_at(struct hs_names *n, uint64_t addr)
{
	struct method_entry *e = hmap_find(&n->methods, hash_u64(addr), &addr);
	char func[2 * HS_NAME_MAX + 20];

	if (e)
		return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->addr = addr;
	n->st.method_reads++;
	e->err = hs_method__read(n->mem, n->l, addr, &e->m);
	if (!e->err) {
		/* As Java's own stack traces show them: no file, no line. */
		snprintf(func, sizeof(func), e->m.native ? "%s.%s (Native Method)" : "%s.%s",
			 e->m.klass, e->m.name);
		e->func = (char *)intern(n, func);
		e->file = (char *)intern(n, e->m.native ? "" : e->m.file);
	}
	if (hmap_insert(&n->methods, hash_u64(addr), e)) {
		free(e->m.lines);
		free(e);
		return NULL;
	}
	return e;
}

/* One Java frame of the method at addr, at bci. */
static void name_method(struct hs_names *n, uint64_t addr, int bci, struct hs_named *out)
{
	struct method_entry *e = method_at(n, addr);

	if (!e || e->err) {
		n->st.unreadable++;
		*out = (struct hs_named){"[jvm: unreadable method]", "", 0};
		return;
	}
	out->func = e->func;
	out->file = e->file;
	out->line = bci < 0 ? 0 : hs_method__line(n->l, &e->m, bci);
}

static int name_stub(struct hs_names *n, uint64_t blob, struct hs_named *out)
{
	char name[64] = "", text[80];
	uint64_t p = 0;

	n->st.stubs++;
	if (!n->mem->read(n->mem->ctx, blob + n->l->cb_name, &p, 8) && p &&
	    n->mem->read(n->mem->ctx, p, name, sizeof(name) - 1))
		n->mem->read(n->mem->ctx, p, name, 8);
	name[sizeof(name) - 1] = 0;
	for (char *c = name; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
	snprintf(text, sizeof(text), "[jvm stub: %s]", name[0] ? name : "?");
	*out = (struct hs_named){intern(n, text), "", 0};
	return 1;
}

/* A compiled frame: the methods inlined at its pc, innermost first. Code freed and its
 * address reused since the sample (another compile id there) is never named. */
static int name_compiled(struct hs_names *n, uint64_t nm, uint16_t tag, uint32_t off,
			 struct hs_named *out, int max)
{
	struct hs_scope_frame s[HS_INLINE_MAX];
	uint64_t method = 0;
	int32_t id;
	int k;

	n->st.nmethod_reads++;
	if (hs_nmethod__compile_id(n->mem, n->l, nm, &id)) {
		n->st.unreadable++;
		*out = (struct hs_named){"[jvm: unreadable code]", "", 0};
		return 1;
	}
	if ((uint16_t)id != tag) {
		n->st.replaced++;
		*out = (struct hs_named){"[jvm: code replaced before it was read]", "", 0};
		return 1;
	}
	k = hs_nmethod__scopes(n->mem, n->l, nm, nm + off, s,
			       max < HS_INLINE_MAX ? max : HS_INLINE_MAX);
	for (int i = 0; i < k; i++)
		name_method(n, s[i].method, s[i].bci, &out[i]);
	if (k > 0)
		return k;
	/* No debug point (a native method's wrapper, a stub-like prologue): the method. */
	n->st.no_scope++;
	n->mem->read(n->mem->ctx, nm + n->l->nm_method, &method, 8);
	name_method(n, method, -1, out);
	return 1;
}

static int name_frame(struct hs_names *n, uint64_t addr, uint32_t pad, struct hs_named *out,
		      int max)
{
	uint64_t ptr = addr & HS_PTR_MASK;
	uint32_t type = (pad >> HS_TYPE_SHIFT) & 3, value = pad & HS_VALUE_MASK;

	switch (type) {
	case HS_FRAME_INTERPRETED:
		n->st.no_bci += value == HS_BCI_NONE;
		name_method(n, ptr, value == HS_BCI_NONE ? -1 : (int)value, out);
		return 1;
	case HS_FRAME_COMPILED:
		return name_compiled(n, ptr, (uint16_t)(addr >> HS_TAG_SHIFT), value, out, max);
	case HS_FRAME_STUB:
		return name_stub(n, ptr, out);
	}
	*out = (struct hs_named){"[jvm: unknown frame]", "", 0};
	return 1;
}

int hs_names__frame(struct hs_names *n, uint64_t addr, uint32_t pad, struct hs_named *out, int max)
{
	struct frame_entry key = {.addr = addr, .pad = pad}, *e;
	uint64_t h = hash_u64(addr ^ ((uint64_t)pad << 20));

	if (max < 1)
		return 0;
	e = hmap_find(&n->frames, h, &key);
	if (!e) {
		if (n->frames.len >= HS_NAMES_MAX_FRAMES)
			clear(n);
		e = calloc(1, sizeof(*e));
		if (!e) {
			*out = (struct hs_named){"?", "", 0};
			return 1;
		}
		*e = key;
		e->n = name_frame(n, addr, pad, e->f, HS_INLINE_MAX);
		if (hmap_insert(&n->frames, h, e)) {
			int k = e->n < max ? e->n : max;

			memcpy(out, e->f, k * sizeof(*out));
			free(e);
			return k;
		}
	}
	max = e->n < max ? e->n : max;
	memcpy(out, e->f, max * sizeof(*out));
	return max;
}

const struct hs_names_stats *hs_names__stats(const struct hs_names *n)
{
	return &n->st;
}
