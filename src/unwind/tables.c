// SPDX-License-Identifier: Apache-2.0
/* Unwind table pool. Rows live in chunks, mmapable BPF arrays held by one array of
 * maps: a chunk is created when a table first needs its rows and freed when its last
 * table goes, so kernel memory follows the tables in use. A table is written with
 * memcpy through a short-lived mapping of the pages it covers (none stays mapped, so
 * none counts in ebprof's resident set) and published by one update of
 * unwind_tables, so BPF never sees half a table. Free rows are a list of extents over
 * the chunks' common index space, first fit; when none fits, tables no process uses
 * are evicted, least recently released first. */
#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "elf/elf_file.h"
#include "unwind/cfi.h"
#include "unwind/gorows.h"
#include "unwind/row_index.h"
#include "unwind/tables.h"
#include "util/cancel.h"
#include "util/clock.h"
#include "util/crash.h"
#include "util/log.h"

struct extent {
	uint32_t first;
	uint32_t count;
};

/* Putting a chunk in the array of maps makes the kernel wait for an RCU grace period (no
 * running program may still see the slot empty): 5-30 ms each on a busy 2-CPU host, which
 * a start-up building the tables of every process paid a dozen times in a row (a large
 * table spans several chunks), doubling its build time. So the chunks a table needs are
 * made on threads of their own at once, which wait out one grace period together, and
 * when the pool grows the next chunk is made ahead: at most one empty chunk waits. */
struct chunk_job {
	pthread_t thread;
	bool running; /* started and not joined yet */
	int chunks_fd;
	uint32_t slot, rows;
	int fd; /* the result: the chunk, or -1 with err */
	int err;
};

struct chunk {
	int fd;	       /* -1 while the chunk does not exist */
	uint32_t used; /* rows of live tables in it */
	struct chunk_job job;
};

struct table_pool {
	int chunks_fd; /* the unwind_rows array of maps */
	struct chunk *chunks;
	uint32_t nchunks;
	uint32_t chunk_shift;
	uint32_t max_rows;
	int tables_fd;
	uint32_t max_tables;
	struct table_entry **by_file; /* index: file id */
	uint32_t by_file_cap;
	struct table_entry **by_id; /* index: table id; 0 unused */
	struct extent *free;
	size_t nfree, free_cap;
	struct table_pool_stats st;
};

struct table_pool *table_pool__new(int chunks_fd, uint32_t nchunks, uint32_t chunk_shift,
				   int tables_fd, uint32_t max_tables)
{
	struct table_pool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->chunks_fd = chunks_fd;
	p->nchunks = nchunks;
	p->chunk_shift = chunk_shift;
	p->max_rows = (uint32_t)((uint64_t)nchunks << chunk_shift > UINT32_MAX
				     ? UINT32_MAX
				     : (uint64_t)nchunks << chunk_shift);
	p->max_tables = max_tables;
	p->tables_fd = tables_fd;
	p->chunks = calloc(nchunks, sizeof(*p->chunks));
	p->by_id = calloc(max_tables, sizeof(*p->by_id));
	p->free = calloc(1, sizeof(*p->free));
	if (!p->chunks || !p->by_id || !p->free) {
		free(p->chunks);
		p->chunks = NULL;
		p->nchunks = 0;
		table_pool__free(p);
		errno = ENOMEM;
		return NULL;
	}
	for (uint32_t i = 0; i < nchunks; i++)
		p->chunks[i].fd = -1;
	p->free[0] = (struct extent){0, p->max_rows};
	p->nfree = p->free_cap = 1;
	p->st.rows_max = p->max_rows;
	p->st.chunk_bytes = (uint64_t)sizeof(struct unwind_row) << chunk_shift;
	return p;
}

static int job_finish(struct table_pool *p, uint32_t i);

/* The kernel frees a chunk once the array of maps and every descriptor let it go. */
void table_pool__free(struct table_pool *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->nchunks; i++) {
		if (p->chunks[i].job.running)
			job_finish(p, i); /* then closed below */
	}
	for (uint32_t i = 0; i < p->by_file_cap; i++)
		free(p->by_file[i]);
	for (uint32_t i = 0; i < p->nchunks; i++) {
		if (p->chunks[i].fd >= 0)
			close(p->chunks[i].fd);
	}
	free(p->chunks);
	free(p->by_file);
	free(p->by_id);
	free(p->free);
	free(p);
}

