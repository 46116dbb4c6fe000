// SPDX-License-Identifier: Apache-2.0
/* Minimal kernel BTF: reads the CO-RE relocation records of BPF objects (.BTF.ext), finds
 * what each resolves against in the kernel's BTF the way libbpf looks for it, marks those
 * types and members, and writes only them, in kernel order, as a new raw BTF. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "loader/min_btf.h"
#include "util/atomic_file.h"

/* enum bpf_core_relo_kind of linux/bpf.h; spelled out so older uapi headers build too. */
enum core_kind {
	CORE_FIELD_BYTE_OFFSET,
	CORE_FIELD_BYTE_SIZE,
	CORE_FIELD_EXISTS,
	CORE_FIELD_SIGNED,
	CORE_FIELD_LSHIFT_U64,
	CORE_FIELD_RSHIFT_U64,
	CORE_TYPE_ID_LOCAL,
	CORE_TYPE_ID_TARGET,
	CORE_TYPE_EXISTS,
	CORE_TYPE_SIZE,
	CORE_ENUMVAL_EXISTS,
	CORE_ENUMVAL_VALUE,
	CORE_TYPE_MATCHES,
};

#define EXT_MAGIC 0xeB9F
#define MAX_SPEC 64	/* accessors in an access string, libbpf's BPF_CORE_SPEC_MAX_LEN */
#define MAX_CHAIN 32	/* typedef/modifier hops and anonymous member nesting */
#define MAX_PATH 256	/* (struct, member) steps from a relocation's root to its field */
#define KID_HASHED 4096 /* bytes of the kernel BTF's head and tail hashed for its id */
#define NOTES_MAX 65536 /* /sys/kernel/notes holds a few notes */

/* What a kernel type keeps. SHELL: the type itself and, for a struct or union, its name,
 * size and only the members some relocation reached; what it refers to is kept as SHELL
 * too. WHOLE: every member, recursively, but still only SHELL behind a pointer. */
#define M_KEEP 1
#define M_SHELL 2
#define M_WHOLE 4

/* One record of .BTF.ext's CO-RE section (struct bpf_core_relo). */
struct core_rec {
	uint32_t insn_off;
	uint32_t type_id;
	uint32_t access_off;
	uint32_t kind;
};

/* The .BTF.ext header; the CO-RE fields exist only when hdr_len covers them. */
struct ext_hdr {
	uint16_t magic;
	uint8_t version;
	uint8_t flags;
	uint32_t hdr_len;
	uint32_t func_info_off, func_info_len;
	uint32_t line_info_off, line_info_len;
	uint32_t core_relo_off, core_relo_len;
};

struct object {
	char *image; /* our copy: libelf may convert a foreign-endian image in place */
	Elf *elf;
	struct btf *btf;
	const uint8_t *relos; /* the CO-RE part of .BTF.ext, inside the ELF's data */
	size_t relos_len;
};

/* A relocation's accessors in the local type, named members only (anonymous ones are
 * found again by name in the target, as CO-RE does). name NULL: an array index. */
struct spec {
	struct {
		uint32_t idx;
		const char *name;
	} acc[MAX_SPEC];
	int len;
};

struct path {
	struct {
		uint32_t id, idx;
	} step[MAX_PATH];
	int len;
};

struct gen {
	const struct btf *vml;
	uint32_t nr;	    /* btf__type_cnt: ids are 1..nr-1 */
	uint8_t *mark;	    /* M_* per kernel type id */
	uint64_t **members; /* per struct/union id: bitmap of the members kept, or NULL */
	uint32_t *work;	    /* ids whose references are still to be marked */
	size_t nwork, cap;
	uint32_t *index; /* open addressing: named type ids by hash of essential name */
	uint32_t index_mask;
	uint32_t *new_id; /* kernel id -> id in the output, 0: not kept */
	struct path path; /* scratch for one candidate's match */
};

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* Length of name without its CO-RE flavor, the part from the last "___" that has a
 * character other than '_' on both sides: "task_struct___v2" -> 11. */
