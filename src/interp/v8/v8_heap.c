// SPDX-License-Identifier: Apache-2.0
/* V8's heap objects read from another process (see v8_heap.h). Tagged words are 8 bytes
 * (no pointer compression: v8.c refuses builds with it); a heap object's pointer has 1
 * in its low bits, a Smi keeps its value in the upper 32 bits. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "interp/v8/v8_heap.h"

#define STRING_DEPTH 16	  /* cons strings nested this deep are not followed */
#define SCOPE_SLOTS 48	  /* ScopeInfo words scanned for the name and position */
#define CHUNK (64u << 10) /* bytes of a string read at once */

static int rd64(const struct v8_mem *mem, uint64_t addr, uint64_t *v)
{
	return mem->read(mem->ctx, addr, v, sizeof(*v));
}

static bool is_heap(uint64_t v)
{
	return (v & 3) == 1;
}

static bool is_smi(uint64_t v)
{
	return !(v & 1);
}

static int64_t smi(uint64_t v)
{
	return (int64_t)v >> 32;
}

/* A member's offset from a tagged pointer's object. */
static uint64_t at(uint64_t tagged, const struct v8_meta *m, enum v8_member id)
{
	return tagged - 1 + (uint64_t)(int64_t)m->v[id];
}

int v8_heap__type(const struct v8_mem *mem, const struct v8_meta *m, uint64_t v, uint16_t *type)
{
	uint64_t map;
	int err;

	if (!is_heap(v))
		return -EINVAL;
	err = rd64(mem, at(v, m, V8_M_MAP_OF_OBJECT), &map);
	if (err)
		return err;
	if (!is_heap(map))
		return -EINVAL;
	return mem->read(mem->ctx, at(map, m, V8_M_MAP_TYPE), type, sizeof(*type));
}

/* Where a string's characters go: a name keeps the first cap - 1, a source's scan
 * records its line ends. */
struct sink {
	char *out;
	size_t cap, len; /* characters seen (all of them, kept or not) */
	uint32_t *ends;
	uint32_t nends, ends_cap;
	bool lines;
};

static int sink_chars(struct sink *s, const uint8_t *c, size_t n, bool two)
{
	for (size_t i = 0; i < n; i++) {
		uint16_t ch = two ? (uint16_t)(c[2 * i] | c[2 * i + 1] << 8) : c[i];

		if (s->lines && ch == '\n') {
			if (s->nends == s->ends_cap) {
				uint32_t cap = s->ends_cap ? s->ends_cap * 2 : 256;
				uint32_t *e;

				if (cap > V8_LINES_MAX)
					return -E2BIG;
				e = realloc(s->ends, cap * sizeof(*e));
				if (!e)
					return -ENOMEM;
				s->ends = e;
				s->ends_cap = cap;
			}
			s->ends[s->nends++] = (uint32_t)s->len;
		}
		if (!s->lines && s->len + 1 < s->cap)
			s->out[s->len] = ch >= 32 && ch < 127 ? (char)ch : '?';
		s->len++;
	}
	return 0;
}

static int walk_string(const struct v8_mem *mem, const struct v8_meta *m, uint64_t v, int depth,
		       struct sink *s);

/* A sequential string's characters, a chunk at a time. */
static int walk_seq(const struct v8_mem *mem, const struct v8_meta *m, uint64_t v, bool one,
		    struct sink *s)
{
	uint8_t *buf;
	int32_t len;
	uint64_t chars = at(v, m, one ? V8_M_SEQ1_CHARS : V8_M_SEQ2_CHARS);
	size_t width = one ? 1 : 2, max = s->lines ? V8_SOURCE_MAX : s->cap;
	int err = mem->read(mem->ctx, at(v, m, V8_M_STR_LENGTH), &len, sizeof(len));

