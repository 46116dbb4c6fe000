// SPDX-License-Identifier: Apache-2.0
/* Readers of CRuby objects in another process (ruby_mem.h). Layouts: include/ruby's
 * RBasic, RString, RArray; symbol.c's ID table; vm_core.h's rb_iseq_constant_body;
 * method.h's method entries; internal/class.h's class extension; st.c's table entries. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/ruby/ruby_lines.h"
#include "interp/ruby/ruby_mem.h"

#define MAX_LINES (1u << 16)	  /* insns_info entries of an iseq read */
#define MAX_ISEQ_WORDS (1u << 22) /* instruction words of an iseq whose lines are read */
#define MAX_IVARS 64		  /* entries of a class's ivar table searched */
#define BODY_READ 192		  /* bytes of rb_iseq_constant_body read: every member used */

static int rd(const struct rb_mem *m, uint64_t addr, void *buf, size_t len)
{
	if (addr < 4096)
		return -EFAULT;
	return m->read(m->ctx, addr, buf, len);
}

static int rd64(const struct rb_mem *m, uint64_t addr, uint64_t *v)
{
	return rd(m, addr, v, sizeof(*v));
}

/* A heap object: not a special constant (Fixnum, Symbol, nil...) nor a small address. */
static int heap_flags(const struct rb_mem *m, uint64_t v, uint64_t *flags)
{
	if ((v & 7) || v < 4096 || v == m->l->qnil)
		return -EINVAL;
	return rd64(m, v, flags);
}

static int string_span(const struct rb_mem *m, uint64_t v, uint64_t flags, uint64_t *at,
		       uint64_t *len)
{
	bool embedded = !(flags & RB_STR_NOEMBED);

	if (m->l->string == RB_STRING_FLAGS_LEN && embedded) {
		*len = (flags >> RB_STR_EMBED_LEN_SHIFT) & RB_STR_EMBED_LEN_MASK;
		*at = v + m->l->string_embed;
		return 0;
	}
	if (rd64(m, v + RB_STRING_LEN, len))
		return -EFAULT;
	if (embedded)
		*at = v + m->l->string_embed;
	else if (rd64(m, v + RB_STRING_PTR, at))
		return -EFAULT;
	return 0;
}

int rb_mem__string(const struct rb_mem *m, uint64_t v, char *out, size_t cap)
{
	uint64_t flags, at, len;
	int err;

	if (!cap)
		return -EINVAL;
	out[0] = '\0';
	err = heap_flags(m, v, &flags);
	if (err)
		return err;
	if ((flags & RB_T_MASK) != RB_T_STRING)
		return -EINVAL;
	err = string_span(m, v, flags, &at, &len);
	if (err)
		return err;
	if (len > cap - 1)
		len = cap - 1;
	if (len && rd(m, at, out, len))
		return -EFAULT;
	out[len] = '\0';
	/* A NUL inside the text would cut it anyway: keep what a reader sees. */
	return 0;
}

int rb_mem__array_at(const struct rb_mem *m, uint64_t v, uint64_t i, uint64_t *out)
{
	uint64_t flags, len, at = v + RB_ARRAY_LEN;
	int err = heap_flags(m, v, &flags);

	if (err)
		return err;
	if ((flags & RB_T_MASK) != RB_T_ARRAY)
		return -EINVAL;
	if (flags & RB_ARY_EMBED) {
		len = (flags & m->l->array_embed_mask) >> RB_ARY_EMBED_LEN_SHIFT;
	} else if (rd64(m, v + RB_ARRAY_LEN, &len) || rd64(m, v + RB_ARRAY_PTR, &at)) {
		return -EFAULT;
	}
	if (i >= len)
		return -ERANGE;
	return rd64(m, at + 8 * i, out);
}

int rb_mem__id_name(const struct rb_mem *m, uint64_t id, char *out, size_t cap)
{
	uint64_t serial = id > m->last_op_id ? id >> RB_ID_SCOPE_SHIFT : id, ids, entry, str;
	uint32_t last = 0;

	if (cap)
		out[0] = '\0';
	if (!m->symbols || !serial || serial > UINT32_MAX)
		return -ENOENT;
	if (rd(m, m->symbols + RB_SYMBOLS_LAST_ID, &last, sizeof(last)) ||
	    rd64(m, m->symbols + RB_SYMBOLS_IDS, &ids))
		return -EFAULT;
	if (serial > last)
		return -ENOENT;
	/* ids: an Array of Arrays of RB_ID_ENTRY_UNIT (string, symbol) pairs. */
	if (rb_mem__array_at(m, ids, serial / RB_ID_ENTRY_UNIT, &entry) ||
	    rb_mem__array_at(m, entry, (serial % RB_ID_ENTRY_UNIT) * 2, &str))
		return -ENOENT;
	return rb_mem__string(m, str, out, cap);
}

