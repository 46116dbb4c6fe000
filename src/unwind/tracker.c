// SPDX-License-Identifier: Apache-2.0
/* Process tracker. The walker places pcs in files itself (file_tables), so the tracker's
 * work is to make files' tables exist and to describe the processes a runtime claims
 * something of. Requests are notices from BPF in a bounded ring, served by the tracker's
 * thread: looking at a process (its maps read, its files opened while it still lives,
 * the runtimes asked about new files) is quick. Building a table can take a second for
 * a large binary, so builds go to a thread of their own, the builder, through queues:
 * those a sample asked for (hot) before those the start-up scan found (cold), the
 * smallest file first in each, so a new program's small table does not wait for a
 * library of a hundred megabytes; a cold build gives way when a sample asks for one.
 * Nothing here blocks sampling. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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
/* A process a notice asks about again (a runtime's file, JIT code) within this long of
 * the last look is not looked at again: one with JIT code no runtime claims would
 * otherwise be read ten times a second. An exec or a new file is always looked at. */
#define LOOK_AGAIN_NS (1000ULL * 1000000ULL)
#define LOOKED_MAX 65536 /* processes whose last look is remembered, then forgotten */
/* A request that is no notice: a process described without a runtime whose walker was
 * being verified, to be looked at again now that it is in its slot. */
#define REQUEST_RELOOK 0x100

struct request {
	uint32_t type;
	uint32_t pid;
	uint64_t addr;
	struct unw_file_key file;
	uint64_t at; /* when it was queued */
};

/* What the tracker holds for a described process: its table references. */
struct held {
	uint32_t pid;
	uint32_t n;
	struct table_entry **tables;
};

/* When a process was last looked at, and last for a notice of a file: a look begun
 * after a notice was queued saw at least what the notice says. */
struct looked {
	uint32_t pid;
	uint64_t at;
	uint64_t file_at;
	struct unw_file_key file;
};

/* A file whose table waits to be built. */
struct job {
	uint32_t file_id;
	uint32_t claims;    /* runtimes that claim it, for file_tables */
	uint64_t size;	    /* bytes of the file: the smallest goes first */
	uint32_t preempted; /* times its build gave way to a smaller one */
};

/* A hot build gives way to a hot job this many times smaller, at most PREEMPT_MAX times:
 * a table of a hundred megabytes takes a second to build, a new program's a
 * millisecond, and a stream of small ones must not keep the large one from ever being
 * built. A cold build gives way to any hot job. */
#define PREEMPT_RATIO 8
#define PREEMPT_MAX 2

/* Files whose tables wait to be built, each once. */
struct build_queue {
	struct job *v;
	size_t len, cap;
};