static size_t essential_len(const char *s)
{
	size_t n = strlen(s);

	for (size_t p = n > 4 ? n - 4 : 0; p >= 1; p--) {
		if (s[p - 1] != '_' && !strncmp(s + p, "___", 3) && s[p + 3] != '_')
			return p;
	}
	return n;
}

/* Follows typedefs and modifiers from id. Returns the type reached and its id in *res, or
 * NULL on a bad id or a chain longer than MAX_CHAIN (a loop in a malformed BTF). */
static const struct btf_type *skip_mods(const struct btf *btf, uint32_t id, uint32_t *res)
{
	for (int i = 0; i < MAX_CHAIN; i++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!t)
			return NULL;
		if (!btf_is_mod(t) && !btf_is_typedef(t)) {
			*res = id;
			return t;
		}
		id = t->type;
	}
	return NULL;
}

static bool kinds_compat(const struct btf_type *a, const struct btf_type *b)
{
	return btf_kind(a) == btf_kind(b) || (btf_is_any_enum(a) && btf_is_any_enum(b));
}

/* Types a relocation can be rooted at: anything named but functions, variables, sections
 * and declaration tags (half of vmlinux BTF is functions). */
static bool can_be_root(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_DATASEC:
	case BTF_KIND_DECL_TAG:
	case BTF_KIND_FUNC_PROTO:
		return false;
	default:
		return t->name_off != 0;
	}
}

static int index_build(struct gen *g)
{
	uint64_t size = 1024;

	while (size < (uint64_t)g->nr * 2)
		size <<= 1;
	g->index = calloc(size, sizeof(*g->index));
	if (!g->index)
		return -ENOMEM;
	g->index_mask = size - 1;
	for (uint32_t id = 1; id < g->nr; id++) {
		const struct btf_type *t = btf__type_by_id(g->vml, id);
		const char *name = t ? btf__name_by_offset(g->vml, t->name_off) : NULL;
		uint32_t h;

		if (!name || !name[0] || !can_be_root(t))
			continue;
		h = fnv1a(0xcbf29ce484222325ULL, name, essential_len(name)) & g->index_mask;
		while (g->index[h])
			h = (h + 1) & g->index_mask;
		g->index[h] = id;
	}
	return 0;
}

/* Returns the next kernel type from *pos on whose kind is compatible with lt's and whose
 * essential name is name[0..len) (libbpf's candidates), or 0 when there is none. The
 * table is at most half full, so the probe always ends on an empty slot. */
static uint32_t next_cand(const struct gen *g, uint32_t *pos, const char *name, size_t len,
			  const struct btf_type *lt)
{
	uint32_t id;

	while ((id = g->index[*pos])) {
		const struct btf_type *t = btf__type_by_id(g->vml, id);
		const char *tn = btf__name_by_offset(g->vml, t->name_off);

		*pos = (*pos + 1) & g->index_mask;
		if (kinds_compat(t, lt) && essential_len(tn) == len && !memcmp(tn, name, len))
			return id;
	}
	return 0;
}

static uint32_t cand_start(const struct gen *g, const char *name, size_t len)
{
	return fnv1a(0xcbf29ce484222325ULL, name, len) & g->index_mask;
}

/* Marks id kept, SHELL or WHOLE; its references are marked when the worklist drains. */
static int mark(struct gen *g, uint32_t id, bool whole)
{
	uint8_t want = whole ? M_WHOLE : M_SHELL;

	if (!id)
		return 0;
	if (id >= g->nr)
		return -EINVAL;
	if (g->mark[id] & (want | M_WHOLE))
		return 0;
	g->mark[id] |= M_KEEP | want;
	if (g->nwork == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 256;
		uint32_t *w = realloc(g->work, cap * sizeof(*w));

		if (!w)
			return -ENOMEM;
		g->work = w;
		g->cap = cap;
	}
	g->work[g->nwork++] = id;
	return 0;
}

static int mark_members(struct gen *g, const struct btf_type *t, bool whole)
{
	const struct btf_member *m = btf_members(t);
	int err = 0;

	for (uint32_t i = 0; whole && !err && i < btf_vlen(t); i++)
		err = mark(g, m[i].type, true);
	return err;
}

