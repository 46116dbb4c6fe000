// SPDX-License-Identifier: Apache-2.0
/* Native unwinding, userspace side: owns the table pool and the tracker thread, builds
 * the tables every process needs before sampling starts, and reports what they did
 * (tables built and failed, rows used, processes looked at and described). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind/native.h"
#include "unwind/tables.h"
#include "unwind/tracker.h"
#include "util/clock.h"
#include "util/log.h"

struct native_unwinder {
	struct table_pool *pool;
	struct tracker *tracker;
	struct tracker_stats tracker_stats;
	uint32_t warmed;  /* tables built before sampling started */
	uint64_t warm_ns; /* the time that took */
	bool command;	  /* they were a command's */
};

/* Builds the table of the file at path (key: as /proc/PID/maps names it) and publishes
 * it, before the tracker (the only other user of the pool) starts; it stays in the pool
 * unreferenced while the walker uses it (or TABLE_POOL_IDLE_S passes). The runtimes that
 * claim it (runtimes may be NULL) verify their walkers now. The file stays open in the
 * registry, for the symbolizer. */
static void warm_file(struct native_unwinder *n, struct proc_table *procs,
		      struct runtime_set *runtimes, const struct warm_file *w)
{
	int fd = open(w->path, O_RDONLY | O_CLOEXEC);
	struct file_entry *f, copy;
	struct table_entry *te;
	uint32_t claims = 0;

	if (fd < 0)
		return;
	pthread_mutex_lock(&procs->lock);
	f = file_table__intern(procs->files, w->dev, w->ino, w->path);
	if (f && f->fd < 0) {
		f->fd = fd;
		fd = -1;
	}
	if (f) {
		copy = *f;
		copy.fd = dup(f->fd);
	}
	pthread_mutex_unlock(&procs->lock);
	if (fd >= 0)
		close(fd);
	if (!f || copy.fd < 0)
		return;
	if (runtimes) {
		runtime_set__expect(runtimes, copy.id, w->path, copy.fd);
		claims = runtime_set__claims(runtimes, copy.id);
	}
	te = table_pool__acquire(n->pool, &copy, claims, NULL); /* before any stop can come */
	close(copy.fd);
	n->warmed += te->id != 0;
	table_pool__release(n->pool, te);
}

/* The vDSO's table: every process maps the one image (procs->vdso_file). */
static void warm_vdso(struct native_unwinder *n, struct proc_table *procs)
{
	struct file_entry *f, copy;
	struct table_entry *te;

	pthread_mutex_lock(&procs->lock);
	f = file_table__get(procs->files, procs->vdso_file);
	if (f) {
		copy = *f;
		copy.fd = f->fd >= 0 ? dup(f->fd) : -1;
	}
	pthread_mutex_unlock(&procs->lock);
	if (!f || copy.fd < 0)
		return;
	te = table_pool__acquire(n->pool, &copy, 0, NULL);
	close(copy.fd);
	n->warmed += te->id != 0;
	table_pool__release(n->pool, te);
}

/* Before sampling starts: the tables of the files a command is about to map (warm, its
 * guess), or for a whole-system recording those every process maps, so that no process
 * met early waits for them. */
static void warm_tables(struct native_unwinder *n, struct proc_table *procs,
			struct runtime_set *runtimes, const struct warm_list *warm, bool all)
{
	struct warm_list common = {0};
	uint64_t t0 = now_ns();

	if (all && warm__common(&common) == 0)
		warm = &common;
	for (size_t i = 0; warm && i < warm->n; i++)
		warm_file(n, procs, runtimes, &warm->f[i]);
	if (all)
		warm_vdso(n, procs);
	warm__free(&common);
	n->command = !all;
	n->warm_ns = now_ns() - t0;
}