/* The type of an imemo at v (-1 when v is not one). */
static int imemo_type(const struct rb_mem *m, uint64_t v)
{
	uint64_t flags;

	if (heap_flags(m, v, &flags) || (flags & RB_T_MASK) != RB_T_IMEMO)
		return -1;
	return (int)((flags >> RB_FL_USHIFT) & RB_IMEMO_MASK);
}

static uint64_t body_word(const uint8_t *body, uint16_t off)
{
	uint64_t v = 0;

	if (off + 8 <= BODY_READ)
		memcpy(&v, body + off, 8);
	return v;
}

/* The line numbers of n insns_info entries at at. */
static int read_lines(const struct rb_mem *m, uint64_t at, uint32_t n, struct rb_iseq *out)
{
	size_t esz = m->l->insn_info_size;
	uint8_t *raw;
	int err = -ENOMEM;

	if (!n || n > MAX_LINES || esz < 4)
		return n ? -E2BIG : 0;
	raw = malloc(n * esz);
	out->lines = malloc(n * sizeof(*out->lines));
	if (!raw || !out->lines)
		goto cleanup;
	err = rd(m, at, raw, n * esz);
	if (err)
		goto cleanup;
	for (uint32_t i = 0; i < n; i++)
		memcpy(&out->lines[i], raw + i * esz, sizeof(int32_t)); /* line_no is first */
	out->nlines = n;
cleanup:
	free(raw);
	return err;
}

/* Where each entry starts: the positions array, or the succinct table. */
static int read_positions(const struct rb_mem *m, const uint8_t *body, struct rb_iseq *out)
{
	uint64_t positions = body_word(body, m->l->body_positions);
	uint64_t succ = body_word(body, m->l->body_succ);

	if (out->nlines < 2)
		return 0;
	if (positions) {
		out->positions = malloc(out->nlines * sizeof(uint32_t));
		if (!out->positions)
			return -ENOMEM;
		return rd(m, positions, out->positions, out->nlines * sizeof(uint32_t));
	}
	if (out->size > MAX_ISEQ_WORDS)
		return -E2BIG;
	out->succ_len = rb_succ__size(out->size);
	out->succ = malloc(out->succ_len);
	if (!out->succ)
		return -ENOMEM;
	return rd(m, succ, out->succ, out->succ_len);
}

/* location.pathobj: a String, or an Array [path, realpath]. */
static void read_path(const struct rb_mem *m, uint64_t pathobj, char *out, size_t cap)
{
	uint64_t first;

	if (!rb_mem__string(m, pathobj, out, cap))
		return;
	if (!rb_mem__array_at(m, pathobj, 0, &first))
		rb_mem__string(m, first, out, cap);
}

int rb_mem__iseq(const struct rb_mem *m, uint64_t v, struct rb_iseq *out)
{
	const struct rb_layout *l = m->l;
	uint8_t body[BODY_READ];
	uint64_t b, lineno;
	uint32_t n;
	int err;

	memset(out, 0, sizeof(*out));
	if (imemo_type(m, v) != RB_IMEMO_ISEQ)
		return -EINVAL;
	if (rd64(m, v + l->iseq_body, &b) || rd(m, b, body, sizeof(body)))
		return -EFAULT;
	out->type = (uint32_t)body_word(body, l->body_type);
	out->size = (uint32_t)(body_word(body, l->body_size) & 0xffffffff);
	out->encoded = body_word(body, l->body_encoded);
	out->local_iseq = body_word(body, l->body_local_iseq);
	lineno = body_word(body, l->body_first_lineno);
	out->first_lineno = (lineno & 1) ? (int32_t)((int64_t)lineno >> 1) : 0; /* a Fixnum */
	err = rb_mem__string(m, body_word(body, l->body_label), out->label, sizeof(out->label));
	if (err)
		return err;
	rb_mem__string(m, body_word(body, l->body_base_label), out->base_label,
		       sizeof(out->base_label));
	read_path(m, body_word(body, l->body_path), out->path, sizeof(out->path));
	n = (uint32_t)(body_word(body, l->body_insns_size) & 0xffffffff);
	err = read_lines(m, body_word(body, l->body_insns), n, out);
	if (!err)
		err = read_positions(m, body, out);
	return err;
}

bool rb_iseq__pc(const struct rb_iseq *i, uint32_t tag, uint32_t data, uint64_t *pc)
{
	const uint64_t bits_mask = (1ULL << 40) - 1; /* the bits a frame carries, 3..39 */
	uint64_t bits = (uint64_t)tag << 24 | (uint64_t)data << 3;
	uint64_t off = (bits - (i->encoded & bits_mask)) & bits_mask;

	if (!i->encoded || off > (uint64_t)i->size * 8)
		return false;
	*pc = i->encoded + off;
	return true;
}

void rb_iseq__release(struct rb_iseq *i)
{
	free(i->lines);
	free(i->succ);
	free(i->positions);
	i->lines = NULL;
	i->succ = NULL;
	i->positions = NULL;
}