static int mark_params(struct gen *g, const struct btf_type *t, bool whole)
{
	const struct btf_param *p = btf_params(t);
	int err = mark(g, t->type, whole);

	for (uint32_t i = 0; !err && i < btf_vlen(t); i++)
		err = mark(g, p[i].type, whole);
	return err;
}

/* Marks what kernel type id refers to. A pointer's target is only ever a SHELL: CO-RE
 * compares what is behind a pointer by kind and name, never by members. */
static int expand(struct gen *g, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(g->vml, id);
	bool whole = g->mark[id] & M_WHOLE;
	int err;

	if (!t)
		return -EINVAL;
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
		return 0;
	case BTF_KIND_PTR:
		return mark(g, t->type, false);
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return mark(g, t->type, whole);
	case BTF_KIND_ARRAY:
		err = mark(g, btf_array(t)->index_type, true);
		return err ? err : mark(g, btf_array(t)->type, whole);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return mark_members(g, t, whole);
	case BTF_KIND_FUNC_PROTO:
		return mark_params(g, t, whole);
	default:
		return -EOPNOTSUPP;
	}
}

static int drain(struct gen *g)
{
	int err = 0;

	while (!err && g->nwork)
		err = expand(g, g->work[--g->nwork]);
	return err;
}

/* Keeps member idx of struct/union id (and the struct, and the member's type). */
static int keep_member(struct gen *g, uint32_t id, uint32_t idx)
{
	const struct btf_type *t = btf__type_by_id(g->vml, id);
	uint64_t *bits;
	int err;

	if (!t || !btf_is_composite(t) || idx >= btf_vlen(t))
		return -EINVAL;
	bits = g->members[id];
	if (!bits) {
		bits = calloc((btf_vlen(t) + 63) / 64, sizeof(*bits));
		if (!bits)
			return -ENOMEM;
		g->members[id] = bits;
	}
	bits[idx / 64] |= 1ULL << (idx % 64);
	err = mark(g, id, false);
	return err ? err : mark(g, btf_members(t)[idx].type, false);
}

/* Parses an access string, "0:3:1", into raw[]. */
static int parse_access(const char *s, uint32_t *raw, int *len)
{
	*len = 0;
	for (;;) {
		const char *start = s;
		uint64_t v = 0;

		while (*s >= '0' && *s <= '9') {
			v = v * 10 + (uint64_t)(*s++ - '0');
			if (v > UINT32_MAX)
				return -EINVAL;
		}
		if (s == start || *len >= MAX_SPEC)
			return -EINVAL;
		raw[(*len)++] = (uint32_t)v;
		if (!*s)
			return 0;
		if (*s++ != ':')
			return -EINVAL;
	}
}

/* Walks the local type type_id along raw[0..n): raw[0] indexes the root as an array, the
 * rest are member indices in structs/unions or element indices in arrays. */
static int field_spec(const struct btf *local, uint32_t id, const uint32_t *raw, int n,
		      struct spec *sp)
{
	sp->acc[0].idx = raw[0];
	sp->acc[0].name = NULL;
	sp->len = 1;
	for (int i = 1; i < n; i++) {
		const struct btf_type *t = skip_mods(local, id, &id);
		const struct btf_member *m;
		const char *name;

		if (t && btf_is_array(t)) {
			sp->acc[sp->len].idx = raw[i];
			sp->acc[sp->len++].name = NULL;
			id = btf_array(t)->type;
			continue;
		}
		if (!t || !btf_is_composite(t) || raw[i] >= btf_vlen(t))
			return -EINVAL;
		m = btf_members(t) + raw[i];
		name = btf__name_by_offset(local, m->name_off);
		if (!name)
			return -EINVAL;
		if (name[0]) {
			sp->acc[sp->len].idx = raw[i];
			sp->acc[sp->len++].name = name;
		}
		id = m->type;
	}
	return 0;
}

