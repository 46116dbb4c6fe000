// SPDX-License-Identifier: Apache-2.0
/* Process tracker thread. Requests are (type, pid) pairs in a bounded ring; the thread
 * takes them one at a time, so table building (which can take a while for a large
 * binary) delays only the processes waiting behind it, never sampling. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "unwind/tracker.h"
#include "sample.h"
#include "util/cancel.h"
#include "util/clock.h"
#include "util/crash.h"
#include "util/hmap.h"
#include "util/log.h"

#define QUEUE_LEN 4096
#define EXPIRE_EVERY_NS (5ULL * 1000000000ULL) /* how often idle tables are looked for */

struct request {
	uint32_t type;
	uint32_t pid;
};

/* What the tracker holds for a described process: its table references. */
struct held {
	uint32_t pid;
	uint32_t n;
	struct table_entry **tables;
};

struct tracker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct request queue[QUEUE_LEN];
	uint32_t head, len;
	bool stop; /* set under lock (for the wait), polled without it (util/cancel.h) */
	struct proc_table *procs;
	struct table_pool *pool;
	int pid_maps_fd;
	struct runtime_set *runtimes;
	struct hmap held;     /* pid -> struct held; only the thread touches it */
	struct unw_proc desc; /* scratch: 5 KiB, not on the stack */
	struct tracker_stats st;
	uint64_t expired_at; /* when idle tables were last evicted */
	uint32_t *scan;	     /* initial scan, done by the thread first */
	size_t nscan;
};

/* Read without the lock between steps of a long description, and by the table build
 * itself: the end of a recording waits for the tracker, and what it would still
 * describe is of no use any more. */
static bool stopping(struct tracker *t)
{
	return cancel__requested(&t->stop);
}

static int held_eq(const void *entry, const void *key)
{
	return ((const struct held *)entry)->pid == *(const uint32_t *)key;
}

void tracker__notice(struct tracker *t, uint32_t type, uint32_t pid)
{
	pthread_mutex_lock(&t->lock);
	if (t->len == QUEUE_LEN) {
		t->st.queue_full++;
	} else {
		t->queue[(t->head + t->len++) % QUEUE_LEN] = (struct request){type, pid};
		pthread_cond_signal(&t->wake);
	}
	pthread_mutex_unlock(&t->lock);
}

/* Takes the oldest request; with wait, sleeps until there is one, at most until
 * EXPIRE_EVERY_NS from now. False when there is none (the wait timed out, or without
 * wait) or the tracker stops. */
static bool next_request(struct tracker *t, struct request *r, bool wait)
{
	uint64_t until = now_ns() + EXPIRE_EVERY_NS;
	struct timespec ts = {(time_t)(until / 1000000000ULL), (long)(until % 1000000000ULL)};
	bool got = false;

	pthread_mutex_lock(&t->lock);
	while (wait && !t->len && !t->stop)
		if (pthread_cond_timedwait(&t->wake, &t->lock, &ts) == ETIMEDOUT)
			break;
	if (t->len && !t->stop) {
		*r = t->queue[t->head];
		t->head = (t->head + 1) % QUEUE_LEN;
		t->len--;
		got = true;
	}
	pthread_mutex_unlock(&t->lock);
	return got;
}

static void release_held(struct tracker *t, uint32_t pid)
{
	struct held *h = hmap_remove(&t->held, hash_u64(pid), &pid);

	if (!h)
		return;
	for (uint32_t i = 0; i < h->n; i++)
		table_pool__release(t->pool, h->tables[i]);
	free(h->tables);
	free(h);
}

/* Fills one mapping of the description; returns the table reference taken, or NULL. */
static struct table_entry *describe_mapping(struct tracker *t, const struct proc_mapping *pm,
					    struct unw_mapping *um)
{
	struct table_entry *te = NULL;
	struct file_entry *f, copy;
	uint64_t bias;

	*um = (struct unw_mapping){.start = pm->start, .end = pm->end, .file_id = pm->file_id};
	if (!pm->file_id)
		return NULL;
	um->off_bias = pm->start - pm->pgoff;
	/* The table is compiled outside the lock, from a descriptor of our own: an agent's
	 * prune may close the file's (and the number be reused) in the meantime. */
	pthread_mutex_lock(&t->procs->lock);
	f = file_table__get(t->procs->files, pm->file_id);
	if (f) {
		copy = *f;
		copy.fd = f->fd >= 0 ? dup(f->fd) : -1;
	}
	pthread_mutex_unlock(&t->procs->lock);
	if (!f)
		return NULL;
	te = table_pool__acquire(t->pool, &copy, &t->stop);
	if (copy.fd >= 0)
		close(copy.fd);
	if (te->id && table_entry__vaddr_bias(te, pm->start, pm->pgoff, &bias)) {
		um->vaddr_bias = bias;
		um->table = te->id;
	}
	return te;
}

