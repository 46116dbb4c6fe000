// SPDX-License-Identifier: Apache-2.0
/* Naming Java code from a JVM's memory (see hotspot_method.h). A method's name and its
 * class's name are Symbols reached through its constant pool; its line-number table
 * follows its bytecodes in its ConstMethod. A compiled method's PcDesc table maps code
 * offsets to scope records, each naming a method (through the nmethod's metadata array)
 * and the record of the method it was inlined into. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "interp/hotspot/hotspot_method.h"

#define HEAD 512	  /* bytes of a Method, ConstMethod, ConstantPool, Klass or nmethod read */
#define ACC_NATIVE 0x0100 /* the class file format's access flag */

static int rd(const struct hs_mem *mem, uint64_t addr, void *buf, size_t len)
{
	return addr ? mem->read(mem->ctx, addr, buf, len) : -EINVAL;
}

/* Reads len bytes, or fewer when the end of a mapping cuts them (to the last page that
 * reads). Returns the count read, or a negative errno when not even a page does. */
static long rd_upto(const struct hs_mem *mem, uint64_t addr, uint8_t *buf, size_t len)
{
	while (len) {
		if (!rd(mem, addr, buf, len))
			return (long)len;
		if (len <= 4096)
			len = 4096 - (addr & 4095) < len ? 4096 - (addr & 4095) : len / 2;
		else
			len /= 2;
		if (len < 16)
			break;
	}
	return -EFAULT;
}

static uint64_t u64_at(const uint8_t *h, uint16_t off)
{
	uint64_t v = 0;

	if (off != HS_NONE && off + 8 <= HEAD)
		memcpy(&v, h + off, 8);
	return v;
}

static uint32_t u32_at(const uint8_t *h, uint16_t off)
{
	uint32_t v = 0;

	if (off != HS_NONE && off + 4 <= HEAD)
		memcpy(&v, h + off, 4);
	return v;
}

static uint16_t u16_at(const uint8_t *h, uint16_t off)
{
	uint16_t v = 0;

	if (off != HS_NONE && off + 2 <= HEAD)
		memcpy(&v, h + off, 2);
	return v;
}

/* A Symbol's text into out[HS_NAME_MAX], '/' turned into '.' when dots is set. */
static int read_symbol(const struct hs_mem *mem, const struct hs_layout *l, uint64_t sym, char *out,
		       bool dots)
{
	uint8_t h[16];
	uint16_t len;
	int err;

	if ((size_t)l->sym_body + 2 > sizeof(h) || (size_t)l->sym_length + 2 > sizeof(h))
		return -EINVAL;
	err = rd(mem, sym, h, l->sym_body);
	if (err)
		return err;
	memcpy(&len, h + l->sym_length, 2);
	if (len >= HS_NAME_MAX)
		len = HS_NAME_MAX - 1;
	err = rd(mem, sym + l->sym_body, out, len);
	if (err)
		return err;
	out[len] = 0;
	for (uint16_t i = 0; i < len; i++) {
		if ((unsigned char)out[i] < 0x20)
			out[i] = '?';
		else if (dots && out[i] == '/')
			out[i] = '.';
	}
	return 0;
}

/* The Symbol* at index i of constant pool cp (entries follow its header). */
static int cp_symbol(const struct hs_mem *mem, const struct hs_layout *l, uint64_t cp, uint16_t i,
		     char *out, bool dots)
{
	uint64_t sym = 0;
	int err = rd(mem, cp + l->cp_size + 8ULL * i, &sym, sizeof(sym));

	return err ? err : read_symbol(mem, l, sym, out, dots);
}

/* The method's class name and source file, from its constant pool's holder. */
static int read_class(const struct hs_mem *mem, const struct hs_layout *l, uint64_t cp,
		      const uint8_t *cph, struct hs_method *out)
{
	uint64_t holder = u64_at(cph, l->cp_holder);
	uint8_t kh[HEAD];
	uint16_t src = 0;
	int err;

	err = rd(mem, holder, kh, sizeof(kh));
	if (!err)
		err = read_symbol(mem, l, u64_at(kh, l->klass_name), out->klass, true);
	if (err)
		return err;
	if (l->cp_source_file != HS_NONE)
		src = u16_at(cph, l->cp_source_file);
	else if (l->ik_source_file != HS_NONE)
		src = u16_at(kh, l->ik_source_file);
	out->file[0] = 0;
	if (src)
		cp_symbol(mem, l, cp, src, out->file, false);
	return 0;
}