	if (err)
		return err;
	if (len < 0 || (size_t)len > V8_SOURCE_MAX || s->len + (size_t)len > V8_SOURCE_MAX)
		return -E2BIG;
	if ((size_t)len > max)
		len = (int32_t)max; /* a name past its room: the rest is not read */
	buf = malloc(CHUNK);
	if (!buf)
		return -ENOMEM;
	for (size_t done = 0; done < (size_t)len && !err;) {
		size_t n = (size_t)len - done;

		if (n * width > CHUNK)
			n = CHUNK / width;
		err = mem->read(mem->ctx, chars + done * width, buf, n * width);
		if (!err)
			err = sink_chars(s, buf, n, !one);
		done += n;
	}
	free(buf);
	return err;
}

static int walk_member(const struct v8_mem *mem, const struct v8_meta *m, uint64_t v,
		       enum v8_member id, int depth, struct sink *s)
{
	uint64_t p;
	int err = rd64(mem, at(v, m, id), &p);

	return err ? err : walk_string(mem, m, p, depth + 1, s);
}

static int walk_string(const struct v8_mem *mem, const struct v8_meta *m, uint64_t v, int depth,
		       struct sink *s)
{
	uint16_t type;
	uint32_t repr;
	int err;

	if (depth > STRING_DEPTH)
		return -ELOOP;
	err = v8_heap__type(mem, m, v, &type);
	if (err)
		return err;
	if (type >= (uint32_t)m->v[V8_M_FIRST_NONSTRING])
		return -EINVAL;
	repr = type & (uint32_t)m->v[V8_M_STR_REPR_MASK];
	if (repr == 0)
		return walk_seq(mem, m, v,
				(type & (uint32_t)m->v[V8_M_STR_ENC_MASK]) ==
				    (uint32_t)m->v[V8_M_STR_ONE_BYTE],
				s);
	if (repr == (uint32_t)m->v[V8_M_STR_CONS]) {
		err = walk_member(mem, m, v, V8_M_CONS_FIRST, depth, s);
		return err ? err : walk_member(mem, m, v, V8_M_CONS_SECOND, depth, s);
	}
	if (m->has[V8_M_STR_THIN] && m->has[V8_M_THIN_ACTUAL] &&
	    repr == (uint32_t)m->v[V8_M_STR_THIN])
		return walk_member(mem, m, v, V8_M_THIN_ACTUAL, depth, s);
	return -ENOTSUP; /* external and sliced strings */
}

int v8_heap__string(const struct v8_mem *mem, const struct v8_meta *m, uint64_t v, char *out,
		    size_t cap)
{
	struct sink s = {.out = out, .cap = cap};
	int err;

	if (!cap)
		return -EINVAL;
	out[0] = 0;
	err = walk_string(mem, m, v, 0, &s);
	if (err)
		return err;
	s.len = s.len < cap ? s.len : cap - 1;
	out[s.len] = 0;
	return (int)s.len;
}

/* A ScopeInfo holds the function's name after its context locals' names and infos, and
 * its start and end positions (two Smis, start < end) after that; the slots between
 * vary with flags from version to version, so the first string and the first such pair
 * past the locals are taken. */
static void scope_info(const struct v8_mem *mem, const struct v8_meta *m, uint64_t si,
		       struct v8_func *f)
{
	uint64_t w[SCOPE_SLOTS], data = si - 1 + 8, prev = 1;
	int first = m->has[V8_M_SCOPE_FIRST_VARS] ? m->v[V8_M_SCOPE_FIRST_VARS] : 3;
	int nidx = m->has[V8_M_SCOPE_NCONTEXTLOCALS] ? m->v[V8_M_SCOPE_NCONTEXTLOCALS] : 2;
	int64_t nlocals;

	/* Before 9.1 a ScopeInfo was a FixedArray: its slots start at the array's data. */
	if (!m->has[V8_M_SCOPE_IS_HEAP_OBJECT])
		data = si - 1 + (uint64_t)m->v[V8_M_ARRAY_DATA];
	if (first < 0 || nidx < 0 || nidx >= SCOPE_SLOTS || mem->read(mem->ctx, data, w, sizeof(w)))
		return;
	nlocals = is_smi(w[nidx]) ? smi(w[nidx]) : -1;
	if (nlocals < 0 || nlocals > SCOPE_SLOTS)
		return;
	for (int64_t i = first + 2 * nlocals; i < SCOPE_SLOTS; i++) {
		if (!f->name[0] && is_heap(w[i]))
			v8_heap__string(mem, m, w[i], f->name, sizeof(f->name));
		if (is_smi(w[i]) && is_smi(prev) && smi(prev) >= 0 && smi(prev) < smi(w[i])) {
			f->start = (int32_t)smi(prev);
			return;
		}
		prev = w[i];
	}
}