/* Finds member name in struct/union id of btf, looking inside anonymous struct/union
 * members, depth first in member order, as CO-RE does. Appends the (struct, member)
 * steps to p and the member's type to *type. Returns 1 found, 0 not, or -E2BIG. */
static int find_member(const struct btf *btf, uint32_t id, const char *name, struct path *p,
		       int depth, uint32_t *type)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m = btf_members(t);

	if (depth > MAX_CHAIN)
		return 0;
	for (uint32_t i = 0; i < btf_vlen(t); i++) {
		const char *mn = btf__name_by_offset(btf, m[i].name_off);
		const struct btf_type *st;
		uint32_t sub;
		int r;

		if (!mn)
			continue;
		if (p->len >= MAX_PATH)
			return -E2BIG;
		p->step[p->len].id = id;
		p->step[p->len].idx = i;
		if (mn[0] && strcmp(mn, name) == 0) {
			p->len++;
			*type = m[i].type;
			return 1;
		}
		st = mn[0] ? NULL : skip_mods(btf, m[i].type, &sub);
		if (!st || !btf_is_composite(st))
			continue;
		p->len++;
		r = find_member(btf, sub, name, p, depth + 1, type);
		if (r)
			return r;
		p->len--;
	}
	return 0;
}

/* Matches sp against kernel type root: the same named members and array accesses, in
 * order. Returns 1 with the steps in p and the field's type in *leaf, 0 if root does not
 * have the field, or a negative errno. */
static int match_field(const struct btf *btf, uint32_t root, const struct spec *sp, struct path *p,
		       uint32_t *leaf)
{
	uint32_t id = root;
	int r;

	p->len = 0;
	for (int i = 1; i < sp->len; i++) {
		const struct btf_type *t = skip_mods(btf, id, &id);

		if (!t)
			return 0;
		if (!sp->acc[i].name) {
			if (!btf_is_array(t))
				return 0;
			id = btf_array(t)->type;
			continue;
		}
		if (!btf_is_composite(t))
			return 0;
		r = find_member(btf, id, sp->acc[i].name, p, 0, &id);
		if (r <= 0)
			return r;
	}
	*leaf = id;
	return 1;
}

/* Keeps the root, every struct on the path with the member taken, and the field's type.
 * The field's type is a SHELL: whole for everything but a struct/union held by value,
 * which keeps its name and size (all CO-RE compares of a field's type look at). */
static int keep_path(struct gen *g, uint32_t root, const struct path *p, uint32_t leaf)
{
	int err = mark(g, root, false);

	for (int i = 0; !err && i < p->len; i++)
		err = keep_member(g, p->step[i].id, p->step[i].idx);
	return err ? err : mark(g, leaf, false);
}

static int relo_field(struct gen *g, const struct btf *local, const struct core_rec *r,
		      const uint32_t *raw, int nraw, const char *name)
{
	const struct btf_type *lt = btf__type_by_id(local, r->type_id);
	size_t len = essential_len(name);
	uint32_t pos = cand_start(g, name, len), id, leaf;
	struct spec sp;
	int err;

	err = field_spec(local, r->type_id, raw, nraw, &sp);
	while (!err && (id = next_cand(g, &pos, name, len, lt))) {
		err = match_field(g->vml, id, &sp, &g->path, &leaf);
		if (err == 1)
			err = keep_path(g, id, &g->path, leaf);
	}
	return err;
}

/* Type and enum value relocations keep every candidate of the root's name and kind.
 * TYPE_MATCHES compares members of structs held by value, and enum relocations look
 * up enumerators, so those keep the type WHOLE; the others (exists, size) compare only
 * kinds, sizes and names, so a SHELL (members pruned to what field relocations keep). */
static int relo_type(struct gen *g, const struct btf *local, const struct core_rec *r,
		     const char *name)
{
	const struct btf_type *lt = btf__type_by_id(local, r->type_id);
	bool whole = r->kind != CORE_TYPE_EXISTS && r->kind != CORE_TYPE_SIZE;
	size_t len = essential_len(name);
	uint32_t pos = cand_start(g, name, len), id;
	int err = 0;

	while (!err && (id = next_cand(g, &pos, name, len, lt)))
		err = mark(g, id, whole);
	return err;
}