struct tracker {
	pthread_t thread, builder;
	bool builder_started;
	pthread_mutex_t lock; /* the requests, the build queues and their flags */
	pthread_cond_t wake;  /* the tracker's: a request */
	pthread_cond_t work;  /* the builder's: a build */
	struct request queue[QUEUE_LEN];
	uint32_t head, len;
	bool stop; /* set under lock (for the wait), polled without it (util/cancel.h) */
	/* The cancel flag of the build running: set by the stop, and when it gives way to
	 * a hot job (PREEMPT_RATIO). */
	bool abort;
	struct job running; /* the build running (file_id 0: none), under lock */
	bool running_hot;
	struct proc_table *procs;
	struct table_pool *pool;
	int pid_maps_fd;
	struct runtime_set *runtimes;
	struct hmap held;   /* pid -> struct held; only the thread touches it */
	struct hmap looked; /* pid -> struct looked; only the thread touches it */
	/* Builds a sample asked for (hot), then those the scan found (cold). */
	struct build_queue hot, cold;
	uint8_t *queued; /* by file id: 1 in the cold queue, 2 in the hot one */
	uint32_t queued_cap;
	struct unw_proc desc; /* scratch: 5 KiB, not on the stack */
	struct tracker_stats st;
	uint64_t expired_at; /* when idle tables were last evicted */
	uint32_t *scan;	     /* initial scan, done by the thread first */
	size_t nscan;
	/* Under lock: the scan is not over, or a request popped is being served. */
	bool scanning, serving;
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

static int looked_eq(const void *entry, const void *key)
{
	return ((const struct looked *)entry)->pid == *(const uint32_t *)key;
}

static void push_request(struct tracker *t, const struct request *r)
{
	pthread_mutex_lock(&t->lock);
	if (t->len == QUEUE_LEN) {
		t->st.queue_full++;
	} else {
		t->queue[(t->head + t->len++) % QUEUE_LEN] = *r;
		pthread_cond_signal(&t->wake);
	}
	pthread_mutex_unlock(&t->lock);
}

void tracker__notice(struct tracker *t, const struct notice_record *n)
{
	push_request(t, &(struct request){n->type, n->pid, n->addr, n->file, now_ns()});
}

/* The runtimes' verifier thread (runtime_ready_fn): pid waited for a walker now in. */
static void relook(void *ctx, uint32_t pid)
{
	push_request(ctx, &(struct request){.type = REQUEST_RELOOK, .pid = pid, .at = now_ns()});
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
	/* The one served before is done: whatever it queued to build is queued. */
	t->serving = got;
	pthread_mutex_unlock(&t->lock);
	return got;
}

static void held_free(struct tracker *t, struct held *h)
{
	if (!h)
		return;
	for (uint32_t i = 0; i < h->n; i++)
		table_pool__release(t->pool, h->tables[i]);
	free(h->tables);
	free(h);
}

static void release_held(struct tracker *t, uint32_t pid)
{
	held_free(t, hmap_remove(&t->held, hash_u64(pid), &pid));
}

/* A copy of file file_id's entry with a descriptor of its own (fd -1 when it has none):
 * an agent's prune may close the file's (and the number be reused) meanwhile. */
static bool file_copy(struct tracker *t, uint32_t file_id, struct file_entry *copy)
{
	struct file_entry *f;

	pthread_mutex_lock(&t->procs->lock);
	f = file_table__get(t->procs->files, file_id);
	if (f) {
		*copy = *f;
		copy->fd = f->fd >= 0 ? dup(f->fd) : -1;
	}
	pthread_mutex_unlock(&t->procs->lock);
	return f != NULL;
}

/* file_id's table, built and published (claimed by claims) if it is not yet, with one
 * more reference (the caller releases it); NULL for a file the registry does not know.
 * cancel: the build's stop flag. */
static struct table_entry *acquire(struct tracker *t, uint32_t file_id, uint32_t claims,
				   const bool *cancel)
{
	struct table_entry *te;
	struct file_entry copy;

	if (!file_copy(t, file_id, &copy))
		return NULL;
	te = table_pool__acquire(t->pool, &copy, claims, cancel);
	if (copy.fd >= 0)
		close(copy.fd);
	return te;
}

static void queue_push(struct build_queue *q, const struct job *j)
{
	if (q->len == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 64;
		struct job *v = realloc(q->v, cap * sizeof(*v));

		if (!v)
			return; /* built when a sample asks again */
		q->v = v;
		q->cap = cap;
	}
	q->v[q->len++] = *j;
}

/* Takes the job of the smallest file. */
static bool queue_pop(struct build_queue *q, struct job *j)
{
	size_t best = 0;

	if (!q->len)
		return false;
	for (size_t i = 1; i < q->len; i++)
		if (q->v[i].size < q->v[best].size)
			best = i;
	*j = q->v[best];
	q->v[best] = q->v[--q->len];
	return true;
}

/* The size of file file_id, for the order of builds (0 when unknown). */
static uint64_t file_size(struct tracker *t, uint32_t file_id)
{
	struct file_entry *f;
	struct stat st;
	uint64_t size = 0;

	pthread_mutex_lock(&t->procs->lock);
	f = file_table__get(t->procs->files, file_id);
	if (f && f->fd >= 0 && !fstat(f->fd, &st))
		size = (uint64_t)st.st_size;
	pthread_mutex_unlock(&t->procs->lock);
	return size;
}

/* Queues file_id's build unless it is queued (hot: a sample asked for it), claimed by
 * claims. A file queued cold and asked for by a sample goes to the hot queue too; its
 * cold turn finds it done. */
static void queue_build(struct tracker *t, const struct job *j, bool hot)
{
	uint8_t bit = hot ? 2 : 1;

	pthread_mutex_lock(&t->lock);
	if (j->file_id >= t->queued_cap) {
		uint32_t cap = j->file_id * 2 + 64;
		uint8_t *v = realloc(t->queued, cap);

		if (!v)
			goto out;
		memset(v + t->queued_cap, 0, cap - t->queued_cap);
		t->queued = v;
		t->queued_cap = cap;
	}
	if (t->queued[j->file_id] & bit)
		goto out;
	t->queued[j->file_id] |= bit;
	queue_push(hot ? &t->hot : &t->cold, j);
	pthread_cond_signal(&t->work);
	if (hot && t->running.file_id && t->running.file_id != j->file_id &&
	    (!t->running_hot ||
	     (t->running.preempted < PREEMPT_MAX && j->size * PREEMPT_RATIO < t->running.size)))
		cancel__request(&t->abort);
out:
	pthread_mutex_unlock(&t->lock);
}

/* The tracker's thread: queues the build of file_id's table. */
static void want_build(struct tracker *t, uint32_t file_id, bool hot)
{
	struct job j = {
	    .file_id = file_id,
	    .claims = t->runtimes ? runtime_set__claims(t->runtimes, file_id) : 0,
	    .size = file_size(t, file_id),
	};

	queue_build(t, &j, hot);
}

/* Fills one mapping of the description; returns the table reference taken, or NULL. A
 * table not built yet is queued (hot: a sample asked), not built here: a runtime's
 * process maps large files, and its description must not hold up the tables samples
 * wait for. Until it is built the walker takes it from file_tables (cut = NEW_FILE). */
static struct table_entry *describe_mapping(struct tracker *t, const struct proc_mapping *pm,
					    struct unw_mapping *um, bool hot)
{
	struct table_entry *te;
	uint64_t bias;

