// SPDX-License-Identifier: Apache-2.0
/* Decodes the Erlang VM's GDB JIT records (beam_debug.h): bounds first, every length
 * and string checked against the record before it is used. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "interp/beam/beam_debug.h"

#define HEADER 8	/* kind and padding */
#define MODULE_FIXED 24 /* base, ranges, size, name length, padded */
#define MODULE_NAME 26	/* HEADER + the module's fields before its name */
#define RANGE_FIXED 16
#define RANGE_NAME 14
#define LINE_FIXED 12
#define LINE_NAME 10

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int beam_debug__kind(const uint8_t *rec, size_t len)
{
	return len < HEADER ? -1 : (int)get32(rec);
}

int beam_debug__emulator(const uint8_t *rec, size_t len, struct beam_debug_emulator *out)
{
	if (len < 24 || get32(rec) != BEAM_DEBUG_EMULATOR)
		return -EINVAL;
	memcpy(&out->frame_layout, rec + 8, sizeof(out->frame_layout));
	memcpy(&out->normal_exit, rec + 16, sizeof(out->normal_exit));
	return 0;
}

/* A string of n bytes (its NUL counted) at off: whether it lies in the record and ends
 * with its NUL. */
static int string_ok(const uint8_t *rec, size_t len, size_t off, size_t n)
{
	return n && off <= len && n <= len - off && rec[off + n - 1] == '\0';
}

/* The first pass: how many functions and lines the record holds, every bound checked. */
static int count(const uint8_t *rec, size_t len, uint32_t nranges, size_t at, uint32_t *nlines)
{
	uint64_t lines = 0;

	for (uint32_t i = 0; i < nranges; i++) {
		uint32_t nl;
		uint16_t n;

		if (at > len || len - at < RANGE_FIXED)
			return -EINVAL;
		nl = get32(rec + at + 8);
		n = get16(rec + at + 12);
		if (!string_ok(rec, len, at + RANGE_NAME, n) ||
		    get32(rec + at) > get32(rec + at + 4))
			return -EINVAL;
		at += RANGE_FIXED + n;
		/* A line takes at least LINE_FIXED + 1 bytes: no more than the rest holds. */
		if (nl > (len - (at < len ? at : len)) / (LINE_FIXED + 1))
			return -EINVAL;
		for (uint32_t j = 0; j < nl; j++) {
			if (at > len || len - at < LINE_FIXED)
				return -EINVAL;
			n = get16(rec + at + 8);
			if (!string_ok(rec, len, at + LINE_NAME, n))
				return -EINVAL;
			at += LINE_FIXED + n;
		}
		lines += nl;
	}
	*nlines = (uint32_t)lines;
	return 0;
}

/* The second pass fills the tables the first sized. */
static void fill(struct beam_module *m, uint32_t nranges, size_t at)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < nranges; i++) {
		struct beam_fn *f = &m->fns[i];
		uint32_t nl = get32(m->rec + at + 8);

		f->start = get32(m->rec + at);
		f->end = get32(m->rec + at + 4);
		f->name = (uint32_t)(at + RANGE_NAME);
		f->line0 = k;
		f->nlines = nl;
		at += RANGE_FIXED + get16(m->rec + at + 12);
		for (uint32_t j = 0; j < nl; j++, k++) {
			m->lines[k].start = get32(m->rec + at);
			m->lines[k].line = get32(m->rec + at + 4);
			m->lines[k].file = (uint32_t)(at + LINE_NAME);
			at += LINE_FIXED + get16(m->rec + at + 8);
		}
	}
}

/* The VM names the few instructions before a function's entry (its CodeInfo, where a
 * call lands to count reductions) "m:f/a-CodeInfoPrologue": they are the function's. */
static void strip_prologue(char *name)
{
	static const char suffix[] = "-CodeInfoPrologue";
	size_t n = strlen(name), k = sizeof(suffix) - 1;

	if (n > k && !strcmp(name + n - k, suffix))
		name[n - k] = '\0';
}