/* The BytecodeArray's source position table: not in the metadata, it is the third
 * tagged member after the length (constant pool, handler table, source positions) in
 * every V8 since 7; a ByteArray, or undefined until V8 collects them lazily. */
static void positions(const struct v8_mem *mem, const struct v8_meta *m, uint64_t bca,
		      struct v8_func *f)
{
	uint64_t t, lenw;
	uint16_t type;
	int64_t len;

	if (rd64(mem, bca - 1 + (uint64_t)m->v[V8_M_ARRAY_LENGTH] + 24, &t) ||
	    v8_heap__type(mem, m, t, &type) || type != m->v[V8_M_T_BYTE_ARRAY] ||
	    rd64(mem, at(t, m, V8_M_ARRAY_LENGTH), &lenw) || !is_smi(lenw))
		return;
	len = smi(lenw);
	if (len <= 0 || len > V8_POSITIONS_MAX)
		return;
	f->positions = malloc((size_t)len);
	if (!f->positions)
		return;
	/* A ByteArray's bytes follow its length, as a FixedArray's elements do. */
	if (mem->read(mem->ctx, at(t, m, V8_M_ARRAY_DATA), f->positions, (size_t)len)) {
		free(f->positions);
		f->positions = NULL;
		return;
	}
	f->npositions = (uint32_t)len;
}

/* The function's bytecode: its data, or the baseline code's bytecode. */
static void bytecode(const struct v8_mem *mem, const struct v8_meta *m, uint64_t sfi,
		     struct v8_func *f)
{
	uint64_t d;
	uint16_t type;

	if (rd64(mem, at(sfi, m, V8_M_SFI_DATA), &d) || v8_heap__type(mem, m, d, &type))
		return;
	if (m->has[V8_M_T_CODE] && m->has[V8_M_CODE_BYTECODE] && type == m->v[V8_M_T_CODE]) {
		if (rd64(mem, at(d, m, V8_M_CODE_BYTECODE), &d) || v8_heap__type(mem, m, d, &type))
			return;
	}
	if (type == m->v[V8_M_T_BYTECODE])
		positions(mem, m, d, f);
}

int v8_heap__func(const struct v8_mem *mem, const struct v8_meta *m, uint64_t sfi,
		  struct v8_func *out)
{
	uint64_t nos, script;
	uint16_t type;
	int err;

	memset(out, 0, sizeof(*out));
	out->start = -1;
	err = v8_heap__type(mem, m, sfi, &type);
	if (!err && type != m->v[V8_M_T_SFI])
		err = -EINVAL;
	if (!err)
		err = rd64(mem, at(sfi, m, V8_M_SFI_NAME), &nos);
	if (err)
		return err;
	if (!v8_heap__type(mem, m, nos, &type)) {
		if (type == m->v[V8_M_T_SCOPE_INFO])
			scope_info(mem, m, nos, out);
		else if (type < m->v[V8_M_FIRST_NONSTRING])
			v8_heap__string(mem, m, nos, out->name, sizeof(out->name));
	}
	if (!rd64(mem, at(sfi, m, V8_M_SFI_SCRIPT), &script) &&
	    !v8_heap__type(mem, m, script, &type) && type == m->v[V8_M_T_SCRIPT])
		out->script = script;
	bytecode(mem, m, sfi, out);
	return 0;
}

void v8_func__release(struct v8_func *f)
{
	free(f->positions);
	f->positions = NULL;
	f->npositions = 0;
}

/* The script's line_ends FixedArray of Smis, when V8 has computed it. */
static int line_ends(const struct v8_mem *mem, const struct v8_meta *m, uint64_t arr,
		     struct v8_script *s)
{
	uint64_t lenw, *w;
	uint16_t type;
	int64_t n;
	int err = v8_heap__type(mem, m, arr, &type);

