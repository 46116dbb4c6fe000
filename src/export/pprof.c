/* SPDX-License-Identifier: Apache-2.0 */
/* pprof exporter: turns a report into a perftools.profiles.Profile (protobuf-c generated
 * structs, all carved out of a few bulk arrays) and streams it through zlib's gzip encoder
 * into path.tmp, renamed into place once complete. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "export/pprof.h"
#include "profile/frame.h"
#include "profile/report.h"
#include "profile/report_view.h"
#include "util/atomic_file.h"
#include "profile.pb-c.h"

/* The generated names are long; these keep the code within 100 columns. */
typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_value_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

#define KERNEL_FILENAME "[kernel.kallsyms]"

/* Strings every profile interns first, in this order, into an empty table: so each one's
 * string index is its enum value. */
enum fixed_string {
	S_EMPTY, /* pprof requires string_table[0] == "" */
	S_SAMPLES,
	S_COUNT,
	S_CPU,
	S_NANOSECONDS,
	S_PID,
	S_TID,
	S_THREAD,
	S_COMM,
	S_TRUNCATED,
	S_TRUE,
	S_KERNEL,
	NFIXED
};

static const char *const fixed_strings[NFIXED] = {
    [S_EMPTY] = "",
    [S_SAMPLES] = "samples",
    [S_COUNT] = "count",
    [S_CPU] = "cpu",
    [S_NANOSECONDS] = "nanoseconds",
    [S_PID] = "pid",
    [S_TID] = "tid",
    [S_THREAD] = "thread",
    [S_COMM] = "comm",
    [S_TRUNCATED] = "truncated",
    [S_TRUE] = "true",
    [S_KERNEL] = KERNEL_FILENAME,
};

/* Labels per sample: pid, tid, thread, comm, and truncated when the stack is. */
#define NLABELS 4

/*
 * The string table. table[i] is string i (table[0] is ""); slots is an open-addressing
 * hash set holding index + 1 (0 = empty). It is sized for the worst case up front, so it
 * never rehashes. Strings are borrowed from the report and fixed_strings, never copied.
 */
struct strtab {
	char **table;
	uint64_t *hashes;
	size_t n;
	size_t cap;
	uint32_t *slots;
	size_t mask;
};

/* Everything the Profile points into; freed together by builder__free(). */
struct builder {
	const struct report *r;
	struct strtab st;
	pb_profile prof;
	pb_value_type types[REPORT_MAX_VALUES + 1], period_type;
	pb_value_type *type_ptrs[REPORT_MAX_VALUES + 1];
	uint32_t nvalues; /* per sample: the event's values, then value 0 times the period */
	pb_mapping *maps, **map_ptrs;
	pb_location *locs, **loc_ptrs;
	pb_line *lines, **line_ptrs;
	pb_function *fns, **fn_ptrs;
	size_t nfns;
	uint32_t *fn_slots; /* hash set of (name, filename) -> function id, 0 = empty */
	size_t fn_mask;
	pb_sample *samples, **sample_ptrs;
	uint64_t *loc_ids;
	int64_t *values;
	pb_label *labels, **label_ptrs;
	size_t nlabels;
};

