// SPDX-License-Identifier: Apache-2.0
/* Native unwinding, userspace side: owns the table pool and the tracker thread, and
 * reports what they did (tables built and failed, rows used, processes described). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind/native.h"
#include "unwind/tables.h"
#include "unwind/tracker.h"
#include "util/log.h"

struct native_unwinder {
	struct table_pool *pool;
	struct tracker *tracker;
	struct tracker_stats tracker_stats;
	uint32_t warmed; /* tables built before the command started */
};

/* Builds the tables of the files a command is about to map, before the tracker (the
 * only other user of the pool) starts; each stays in the pool unreferenced until the
 * command's description takes it (or TABLE_POOL_IDLE_S passes). The runtimes that
 * claim one of them (runtimes may be NULL) verify their walkers now, so the command's
 * first samples have their frames. */
static void warm_tables(struct native_unwinder *n, struct proc_table *procs,
			struct runtime_set *runtimes, const struct warm_list *w)
{
	for (size_t i = 0; i < w->n; i++) {
		struct file_entry *f, copy;
		struct table_entry *te;

		pthread_mutex_lock(&procs->lock);
		f = file_table__intern(procs->files, w->f[i].dev, w->f[i].ino, w->f[i].path);
		if (f)
			copy = *f;
		pthread_mutex_unlock(&procs->lock);
		if (!f)
			return;
		copy.fd = open(w->f[i].path, O_RDONLY | O_CLOEXEC);
		if (copy.fd < 0)
			continue;
		te = table_pool__acquire(n->pool, &copy, NULL); /* before any stop can come */
		if (runtimes)
			runtime_set__expect(runtimes, copy.id, w->f[i].path, copy.fd);
		close(copy.fd);
		n->warmed += te->id != 0;
		table_pool__release(n->pool, te);
	}
}

struct native_unwinder *native__start(const struct sampler_maps *maps, struct proc_table *procs,
				      struct runtime_set *runtimes, const uint32_t *pids,
				      size_t npids, const struct warm_list *warm)
{
	struct native_unwinder *n = calloc(1, sizeof(*n));
	int err;

	if (!n)
		return NULL;
	n->pool =
	    table_pool__new(maps->unwind_rows, maps->unwind_chunks_max, maps->unwind_chunk_shift,
			    maps->unwind_tables, maps->unwind_tables_max);
	if (!n->pool) {
		err = errno;
		pr_err("mapping the unwind row pool: %s", strerror(err));
		goto fail;
	}
	if (warm)
		warm_tables(n, procs, runtimes, warm);
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

void native__notice(struct native_unwinder *n, uint32_t type, uint32_t pid)
{
	tracker__notice(n->tracker, type, pid);
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
	char warmed[64] = "", cancelled[64] = "";

	table_pool__stats(n->pool, &ps);
	if (n->warmed)
		snprintf(warmed, sizeof(warmed), "; %u built before the command started",
			 n->warmed);
	if (ps.cancelled) /* the stop came during a build, which gave up: see tracker.h */
		snprintf(cancelled, sizeof(cancelled), "; %llu abandoned at the stop",
			 (unsigned long long)ps.cancelled);
	fprintf(out,
		"  unwinder: %llu processes described (%llu vanished first), %llu tables built "
		"(%llu from Go's pclntab; %llu not: no CFI, unreadable or no room) in %.0f ms, "
		"%llu of %llu rows used (%.1f MiB; kernel memory %.0f MiB now, %.0f MiB at most; "
		"%llu tables dropped after %d s unused%s%s)\n",
		(unsigned long long)ts->described, (unsigned long long)ts->vanished,
		(unsigned long long)ps.built, (unsigned long long)ps.go_tables,
		(unsigned long long)ps.failed, ps.build_ns / 1e6, (unsigned long long)ps.rows_used,
		(unsigned long long)ps.rows_max, ps.rows_used * 16.0 / (1 << 20),
		ps.chunks * ps.chunk_bytes / 1048576.0, ps.chunks_peak * ps.chunk_bytes / 1048576.0,
		(unsigned long long)ps.expired, TABLE_POOL_IDLE_S, warmed, cancelled);
	if (ps.evicted || ps.no_room || ts->queue_full || ts->too_many_mappings)
		fprintf(out,
			"  unwinder limits: %llu tables evicted, %llu did not fit, %llu requests "
			"dropped, %llu processes with too many mappings\n",
			(unsigned long long)ps.evicted, (unsigned long long)ps.no_room,
			(unsigned long long)ts->queue_full,
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