	if (err || type != m->v[V8_M_T_FIXED_ARRAY])
		return err ? err : -ENOENT;
	err = rd64(mem, at(arr, m, V8_M_ARRAY_LENGTH), &lenw);
	if (err || !is_smi(lenw))
		return err ? err : -EINVAL;
	n = smi(lenw);
	if (n <= 0 || n > V8_LINES_MAX)
		return -E2BIG;
	w = malloc((size_t)n * sizeof(*w));
	s->ends = malloc((size_t)n * sizeof(*s->ends));
	if (!w || !s->ends) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = mem->read(mem->ctx, at(arr, m, V8_M_ARRAY_DATA), w, (size_t)n * sizeof(*w));
	for (int64_t i = 0; !err && i < n; i++) {
		if (!is_smi(w[i]) || smi(w[i]) < 0 || (i && smi(w[i]) < smi(w[i - 1])))
			err = -EINVAL;
		else
			s->ends[i] = (uint32_t)smi(w[i]);
	}
	if (!err)
		s->nends = (uint32_t)n;
cleanup:
	free(w);
	if (err) {
		free(s->ends);
		s->ends = NULL;
	}
	return err;
}

/* Line ends from the source itself: each '\n', then the source's end. */
static void source_ends(const struct v8_mem *mem, const struct v8_meta *m, uint64_t src,
			struct v8_script *s)
{
	struct sink k = {.lines = true};

	if (!walk_string(mem, m, src, 0, &k) && !sink_chars(&k, (const uint8_t *)"\n", 1, false)) {
		s->ends = k.ends;
		s->nends = k.nends;
		return;
	}
	free(k.ends);
}

int v8_heap__script(const struct v8_mem *mem, const struct v8_meta *m, uint64_t script,
		    struct v8_script *out)
{
	uint64_t name, arr, src;
	uint16_t type;
	int err;

	memset(out, 0, sizeof(*out));
	err = v8_heap__type(mem, m, script, &type);
	if (!err && type != m->v[V8_M_T_SCRIPT])
		err = -EINVAL;
	if (err)
		return err;
	if (!rd64(mem, at(script, m, V8_M_SCRIPT_NAME), &name))
		v8_heap__string(mem, m, name, out->name, sizeof(out->name));
	if (!rd64(mem, at(script, m, V8_M_SCRIPT_LINE_ENDS), &arr) && !line_ends(mem, m, arr, out))
		return 0;
	if (!rd64(mem, at(script, m, V8_M_SCRIPT_SOURCE), &src))
		source_ends(mem, m, src, out);
	return 0;
}

void v8_script__release(struct v8_script *s)
{
	free(s->ends);
	s->ends = NULL;
	s->nends = 0;
}

/* One zigzag VLQ integer at t[*i]: 7 bits a byte, low first, 0x80 for more. */
static bool vlq(const uint8_t *t, size_t len, size_t *i, int64_t *out)
{
	uint64_t u = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (*i >= len)
			return false;
		b = t[(*i)++];
		u |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
			return true;
		}
	}
	return false;
}

int64_t v8_positions__find(const uint8_t *t, size_t len, uint32_t off)
{
	int64_t code = 0, pos = 0, found = -1;
	size_t i = 0;

	while (i < len) {
		int64_t dc, dp;

		/* V8 writes code offsets as ints, positions in 48 bits: more is not a table. */
		if (!vlq(t, len, &i, &dc) || !vlq(t, len, &i, &dp) || dc < INT32_MIN ||
		    dc > INT32_MAX || dp < -(1LL << 48) || dp > (1LL << 48) || code > INT32_MAX ||
		    pos < -(1LL << 56) || pos > (1LL << 56))
			break;
		/* A non-statement's delta is stored as -(delta) - 1. */
		code += dc >= 0 ? dc : -dc - 1;
		pos += dp;
		if (code > off)
			break;
		found = pos;
	}
	return found;
}

/* A SourcePosition: bit 0 external, bits 1-30 script offset + 1, bits 31-46 the
 * inlining id + 1 (0 in bytecode). */
int32_t v8_position__offset(int64_t raw)
{
	return raw < 0 ? -1 : (int32_t)(((uint64_t)raw >> 1) & ((1u << 30) - 1)) - 1;
}