	*um = (struct unw_mapping){.start = pm->start, .end = pm->end, .file_id = pm->file_id};
	um->cut = CUT_JIT + 1;
	if (!pm->file_id)
		return NULL;
	um->off_bias = pm->start - pm->pgoff;
	um->cut = CUT_NEW_FILE + 1;
	te = table_pool__find(t->pool, pm->file_id);
	if (table_pool__wants(t->pool, te, now_ns())) {
		want_build(t, pm->file_id, hot);
		return NULL;
	}
	um->cut = te->err == ENOSPC ? CUT_NO_ROOM + 1 : CUT_NO_CFI + 1;
	if (te->id && table_entry__vaddr_bias(te, pm->start, pm->pgoff, &bias)) {
		um->vaddr_bias = bias;
		um->table = te->id;
		um->cut = 0;
	}
	return table_pool__hold(t->pool, te);
}

/* Writes pid's description (maps: its n executable mappings), with the tables it maps
 * that are built (held), and the runtimes' claims. */
static int describe(struct tracker *t, uint32_t pid, const struct proc_mapping *maps, int n,
		    bool hot)
{
	struct held *h = calloc(1, sizeof(*h));
	int err;

	if (h)
		h->tables = calloc(n ? n : 1, sizeof(*h->tables));
	if (!h || !h->tables) {
		err = -ENOMEM;
		goto out;
	}
	h->pid = pid;
	if (n > UNW_MAX_MAPPINGS) {
		t->st.too_many_mappings++;
		n = UNW_MAX_MAPPINGS; /* the highest mappings stay unknown: VMAs there */
	}
	memset(&t->desc, 0, sizeof(t->desc));
	for (int i = 0; i < n; i++) {
		struct table_entry *te;

		if (stopping(t)) {
			err = -ECANCELED;
			goto out;
		}
		te = describe_mapping(t, &maps[i], &t->desc.m[i], hot);
		if (te)
			h->tables[h->n++] = te;
	}
	t->desc.n = n;
	/* The runtimes' claims split mappings: they go in before BPF sees the table. */
	err = runtime_set__describe(t->runtimes, pid, maps, n, &t->desc, &t->stop);
	if (err < 0)
		goto out;
	err = bpf_map_update_elem(t->pid_maps_fd, &pid, &t->desc, BPF_ANY) ? -errno : 0;
	release_held(t, pid);
	if (!err && !hmap_insert(&t->held, hash_u64(pid), h)) {
		h = NULL;
		t->st.described++;
	}
out:
	held_free(t, h);
	return err;
}

/* A process no runtime claims anything of any more (it exec'd): no description. */
static void undescribe(struct tracker *t, uint32_t pid)
{
	if (!hmap_find(&t->held, hash_u64(pid), &pid))
		return;
	bpf_map_delete_elem(t->pid_maps_fd, &pid);
	if (t->runtimes)
		runtime_set__forget(t->runtimes, pid);
	release_held(t, pid);
}

/* notice: the notice of a file the look is for, or NULL. */
static void note_look(struct tracker *t, uint32_t pid, uint64_t now, const struct request *notice)
{
	struct looked *l = hmap_find(&t->looked, hash_u64(pid), &pid);

	if (l) {
		l->at = now;
		if (notice) {
			l->file_at = now;
			l->file = notice->file;
		}
		return;
	}
	if (t->looked.len >= LOOKED_MAX) { /* forget them all: a few looks more */
		hmap_for_each(&t->looked, i) free(t->looked.slots[i].entry);
		hmap_free(&t->looked);
		hmap_init(&t->looked, looked_eq);
	}
	l = malloc(sizeof(*l));
	if (l) {
		*l = (struct looked){pid, now, notice ? now : 0,
				     notice ? notice->file : (struct unw_file_key){0}};
		if (hmap_insert(&t->looked, hash_u64(pid), l))
			free(l);
	}
}

static bool looked_lately(struct tracker *t, uint32_t pid, uint64_t now)
{
	struct looked *l = hmap_find(&t->looked, hash_u64(pid), &pid);

	return l && now - l->at < LOOK_AGAIN_NS;
}

/* The process of notice r was looked at for its file since r was queued: the walker
 * says it ten times a second, and a process of many mappings takes longer than that to
 * read where the machine is slow, so the notices would queue faster than they go. */
static bool file_looked(struct tracker *t, const struct request *r)
{
	struct looked *l = hmap_find(&t->looked, hash_u64(r->pid), &r->pid);

	return l && l->file_at >= r->at && l->file.dev == r->file.dev && l->file.ino == r->file.ino;
}

/* The walker met a file it did not find in file_tables at pc of a process whose maps
 * say otherwise of the file there: the kernel knows it by another identity than the
 * maps (overlayfs from Linux 6.8 on), the one of the notice, under which its entry goes
 * too. */
static void alias_file(struct tracker *t, const struct proc_mapping *maps, int n,
		       const struct request *r)
{
	struct file_entry id = {.fd = -1}, *f;
	int i;

	for (i = 0; i < n && !(r->addr >= maps[i].start && r->addr < maps[i].end); i++)
		;
	if (i == n || !maps[i].file_id)
		return;
	pthread_mutex_lock(&t->procs->lock);
	f = file_table__get(t->procs->files, maps[i].file_id);
	if (f)
		id = (struct file_entry){.id = f->id, .dev = f->dev, .ino = f->ino, .fd = -1};
	pthread_mutex_unlock(&t->procs->lock);
	if (id.id)
		table_pool__alias(t->pool, &id, &r->file);
}

/* Looks at pid: reads its maps (which opens its files while it lives), queues the
 * builds of the tables it lacks (hot: a sample asked), and describes it when a runtime
 * claims one of its files (or it was described: it may no longer be). notice: the
 * walker's notice of an unknown file that asked for the look, or NULL. */
static int look(struct tracker *t, uint32_t pid, bool hot, const struct request *notice)
{
	struct proc_mapping *maps = NULL;
	uint64_t now = now_ns();
	uint32_t claims = 0;
	int n, err = 0;

	n = proc_table__snapshot(t->procs, pid, now, &maps);
	if (n < 0) {
		t->st.vanished++;
		return n;
	}
	t->st.looked++;
	note_look(t, pid, now, notice);
	if (notice)
		alias_file(t, maps, n, notice);
	for (int i = 0; i < n && !stopping(t); i++) {
		uint32_t id = maps[i].file_id;

		if (!id)
			continue;
		if (t->runtimes)
			claims |= runtime_set__claims(t->runtimes, id);
		if (table_pool__wants(t->pool, table_pool__find(t->pool, id), now))
			want_build(t, id, hot);
	}
	if (claims && !stopping(t))
		err = describe(t, pid, maps, n, hot);
	else if (!claims)
		undescribe(t, pid);
	free(maps);
	return err;
}

/* The file of an unknown-file notice is known (by the kernel's identity of it, or by
 * the alias a notice gave it), its table built or being asked for: no need to read the
 * process's maps. */
static bool file_handled(struct tracker *t, const struct unw_file_key *k)
{
	uint32_t id = table_pool__aliased(t->pool, k);
	struct table_entry *te;
	struct file_entry *f;

	pthread_mutex_lock(&t->procs->lock);
	f = id ? file_table__get(t->procs->files, id)
	       : file_table__find(t->procs->files, makedev(k->dev >> 20, k->dev & 0xfffff), k->ino);
	id = f && f->fd >= 0 ? f->id : 0;
	pthread_mutex_unlock(&t->procs->lock);
	if (!id)
		return false;
	te = table_pool__find(t->pool, id);
	if (table_pool__wants(t->pool, te, now_ns()))
		want_build(t, id, true);
	return true;
}

/* Aliases the file of notice r without reading the process's maps: the kernel says
 * which file is mapped at r->addr by the identity the maps give (proc_query_file), and
 * the registry knows it open. False when that cannot be had here (an older kernel, a
 * file not met yet): the look that reads every mapping does it. */
static bool alias_at(struct tracker *t, const struct request *r)
{
	struct file_entry id = {.fd = -1}, *f;
	uint64_t dev, ino;

	if (proc_query_file(r->pid, r->addr, &dev, &ino))
		return false;
	pthread_mutex_lock(&t->procs->lock);
	f = file_table__find(t->procs->files, dev, ino);
	if (f && f->fd >= 0)
		id = (struct file_entry){.id = f->id, .dev = f->dev, .ino = f->ino, .fd = -1};
	pthread_mutex_unlock(&t->procs->lock);
	if (!id.id)
		return false;
	table_pool__alias(t->pool, &id, &r->file);
	if (table_pool__wants(t->pool, table_pool__find(t->pool, id.id), now_ns()))
		want_build(t, id.id, true);
	t->st.queried++;
	return true;
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
	switch (r->type) {
	case RECORD_PROCESS_EXIT:
		forget(t, r->pid);
		return;
	case RECORD_UNKNOWN_FILE:
		if (file_looked(t, r))
			t->st.damped++;
		else if (!file_handled(t, &r->file) && !alias_at(t, r))
			look(t, r->pid, true, r);
		return;
	case RECORD_UNKNOWN_PID:
		if (looked_lately(t, r->pid, now_ns())) {
			t->st.damped++;
			return;
		}
		break;
	case REQUEST_RELOOK: /* looked at lately, by definition: never damped */
		t->st.relooked++;
		break;
	}
	look(t, r->pid, true, NULL);
}

/* The builder's next job, waiting for one: the hot queue's first, then the cold one's.
 * False when the tracker stops. Arms the build's cancel flag. */
static bool next_job(struct tracker *t, struct job *j, bool *hot)
{
	bool got = false;

	pthread_mutex_lock(&t->lock);
	while (!t->stop && !t->hot.len && !t->cold.len)
		pthread_cond_wait(&t->work, &t->lock);
	if (!t->stop) {
		*hot = queue_pop(&t->hot, j);
		got = *hot || queue_pop(&t->cold, j);
		t->queued[j->file_id] &= *hot ? ~2 : ~1;
		t->running = *j;
		t->running_hot = *hot;
		__atomic_store_n(&t->abort, false, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&t->lock);
	return got;
}

/* Builds j's table. A build cut short to give way goes back to its queue. */
static void build(struct tracker *t, struct job *j, bool hot)
{
	struct table_entry *te = NULL;
	bool preempted = false;

	if (table_pool__wants(t->pool, table_pool__find(t->pool, j->file_id), now_ns()))
		te = acquire(t, j->file_id, j->claims, &t->abort);
	pthread_mutex_lock(&t->lock);
	preempted = t->abort && !t->stop && te && !te->id && !te->err;
	t->st.preempted += preempted;
	t->running.file_id = 0;
	pthread_mutex_unlock(&t->lock);
	if (preempted) {
		j->preempted += hot;
		queue_build(t, j, hot);
	}
	table_pool__release(t->pool, te);
}

static void *builder_main(void *arg)
{
	struct tracker *t = arg;
	struct job j;
	bool hot;

	pthread_setname_np(pthread_self(), "ebprof-builder"); /* for ps and bench/ */
	while (next_job(t, &j, &hot))
		build(t, &j, hot);
	return NULL;
}

/* Serves every request waiting; false when there was none. */
static bool work(struct tracker *t)
{
	struct request r;
	bool any = false;

	while (!stopping(t) && next_request(t, &r, false)) {
		handle(t, &r);
		any = true;
	}
	return any;
}

static void *tracker_main(void *arg)
{
	struct tracker *t = arg;
	struct request r;

	pthread_setname_np(pthread_self(), "ebprof-tracker"); /* for ps and bench/ */
	/* Requests go before the rest of the scan: a notice names a process that is being
	 * sampled now, the scan one that merely exists (on a host of hundreds of processes
	 * the scan takes a while). */
	for (size_t i = 0; i < t->nscan && !stopping(t); i++) {
		work(t);
		if (!looked_lately(t, t->scan[i], now_ns()))
			look(t, t->scan[i], false, NULL);
	}
	pthread_mutex_lock(&t->lock);
	t->scanning = false;
	pthread_mutex_unlock(&t->lock);
	while (!stopping(t)) {
		uint64_t now;

		if (!work(t) && next_request(t, &r, true))
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

/* Stops the builder, if it runs, and frees what the tracker holds. */
static void tracker_end(struct tracker *t)
{
	pthread_mutex_lock(&t->lock);
	cancel__request(&t->stop);
	cancel__request(&t->abort);
	pthread_cond_signal(&t->work);
	pthread_mutex_unlock(&t->lock);
	if (t->builder_started)
		pthread_join(t->builder, NULL);
	hmap_for_each(&t->held, i) held_free(t, t->held.slots[i].entry);
	hmap_free(&t->held);
	hmap_for_each(&t->looked, i) free(t->looked.slots[i].entry);
	hmap_free(&t->looked);
	pthread_cond_destroy(&t->wake);
	pthread_cond_destroy(&t->work);
	pthread_mutex_destroy(&t->lock);
	free(t->hot.v);
	free(t->cold.v);
	free(t->queued);
	free(t->scan);
	free(t);
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
	hmap_init(&t->looked, looked_eq);
	pthread_mutex_init(&t->lock, NULL);
	init_wake(&t->wake);
	pthread_cond_init(&t->work, NULL);
	t->expired_at = now_ns();
	t->scanning = true;
	if (runtimes)
		runtime_set__on_ready(runtimes, relook, t);
	if (pids) {
		t->scan = malloc((npids ? npids : 1) * sizeof(*t->scan));
		if (t->scan)
			memcpy(t->scan, pids, npids * sizeof(*pids));
		t->nscan = t->scan ? npids : 0;
	} else if (list_all(&t->scan, &t->nscan)) {
		pr_warn("cannot list /proc: processes are looked at as they are sampled");
	}
	err = crash__thread_create(&t->builder, builder_main, t);
	t->builder_started = !err;
	if (!err)
		err = crash__thread_create(&t->thread, tracker_main, t);
	if (err) {
		tracker_end(t);
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
	cancel__request(&t->abort);
	pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	/* It hands processes to this tracker (relook): gone before the tracker is. */
	if (t->runtimes)
		runtime_set__stop_verifier(t->runtimes);
	tracker_end(t);
}

bool tracker__idle(struct tracker *t)
{
	bool idle;

	/* The verifier's state is read under the tracker's lock: it hands its processes
	 * back (relook, which takes this lock) before it says it is done, and is asked
	 * by the tracker while it serves a request. */
	pthread_mutex_lock(&t->lock);
	idle = !t->scanning && !t->serving && !t->len && !t->hot.len && !t->cold.len &&
	       !t->running.file_id && !(t->runtimes && runtime_set__verifying(t->runtimes));
	pthread_mutex_unlock(&t->lock);
	return idle;
}

void tracker__stats(struct tracker *t, struct tracker_stats *out)
{
	pthread_mutex_lock(&t->lock);
	*out = t->st;
	pthread_mutex_unlock(&t->lock);
}