/* TYPE_ID_LOCAL needs no kernel type. TYPE_ID_TARGET is refused: it would resolve to an
 * id in our small BTF, which means nothing to the kernel. */
static int apply_relo(struct gen *g, const struct btf *local, const struct core_rec *r)
{
	const struct btf_type *lt;
	const char *name, *access;
	uint32_t raw[MAX_SPEC];
	int nraw, err;

	if (r->kind > CORE_TYPE_MATCHES || r->kind == CORE_TYPE_ID_TARGET)
		return -EOPNOTSUPP;
	if (r->kind == CORE_TYPE_ID_LOCAL)
		return 0;
	lt = r->type_id ? btf__type_by_id(local, r->type_id) : NULL;
	access = btf__str_by_offset(local, r->access_off);
	if (!lt || !access)
		return -EINVAL;
	name = btf__name_by_offset(local, lt->name_off);
	if (!name || !name[0]) /* libbpf relocates only named types */
		return -EINVAL;
	err = parse_access(access, raw, &nraw);
	if (err)
		return err;
	if (r->kind <= CORE_FIELD_RSHIFT_U64)
		return relo_field(g, local, r, raw, nraw, name);
	return relo_type(g, local, r, name);
}

/* Walks the CO-RE part of .BTF.ext: u32 record size, then per ELF section its name
 * offset, record count and records. */
static int apply_relos(struct gen *g, const struct object *o)
{
	const uint8_t *d = o->relos;
	size_t len = o->relos_len, off = 4;
	uint32_t rec_size, sec[2];
	struct core_rec r;
	int err;

	if (len < 4)
		return len ? -EINVAL : 0;
	memcpy(&rec_size, d, 4);
	if (rec_size < sizeof(r) || rec_size % 4)
		return -EINVAL;
	while (off < len) {
		if (len - off < sizeof(sec))
			return -EINVAL;
		memcpy(sec, d + off, sizeof(sec));
		off += sizeof(sec);
		if (!btf__str_by_offset(o->btf, sec[0]) || (uint64_t)sec[1] * rec_size > len - off)
			return -EINVAL;
		for (uint32_t i = 0; i < sec[1]; i++, off += rec_size) {
			memcpy(&r, d + off, sizeof(r));
			err = apply_relo(g, o->btf, &r);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Finds the CO-RE part of a .BTF.ext section; none (*len 0) is fine. */
static int ext_core_relos(const uint8_t *d, size_t sz, const uint8_t **relos, size_t *len)
{
	struct ext_hdr h = {0};

	*len = 0;
	if (sz < 8)
		return -EINVAL;
	memcpy(&h, d, 8);
	if (h.magic == 0x9FEB) /* the other byte order */
		return -EOPNOTSUPP;
	if (h.magic != EXT_MAGIC || h.version != 1 || h.hdr_len < 8 || h.hdr_len > sz)
		return -EINVAL;
	memcpy(&h, d, h.hdr_len < sizeof(h) ? h.hdr_len : sizeof(h));
	if (h.hdr_len < sizeof(h))
		return 0; /* an older header, without CO-RE relocations */
	if ((uint64_t)h.core_relo_off + h.core_relo_len > sz - h.hdr_len)
		return -EINVAL;
	*relos = d + h.hdr_len + h.core_relo_off;
	*len = h.core_relo_len;
	return 0;
}

/* The section header table must lie inside the image: libelf reads a truncated one as
 * "no sections", which would pass for an object without relocations. */
static int elf_check(Elf *e, size_t size)
{
	size_t shnum;
	GElf_Ehdr eh;

	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || !eh.e_shoff || eh.e_shoff > size ||
	    eh.e_shentsize < sizeof(Elf32_Shdr))
		return -EINVAL;
	if (elf_getshdrnum(e, &shnum) || !shnum ||
	    (uint64_t)shnum * eh.e_shentsize > size - eh.e_shoff)
		return -EINVAL;
	return 0;
}

static int elf_sections(Elf *e, size_t size, Elf_Data **btf, Elf_Data **ext)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_check(e, size) || elf_getshdrstrndx(e, &shstrndx))
		return -EINVAL;
	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data **slot;
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
			return -EINVAL;
		slot = !strcmp(name, ".BTF") ? btf : !strcmp(name, ".BTF.ext") ? ext : NULL;
		if (!slot)
			continue;
		if (sh.sh_type == SHT_NOBITS || !(*slot = elf_getdata(scn, NULL)))
			return -EINVAL;
		if (!(*slot)->d_buf || (*slot)->d_size > UINT32_MAX)
			return -EINVAL;
	}
	return 0;
}