/* Creates a chunk of rows rows and puts it in slot of the array of maps chunks_fd.
 * Returns 0 with its descriptor in *out, or a negative errno. */
static int chunk_make(int chunks_fd, uint32_t slot, uint32_t rows, int *out)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "unwind_chunk", sizeof(uint32_t),
				sizeof(struct unwind_row), rows, &opts);
	int err;

	if (fd < 0)
		return -errno;
	err = bpf_map_update_elem(chunks_fd, &slot, &fd, BPF_ANY) ? -errno : 0;
	if (err) {
		close(fd);
		return err;
	}
	*out = fd;
	return 0;
}

static void chunk_adopt(struct table_pool *p, uint32_t i, int fd)
{
	p->chunks[i].fd = fd;
	if (++p->st.chunks > p->st.chunks_peak)
		p->st.chunks_peak = p->st.chunks;
}

static void *job_main(void *arg)
{
	struct chunk_job *j = arg;

	pthread_setname_np(pthread_self(), "ebprof-chunk");
	j->err = chunk_make(j->chunks_fd, j->slot, j->rows, &j->fd);
	return NULL;
}

/* Starts making chunk i on a thread, unless it exists or is being made. */
static void job_start(struct table_pool *p, uint32_t i)
{
	struct chunk_job *j = &p->chunks[i].job;

	if (p->chunks[i].fd >= 0 || j->running)
		return;
	*j = (struct chunk_job){
	    .chunks_fd = p->chunks_fd, .slot = i, .rows = 1u << p->chunk_shift, .fd = -1};
	j->running = !crash__thread_create(&j->thread, job_main, j);
}

/* Makes chunk i exist: waits for its thread if one was started, else makes it now.
 * Returns 0 or a negative errno. */
static int job_finish(struct table_pool *p, uint32_t i)
{
	struct chunk_job *j = &p->chunks[i].job;
	int fd, err;

	if (p->chunks[i].fd >= 0 && !j->running)
		return 0;
	if (j->running) {
		pthread_join(j->thread, NULL);
		j->running = false;
		fd = j->fd;
		err = j->err;
	} else {
		err = chunk_make(p->chunks_fd, i, 1u << p->chunk_shift, &fd);
	}
	if (err)
		return err;
	chunk_adopt(p, i, fd);
	return 0;
}

/* Starts making the lowest missing chunk, unless one is being made or an empty one is
 * there already. */
static void ahead_start(struct table_pool *p)
{
	uint32_t slot = UINT32_MAX;

	for (uint32_t i = 0; i < p->nchunks; i++) {
		if (p->chunks[i].job.running || (p->chunks[i].fd >= 0 && !p->chunks[i].used))
			return;
		if (p->chunks[i].fd < 0 && slot == UINT32_MAX)
			slot = i;
	}
	if (slot != UINT32_MAX)
		job_start(p, slot);
}

static void chunk_destroy(struct table_pool *p, uint32_t i)
{
	bpf_map_delete_elem(p->chunks_fd, &i);
	close(p->chunks[i].fd);
	p->chunks[i].fd = -1;
	p->st.chunks--;
}

/* Drops count rows from first on from their chunks' use counts; frees emptied chunks. */
static void chunks_put(struct table_pool *p, uint32_t first, uint32_t count)
{
	uint32_t mask = (1u << p->chunk_shift) - 1;

	while (count) {
		uint32_t i = first >> p->chunk_shift;
		uint32_t n = mask - (first & mask) + 1;

		if (n > count)
			n = count;
		p->chunks[i].used -= n;
		if (!p->chunks[i].used && p->chunks[i].fd >= 0)
			chunk_destroy(p, i);
		first += n;
		count -= n;
	}
}

/* Makes the chunks of rows [first, first + count) exist and counts the rows in them.
 * Returns 0 or a negative errno, with nothing held. */
