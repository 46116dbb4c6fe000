// SPDX-License-Identifier: Apache-2.0
/* Unwind table pool. Rows live in chunks, mmapable BPF arrays held by one array of
 * maps: a chunk is created when a table first needs its rows and freed when its last
 * table goes, so kernel memory follows the tables in use. A table is written with
 * memcpy through a short-lived mapping of the pages it covers (none stays mapped, so
 * none counts in ebprof's resident set), in compact rows when every row fits them, and
 * published by one update of unwind_tables, so BPF never sees half a table; then its
 * file's entry in file_tables points the walker at it. Free rows are a list of extents
 * over the chunks' common index space, first fit; when none fits, tables no
 * description holds and the walker has not used for TABLE_POOL_BUSY_S are evicted,
 * least recently used first. */
#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "elf/elf_file.h"
#include "unwind/cfi.h"
#include "unwind/compact.h"
#include "unwind/gorows.h"
#include "unwind/row_index.h"
#include "unwind/tables.h"
#include "util/cancel.h"
#include "util/clock.h"
#include "util/crash.h"
#include "util/hmap.h"
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
	/* Guards everything below: the tracker's thread describes processes while the
	 * builder's builds (the compilation itself runs without it). */
	pthread_mutex_t lock;
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
	struct hmap by_alias;	    /* the entries by their alias (table_pool__alias) */
	struct extent *free;
	size_t nfree, free_cap;
	int files_fd;	      /* file_tables */
	const uint64_t *used; /* table_used, mapped: when the walker last found each table */
	size_t used_len;      /* bytes mapped */
	struct table_pool_stats st;
};

static int alias_eq(const void *entry, const void *key)
{
	const struct unw_file_key *a = &((const struct table_entry *)entry)->alias, *k = key;

	return a->dev == k->dev && a->ino == k->ino;
}

static uint64_t alias_hash(const struct unw_file_key *key)
{
	return hash_bytes(key, sizeof(*key), 0);
}

