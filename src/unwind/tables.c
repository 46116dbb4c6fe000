// SPDX-License-Identifier: Apache-2.0
/* Unwind table pool. Rows live in one mmapable BPF array: a table is written there with
 * memcpy and published by one update of unwind_tables, so BPF never sees half a table.
 * Free space is a list of extents, first fit; when none fits, tables no process uses
 * are evicted, least recently released first. */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "elf/elf_file.h"
#include "unwind/cfi.h"
#include "unwind/tables.h"
#include "util/log.h"

struct extent {
	uint32_t first;
	uint32_t count;
};

struct table_pool {
	struct unwind_row *rows; /* the mmapped unwind_rows map */
	size_t rows_bytes;
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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct table_pool *table_pool__new(int rows_fd, uint32_t max_rows, int tables_fd,
				   uint32_t max_tables)
{
	struct table_pool *p = calloc(1, sizeof(*p));
	long page = sysconf(_SC_PAGESIZE);

	if (!p)
		return NULL;
	p->max_rows = max_rows;
	p->max_tables = max_tables;
	p->tables_fd = tables_fd;
	p->rows_bytes = ((size_t)max_rows * sizeof(struct unwind_row) + page - 1) & ~(page - 1);
	p->rows = mmap(NULL, p->rows_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, rows_fd, 0);
	p->by_id = calloc(max_tables, sizeof(*p->by_id));
	p->free = calloc(1, sizeof(*p->free));
	if (p->rows == MAP_FAILED || !p->by_id || !p->free)
		goto fail;
	p->free[0] = (struct extent){0, max_rows};
	p->nfree = p->free_cap = 1;
	p->st.rows_max = max_rows;
	return p;
fail:
	if (p->rows == MAP_FAILED)
		p->rows = NULL;
	table_pool__free(p);
	errno = ENOMEM;
	return NULL;
}

void table_pool__free(struct table_pool *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->by_file_cap; i++)
		free(p->by_file[i]);
	free(p->by_file);
	free(p->by_id);
	free(p->free);
	if (p->rows)
		munmap(p->rows, p->rows_bytes);
	free(p);
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

/* Compiles f's CFI and copies the rows into the pool; publishes the table. */
static int build(struct table_pool *p, struct table_entry *t, const struct elf_file *e)
{
	struct unwind_table ut = {0};
	struct unw_table pub;
	int64_t first;
	int err;

	err = unwind_table__build_elf(e, NULL, &ut);
	if (err)
		return err;
	err = ut.nrows ? -ENOSPC : -ENODATA; /* no CFI: frame pointers there */
	if (!ut.nrows || ut.nrows > p->max_rows)
		goto out;
	t->id = free_id(p);
	if (!t->id) {
		struct table_entry *victim = oldest_unused(p);

		if (!victim)
			goto out;
		evict(p, victim);
		t->id = free_id(p);
	}
	first = make_room(p, ut.nrows);
	if (first < 0) {
		t->id = 0;
		p->st.no_room++;
		goto out;
	}
	memcpy(&p->rows[first], ut.rows, (size_t)ut.nrows * sizeof(*ut.rows));
	t->first = first;
	t->count = ut.nrows;
	pub = (struct unw_table){t->first, t->count};
	err = bpf_map_update_elem(p->tables_fd, &t->id, &pub, BPF_ANY) ? -errno : 0;
	if (err) {
		extent_give(p, t->first, t->count);
		t->id = t->first = t->count = 0;
		goto out;
	}
	p->by_id[t->id] = t;
	p->st.rows_used += t->count;
out:
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
static int table_build(struct table_pool *p, struct table_entry *t, const struct elf_file *e)
{
	uint64_t t0 = now_ns();
	int err;

	err = read_segments(e, t);
	if (!err)
		err = build(p, t, e);
	p->st.build_ns += now_ns() - t0;
	return err;
}

struct table_entry *table_pool__acquire_elf(struct table_pool *p, struct file_entry *f,
					    const struct elf_file *e)
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
		t->err = errno;
	else
		t->err = -table_build(p, t, e);
	elf_file__free(own);
	if (t->err) {
		p->st.failed++;
		pr_debug("no unwind table for %s: %s", f->path, strerror(t->err));
	} else {
		p->st.built++;
	}
	return t;
}

struct table_entry *table_pool__acquire(struct table_pool *p, struct file_entry *f)
{
	return table_pool__acquire_elf(p, f, NULL);
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