static int chunks_get(struct table_pool *p, uint32_t first, uint32_t count)
{
	uint32_t lo = first >> p->chunk_shift, hi = (first + count - 1) >> p->chunk_shift;
	uint32_t mask = (1u << p->chunk_shift) - 1, done = 0;
	bool grew = false;
	int err = 0;

	if (!count)
		return 0;
	for (uint32_t i = lo; i <= hi; i++) {
		grew |= p->chunks[i].fd < 0;
		job_start(p, i);
	}
	for (uint32_t i = lo; i <= hi; i++) {
		int e = job_finish(p, i);

		err = err ? err : e;
	}
	while (!err && done < count) {
		uint32_t at = first + done, i = at >> p->chunk_shift;
		uint32_t n = mask - (at & mask) + 1;

		if (n > count - done)
			n = count - done;
		p->chunks[i].used += n;
		done += n;
	}
	if (err) {
		/* What was made for this table alone goes again. */
		for (uint32_t i = lo; i <= hi; i++) {
			if (p->chunks[i].fd >= 0 && !p->chunks[i].used)
				chunk_destroy(p, i);
		}
	} else if (grew) {
		ahead_start(p);
	}
	return err;
}

/* Copies rows into pool rows [first, first + count), one short mapping per chunk. */
static int rows_write(struct table_pool *p, uint32_t first, const struct unwind_row *rows,
		      uint32_t count)
{
	uint32_t mask = (1u << p->chunk_shift) - 1;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	while (count) {
		uint32_t i = first >> p->chunk_shift, off = first & mask;
		uint32_t n = mask - off + 1;
		size_t start, end;
		char *map;

		if (n > count)
			n = count;
		start = (size_t)off * sizeof(*rows) & ~(page - 1);
		end = ((size_t)(off + n) * sizeof(*rows) + page - 1) & ~(page - 1);
		map = mmap(NULL, end - start, PROT_READ | PROT_WRITE, MAP_SHARED, p->chunks[i].fd,
			   (off_t)start);
		if (map == MAP_FAILED)
			return -errno;
		memcpy(map + (size_t)off * sizeof(*rows) - start, rows, (size_t)n * sizeof(*rows));
		munmap(map, end - start);
		first += n;
		rows += n;
		count -= n;
	}
	return 0;
}

/* Returns the first row of count free rows taken from the free list, or -1. */
static int64_t extent_take(struct table_pool *p, uint32_t count)
{
	for (size_t i = 0; i < p->nfree; i++) {
		struct extent *e = &p->free[i];
		uint32_t first = e->first;

		if (e->count < count)
			continue;
		e->first += count;
		e->count -= count;
		if (!e->count)
			memmove(e, e + 1, (--p->nfree - i) * sizeof(*e));
		return first;
	}
	return -1;
}

/* Returns rows to the free list, kept sorted and merged with its neighbours. */
static int extent_give(struct table_pool *p, uint32_t first, uint32_t count)
{
	size_t i = 0;

	while (i < p->nfree && p->free[i].first < first)
		i++;
	if (i > 0 && p->free[i - 1].first + p->free[i - 1].count == first) {
		p->free[i - 1].count += count;
		if (i < p->nfree && first + count == p->free[i].first) {
			p->free[i - 1].count += p->free[i].count;
			memmove(&p->free[i], &p->free[i + 1], (--p->nfree - i) * sizeof(*p->free));
		}
		return 0;
	}
	if (i < p->nfree && first + count == p->free[i].first) {
		p->free[i].first = first;
		p->free[i].count += count;
		return 0;
	}
	if (p->nfree == p->free_cap) {
		size_t cap = p->free_cap * 2;
		struct extent *v = realloc(p->free, cap * sizeof(*v));

		if (!v)
			return -ENOMEM; /* the rows leak until exit; nothing breaks */
		p->free = v;
		p->free_cap = cap;
	}
	memmove(&p->free[i + 1], &p->free[i], (p->nfree - i) * sizeof(*p->free));
	p->free[i] = (struct extent){first, count};
	p->nfree++;
	return 0;
}