/* Opens one BPF ELF image: its local BTF and CO-RE records, if it has any. */
static int object_open(struct object *o, const void *image, size_t size)
{
	Elf_Data *btf = NULL, *ext = NULL;
	int err;

	if (!image || !size)
		return -EINVAL;
	o->image = malloc(size);
	if (!o->image)
		return -ENOMEM;
	memcpy(o->image, image, size);
	o->elf = elf_memory(o->image, size);
	if (!o->elf)
		return -EINVAL;
	err = elf_sections(o->elf, size, &btf, &ext);
	if (err || !ext)
		return err;
	if (!btf)
		return -EINVAL;
	err = ext_core_relos(ext->d_buf, ext->d_size, &o->relos, &o->relos_len);
	if (err || !o->relos_len)
		return err;
	o->btf = btf__new(btf->d_buf, btf->d_size);
	if (!o->btf)
		return errno ? -errno : -EINVAL;
	return 0;
}

static void object_close(struct object *o)
{
	btf__free(o->btf);
	if (o->elf)
		elf_end(o->elf);
	free(o->image);
}

/* The output id of kernel type id; 0 (void) for anything not kept. */
static uint32_t new_id(const struct gen *g, uint32_t id)
{
	return id < g->nr ? g->new_id[id] : 0;
}

static int emit_composite(struct gen *g, struct btf *out, uint32_t id, const struct btf_type *t,
			  const char *name)
{
	const struct btf_member *m = btf_members(t);
	const uint64_t *bits = g->members[id];
	bool all = g->mark[id] & M_WHOLE;
	int ret, err;

	ret = btf_is_struct(t) ? btf__add_struct(out, name, t->size)
			       : btf__add_union(out, name, t->size);
	for (uint32_t i = 0; ret > 0 && i < btf_vlen(t); i++) {
		const char *mn = btf__name_by_offset(g->vml, m[i].name_off);

		if (!all && !(bits && (bits[i / 64] >> (i % 64)) & 1))
			continue;
		if (!mn)
			return -EINVAL;
		err = btf__add_field(out, mn, new_id(g, m[i].type), btf_member_bit_offset(t, i),
				     btf_member_bitfield_size(t, i));
		if (err)
			return err;
	}
	return ret;
}

static int emit_proto(struct gen *g, struct btf *out, const struct btf_type *t)
{
	const struct btf_param *p = btf_params(t);
	int ret = btf__add_func_proto(out, new_id(g, t->type));

	for (uint32_t i = 0; ret > 0 && i < btf_vlen(t); i++) {
		const char *pn = btf__name_by_offset(g->vml, p[i].name_off);
		int err = pn ? btf__add_func_param(out, pn, new_id(g, p[i].type)) : -EINVAL;

		if (err)
			return err;
	}
	return ret;
}