/* Maps table_used read-only: the walker's times of use, read at every eviction. */
static int map_used(struct table_pool *p, int fd, uint32_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *m;

	p->used_len = ((size_t)n * sizeof(uint64_t) + page - 1) & ~(page - 1);
	m = mmap(NULL, p->used_len, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	p->used = m;
	return 0;
}

struct table_pool *table_pool__new(const struct table_pool_maps *maps)
{
	uint64_t rows = (uint64_t)maps->nchunks << maps->chunk_shift;
	struct table_pool *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return NULL;
	pthread_mutex_init(&p->lock, NULL);
	hmap_init(&p->by_alias, alias_eq);
	p->chunks_fd = maps->chunks_fd;
	p->nchunks = maps->nchunks;
	p->chunk_shift = maps->chunk_shift;
	p->max_rows = (uint32_t)(rows > UINT32_MAX ? UINT32_MAX : rows);
	p->max_tables = maps->max_tables;
	p->tables_fd = maps->tables_fd;
	p->files_fd = maps->files_fd;
	p->chunks = calloc(p->nchunks, sizeof(*p->chunks));
	p->by_id = calloc(p->max_tables, sizeof(*p->by_id));
	p->free = calloc(1, sizeof(*p->free));
	err =
	    p->chunks && p->by_id && p->free ? map_used(p, maps->used_fd, p->max_tables) : -ENOMEM;
	if (err) {
		free(p->chunks);
		p->chunks = NULL;
		p->nchunks = 0;
		table_pool__free(p);
		errno = -err;
		return NULL;
	}
	for (uint32_t i = 0; i < p->nchunks; i++)
		p->chunks[i].fd = -1;
	p->free[0] = (struct extent){0, p->max_rows};
	p->nfree = p->free_cap = 1;
	p->st.rows_max = p->max_rows;
	p->st.chunk_bytes = (uint64_t)sizeof(struct unwind_row) << p->chunk_shift;
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
	hmap_free(&p->by_alias);
	for (uint32_t i = 0; i < p->by_file_cap; i++)
		free(p->by_file[i]);
	for (uint32_t i = 0; i < p->nchunks; i++) {
		if (p->chunks[i].fd >= 0)
			close(p->chunks[i].fd);
	}
	if (p->used)
		munmap((void *)p->used, p->used_len);
	pthread_mutex_destroy(&p->lock);
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

/* Writes what the walker finds of t's file in file_tables: its id, its table (when its
 * state is UNW_FILE_READY), where its code lies, the runtimes that claim it. */
static void publish(struct table_pool *p, struct table_entry *t)
{
	struct unw_file v = {
	    .file_id = t->file_id,
	    .table = t->state == UNW_FILE_READY ? t->id : 0,
	    .state = t->state,
	    .runtimes = t->runtimes,
	};

	for (uint32_t i = 0; i < t->nsegs && v.nsegs < UNW_FILE_SEGS; i++) {
		const struct elf_segment *g = &t->segs[i];
		uint64_t lo = g->offset & ~4095ULL;

		v.segs[v.nsegs].lo = lo;
		v.segs[v.nsegs].span = g->filesz + (g->offset - lo);
		v.segs[v.nsegs++].delta = (int64_t)(g->vaddr - g->offset);
	}
	if (bpf_map_update_elem(p->files_fd, &t->key, &v, BPF_ANY)) {
		if (!t->published)
			p->st.files_full++;
		return;
	}
	p->st.files += !t->published;
	t->published = true;
	if (t->aliased && bpf_map_update_elem(p->files_fd, &t->alias, &v, BPF_ANY))
		t->aliased = false; /* no room: asked for again */
}

/* Takes t's table from the walker (its file says state now) and frees its rows and id; t
 * stays known, and is built again when asked for. */
static void evict(struct table_pool *p, struct table_entry *t, enum unw_file_state state)
{
	struct unw_table empty = {0};

	t->state = state;
	publish(p, t); /* first: no walk starts with the id once it is reused */
	bpf_map_update_elem(p->tables_fd, &t->id, &empty, BPF_ANY);
	extent_give(p, t->first, t->count);
	chunks_put(p, t->first, t->count);
	p->by_id[t->id] = NULL;
	p->st.rows_used -= t->count;
	t->id = t->first = t->count = 0;
}

/* When t was last used: by a description (its release) or by the walker. */
static uint64_t last_use(const struct table_pool *p, const struct table_entry *t)
{
	uint64_t walker = t->id < p->max_tables ? p->used[t->id] : 0;

	return walker > t->released ? walker : t->released;
}

/* The table no description holds that was used least recently, and not within busy_ns
 * before now; NULL when there is none. */
static struct table_entry *oldest_unused(struct table_pool *p, uint64_t now, uint64_t busy_ns)
{
	struct table_entry *best = NULL;
	uint64_t best_use = 0;

	for (uint32_t i = 1; i < p->max_tables; i++) {
		struct table_entry *t = p->by_id[i];
		uint64_t use = t ? last_use(p, t) : 0;

		if (!t || t->refs || now - use < busy_ns || (best && use >= best_use))
			continue;
		best = t;
		best_use = use;
	}
	return best;
}

/* Finds room for count rows, evicting unused tables as needed. Returns first or -1. */
static int64_t make_room(struct table_pool *p, uint32_t count)
{
	uint64_t now = now_ns();
	int64_t first;
	struct table_entry *victim;

	while ((first = extent_take(p, count)) < 0) {
		victim = oldest_unused(p, now, TABLE_POOL_BUSY_S * 1000000000ULL);
		if (!victim)
			return -1;
		evict(p, victim, UNW_FILE_EVICTED);
		p->st.evicted++;
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

/* A table's rows as they go into the pool: compact when every row fits. */
struct pool_rows {
	const struct unwind_row *rows;
	uint32_t n;	/* pool rows */
	uint32_t flags; /* UNW_TABLE_* */
};

/* Compacts ut's rows in place when they all fit, and gives back the half they no longer
 * need; ut->rows is then in pool form, ut->nrows still the table's row count. */
static int pool_rows(struct unwind_table *ut, struct pool_rows *pr)
{
	struct unwind_row *shrunk;

	*pr = (struct pool_rows){.rows = ut->rows, .n = ut->nrows};
	if (unwind_rows__compact(ut->rows, ut->nrows))
		return 0; /* -ERANGE: in full rows */
	pr->n = (ut->nrows + 1) / 2;
	pr->flags = UNW_TABLE_COMPACT;
	shrunk = pr->n ? realloc(ut->rows, (size_t)pr->n * sizeof(*shrunk)) : NULL;
	if (shrunk)
		ut->rows = shrunk;
	pr->rows = ut->rows;
	return 0;
}

/* Copies the rows, then their page index, into the pool from first on. */
static int table_write(struct table_pool *p, uint32_t first, const struct pool_rows *pr,
		       const struct row_index *ix)
{
	int err = rows_write(p, first, pr->rows, pr->n);

	if (!err && ix->nrows)
		err = rows_write(p, first + pr->n, ix->rows, ix->nrows);
	return err;
}

/* An id for t, evicting the least recently used table when all are taken. */
static int take_id(struct table_pool *p, struct table_entry *t)
{
	struct table_entry *victim;

	t->id = free_id(p);
	if (t->id)
		return 0;
	victim = oldest_unused(p, now_ns(), TABLE_POOL_BUSY_S * 1000000000ULL);
	if (!victim)
		return -ENOSPC;
	evict(p, victim, UNW_FILE_EVICTED);
	p->st.evicted++;
	t->id = free_id(p);
	return t->id ? 0 : -ENOSPC;
}

/* Finds the room for t's total rows and makes their chunks; -ENOSPC when it did not fit
 * (a chunk the kernel cannot allocate is a table that did not fit). */
static int place(struct table_pool *p, struct table_entry *t, uint32_t total)
{
	int64_t first;
	int err;

	t->need = total;
	err = total > p->max_rows ? -ENOSPC : take_id(p, t);
	first = err ? -1 : make_room(p, total);
	if (first < 0) {
		t->id = 0;
		return -ENOSPC;
	}
	err = chunks_get(p, first, total);
	if (err) {
		extent_give(p, first, total);
		t->id = 0;
		return -ENOSPC;
	}
	t->first = first;
	t->count = total;
	return 0;
}

/* A table compiled, not yet in the pool: what the build does without the pool's lock. */
struct compiled {
	struct unwind_table ut;
	struct row_index ix;
	struct pool_rows pr;
	uint32_t ngo; /* rows from a Go pclntab */
	uint32_t nsegs;
	struct elf_segment segs[TABLE_MAX_SEGMENTS]; /* executable ones */
};

static void compiled_free(struct compiled *c)
{
	row_index__free(&c->ix);
	unwind_table__free(&c->ut);
}

/* Keeps the executable segments: only code is unwound, and only executable mappings are
 * described (a read-only segment can share the code's first page: lld does that). */
static int read_segments(const struct elf_file *e, struct compiled *c)
{
	const struct elf_segment *segs;
	size_t n;

	segs = elf_file__segments(e, &n);
	for (size_t i = 0; i < n && c->nsegs < TABLE_MAX_SEGMENTS; i++)
		if (segs[i].flags & PF_X)
			c->segs[c->nsegs++] = segs[i];
	return c->nsegs ? 0 : -ENOEXEC;
}

/* Compiles the CFI of the file open as e (and on fd, for Go's pclntab) into c, its page
 * index and its pool form: the slow part of a build, which touches no pool state. A
 * stop (cancel) is heeded throughout. 0, -ENODATA (no CFI: frame pointers there), or
 * another negative errno. */
static int compile(const struct elf_file *e, int fd, const bool *cancel, struct compiled *c)
{
	int err = read_segments(e, c);

	if (!err)
		err = unwind_table__build_elf(e, NULL, cancel, &c->ut);
	/* Go code has no CFI of its own: rows from its pclntab (needs the file's fd). */
	if (!err && fd >= 0)
		err = unwind_table__add_go(&c->ut, fd, cancel, &c->ngo);
	if (!err)
		err = c->ut.nrows ? row_index__build(c->ut.rows, c->ut.nrows, &c->ix) : -ENODATA;
	if (!err)
		err = pool_rows(&c->ut, &c->pr);
	if (!err && cancel__requested(cancel))
		err = -ECANCELED;
	return err;
}

/* Copies a compiled table's rows and page index into the pool and publishes it as t.
 * t->count is what it takes of the pool: the rows and the index. Under the lock; past
 * the cancel point (the rest is short, and undoing it would cost the same RCU grace
 * periods as finishing it). */
static int install(struct table_pool *p, struct table_entry *t, struct compiled *c)
{
	struct unw_table pub;
	int err = place(p, t, c->pr.n + c->ix.nrows);

	if (err == -ENOSPC)
		p->st.no_room++;
	if (err)
		return err;
	memcpy(t->segs, c->segs, sizeof(c->segs));
	t->nsegs = c->nsegs;
	err = table_write(p, t->first, &c->pr, &c->ix);
	pub = (struct unw_table){
	    .first = t->first,
	    .count = c->ut.nrows,
	    .pages = c->ix.pages,
	    .base = c->ix.base,
	    .index = t->first + c->pr.n,
	    .flags = c->pr.flags,
	};
	if (!err)
		err = bpf_map_update_elem(p->tables_fd, &t->id, &pub, BPF_ANY) ? -errno : 0;
	if (err) {
		extent_give(p, t->first, t->count);
		chunks_put(p, t->first, t->count);
		t->id = t->first = t->count = 0;
		return err;
	}
	p->by_id[t->id] = t;
	p->st.rows_used += t->count;
	p->st.compact += c->pr.flags != 0;
	p->st.go_tables += c->ngo > 0;
	return 0;
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

/* What a build's end makes of t: built, failed (no CFI, unreadable), did not fit (tried
 * again later), or cancelled (left as it was, neither built nor failed: the next acquire
 * builds it; nothing of it reached the pool or BPF). */
static void build_done(struct table_pool *p, struct table_entry *t, const char *path, int err)
{
	if (err == -ECANCELED) {
		t->nsegs = 0; /* read again by the next build */
		p->st.cancelled++;
		return;
	}
	t->err = -err;
	t->state = err == -ENOSPC ? UNW_FILE_NO_ROOM : err ? UNW_FILE_NO_CFI : UNW_FILE_READY;
	if (err == -ENOSPC)
		t->failed_at = now_ns();
	if (t->err) {
		p->st.failed++;
		pr_debug("no unwind table for %s: %s", path, strerror(t->err));
	} else {
		p->st.built++;
	}
	publish(p, t);
}

/* Rows a table could have now: the free ones and those of tables an eviction may take. */
static uint64_t room(const struct table_pool *p, uint64_t now)
{
	uint64_t rows = 0;

	for (size_t i = 0; i < p->nfree; i++)
		rows += p->free[i].count;
	for (uint32_t i = 1; i < p->max_tables; i++) {
		const struct table_entry *t = p->by_id[i];

		if (t && !t->refs && now - last_use(p, t) >= TABLE_POOL_BUSY_S * 1000000000ULL)
			rows += t->count;
	}
	return rows;
}

/* table_pool__wants, under the lock. */
static bool wants(const struct table_pool *p, const struct table_entry *t, uint64_t now)
{
	if (!t || (!t->id && !t->err))
		return true;
	if (t->err == ENOSPC && now - t->failed_at >= TABLE_POOL_RETRY_S * 1000000000ULL &&
	    room(p, now) >= t->need)
		return true;
	return !t->published;
}

bool table_pool__wants(struct table_pool *p, const struct table_entry *t, uint64_t now)
{
	bool w;

	pthread_mutex_lock(&p->lock);
	w = wants(p, t, now);
	pthread_mutex_unlock(&p->lock);
	return w;
}

struct table_entry *table_pool__hold(struct table_pool *p, struct table_entry *t)
{
	pthread_mutex_lock(&p->lock);
	if (t)
		t->refs++;
	pthread_mutex_unlock(&p->lock);
	return t;
}

struct table_entry *table_pool__find(struct table_pool *p, uint32_t file_id)
{
	struct table_entry *t;

	pthread_mutex_lock(&p->lock);
	t = file_id < p->by_file_cap ? p->by_file[file_id] : NULL;
	pthread_mutex_unlock(&p->lock);
	return t;
}

/* The kernel's identity of f (file_tables' key): /proc/PID/maps gave its device as major
 * and minor numbers, which the kernel keeps as major << 20 | minor. */
static struct unw_file_key file_key(const struct file_entry *f)
{
	return (struct unw_file_key){
	    .dev = (uint64_t)major(f->dev) << 20 | minor(f->dev),
	    .ino = f->ino,
	};
}

/* Indexes t by key in place of its old alias. A key is one file's: another entry that
 * had it (a file deleted, its inode reused) loses it. Without room to index it, the
 * tracker reads the process's maps at the walker's notices instead: slower, the same. */
static void alias_index(struct table_pool *p, struct table_entry *t, const struct unw_file_key *key)
{
	struct table_entry *had;

	if (hmap_find(&p->by_alias, alias_hash(&t->alias), &t->alias) == t)
		hmap_remove(&p->by_alias, alias_hash(&t->alias), &t->alias);
	had = hmap_remove(&p->by_alias, alias_hash(key), key);
	if (had)
		had->aliased = false;
	hmap_insert(&p->by_alias, alias_hash(key), t);
}

void table_pool__alias(struct table_pool *p, const struct file_entry *f,
		       const struct unw_file_key *key)
{
	struct unw_file_key own = file_key(f);
	struct table_entry *t;

	if (own.dev == key->dev && own.ino == key->ino)
		return;
	pthread_mutex_lock(&p->lock);
	t = entry_for(p, f->id);
	if (t && !(t->aliased && alias_eq(t, key))) {
		alias_index(p, t, key);
		t->alias = *key;
		t->aliased = true;
		p->st.aliases++;
		if (t->published)
			publish(p, t);
	}
	pthread_mutex_unlock(&p->lock);
}

uint32_t table_pool__aliased(struct table_pool *p, const struct unw_file_key *key)
{
	struct table_entry *t;
	uint32_t id = 0;

	pthread_mutex_lock(&p->lock);
	t = hmap_find(&p->by_alias, alias_hash(key), key);
	if (t && t->aliased)
		id = t->file_id;
	pthread_mutex_unlock(&p->lock);
	return id;
}

/* Under the lock: t, f's entry, with one more reference and the runtimes that claim the
 * file now, published when that changed. True when it must be built (open: f can be
 * read). */
static bool acquire_begin(struct table_pool *p, struct table_entry *t, const struct file_entry *f,
			  bool open, uint32_t runtimes)
{
	bool claims = false;

	t->refs++;
	if (!t->published)
		t->key = file_key(f);
	if (t->runtimes != runtimes) {
		t->runtimes = runtimes;
		claims = t->published;
	}
	if (!wants(p, t, now_ns()) || !open) {
		if (claims)
			publish(p, t);
		return false;
	}
	t->err = 0;
	if (t->id) {
		publish(p, t);
		return false;
	}
	return true;
}

struct table_entry *table_pool__acquire_elf(struct table_pool *p, struct file_entry *f,
					    const struct elf_file *e, uint32_t runtimes,
					    const bool *cancel)
{
	static struct table_entry unusable = {.err = ENOMEM};
	struct elf_file *own = NULL;
	struct compiled c = {0};
	struct table_entry *t;
	uint64_t t0 = now_ns();
	bool build;
	int err;

	pthread_mutex_lock(&p->lock);
	t = entry_for(p, f->id);
	build = t && acquire_begin(p, t, f, e || f->fd >= 0, runtimes);
	pthread_mutex_unlock(&p->lock);
	if (!t)
		return &unusable;
	if (!build)
		return t;
	if (!e && !(e = own = elf_file__open(f->fd)))
		err = -errno;
	else
		err = compile(e, f->fd, cancel, &c);
	pthread_mutex_lock(&p->lock);
	if (!err)
		err = install(p, t, &c);
	p->st.build_ns += now_ns() - t0;
	build_done(p, t, f->path, err);
	pthread_mutex_unlock(&p->lock);
	compiled_free(&c);
	elf_file__free(own);
	return t;
}

void table_pool__expire(struct table_pool *p, uint64_t now, uint64_t idle_ns)
{
	pthread_mutex_lock(&p->lock);
	for (uint32_t i = 1; i < p->max_tables; i++) {
		struct table_entry *t = p->by_id[i];

		if (t && !t->refs && now - last_use(p, t) >= idle_ns) {
			evict(p, t, UNW_FILE_EXPIRED);
			p->st.expired++;
		}
	}
	pthread_mutex_unlock(&p->lock);
}

struct table_entry *table_pool__acquire(struct table_pool *p, struct file_entry *f,
					uint32_t runtimes, const bool *cancel)
{
	return table_pool__acquire_elf(p, f, NULL, runtimes, cancel);
}

void table_pool__release(struct table_pool *p, struct table_entry *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&p->lock);
	if (t->refs && --t->refs == 0)
		t->released = now_ns();
	pthread_mutex_unlock(&p->lock);
}

bool table_entry__vaddr_bias(const struct table_entry *t, uint64_t start, uint64_t pgoff,
			     uint64_t *bias)
{
	return elf_segments__vaddr_bias(t->segs, t->nsegs, start, pgoff, bias);
}

void table_pool__stats(struct table_pool *p, struct table_pool_stats *out)
{
	pthread_mutex_lock(&p->lock);
	*out = p->st;
	pthread_mutex_unlock(&p->lock);
}