/* Unpublishes t and frees its rows and id; t stays known (and rebuildable). */
static void evict(struct table_pool *p, struct table_entry *t)
{
	struct unw_table empty = {0};

	bpf_map_update_elem(p->tables_fd, &t->id, &empty, BPF_ANY);
	extent_give(p, t->first, t->count);
	chunks_put(p, t->first, t->count);
	p->by_id[t->id] = NULL;
	p->st.rows_used -= t->count;
	p->st.evicted++;
	t->id = t->first = t->count = 0;
}

static struct table_entry *oldest_unused(struct table_pool *p)
{
	struct table_entry *best = NULL;

	for (uint32_t i = 1; i < p->max_tables; i++) {
		struct table_entry *t = p->by_id[i];

		if (t && !t->refs && (!best || t->released < best->released))
			best = t;
	}
	return best;
}

/* Finds room for count rows, evicting unused tables as needed. Returns first or -1. */
static int64_t make_room(struct table_pool *p, uint32_t count)
{
	int64_t first;
	struct table_entry *victim;

	while ((first = extent_take(p, count)) < 0) {
		victim = oldest_unused(p);
		if (!victim)
			return -1;
		evict(p, victim);
	}
	return first;
}

static uint32_t free_id(const struct table_pool *p)
{
	for (uint32_t i = 1; i < p->max_tables; i++) {
		if (!p->by_id[i])
			return i;
	}
	return 0;
}

/* Keeps the executable segments: only code is unwound, and only executable mappings are
 * described (a read-only segment can share the code's first page: lld does that). */
static int read_segments(const struct elf_file *e, struct table_entry *t)
{
	const struct elf_segment *segs;
	size_t n;

	segs = elf_file__segments(e, &n);
	for (size_t i = 0; i < n && t->nsegs < TABLE_MAX_SEGMENTS; i++)
		if (segs[i].flags & PF_X)
			t->segs[t->nsegs++] = segs[i];
	return t->nsegs ? 0 : -ENOEXEC;
}

/* Copies the rows, then their page index, into the pool from first on. */
static int table_write(struct table_pool *p, uint32_t first, const struct unwind_table *ut,
		       const struct row_index *ix)
{
	int err = rows_write(p, first, ut->rows, ut->nrows);

	if (!err && ix->nrows)
		err = rows_write(p, first + ut->nrows, ix->rows, ix->nrows);
	return err;
}

/* Compiles f's CFI and copies the rows and their page index into the pool; publishes the
 * table. t->count is what it takes of the pool: the rows and the index. A stop (cancel)
 * is heeded until the pool is touched: past that point the rest (chunks, copy, publish)
 * is short, and undoing it would cost the same grace periods as finishing it. */
static int build(struct table_pool *p, struct table_entry *t, const struct elf_file *e, int fd,
		 const bool *cancel)
{
	struct unwind_table ut = {0};
	struct row_index ix = {0};
	struct unw_table pub;
	uint32_t ngo = 0, total;
	int64_t first;
	int err;

	err = unwind_table__build_elf(e, NULL, cancel, &ut);
	/* Go code has no CFI of its own: rows from its pclntab (needs the file's fd). */
	if (!err && fd >= 0)
		err = unwind_table__add_go(&ut, fd, cancel, &ngo);
	if (err) {
		unwind_table__free(&ut);
		return err;
	}
	p->st.go_tables += ngo > 0;
	err = ut.nrows ? row_index__build(ut.rows, ut.nrows, &ix) : -ENODATA;
	if (!err && cancel__requested(cancel))
		err = -ECANCELED;
	if (err)
		goto out; /* -ENODATA: no CFI, frame pointers there */
	total = ut.nrows + ix.nrows;
	err = -ENOSPC;
	if (total > p->max_rows)
		goto out;
	t->id = free_id(p);
	if (!t->id) {
		struct table_entry *victim = oldest_unused(p);

		if (!victim)
			goto out;
		evict(p, victim);
		t->id = free_id(p);
	}
	first = make_room(p, total);
	if (first < 0) {
		t->id = 0;
		p->st.no_room++;
		goto out;
	}
	/* A chunk the kernel cannot allocate is a table that did not fit. */
	err = chunks_get(p, first, total);
	if (err) {
		extent_give(p, first, total);
		t->id = 0;
		p->st.no_room++;
		goto out;
	}
	t->first = first;
	t->count = total;
	err = table_write(p, t->first, &ut, &ix);
	pub = (struct unw_table){t->first, ut.nrows, ix.pages, ix.base};
	if (!err)
		err = bpf_map_update_elem(p->tables_fd, &t->id, &pub, BPF_ANY) ? -errno : 0;
	if (err) {
		extent_give(p, t->first, t->count);
		chunks_put(p, t->first, t->count);
		t->id = t->first = t->count = 0;
		goto out;
	}
	p->by_id[t->id] = t;
	p->st.rows_used += t->count;
out:
	row_index__free(&ix);
	unwind_table__free(&ut);
	return err;
}