/* Appends kernel type id to out with its references renumbered. Returns its new id. */
static int emit_type(struct gen *g, struct btf *out, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(g->vml, id);
	const char *name = btf__name_by_offset(g->vml, t->name_off);
	uint32_t ref = new_id(g, t->type); /* meaningful for the kinds that refer to one */

	if (!name)
		return -EINVAL;
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
		return btf__add_type(out, g->vml, t); /* no type ids inside */
	case BTF_KIND_PTR:
		return btf__add_ptr(out, ref);
	case BTF_KIND_TYPEDEF:
		return btf__add_typedef(out, name, ref);
	case BTF_KIND_VOLATILE:
		return btf__add_volatile(out, ref);
	case BTF_KIND_CONST:
		return btf__add_const(out, ref);
	case BTF_KIND_RESTRICT:
		return btf__add_restrict(out, ref);
	case BTF_KIND_TYPE_TAG:
		return btf__add_type_tag(out, name, ref);
	case BTF_KIND_ARRAY:
		return btf__add_array(out, new_id(g, btf_array(t)->index_type),
				      new_id(g, btf_array(t)->type), btf_array(t)->nelems);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return emit_composite(g, out, id, t, name);
	case BTF_KIND_FUNC_PROTO:
		return emit_proto(g, out, t);
	default:
		return -EOPNOTSUPP;
	}
}

/* Numbers the kept types in kernel order, then appends them. Every id a kept type refers
 * to was marked when it was expanded, so new_id has it (forward references are fine). */
static int emit(struct gen *g, struct btf *out)
{
	uint32_t next = 1;
	int ret;

	g->new_id = calloc(g->nr, sizeof(*g->new_id));
	if (!g->new_id)
		return -ENOMEM;
	for (uint32_t id = 1; id < g->nr; id++) {
		if (g->mark[id] & M_KEEP)
			g->new_id[id] = next++;
	}
	for (uint32_t id = 1; id < g->nr; id++) {
		if (!(g->mark[id] & M_KEEP))
			continue;
		ret = emit_type(g, out, id);
		if (ret < 0)
			return ret;
		if ((uint32_t)ret != g->new_id[id])
			return -EINVAL;
	}
	return 0;
}

static int write_atomic(const char *path, const void *data, size_t size)
{
	struct atomic_file af;
	size_t done = 0;
	int err = atomic_file__open(&af, path);

	while (!err && done < size) {
		ssize_t w = write(af.fd, (const char *)data + done, size - done);

		if (w < 0 && errno != EINTR)
			err = -errno;
		else if (w == 0)
			err = -EIO;
		else if (w > 0)
			done += (size_t)w;
	}
	return af.path ? atomic_file__finish(&af, err) : err;
}

static int gen_init(struct gen *g, const char *vmlinux_path)
{
	g->vml = btf__parse(vmlinux_path, NULL);
	if (!g->vml)
		return errno ? -errno : -EINVAL;
	g->nr = btf__type_cnt(g->vml);
	g->mark = calloc(g->nr, sizeof(*g->mark));
	g->members = calloc(g->nr, sizeof(*g->members));
	if (!g->mark || !g->members)
		return -ENOMEM;
	return index_build(g);
}

static void gen_free(struct gen *g)
{
	for (uint32_t id = 0; g->members && id < g->nr; id++)
		free(g->members[id]);
	free(g->members);
	free(g->mark);
	free(g->work);
	free(g->index);
	free(g->new_id);
	btf__free((struct btf *)g->vml);
}

static int build(struct gen *g, struct object *objs, size_t n, const char *out_path)
{
	struct btf *out = NULL;
	const void *raw;
	uint32_t size = 0;
	int err = 0;

	for (size_t i = 0; !err && i < n; i++)
		err = objs[i].relos_len ? apply_relos(g, &objs[i]) : 0;
	if (!err)
		err = drain(g);
	if (err)
		return err;
	out = btf__new_empty();
	if (!out)
		return -ENOMEM;
	err = emit(g, out);
	raw = err ? NULL : btf__raw_data(out, &size);
	if (!err && !raw)
		err = -ENOMEM;
	if (!err)
		err = write_atomic(out_path, raw, size);
	btf__free(out);
	return err;
}

int min_btf__generate(const char *vmlinux_path, const void *const *elfs, const size_t *elf_sizes,
		      size_t n, const char *out_path)
{
	struct object *objs = NULL;
	struct gen g = {0};
	int err = 0;

	if (!vmlinux_path || !out_path || (n && (!elfs || !elf_sizes)))
		return -EINVAL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	objs = calloc(n ? n : 1, sizeof(*objs));
	if (!objs)
		return -ENOMEM;
	/* Objects first: a bad one fails before the kernel BTF is parsed. */
	for (size_t i = 0; !err && i < n; i++)
		err = object_open(&objs[i], elfs[i], elf_sizes[i]);
	if (!err)
		err = gen_init(&g, vmlinux_path);
	if (!err)
		err = build(&g, objs, n, out_path);
	gen_free(&g);
	for (size_t i = 0; i < n; i++)
		object_close(&objs[i]);
	free(objs);
	return err;
}