int32_t v8_position__inlining(int64_t raw)
{
	return raw < 0 ? -1 : (int32_t)(((uint64_t)raw >> 31) & 0xffff) - 1;
}

/* A FixedArray-shaped object's length (ByteArrays too: their bytes follow it), checked
 * against max, and its type against want (0: any). */
static int array_len(const struct v8_mem *mem, const struct v8_meta *m, uint64_t a, int want,
		     int64_t max, int64_t *n)
{
	uint64_t lw;
	uint16_t type;
	int err = v8_heap__type(mem, m, a, &type);

	if (!err && want && type != want)
		err = -EINVAL;
	if (!err)
		err = rd64(mem, at(a, m, V8_M_ARRAY_LENGTH), &lw);
	if (err)
		return err;
	if (!is_smi(lw) || smi(lw) < 0 || smi(lw) > max)
		return -E2BIG;
	*n = smi(lw);
	return 0;
}

/* The whole of array a's data (n elements of size), malloc'ed into *out. */
static int array_data(const struct v8_mem *mem, const struct v8_meta *m, uint64_t a, int64_t n,
		      size_t size, void **out)
{
	*out = malloc(n > 0 ? (size_t)n * size : 1);
	if (!*out)
		return -ENOMEM;
	if (n && mem->read(mem->ctx, at(a, m, V8_M_ARRAY_DATA), *out, (size_t)n * size)) {
		free(*out);
		*out = NULL;
		return -EFAULT;
	}
	return 0;
}

/* Weak references (the literal array's) carry 3 in their low bits. */
static uint64_t strong(uint64_t v)
{
	return (v & 3) == 3 ? v & ~2ULL : v;
}

#define LITERALS_MAX 65536
#define INLININGS_MAX 65536

/* Follows the inlining chain of raw position at from the deoptimization data's
 * literals (the inlined functions) and inlining positions (16 bytes each: the call's
 * position, then the inlined function's index). */
static int chain(int64_t raw, uint64_t outer, const uint64_t *lit, int64_t nlit, const uint8_t *inl,
		 int64_t ninl, struct v8_inlined *out, int max)
{
	int n = 0;

	while (n < max) {
		int32_t id = v8_position__inlining(raw), fid;

		out[n].pos = v8_position__offset(raw);
		if (id < 0) {
			out[n++].sfi = outer;
			return n;
		}
		if (id >= ninl)
			return n ? n : -EINVAL;
		memcpy(&fid, inl + 16 * id + 8, sizeof(fid));
		if (fid < 0 || fid >= nlit)
			return n ? n : -EINVAL;
		out[n++].sfi = strong(lit[fid]);
		memcpy(&raw, inl + 16 * id, sizeof(raw));
	}
	return n;
}

/* The functions at offset off of Code object code's instructions (see below). */
static int code_frames(const struct v8_mem *mem, const struct v8_meta *m,
		       const struct v8_code_layout *l, uint64_t code, uint32_t off,
		       struct v8_inlined *out, int max)
{
	uint64_t deopt, e[256], lits, inls, table;
	void *lit = NULL, *inl = NULL, *pt = NULL;
	int64_t nd, nlit = 0, ninl = 0, npt, raw;
	int err = rd64(mem, code - 1 + l->deopt, &deopt);