static struct table_entry *entry_for(struct table_pool *p, uint32_t file_id)
{
	if (file_id >= p->by_file_cap) {
		uint32_t cap = file_id * 2 + 16;
		struct table_entry **v = realloc(p->by_file, cap * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + p->by_file_cap, 0, (cap - p->by_file_cap) * sizeof(*v));
		p->by_file = v;
		p->by_file_cap = cap;
	}
	if (!p->by_file[file_id]) {
		p->by_file[file_id] = calloc(1, sizeof(struct table_entry));
		if (p->by_file[file_id])
			p->by_file[file_id]->file_id = file_id;
	}
	return p->by_file[file_id];
}

/* Reads the file's segments and builds its table; 0 or a negative errno. */
static int table_build(struct table_pool *p, struct table_entry *t, const struct elf_file *e,
		       int fd, const bool *cancel)
{
	uint64_t t0 = now_ns();
	int err;

	err = read_segments(e, t);
	if (!err)
		err = build(p, t, e, fd, cancel);
	p->st.build_ns += now_ns() - t0;
	return err;
}

/* A cancelled build leaves t as it was, neither built nor failed: the next acquire
 * builds it (nothing of it reached the pool or BPF). */
static void build_done(struct table_pool *p, struct table_entry *t, const char *path, int err)
{
	if (err == -ECANCELED) {
		t->nsegs = 0; /* read again by the next build */
		p->st.cancelled++;
		return;
	}
	t->err = -err;
	if (t->err) {
		p->st.failed++;
		pr_debug("no unwind table for %s: %s", path, strerror(t->err));
	} else {
		p->st.built++;
	}
}

struct table_entry *table_pool__acquire_elf(struct table_pool *p, struct file_entry *f,
					    const struct elf_file *e, const bool *cancel)
{
	static struct table_entry unusable = {.err = ENOMEM};
	struct table_entry *t = entry_for(p, f->id);
	struct elf_file *own = NULL;

	if (!t)
		return &unusable;
	t->refs++;
	if (t->id || t->err)
		return t;
	if (!e && f->fd < 0) {
		t->err = EBADF;
		return t;
	}
	if (!e && !(e = own = elf_file__open(f->fd)))
		build_done(p, t, f->path, -errno);
	else
		build_done(p, t, f->path, table_build(p, t, e, f->fd, cancel));
	elf_file__free(own);
	return t;
}

void table_pool__expire(struct table_pool *p, uint64_t now, uint64_t idle_ns)
{
	for (uint32_t i = 1; i < p->max_tables; i++) {
		struct table_entry *t = p->by_id[i];

		if (t && !t->refs && now - t->released >= idle_ns) {
			evict(p, t);
			p->st.evicted--; /* not for room: counted apart */
			p->st.expired++;
		}
	}
}

struct table_entry *table_pool__acquire(struct table_pool *p, struct file_entry *f,
					const bool *cancel)
{
	return table_pool__acquire_elf(p, f, NULL, cancel);
}

void table_pool__release(struct table_pool *p, struct table_entry *t)
{
	if (!t || !t->refs)
		return;
	if (--t->refs == 0)
		t->released = now_ns();
}

bool table_entry__vaddr_bias(const struct table_entry *t, uint64_t start, uint64_t pgoff,
			     uint64_t *bias)
{
	return elf_segments__vaddr_bias(t->segs, t->nsegs, start, pgoff, bias);
}

void table_pool__stats(const struct table_pool *p, struct table_pool_stats *out)
{
	*out = p->st;
}