int rb_iseq__line(const struct rb_iseq *i, uint64_t pc)
{
	uint64_t pos;

	if (pc < i->encoded || pc > i->encoded + (uint64_t)i->size * 8)
		return i->first_lineno;
	pos = (pc - i->encoded) / 8;
	if (pos)
		pos--;
	if (pos >= i->size)
		return i->first_lineno;
	return rb_line_at(i->lines, i->nlines, i->succ, i->succ_len, i->positions, i->size,
			  (uint32_t)pos);
}

int rb_mem__method(const struct rb_mem *m, uint64_t v, struct rb_method *out)
{
	const struct rb_layout *l = m->l;
	uint64_t me[5], def[5];
	int type = imemo_type(m, v);

	memset(out, 0, sizeof(*out));
	if (type == RB_IMEMO_SVAR) {
		if (rd64(m, v + l->svar_cref_or_me, &v))
			return -EFAULT;
		type = imemo_type(m, v);
	}
	if (type != RB_IMEMO_MENT)
		return -EINVAL;
	/* flags, defined_class, def, called_id, owner */
	if (rd(m, v, me, sizeof(me)) || rd(m, me[l->me_def / 8], def, sizeof(def)))
		return -EFAULT;
	out->me = v;
	out->def = me[l->me_def / 8];
	out->called_id = me[3];
	out->owner = me[l->me_owner / 8];
	out->original_id = def[l->def_original_id / 8];
	if ((def[0] & RB_METHOD_TYPE_MASK) == RB_METHOD_TYPE_ISEQ)
		out->iseq = def[l->def_iseq / 8];
	return 0;
}

/* The value of the class ivar called name (2.7, 3.1: the st_table of its extension). */
static int class_ivar(const struct rb_mem *m, uint64_t klass, const char *name, uint64_t *out)
{
	uint64_t ext, tbl, head[7], start, bound;
	uint8_t entry[RB_ST_ENTRY_SIZE];
	char key[RB_NAME_MAX];

	if (rd64(m, klass + m->l->class_ext, &ext) || rd64(m, ext + m->l->ext_iv_tbl, &tbl) ||
	    rd(m, tbl, head, sizeof(head)))
		return -EFAULT;
	start = head[RB_ST_ENTRIES_START / 8];
	bound = head[RB_ST_ENTRIES_BOUND / 8];
	if (bound < start || bound - start > MAX_IVARS)
		bound = start + MAX_IVARS;
	for (uint64_t i = start; i < bound; i++) {
		uint64_t k, rec;

		if (rd(m, head[RB_ST_ENTRIES / 8] + i * RB_ST_ENTRY_SIZE, entry, sizeof(entry)))
			return -EFAULT;
		memcpy(&k, entry + 8, 8);
		memcpy(&rec, entry + 16, 8);
		if (!rb_mem__id_name(m, k, key, sizeof(key)) && !strcmp(key, name)) {
			*out = rec;
			return 0;
		}
	}
	return -ENOENT;
}

/* A class or module's path ("A::B"); -ENOENT when it has none (anonymous). */
static int class_path(const struct rb_mem *m, uint64_t klass, char *out, size_t cap)
{
	uint64_t flags, path;
	const struct rb_layout *l = m->l;

	if (heap_flags(m, klass, &flags))
		return -EINVAL;
	if ((flags & RB_T_MASK) != RB_T_CLASS && (flags & RB_T_MASK) != RB_T_MODULE)
		return -EINVAL;
	if (l->klass == RB_CLASS_EXT) {
		if (rd64(m, klass + l->class_ext + l->ext_classpath, &path))
			return -EFAULT;
	} else if (class_ivar(m, klass, "__classpath__", &path)) {
		return -ENOENT;
	}
	return rb_mem__string(m, path, out, cap) ? -ENOENT : 0;
}

/* A singleton class's object, when it is a class or module (Foo for Foo.bar). */
static int attached(const struct rb_mem *m, uint64_t klass, uint64_t *out)
{
	const struct rb_layout *l = m->l;

	if (l->klass == RB_CLASS_EXT)
		return rd64(m, klass + l->class_ext + l->ext_attached, out);
	return class_ivar(m, klass, "__attached__", out);
}

const char *rb_mem__qualify(const struct rb_mem *m, uint64_t owner, const char *name, char *out,
			    size_t cap)
{
	char path[RB_NAME_MAX];
	uint64_t flags, object;
	const char *sep = "#";

	snprintf(out, cap, "%s", name);
	if (heap_flags(m, owner, &flags))
		return out;
	if ((flags & RB_T_MASK) == RB_T_CLASS && (flags & RB_FL_SINGLETON)) {
		if (attached(m, owner, &object))
			return out;
		owner = object;
		sep = ".";
	}
	if (!class_path(m, owner, path, sizeof(path)))
		snprintf(out, cap, "%s%s%s", path, sep, name);
	return out;
}