/* calloc that never returns NULL for an empty report's zero-length arrays. */
static void *zalloc(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

/* Smallest power of two that keeps a table of n entries at most half full. */
static size_t nslots_for(size_t n)
{
	size_t sz = 16;

	while (sz < 2 * n)
		sz <<= 1;
	return sz;
}

/* FNV-1a: simple, and good enough for symbol names. */
static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* splitmix64's finalizer, to spread packed (name, filename) pairs over the slots. */
static uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static int strtab__init(struct strtab *st, size_t cap)
{
	size_t nslots = nslots_for(cap);

	if (cap >= UINT32_MAX)
		return -E2BIG;
	st->table = zalloc(cap, sizeof(*st->table));
	st->hashes = zalloc(cap, sizeof(*st->hashes));
	st->slots = zalloc(nslots, sizeof(*st->slots));
	if (!st->table || !st->hashes || !st->slots)
		return -ENOMEM;
	st->cap = cap;
	st->mask = nslots - 1;
	return 0;
}

static void strtab__free(struct strtab *st)
{
	free(st->slots);
	free(st->hashes);
	free(st->table);
}

/* Returns the index of s (NULL counts as ""), adding it if new; -ENOSPC when full. */
static int64_t strtab__intern(struct strtab *st, const char *s)
{
	uint64_t h;
	uint32_t idx;
	size_t i;

	if (!s)
		s = "";
	h = hash_str(s);
	for (i = h & st->mask; (idx = st->slots[i]); i = (i + 1) & st->mask) {
		if (st->hashes[idx - 1] == h && !strcmp(st->table[idx - 1], s))
			return idx - 1;
	}
	if (st->n == st->cap)
		return -ENOSPC;
	st->table[st->n] = (char *)s; /* protobuf-c only reads it */
	st->hashes[st->n] = h;
	st->slots[i] = ++st->n;
	return st->n - 1;
}

/* Returns the id of Function (name, filename), adding it if new. Never fails: there is
 * room for one function per frame, and each frame adds at most one. */
static uint64_t builder__function(struct builder *b, int64_t name, int64_t filename)
{
	uint64_t h = hash_u64((uint64_t)name << 32 ^ (uint64_t)filename);
	pb_function *f;
	uint32_t id;
	size_t i;

	for (i = h & b->fn_mask; (id = b->fn_slots[i]); i = (i + 1) & b->fn_mask) {
		f = &b->fns[id - 1];
		if (f->name == name && f->filename == filename)
			return id;
	}
	f = &b->fns[b->nfns];
	perftools__profiles__function__init(f);
	f->id = ++b->nfns;
	f->name = name;
	f->filename = filename;
	b->fn_ptrs[b->nfns - 1] = f;
	b->fn_slots[i] = f->id;
	return f->id;
}

static int builder__type(struct builder *b, pb_value_type *t, const struct report_value_type *v)
{
	int64_t type = strtab__intern(&b->st, v->type), unit = strtab__intern(&b->st, v->unit);

	if (type < 0 || unit < 0)
		return -ENOSPC;
	perftools__profiles__value_type__init(t);
	t->type = type;
	t->unit = unit;
	return 0;
}

/* The sample types of the report's first event (a report of one event per file, as
 * record writes them): its values, then, when it has a period, the period's measure
 * (cpu/nanoseconds = samples x 1e9 / Hz). A report without events is CPU samples. */
static int builder__types(struct builder *b)
{
	static const struct report_event cpu = {
	    .period_type = {"cpu", "nanoseconds"},
	    .nvalues = 1,
	    .values = {{"samples", "count"}},
	};
	const struct report_event *e = b->r->nevents ? &b->r->events[0] : &cpu;
	uint64_t period = b->r->nevents ? e->period : b->r->period_ns;
	uint32_t n = e->nvalues && e->nvalues <= REPORT_MAX_VALUES ? e->nvalues : 1;
	int err = 0;

	for (uint32_t i = 0; i < n && !err; i++)
		err = builder__type(b, &b->types[i], &e->values[i]);
	if (!err && period && e->period_type.type) {
		err = builder__type(b, &b->types[n], &e->period_type);
		if (!err)
			err = builder__type(b, &b->period_type, &e->period_type);
		b->prof.period_type = &b->period_type;
		b->prof.period = period;
		n++;
	}
	for (uint32_t i = 0; i < n; i++)
		b->type_ptrs[i] = &b->types[i];
	b->nvalues = n;
	return err;
}

/* Interns the fixed strings and fills in the Profile's scalar fields. */
static int builder__header(struct builder *b)
{
	const struct report *r = b->r;
	pb_profile *p = &b->prof;
	size_t i;
	int err;

	for (i = 0; i < NFIXED; i++) {
		if (strtab__intern(&b->st, fixed_strings[i]) != (int64_t)i)
			return -ENOSPC; /* only if the table was sized wrong */
	}
	perftools__profiles__profile__init(p);
	err = builder__types(b);
	if (err)
		return err;
	p->n_sample_type = b->nvalues;
	p->sample_type = b->type_ptrs;
	p->time_nanos = r->start_unix_ns;
	p->duration_nanos = r->duration_ns;
	return 0;
}

static const char *mapping_filename(const struct report_mapping *m)
{
	return m->kernel ? KERNEL_FILENAME : m->path;
}

/* The mapping pprof should call the program: tools take the first one as the main
 * binary ("File:" in go tool pprof). The root of a complete stack of a main thread is
 * its process's executable (_start), so the one holding most such roots is the
 * command's executable or, whole-system, the busiest program's; without any, the first
 * that is not the kernel. -1 when there is none. */
static int main_mapping(const struct report *r)
{
	uint64_t *weight = zalloc(r->nmappings, sizeof(*weight)), best = 0;
	int found = -1;

	if (!weight)
		return -1;
	for (size_t i = 0; i < r->nstacks; i++) {
		const struct report_stack *s = &r->stacks[i];
		const struct report_frame *f;

		if (s->truncated || s->tid != s->pid || !s->nframes ||
		    s->frames[s->nframes - 1] >= r->nframes)
			continue;
		f = &r->frames[s->frames[s->nframes - 1]];
		if (f->mapping >= 0 && (size_t)f->mapping < r->nmappings)
			weight[f->mapping] += report_stack_weight(r, s);
	}
	for (size_t i = 0; i < r->nmappings; i++) {
		if (r->mappings[i].kernel)
			continue;
		if (found < 0 || weight[i] > best) {
			best = weight[i];
			found = (int)i;
		}
	}
	free(weight);
	return found;
}

static int builder__mappings(struct builder *b)
{
	const struct report *r = b->r;
	int first = main_mapping(r);
	size_t i, at = first >= 0;

	b->maps = zalloc(r->nmappings, sizeof(*b->maps));
	b->map_ptrs = zalloc(r->nmappings, sizeof(*b->map_ptrs));
	if (!b->maps || !b->map_ptrs)
		return -ENOMEM;
	for (i = 0; i < r->nmappings; i++) {
		const struct report_mapping *rm = &r->mappings[i];
		pb_mapping *m = &b->maps[i];
		size_t pos = (int)i == first ? 0 : at++;

		perftools__profiles__mapping__init(m);
		m->id = pos + 1;
		m->memory_start = rm->start;
		m->memory_limit = rm->limit;
		m->file_offset = rm->offset;
		m->filename = strtab__intern(&b->st, mapping_filename(rm));
		m->build_id = strtab__intern(&b->st, rm->build_id);
		if (m->filename < 0 || m->build_id < 0)
			return -ENOSPC;
		m->has_functions = true;
		b->map_ptrs[pos] = m;
	}
	b->prof.n_mapping = r->nmappings;
	b->prof.mapping = b->map_ptrs;
	return 0;
}

/* Fills Location i's Lines from the frame's lines (a native frame's from DWARF, a
 * runtime frame's one), innermost first, as pprof expects an inline chain: each a
 * Function (name, source file) and its line and column. */
static int builder__dwarf_lines(struct builder *b, const struct report_frame *fr, pb_line *line,
				pb_line **ptrs)
{
	for (uint32_t j = 0; j < fr->nlines; j++) {
		int64_t name = strtab__intern(&b->st, fr->lines[j].function);
		int64_t file = strtab__intern(&b->st, fr->lines[j].file);

		if (name < 0 || file < 0)
			return -ENOSPC;
		perftools__profiles__line__init(&line[j]);
		line[j].function_id = builder__function(b, name, file);
		line[j].line = fr->lines[j].line;
		line[j].column = fr->lines[j].column;
		ptrs[j] = &line[j];
	}
	return 0;
}

/* Fills Location i (and its Lines, *nlines counts those used) from report frame i. */
static int builder__location(struct builder *b, size_t i, size_t *nlines)
{
	const struct report_frame *fr = &b->r->frames[i];
	const char *unmapped = report_kind(b->r, fr->kind)->pprof_file;
	pb_location *loc = &b->locs[i];
	pb_line *line = &b->lines[*nlines];
	int64_t name, filename = 0;

	if (fr->mapping < -1 || (fr->mapping >= 0 && (size_t)fr->mapping >= b->r->nmappings))
		return -EINVAL;
	if (fr->mapping >= 0)
		filename = b->maps[fr->mapping].filename;
	else if (unmapped)
		filename = strtab__intern(&b->st, unmapped);
	name = strtab__intern(&b->st, fr->name);
	if (name < 0 || filename < 0)
		return -ENOSPC;

	perftools__profiles__location__init(loc);
	loc->id = i + 1;
	loc->mapping_id = fr->mapping >= 0 ? b->maps[fr->mapping].id : 0; /* 0: none */
	loc->address = fr->addr;
	loc->n_line = report_frame_depth(fr);
	loc->line = &b->line_ptrs[*nlines];
	b->loc_ptrs[i] = loc;
	*nlines += loc->n_line;
	if (fr->nlines)
		return builder__dwarf_lines(b, fr, line, loc->line);
	perftools__profiles__line__init(line);
	line->function_id = builder__function(b, name, filename);
	loc->line[0] = line;
	return 0;
}

static int builder__locations(struct builder *b)
{
	size_t i, n = b->r->nframes, nl = report_nlines(b->r), nslots = nslots_for(nl), used = 0;
	int err;

	/* A Function per Line at most: room for every one, so adding never fails. */
	b->locs = zalloc(n, sizeof(*b->locs));
	b->loc_ptrs = zalloc(n, sizeof(*b->loc_ptrs));
	b->lines = zalloc(nl, sizeof(*b->lines));
	b->line_ptrs = zalloc(nl, sizeof(*b->line_ptrs));
	b->fns = zalloc(nl, sizeof(*b->fns));
	b->fn_ptrs = zalloc(nl, sizeof(*b->fn_ptrs));
	b->fn_slots = zalloc(nslots, sizeof(*b->fn_slots));
	if (!b->locs || !b->loc_ptrs || !b->lines || !b->line_ptrs || !b->fns || !b->fn_ptrs ||
	    !b->fn_slots)
		return -ENOMEM;
	b->fn_mask = nslots - 1;
	for (i = 0; i < n; i++) {
		err = builder__location(b, i, &used);
		if (err)
			return err;
	}
	b->prof.n_location = n;
	b->prof.location = b->loc_ptrs;
	b->prof.n_function = b->nfns;
	b->prof.function = b->fn_ptrs;
	return 0;
}

/* Appends a label to the current sample's run of labels: str when str_val >= 0, else num. */
static void builder__label(struct builder *b, int64_t key, int64_t str_val, int64_t num)
{
	pb_label *l = &b->labels[b->nlabels];

	perftools__profiles__label__init(l);
	l->key = key;
	if (str_val >= 0)
		l->str = str_val;
	else
		l->num = num;
	b->label_ptrs[b->nlabels++] = l;
}

/* Fills Sample i from report stack i; *nlocs counts location ids used so far. */
static int builder__sample(struct builder *b, size_t i, size_t *nlocs)
{
	const struct report_stack *s = &b->r->stacks[i];
	pb_sample *smp = &b->samples[i];
	int64_t thread, comm;
	uint32_t j;

	perftools__profiles__sample__init(smp);
	smp->n_location_id = s->nframes;
	smp->location_id = &b->loc_ids[*nlocs];
	for (j = 0; j < s->nframes; j++) {
		if (s->frames[j] >= b->r->nframes)
			return -EINVAL;
		smp->location_id[j] = (uint64_t)s->frames[j] + 1; /* leaf first, as in the report */
	}
	*nlocs += s->nframes;
	smp->n_value = b->nvalues;
	smp->value = &b->values[(size_t)b->nvalues * i];
	for (j = 0; j < b->nvalues; j++)
		smp->value[j] = s->values && j < REPORT_MAX_VALUES ? s->values[j] : s->count;
	/* The period's measure follows the event's own values. */
	if (b->prof.period && b->nvalues >= 2)
		smp->value[b->nvalues - 1] = s->count * b->prof.period;

	thread = strtab__intern(&b->st, s->thread);
	comm = strtab__intern(&b->st, s->comm);
	if (thread < 0 || comm < 0)
		return -ENOSPC;
	smp->label = &b->label_ptrs[b->nlabels];
	builder__label(b, S_PID, -1, s->pid);
	builder__label(b, S_TID, -1, s->tid);
	builder__label(b, S_THREAD, thread, 0);
	builder__label(b, S_COMM, comm, 0);
	if (s->truncated)
		builder__label(b, S_TRUNCATED, S_TRUE, 0);
	smp->n_label = NLABELS + s->truncated;
	/* The program's own labels (Go's pprof.Do), as Go's profiler writes them. */
	for (j = 0; j < s->nlabels; j++) {
		int64_t k = strtab__intern(&b->st, s->labels[j].key);
		int64_t v = strtab__intern(&b->st, s->labels[j].value);

		if (k < 0 || v < 0)
			return -ENOSPC;
		builder__label(b, k, v, 0);
		smp->n_label++;
	}
	b->sample_ptrs[i] = smp;
	return 0;
}

static int builder__samples(struct builder *b)
{
	const struct report *r = b->r;
	size_t i, nlocs = 0, nlabels = 0;
	int err;

	for (i = 0; i < r->nstacks; i++) {
		nlocs += r->stacks[i].nframes;
		nlabels += NLABELS + r->stacks[i].truncated + r->stacks[i].nlabels;
	}
	b->samples = zalloc(r->nstacks, sizeof(*b->samples));
	b->sample_ptrs = zalloc(r->nstacks, sizeof(*b->sample_ptrs));
	b->values = zalloc((size_t)b->nvalues * r->nstacks, sizeof(*b->values));
	b->loc_ids = zalloc(nlocs, sizeof(*b->loc_ids));
	b->labels = zalloc(nlabels, sizeof(*b->labels));
	b->label_ptrs = zalloc(nlabels, sizeof(*b->label_ptrs));
	if (!b->samples || !b->sample_ptrs || !b->values || !b->loc_ids || !b->labels ||
	    !b->label_ptrs)
		return -ENOMEM;
	for (i = 0, nlocs = 0; i < r->nstacks; i++) {
		err = builder__sample(b, i, &nlocs);
		if (err)
			return err;
	}
	b->prof.n_sample = r->nstacks;
	b->prof.sample = b->sample_ptrs;
	return 0;
}

static void builder__free(struct builder *b)
{
	if (!b)
		return;
	free(b->label_ptrs);
	free(b->labels);
	free(b->loc_ids);
	free(b->values);
	free(b->sample_ptrs);
	free(b->samples);
	free(b->fn_slots);
	free(b->fn_ptrs);
	free(b->fns);
	free(b->line_ptrs);
	free(b->lines);
	free(b->loc_ptrs);
	free(b->locs);
	free(b->map_ptrs);
	free(b->maps);
	strtab__free(&b->st);
	free(b);
}

/* Builds the whole Profile; on success b->prof is ready to pack. */
static int builder__build(struct builder *b)
{
	const struct report *r = b->r;
	/* Worst case: the fixed strings, two per mapping, a name per frame, a function and
	 * a file per DWARF line, and the thread and process names of every stack. */
	size_t cap = NFIXED + 2 * r->nmappings + r->nframes + 2 * report_nlines(r) +
		     2 * r->nstacks + 2 * (REPORT_MAX_VALUES + 1);
	int err;

	err = strtab__init(&b->st, cap);
	if (!err)
		err = builder__header(b);
	if (!err)
		err = builder__mappings(b);
	if (!err)
		err = builder__locations(b);
	if (!err)
		err = builder__samples(b);
	if (err)
		return err;
	b->prof.n_string_table = b->st.n;
	b->prof.string_table = b->st.table;
	return 0;
}

/*
 * A ProtobufCBuffer that gzips what protobuf-c packs straight into a file, so the
 * serialized profile is never held in memory whole. Input is staged in `in` because
 * protobuf-c appends a few bytes at a time.
 */
struct gz_sink {
	ProtobufCBuffer base; /* first: protobuf-c hands us &base */
	z_stream zs;
	int fd;
	int err;
	size_t nin;
	uint8_t in[64 * 1024];
	uint8_t out[64 * 1024];
};

static int write_all(int fd, const uint8_t *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= w;
	}
	return 0;
}