static int read_lines(const struct hs_mem *mem, const struct hs_layout *l, uint64_t cm,
		      const uint8_t *cmh, struct hs_method *out)
{
	uint16_t code = u16_at(cmh, l->cm_code_size);
	long n;

	if (!(u32_at(cmh, l->cm_flags) & l->cm_has_lines))
		return 0;
	out->lines = malloc(HS_LINES_MAX);
	if (!out->lines)
		return -ENOMEM;
	n = rd_upto(mem, cm + l->cm_size + code, out->lines, HS_LINES_MAX);
	if (n < 0) {
		free(out->lines);
		out->lines = NULL;
		return (int)n;
	}
	out->nlines = (uint32_t)n;
	return 0;
}

int hs_method__read(const struct hs_mem *mem, const struct hs_layout *l, uint64_t addr,
		    struct hs_method *out)
{
	uint8_t mh[HEAD], cmh[HEAD], cph[HEAD];
	uint64_t cm, cp;
	int err;

	memset(out, 0, sizeof(*out));
	if (l->cp_size >= HEAD || l->cm_size >= HEAD)
		return -EINVAL;
	err = rd(mem, addr, mh, 64);
	cm = err ? 0 : u64_at(mh, l->method_const);
	out->native = !err && l->method_access < 60 && (u32_at(mh, l->method_access) & ACC_NATIVE);
	if (!err)
		err = rd(mem, cm, cmh, l->cm_size);
	cp = err ? 0 : u64_at(cmh, l->cm_constants);
	if (!err)
		err = rd(mem, cp, cph, l->cp_size);
	if (!err)
		err = cp_symbol(mem, l, cp, u16_at(cmh, l->cm_name_index), out->name, false);
	if (!err)
		err = read_class(mem, l, cp, cph, out);
	if (!err)
		err = read_lines(mem, l, cm, cmh, out);
	return err;
}

int hs_method__line(const struct hs_layout *l, const struct hs_method *m, int bci)
{
	int line = m->lines ? hs_line_of(m->lines, m->nlines, l->ints, bci) : -1;

	return line > 0 ? line : 0;
}

int hs_nmethod__compile_id(const struct hs_mem *mem, const struct hs_layout *l, uint64_t nm,
			   int32_t *id)
{
	return l->nm_compile_id + 4 <= HEAD ? rd(mem, nm + l->nm_compile_id, id, 4) : -EINVAL;
}

/* An nmethod's debug sections as absolute [begin, end) ranges. */
struct sections {
	uint64_t code, pcs, pcs_end, scopes, scopes_end, meta, meta_end;
};

static int i32_rel(const uint8_t *h, uint16_t off, uint64_t base, uint64_t *out)
{
	int32_t v = (int32_t)u32_at(h, off);

	if (off == HS_NONE || v < 0)
		return -EINVAL;
	*out = base + (uint64_t)v;
	return 0;
}

static int sections(const struct hs_mem *mem, const struct hs_layout *l, uint64_t nm,
		    struct sections *s)
{
	uint8_t h[HEAD];
	uint64_t imm, mut;
	int err = rd(mem, nm, h, sizeof(h));