	if (err)
		return err;
	/* Baseline code keeps its bytecode there: no inlining to follow. */
	if (array_len(mem, m, deopt, m->v[V8_M_T_FIXED_ARRAY], 1 << 20, &nd))
		return 0;
	if (nd <= l->d_inlining || nd <= l->d_sfi || nd <= l->d_count || nd <= l->d_literals ||
	    mem->read(mem->ctx, at(deopt, m, V8_M_ARRAY_DATA), e, (l->d_inlining + 1) * 8u))
		return -EINVAL;
	if (rd64(mem, code - 1 + l->positions, &table) ||
	    array_len(mem, m, table, m->v[V8_M_T_BYTE_ARRAY], V8_POSITIONS_MAX, &npt) ||
	    array_data(mem, m, table, npt, 1, &pt))
		return -EINVAL;
	raw = v8_positions__find(pt, (size_t)npt, off);
	free(pt);
	lits = e[l->d_literals];
	inls = e[l->d_inlining];
	if (v8_position__inlining(raw) >= 0) {
		if (array_len(mem, m, lits, 0, LITERALS_MAX, &nlit) ||
		    array_data(mem, m, lits, nlit, 8, &lit) ||
		    array_len(mem, m, inls, m->v[V8_M_T_BYTE_ARRAY], INLININGS_MAX * 16, &ninl) ||
		    array_data(mem, m, inls, ninl, 1, &inl)) {
			free(lit);
			return -EINVAL;
		}
		ninl /= 16;
	}
	err = chain(raw, e[l->d_sfi], lit, nlit, inl, ninl, out, max);
	free(lit);
	free(inl);
	return err;
}

#define SCAN_BACK (64u << 10)
#define SCAN_CHUNK 4096u /* a page: the code's mapping may begin at any page */

/* Whether instructions starting at a belong to a Code object, which is returned: V8 11
 * has the Code's pointer in the 8 bytes before them (its InstructionStream's header)
 * and the Code points back at a; V8 10's instructions follow the Code's header, which
 * starts with a Code map. Both check that the size reaches pc. */
static uint64_t code_at(const struct v8_mem *mem, const struct v8_meta *m,
			const struct v8_code_layout *l, uint64_t a, uint64_t before, uint64_t pc)
{
	uint64_t code, start;
	uint16_t type;
	int32_t size;

	if (l->start_is_field) {
		code = before;
		if (!is_heap(code) || rd64(mem, code - 1 + l->start, &start) || start != a)
			return 0;
	} else {
		code = a - l->start + 1;
		if (!m->has[V8_M_T_CODE] || v8_heap__type(mem, m, code, &type) ||
		    type != m->v[V8_M_T_CODE])
			return 0;
	}
	if (mem->read(mem->ctx, code - 1 + l->size, &size, sizeof(size)) || size <= 0 ||
	    pc - a >= (uint64_t)size)
		return 0;
	return code;
}

int v8_heap__find_code(const struct v8_mem *mem, const struct v8_meta *m,
		       const struct v8_code_layout *l, uint64_t pc, uint64_t *code, uint64_t *start)
{
	uint64_t buf[SCAN_CHUNK / 8];

	if (!l->fn_code || pc < SCAN_BACK)
		return -EINVAL;
	for (uint64_t hi = (pc | (SCAN_CHUNK - 1)) + 1, done = 0; done < SCAN_BACK;
	     done += SCAN_CHUNK) {
		uint64_t lo = hi - SCAN_CHUNK;

		if (mem->read(mem->ctx, lo, buf, sizeof(buf)))
			return -EFAULT;
		/* Every 64-byte boundary in (lo, hi), highest first, with the word before (one
		 * above pc fails the size check). */
		for (uint64_t a = hi - 64; a > lo; a -= 64) {
			uint64_t before = buf[(a - 8 - lo) / 8];

			/* Both layouts have a tagged pointer there or 128 bytes down. */
			if (!l->start_is_field && a - l->start >= lo &&
			    !is_heap(buf[(a - l->start - lo) / 8]))
				continue;
			*code = code_at(mem, m, l, a, before, pc);
			if (*code) {
				*start = a;
				return 0;
			}
		}
		hi = lo;
	}
	return -ENOENT;
}

int v8_heap__code_frames_at(const struct v8_mem *mem, const struct v8_meta *m,
			    const struct v8_code_layout *l, uint64_t code, uint32_t off,
			    struct v8_inlined *out, int max)
{
	return max > 0 ? code_frames(mem, m, l, code, off, out, max) : -EINVAL;
}

void v8_lines__find(const uint32_t *ends, uint32_t n, uint32_t pos, uint32_t *line, uint32_t *col)
{
	uint32_t lo = 0, hi = n;

	*line = *col = 0;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ends[mid] < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= n)
		return;
	*line = lo + 1;
	*col = pos - (lo ? ends[lo - 1] + 1 : 0) + 1;
}