/* Deflates the staged input (finishing the stream when flush is Z_FINISH) to the file. */
static int gz_sink__flush(struct gz_sink *gz, int flush)
{
	int err;

	gz->zs.next_in = gz->in;
	gz->zs.avail_in = gz->nin;
	do {
		gz->zs.next_out = gz->out;
		gz->zs.avail_out = sizeof(gz->out);
		if (deflate(&gz->zs, flush) == Z_STREAM_ERROR)
			return -EIO;
		err = write_all(gz->fd, gz->out, sizeof(gz->out) - gz->zs.avail_out);
		if (err)
			return err;
	} while (gz->zs.avail_out == 0);
	gz->nin = 0;
	return 0;
}

static void gz_sink__append(ProtobufCBuffer *base, size_t len, const uint8_t *data)
{
	struct gz_sink *gz = (struct gz_sink *)base;
	size_t n;

	while (len && !gz->err) {
		n = sizeof(gz->in) - gz->nin;
		if (n > len)
			n = len;
		memcpy(gz->in + gz->nin, data, n);
		gz->nin += n;
		data += n;
		len -= n;
		if (gz->nin == sizeof(gz->in))
			gz->err = gz_sink__flush(gz, Z_NO_FLUSH);
	}
}

/* Packs p, gzip'd, into the open file fd. */
static int write_gzip_profile(const pb_profile *p, int fd)
{
	struct gz_sink *gz;
	int err = 0;

	gz = calloc(1, sizeof(*gz));
	if (!gz)
		return -ENOMEM;
	gz->base.append = gz_sink__append;
	gz->fd = fd;
	/* windowBits 15 + 16: a gzip wrapper rather than zlib's, as pprof expects. */
	if (deflateInit2(&gz->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		err = -ENOMEM;
		goto cleanup;
	}
	perftools__profiles__profile__pack_to_buffer(p, &gz->base);
	err = gz->err;
	if (!err)
		err = gz_sink__flush(gz, Z_FINISH);
cleanup:
	deflateEnd(&gz->zs); /* safe on a stream deflateInit2 refused */
	free(gz);
	return err;
}

/* Writes p under a temporary name and renames it to path once complete. */
static int write_file(const pb_profile *p, const char *path)
{
	struct atomic_file af;
	int err = atomic_file__open(&af, path);

	if (err)
		return err;
	return atomic_file__finish(&af, write_gzip_profile(p, af.fd));
}

int pprof__write(const struct report *r, const char *path)
{
	struct builder *b;
	int err;

	if (!r || !path)
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->r = r;
	err = builder__build(b);
	if (err)
		goto cleanup;
	err = write_file(&b->prof, path);
cleanup:
	builder__free(b);
	return err;
}