struct native_unwinder *native__start(const struct sampler_maps *maps, struct proc_table *procs,
				      struct runtime_set *runtimes, const uint32_t *pids,
				      size_t npids, const struct warm_list *warm)
{
	struct native_unwinder *n = calloc(1, sizeof(*n));
	int err;

	if (!n)
		return NULL;
	n->pool = table_pool__new(&(struct table_pool_maps){
	    .chunks_fd = maps->unwind_rows,
	    .nchunks = maps->unwind_chunks_max,
	    .chunk_shift = maps->unwind_chunk_shift,
	    .tables_fd = maps->unwind_tables,
	    .max_tables = maps->unwind_tables_max,
	    .files_fd = maps->file_tables,
	    .used_fd = maps->table_used,
	});
	if (!n->pool) {
		err = errno;
		pr_err("mapping the unwind row pool: %s", strerror(err));
		goto fail;
	}
	warm_tables(n, procs, runtimes, warm && warm->n ? warm : NULL, !pids);
	n->tracker = tracker__start(procs, n->pool, maps->pid_to_mappings, runtimes, pids, npids);
	if (!n->tracker) {
		err = errno;
		pr_err("starting the process tracker: %s", strerror(err));
		goto fail;
	}
	return n;
fail:
	native__free(n);
	errno = err;
	return NULL;
}

void native__notice(struct native_unwinder *n, const struct notice_record *r)
{
	tracker__notice(n->tracker, r);
}

bool native__idle(struct native_unwinder *n)
{
	return !n->tracker || tracker__idle(n->tracker);
}

void native__stop(struct native_unwinder *n)
{
	if (!n || !n->tracker)
		return;
	tracker__stats(n->tracker, &n->tracker_stats);
	tracker__stop(n->tracker);
	n->tracker = NULL;
}

void native__print_stats(struct native_unwinder *n, FILE *out)
{
	struct table_pool_stats ps;
	const struct tracker_stats *ts = &n->tracker_stats;
	char warmed[96] = "", cancelled[64] = "", aliases[128] = "";

	table_pool__stats(n->pool, &ps);
	if (n->warmed)
		snprintf(warmed, sizeof(warmed), "; %u built before %s started, in %.0f ms",
			 n->warmed, n->command ? "the command" : "sampling", n->warm_ns / 1e6);
	if (ps.cancelled) /* the stop came during a build, which gave up: see tracker.h */
		snprintf(cancelled, sizeof(cancelled), "; %llu abandoned at the stop",
			 (unsigned long long)ps.cancelled);
	if (ps.aliases) /* the walker's VMAs name the file otherwise: tables.h */
		snprintf(aliases, sizeof(aliases),
			 "; %llu files the kernel knows by another identity than its maps, %llu "
			 "found by one VMA",
			 (unsigned long long)ps.aliases, (unsigned long long)ts->queried);
	fprintf(out,
		"  unwinder: %llu processes looked at (%llu vanished first, %llu again once a "
		"runtime's walker was in), %llu described for a runtime; %llu tables built (%llu "
		"in compact rows, %llu from Go's pclntab; %llu "
		"not: no CFI, unreadable or no room) in %.0f ms for %llu files, %llu of %llu rows "
		"used (%.1f MiB; kernel memory %.0f MiB now, %.0f MiB at most; %llu tables "
		"dropped after %d s unused%s%s%s)\n",
		(unsigned long long)ts->looked, (unsigned long long)ts->vanished,
		(unsigned long long)ts->relooked, (unsigned long long)ts->described,
		(unsigned long long)ps.built, (unsigned long long)ps.compact,
		(unsigned long long)ps.go_tables, (unsigned long long)ps.failed, ps.build_ns / 1e6,
		(unsigned long long)ps.files, (unsigned long long)ps.rows_used,
		(unsigned long long)ps.rows_max, ps.rows_used * 16.0 / (1 << 20),
		ps.chunks * ps.chunk_bytes / 1048576.0, ps.chunks_peak * ps.chunk_bytes / 1048576.0,
		(unsigned long long)ps.expired, TABLE_POOL_IDLE_S, warmed, cancelled, aliases);
	if (ps.evicted || ps.no_room || ps.files_full || ts->queue_full || ts->too_many_mappings)
		fprintf(out,
			"  unwinder limits: %llu tables evicted, %llu did not fit, %llu files did "
			"not fit file_tables, %llu requests dropped, %llu processes with too many "
			"mappings\n",
			(unsigned long long)ps.evicted, (unsigned long long)ps.no_room,
			(unsigned long long)ps.files_full, (unsigned long long)ts->queue_full,
			(unsigned long long)ts->too_many_mappings);
}

void native__free(struct native_unwinder *n)
{
	if (!n)
		return;
	native__stop(n);
	table_pool__free(n->pool);
	free(n);
}
