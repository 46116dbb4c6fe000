// SPDX-License-Identifier: Apache-2.0
/* Perl frames named from a process's memory (perl_names.h). An SV is a head (body
 * pointer, reference count, flags with the type in the low byte) and a body whose
 * layout its type sets; a HEK is a shared hash key: its length, then its bytes. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "interp/perl/perl_names.h"

#define HEAD_READ 24	       /* bytes of an SV head: sv_any, sv_refcnt, sv_flags, sv_u */
#define BODY_READ 96	       /* bytes of a CV's or GV's body: every member used lies there */
#define AUX_READ 32	       /* bytes of a stash's xpvhv_aux read */
#define OP_READ 56	       /* bytes of a COP read: op_type, cop_line, cop_file */
#define STR_CHUNK 64	       /* a C string is read this much at a time */
#define HEK_MAX 255	       /* bytes of a name kept */
#define MAX_BUCKETS (1u << 30) /* HvMAX beyond which a stash is not believed */

static uint64_t u64_at(const uint8_t *b, size_t size, uint16_t off)
{
	uint64_t v = 0;

	if ((size_t)off + sizeof(v) <= size)
		memcpy(&v, b + off, sizeof(v));
	return v;
}

static uint32_t u32_at(const uint8_t *b, size_t size, uint16_t off)
{
	uint32_t v = 0;

	if ((size_t)off + sizeof(v) <= size)
		memcpy(&v, b + off, sizeof(v));
	return v;
}

/* Reads the NUL-terminated string at addr into out (cut to cap - 1 bytes), a chunk at a
 * time that never crosses a page: the string's end may be a mapping's. */
static int read_str(const struct pl_mem *m, uint64_t addr, char *out, size_t cap)
{
	size_t len = 0;

	if (!addr)
		return -EINVAL;
	while (len + 1 < cap) {
		size_t want = cap - 1 - len, page = 4096 - ((addr + len) & 4095);
		char *nul;
		int err;

		if (want > STR_CHUNK)
			want = STR_CHUNK;
		if (want > page)
			want = page;
		err = m->read(m->ctx, addr + len, out + len, want);
		if (err)
			return err;
		nul = memchr(out + len, '\0', want);
		if (nul)
			return 0;
		len += want;
	}
	out[len] = '\0';
	return 0;
}

/* The HEK at hek as a string into out. */
static int read_hek(const struct pl_mem *m, const struct pl_layout *l, uint64_t hek, char *out,
		    size_t cap)
{
	int32_t len = 0;
	int err;

	if (!hek)
		return -EINVAL;
	err = m->read(m->ctx, hek + l->hek_len, &len, sizeof(len));
	if (err)
		return err;
	if (len < 0 || len > HEK_MAX)
		return -EINVAL;
	if ((size_t)len >= cap)
		len = (int32_t)cap - 1;
	err = m->read(m->ctx, hek + l->hek_key, out, (size_t)len);
	if (err)
		return err;
	out[len] = '\0';
	return memchr(out, '\0', (size_t)len) ? -EINVAL : 0;
}

/* Reads the head of the SV at sv, of type type: its flags and body. */
static int read_head(const struct pl_mem *m, const struct pl_layout *l, uint64_t sv,
		     unsigned int type, uint8_t head[HEAD_READ])
{
	int err;

	if (!sv)
		return -EINVAL;
	err = m->read(m->ctx, sv, head, HEAD_READ);
	if (err)
		return err;
	if ((u32_at(head, HEAD_READ, l->sv_flags) & PL_SVTYPEMASK) != type ||
	    !u64_at(head, HEAD_READ, 0))
		return -EINVAL;
	return 0;
}

/* Where the stash's xpvhv_aux lies, or 0. */
static uint64_t stash_aux(const struct pl_mem *m, const struct pl_layout *l, const uint8_t *head)
{
	uint64_t body = u64_at(head, HEAD_READ, 0), array, max = 0;

	if (l->hv_aux_at == PL_AUX_IN_BODY)
		return body + l->hv_aux;
	array = u64_at(head, HEAD_READ, l->sv_u);
	if (!array || m->read(m->ctx, body + l->hv_max, &max, sizeof(max)) || max >= MAX_BUCKETS)
		return 0;
	return array + (max + 1) * sizeof(uint64_t);
}