static int describe(struct tracker *t, uint32_t pid)
{
	struct proc_mapping *maps = NULL;
	struct held *h;
	int n, err;

	n = proc_table__snapshot(t->procs, pid, now_ns(), &maps);
	if (n < 0) {
		t->st.vanished++;
		return n;
	}
	h = calloc(1, sizeof(*h));
	if (h)
		h->tables = calloc(n ? n : 1, sizeof(*h->tables));
	if (!h || !h->tables) {
		err = -ENOMEM;
		goto out;
	}
	h->pid = pid;
	if (n > UNW_MAX_MAPPINGS) {
		t->st.too_many_mappings++;
		n = UNW_MAX_MAPPINGS; /* the highest mappings stay unknown: FP there */
	}
	memset(&t->desc, 0, sizeof(t->desc));
	for (int i = 0; i < n; i++) {
		struct table_entry *te;

		if (stopping(t)) {
			err = -ECANCELED;
			goto out;
		}
		te = describe_mapping(t, &maps[i], &t->desc.m[i]);
		if (te)
			h->tables[h->n++] = te;
	}
	/* A stop during the last build: no description lacking its table. */
	if (stopping(t)) {
		err = -ECANCELED;
		goto out;
	}
	t->desc.n = n;
	/* The runtimes' claims split mappings: they go in before BPF sees the table. */
	if (t->runtimes && runtime_set__describe(t->runtimes, pid, maps, n, &t->desc, &t->stop)) {
		err = -ECANCELED;
		goto out;
	}
	err = bpf_map_update_elem(t->pid_maps_fd, &pid, &t->desc, BPF_ANY) ? -errno : 0;
	release_held(t, pid);
	if (!err && !hmap_insert(&t->held, hash_u64(pid), h)) {
		h = NULL;
		t->st.described++;
	}
out:
	if (h) {
		for (uint32_t i = 0; i < h->n; i++)
			table_pool__release(t->pool, h->tables[i]);
		free(h->tables);
		free(h);
	}
	free(maps);
	return err;
}

static void forget(struct tracker *t, uint32_t pid)
{
	bpf_map_delete_elem(t->pid_maps_fd, &pid);
	if (t->runtimes)
		runtime_set__forget(t->runtimes, pid);
	release_held(t, pid);
	t->st.exits++;
}

static void handle(struct tracker *t, const struct request *r)
{
	if (r->type == RECORD_PROCESS_EXIT)
		forget(t, r->pid);
	else
		describe(t, r->pid);
}

static void *tracker_main(void *arg)
{
	struct tracker *t = arg;
	struct request r;

	pthread_setname_np(pthread_self(), "ebprof-tracker"); /* for ps and bench/ */
	/* Requests go before the rest of the scan: a notice names a process that is being
	 * sampled now, the scan one that merely exists (on a host of hundreds of processes
	 * the scan takes seconds). A process a notice described is not described again. */
	for (size_t i = 0; i < t->nscan && !stopping(t); i++) {
		uint32_t pid = t->scan[i];

		while (next_request(t, &r, false))
			handle(t, &r);
		if (!hmap_find(&t->held, hash_u64(pid), &pid))
			describe(t, pid);
	}
	while (!stopping(t)) {
		uint64_t now;

		if (next_request(t, &r, true))
			handle(t, &r);
		now = now_ns();
		if (now - t->expired_at >= EXPIRE_EVERY_NS) {
			table_pool__expire(t->pool, now, TABLE_POOL_IDLE_S * 1000000000ULL);
			t->expired_at = now;
		}
	}
	return NULL;
}

/* Every process in /proc, for a whole-system recording. */
static int list_all(uint32_t **out, size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	uint32_t *v = NULL;
	size_t len = 0, cap = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(e->d_name, &end, 10);

		if (*end || !pid)
			continue;
		if (len == cap) {
			uint32_t *p = realloc(v, (cap = cap ? cap * 2 : 256) * sizeof(*v));

			if (!p)
				break;
			v = p;
		}
		v[len++] = pid;
	}
	closedir(d);
	*out = v;
	*n = len;
	return 0;
}

/* The wait for requests times out by CLOCK_MONOTONIC, like every time here. */
static void init_wake(pthread_cond_t *c)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(c, &a);
	pthread_condattr_destroy(&a);
}

struct tracker *tracker__start(struct proc_table *procs, struct table_pool *pool, int pid_maps_fd,
			       struct runtime_set *runtimes, const uint32_t *pids, size_t npids)
{
	struct tracker *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return NULL;
	t->procs = procs;
	t->pool = pool;
	t->pid_maps_fd = pid_maps_fd;
	t->runtimes = runtimes;
	hmap_init(&t->held, held_eq);
	pthread_mutex_init(&t->lock, NULL);
	init_wake(&t->wake);
	t->expired_at = now_ns();
	if (pids) {
		t->scan = malloc((npids ? npids : 1) * sizeof(*t->scan));
		if (t->scan)
			memcpy(t->scan, pids, npids * sizeof(*pids));
		t->nscan = t->scan ? npids : 0;
	} else if (list_all(&t->scan, &t->nscan)) {
		pr_warn("cannot list /proc: processes are described as they are sampled");
	}
	err = crash__thread_create(&t->thread, tracker_main, t);
	if (err) {
		free(t->scan);
		free(t);
		errno = err;
		return NULL;
	}
	return t;
}

void tracker__stop(struct tracker *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	cancel__request(&t->stop);
	pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	hmap_for_each(&t->held, i)
	{
		struct held *h = t->held.slots[i].entry;

		for (uint32_t k = 0; k < h->n; k++)
			table_pool__release(t->pool, h->tables[k]);
		free(h->tables);
		free(h);
	}
	hmap_free(&t->held);
	pthread_cond_destroy(&t->wake);
	pthread_mutex_destroy(&t->lock);
	free(t->scan);
	free(t);
}

void tracker__stats(struct tracker *t, struct tracker_stats *out)
{
	pthread_mutex_lock(&t->lock);
	*out = t->st;
	pthread_mutex_unlock(&t->lock);
}