static int fn_cmp(const void *a, const void *b)
{
	const struct beam_fn *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int beam_debug__module(uint8_t *rec, size_t len, struct beam_module *out)
{
	uint32_t nranges, nlines = 0;
	uint16_t n;
	size_t at;

	memset(out, 0, sizeof(*out));
	out->rec = rec;
	out->len = len;
	if (len < HEADER + MODULE_FIXED || len > BEAM_DEBUG_MAX_RECORD ||
	    get32(rec) != BEAM_DEBUG_MODULE)
		return -EINVAL;
	memcpy(&out->base, rec + HEADER, sizeof(out->base));
	nranges = get32(rec + HEADER + 8);
	out->size = get32(rec + HEADER + 12);
	n = get16(rec + HEADER + 16);
	if (!string_ok(rec, len, MODULE_NAME, n) || nranges > len / (RANGE_FIXED + 1))
		return -EINVAL;
	at = HEADER + MODULE_FIXED + n;
	if (count(rec, len, nranges, at, &nlines))
		return -EINVAL;
	out->fns = calloc(nranges ? nranges : 1, sizeof(*out->fns));
	out->lines = calloc(nlines ? nlines : 1, sizeof(*out->lines));
	if (!out->fns || !out->lines) {
		free(out->fns);
		free(out->lines);
		out->fns = NULL;
		out->lines = NULL;
		return -ENOMEM;
	}
	out->name = (const char *)rec + MODULE_NAME;
	out->nfns = nranges;
	out->nlines = nlines;
	fill(out, nranges, at);
	for (uint32_t i = 0; i < nranges; i++)
		strip_prologue((char *)rec + out->fns[i].name);
	qsort(out->fns, out->nfns, sizeof(*out->fns), fn_cmp);
	return 0;
}

void beam_module__release(struct beam_module *m)
{
	free(m->rec);
	free(m->fns);
	free(m->lines);
	memset(m, 0, sizeof(*m));
}

/* The line of f at offset off: the last of its lines starting at or before off, else
 * its first (the VM records a function's first line at its label, before its code). */
static const struct beam_line *line_of(const struct beam_module *m, const struct beam_fn *f,
				       uint32_t off)
{
	const struct beam_line *best = NULL;

	if (!f->nlines || f->line0 >= m->nlines || f->nlines > m->nlines - f->line0)
		return NULL;
	for (uint32_t i = 0; i < f->nlines; i++) {
		const struct beam_line *l = &m->lines[f->line0 + i];

		if (l->start <= off && (!best || l->start >= best->start))
			best = l;
	}
	return best ? best : &m->lines[f->line0];
}

const char *beam_module__find(const struct beam_module *m, uint64_t addr, uint32_t *line,
			      const char **file)
{
	uint32_t lo = 0, hi = m->nfns, off;
	const struct beam_line *l;

	*line = 0;
	*file = "";
	if (addr < m->base || addr - m->base >= m->size)
		return NULL;
	off = (uint32_t)(addr - m->base);
	while (lo < hi) { /* the first function starting past off */
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->fns[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || off >= m->fns[lo - 1].end)
		return NULL;
	l = line_of(m, &m->fns[lo - 1], off);
	if (l) {
		*line = l->line;
		*file = (const char *)m->rec + l->file;
	}
	return (const char *)m->rec + m->fns[lo - 1].name;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int beam_debug__sched_ok(const uint8_t *buf, size_t len, uint64_t no)
{
	uint64_t regs;

	if (len < BEAM_ESD_DIRTY_NO + 8)
		return 0;
	regs = get64(buf + BEAM_ESD_REGISTERS);
	return regs && !(regs % BEAM_ESD_ALIGN) && !get32(buf + BEAM_ESD_TYPE) &&
	       get64(buf + BEAM_ESD_NO) == no && !get64(buf + BEAM_ESD_DIRTY_NO);
}

/* Whether every element of size stride that buf holds whole says its number, and buf
 * holds one at least after the first. */
static int stride_fits(const uint8_t *buf, size_t len, uint32_t n, size_t stride)
{
	uint32_t whole = 0;

	for (uint32_t i = 1; i < n; i++) {
		size_t at = stride * i;

		if (at > len || len - at < BEAM_ESD_DIRTY_NO + 8)
			break; /* the rest lies past buf */
		if (!beam_debug__sched_ok(buf + at, len - at, i + 1))
			return 0;
		whole++;
	}
	return whole > 0;
}

uint32_t beam_debug__sched_stride(const uint8_t *buf, size_t len, uint32_t n)
{
	uint32_t found = 0;

	if (n < 2 || !beam_debug__sched_ok(buf, len, 1))
		return 0;
	/* A multiple k of the true size reads element k where element 1 should be, which
	 * says k + 1: only a coincidence could fit too, and then none is taken. */
	for (size_t stride =
		 BEAM_ESD_ALIGN * ((BEAM_ESD_DIRTY_NO + 8 + BEAM_ESD_ALIGN - 1) / BEAM_ESD_ALIGN);
	     stride < len; stride += BEAM_ESD_ALIGN) {
		if (!stride_fits(buf, len, n, stride))
			continue;
		if (found)
			return 0;
		found = (uint32_t)stride;
	}
	return found;
}