	if (err)
		return err;
	if (l->cb_code_begin != HS_NONE)
		s->code = u64_at(h, l->cb_code_begin);
	else if (i32_rel(h, l->cb_code_offset, nm, &s->code))
		return -EINVAL;
	if (l->nm_immutable == HS_NONE) { /* up to JDK 21: all within the nmethod */
		s->scopes = u64_at(h, l->nm_scopes_data_begin);
		s->meta_end = s->scopes;
		err = i32_rel(h, l->nm_scopes_pcs, nm, &s->pcs) ?:
		      i32_rel(h, l->nm_dependencies, nm, &s->pcs_end) ?:
		      i32_rel(h, l->nm_metadata, nm, &s->meta);
		s->scopes_end = s->pcs;
	} else { /* JDK 25: scopes in the immutable data, metadata after the relocations */
		imm = u64_at(h, l->nm_immutable);
		mut = u64_at(h, l->cb_mutable_data);
		err = i32_rel(h, l->nm_scopes_pcs, imm, &s->pcs) ?:
		      i32_rel(h, l->nm_scopes_data, imm, &s->pcs_end) ?:
		      i32_rel(h, l->nm_immutable_size, imm, &s->scopes_end) ?:
		      i32_rel(h, l->cb_relocation_size, mut, &s->meta) ?:
		      i32_rel(h, l->cb_mutable_size, mut, &s->meta_end);
		s->scopes = s->pcs_end;
	}
	if (err || s->pcs_end < s->pcs || s->scopes_end < s->scopes || s->meta_end < s->meta ||
	    s->pcs_end - s->pcs > HS_PCS_MAX || s->scopes_end - s->scopes > HS_SCOPES_MAX)
		return -EINVAL;
	return 0;
}

/* Reads [begin, end) into a malloc'd buffer. */
static int read_range(const struct hs_mem *mem, uint64_t begin, uint64_t end, uint8_t **out)
{
	int err;

	*out = malloc(end - begin + 1);
	if (!*out)
		return -ENOMEM;
	err = end > begin ? rd(mem, begin, *out, end - begin) : 0;
	if (err) {
		free(*out);
		*out = NULL;
	}
	return err;
}

static int follow(const struct hs_mem *mem, const struct hs_layout *l, const struct sections *s,
		  const uint8_t *scopes, uint32_t off, struct hs_scope_frame *out, int max)
{
	uint64_t nmeta = (s->meta_end - s->meta) / 8;
	int n = 0;

	while (n < max && n < HS_INLINE_MAX && off) {
		struct hs_scope sc;
		uint64_t m = 0;

		if (hs_scope_at(scopes, s->scopes_end - s->scopes, off, l->ints, &sc))
			return n ? n : -EINVAL;
		if (!sc.method_index || sc.method_index > nmeta ||
		    rd(mem, s->meta + 8ULL * (sc.method_index - 1), &m, 8))
			return n ? n : -EINVAL;
		out[n].method = m;
		out[n].bci = sc.bci;
		n++;
		off = sc.sender;
	}
	return n;
}

int hs_nmethod__scopes(const struct hs_mem *mem, const struct hs_layout *l, uint64_t nm,
		       uint64_t pc, struct hs_scope_frame *out, int max)
{
	uint8_t *pcs = NULL, *scopes = NULL;
	struct sections s;
	int64_t off;
	int err;

	err = sections(mem, l, nm, &s);
	if (err)
		return err;
	if (pc < s.code || pc - s.code > INT32_MAX)
		return -EINVAL;
	err = read_range(mem, s.pcs, s.pcs_end, &pcs)
		  ?: read_range(mem, s.scopes, s.scopes_end, &scopes);
	if (err)
		goto cleanup;
	off = hs_pcdesc_scope(pcs, s.pcs_end - s.pcs, l->pc_desc_size, l->pc_desc_pc,
			      l->pc_desc_scope, (int32_t)(pc - s.code));
	err = off > 0 && off <= UINT32_MAX ? follow(mem, l, &s, scopes, (uint32_t)off, out, max)
					   : -ENOENT;
cleanup:
	free(pcs);
	free(scopes);
	return err;
}

int hs_nmethod__pc_offsets(const struct hs_mem *mem, const struct hs_layout *l, uint64_t nm,
			   uint64_t *code, int32_t *out, int max)
{
	uint8_t *pcs = NULL;
	struct sections s;
	int n = 0, err;

	err = sections(mem, l, nm, &s);
	if (!err)
		err = read_range(mem, s.pcs, s.pcs_end, &pcs);
	if (err)
		return err;
	*code = s.code;
	for (uint64_t at = 0; at + l->pc_desc_size <= s.pcs_end - s.pcs && n < max;
	     at += l->pc_desc_size)
		memcpy(&out[n++], pcs + at + l->pc_desc_pc, 4);
	free(pcs);
	return n;
}