/* The name of the stash (package) at hv into out. */
static int stash_name(const struct pl_mem *m, const struct pl_layout *l, uint64_t hv, char *out,
		      size_t cap)
{
	uint8_t head[HEAD_READ], aux[AUX_READ];
	uint64_t at, hek;
	int32_t count;
	int err = read_head(m, l, hv, PL_SVt_PVHV, head);

	if (err)
		return err;
	if (!(u32_at(head, HEAD_READ, l->sv_flags) & PL_SVf_OOK))
		return -ENOENT; /* no aux: an anonymous hash, no stash */
	at = stash_aux(m, l, head);
	if (!at || (err = m->read(m->ctx, at, aux, sizeof(aux))))
		return err ? err : -EINVAL;
	hek = u64_at(aux, sizeof(aux), l->aux_name);
	count = (int32_t)u32_at(aux, sizeof(aux), l->aux_name_count);
	/* With several names (a stash aliased or deleted), the first is its name. */
	if (count && hek && (err = m->read(m->ctx, hek, &hek, sizeof(hek))))
		return err;
	return read_hek(m, l, hek, out, cap);
}

int pl_cop__read(const struct pl_mem *m, const struct pl_layout *l, uint64_t cop,
		 struct pl_cop *out)
{
	uint8_t op[OP_READ];
	uint32_t type;
	int err;

	out->line = 0;
	out->file[0] = '\0';
	if (!cop)
		return -EINVAL;
	err = m->read(m->ctx, cop, op, sizeof(op));
	if (err)
		return err;
	/* PL_compiling, the statement being compiled, is a COP never given a type. */
	type = u32_at(op, sizeof(op), l->op_type) & 0x1ff;
	if (type && type != l->op_nextstate && type != l->op_dbstate)
		return -EINVAL;
	out->line = u32_at(op, sizeof(op), l->cop_line);
	if (read_str(m, u64_at(op, sizeof(op), l->cop_file), out->file, sizeof(out->file)))
		out->file[0] = '\0';
	return 0;
}

/* Appends "[file:LINE]" of an anonymous sub's first statement to out, when it has one. */
static void anon_where(const struct pl_mem *m, const struct pl_layout *l, uint64_t start, char *out,
		       size_t cap)
{
	struct pl_cop c;
	size_t n = strlen(out);

	if (pl_cop__read(m, l, start, &c) || !c.file[0] || !c.line)
		return;
	snprintf(out + n, cap - n, "[%s:%u]", basename(c.file), c.line);
}

/* The sub's own name (its GV's or its name HEK) and the stash that names its package. */
static int sub_name(const struct pl_mem *m, const struct pl_layout *l, const uint8_t *body,
		    uint32_t flags, char *name, size_t cap, uint64_t *stash)
{
	uint8_t head[HEAD_READ], gv[BODY_READ];
	uint64_t at = u64_at(body, BODY_READ, l->cv_gv);
	int err;

	*stash = u64_at(body, BODY_READ, l->cv_stash);
	if (flags & PL_CVf_NAMED)
		return read_hek(m, l, at, name, cap);
	if (!at) {
		snprintf(name, cap, "__ANON__");
		return 0;
	}
	err = read_head(m, l, at, PL_SVt_PVGV, head);
	if (!err)
		err = m->read(m->ctx, u64_at(head, HEAD_READ, 0), gv, sizeof(gv));
	if (err)
		return err;
	*stash = u64_at(gv, sizeof(gv), l->gv_stash);
	return read_hek(m, l, u64_at(gv, sizeof(gv), l->gv_name), name, cap);
}

int pl_cv__name(const struct pl_mem *m, const struct pl_layout *l, uint64_t cv, char *out,
		size_t cap)
{
	uint8_t head[HEAD_READ], body[BODY_READ];
	char name[HEK_MAX + 1], pkg[HEK_MAX + 1];
	uint32_t flags;
	uint64_t stash;
	int err;

	if (!cv) {
		snprintf(out, cap, "main::");
		return 0;
	}
	err = read_head(m, l, cv, PL_SVt_PVCV, head);
	if (!err)
		err = m->read(m->ctx, u64_at(head, HEAD_READ, 0), body, sizeof(body));
	if (err)
		return err;
	flags = u32_at(body, sizeof(body), l->bpf.cv_flags);
	if ((flags & PL_CVf_UNIQUE) && !(u32_at(head, HEAD_READ, l->sv_flags) & PL_SVf_FAKE)) {
		snprintf(out, cap, "(eval)");
		return 0;
	}
	err = sub_name(m, l, body, flags, name, sizeof(name), &stash);
	if (err)
		return err;
	if (stash_name(m, l, stash, pkg, sizeof(pkg)))
		snprintf(out, cap, "%s", name);
	else
		snprintf(out, cap, "%s::%s", pkg, name);
	if (flags & PL_CVf_ANON)
		anon_where(m, l, u64_at(body, sizeof(body), l->cv_start), out, cap);
	return 0;
}