/* Reads up to len bytes at off; returns the count or a negative errno. */
static ssize_t read_at(const char *path, off_t off, void *buf, size_t len, off_t *file_size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t done = 0;
	struct stat st;
	ssize_t r = 0;

	if (fd < 0)
		return -errno;
	if (file_size)
		*file_size = fstat(fd, &st) ? -1 : st.st_size;
	while (done < len && (r = pread(fd, (char *)buf + done, len - done, off + done)) > 0)
		done += (size_t)r;
	if (r < 0)
		r = -errno;
	close(fd);
	return r < 0 ? r : (ssize_t)done;
}

/* Finds the GNU build id note (name "GNU", type 3) in /sys/kernel/notes and writes it
 * as hex. Returns true if found. */
static bool kernel_build_id(char *hex, size_t hexlen)
{
	uint8_t *notes = malloc(NOTES_MAX);
	ssize_t n = notes ? read_at("/sys/kernel/notes", 0, notes, NOTES_MAX, NULL) : -ENOMEM;
	bool found = false;
	size_t off = 0;

	while (n > 0 && off + 12 <= (size_t)n) {
		uint32_t h[3];
		size_t name_at = off + 12, desc_at, next;

		memcpy(h, notes + off, sizeof(h));
		desc_at = name_at + (((size_t)h[0] + 3) & ~(size_t)3);
		next = desc_at + (((size_t)h[1] + 3) & ~(size_t)3);
		if (h[0] > (size_t)n || h[1] > (size_t)n || next > (size_t)n)
			break;
		if (h[2] == 3 && h[0] == 4 && !memcmp(notes + name_at, "GNU", 4) && h[1] &&
		    h[1] * 2 < hexlen) {
			for (uint32_t i = 0; i < h[1]; i++)
				snprintf(hex + 2 * i, 3, "%02x", notes[desc_at + i]);
			found = true;
			break;
		}
		off = next;
	}
	free(notes);
	return found;
}

/* Hashes the size, head and tail of the kernel BTF and the kernel's release string. */
static bool kernel_btf_hash(uint64_t *hash, off_t *size)
{
	static const char path[] = "/sys/kernel/btf/vmlinux";
	uint8_t buf[KID_HASHED];
	uint64_t h = 0xcbf29ce484222325ULL;
	struct utsname u;
	ssize_t r;

	r = read_at(path, 0, buf, sizeof(buf), size);
	if (r <= 0 || *size <= 0)
		return false;
	h = fnv1a(h, size, sizeof(*size));
	h = fnv1a(h, buf, (size_t)r);
	if (*size > KID_HASHED) {
		r = read_at(path, *size - KID_HASHED, buf, sizeof(buf), NULL);
		if (r < 0)
			return false;
		h = fnv1a(h, buf, (size_t)r);
	}
	if (!uname(&u))
		h = fnv1a(h, u.release, strlen(u.release));
	*hash = h;
	return true;
}

int min_btf__kernel_id(char *buf, size_t len)
{
	char bid[129] = "";
	bool has_bid = kernel_build_id(bid, sizeof(bid));
	uint64_t hash = 0;
	off_t size = 0;
	bool has_btf = kernel_btf_hash(&hash, &size);
	int n;

	if (!buf || !len)
		return -EINVAL;
	if (!has_bid && !has_btf)
		return -ENOENT;
	if (!has_btf)
		n = snprintf(buf, len, "%s", bid);
	else
		n = snprintf(buf, len, "%s%s%llx-%016llx", bid, has_bid ? "-" : "btf-",
			     (unsigned long long)size, (unsigned long long)hash);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}
