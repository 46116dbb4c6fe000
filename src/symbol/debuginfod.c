// SPDX-License-Identifier: Apache-2.0
/* debuginfod client pool. libdebuginfod (and the libcurl it links) is loaded with dlopen
 * on the first request, so a `record` that needs no fetch pays nothing for it. Each
 * worker owns one debuginfod_client (a client is not shared between threads); results,
 * found or not, are remembered per build id for the life of the process, and
 * libdebuginfod keeps the files in its own cache (DEBUGINFOD_CACHE_PATH) across runs. */
#include "symbol/debuginfod.h"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/crash.h"
#include "util/hmap.h"
#include "util/log.h"

#define BUILD_ID_HEX_MAX 128

enum req_state { REQ_QUEUED, REQ_RUNNING, REQ_FOUND, REQ_MISSING };

struct request {
	struct request *next; /* in the queue */
	int fd;
	enum req_state state;
	char id[BUILD_ID_HEX_MAX + 1];
};

struct dfd_lib {
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_end) *end;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
	__typeof__(debuginfod_set_progressfn) *set_progressfn;
	__typeof__(debuginfod_set_user_data) *set_user_data;
	__typeof__(debuginfod_get_user_data) *get_user_data;
};

struct debuginfod {
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	struct hmap requests; /* struct request by id */
	struct request *head, *tail;
	pthread_t workers[DEBUGINFOD_FETCHES];
	int nworkers;
	bool stopping, started;
	unsigned int timeout_s;
	struct debuginfod_stats st;
};

/* What a worker's progress callback needs: its fetch's deadline and the pool. */
struct fetch {
	struct debuginfod *d;
	struct timespec deadline;
};

static struct dfd_lib lib;
static const struct dfd_lib *loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		pr_warn("DEBUGINFOD_URLS is set but libdebuginfod.so.1 (Debian package "
			"libdebuginfod1) cannot be loaded: %s",
			dlerror());
		return;
	}
	lib.begin = dlsym(h, "debuginfod_begin");
	lib.end = dlsym(h, "debuginfod_end");
	lib.find_debuginfo = dlsym(h, "debuginfod_find_debuginfo");
	lib.set_progressfn = dlsym(h, "debuginfod_set_progressfn");
	lib.set_user_data = dlsym(h, "debuginfod_set_user_data");
	lib.get_user_data = dlsym(h, "debuginfod_get_user_data");
	if (!lib.begin || !lib.end || !lib.find_debuginfo || !lib.set_progressfn ||
	    !lib.set_user_data || !lib.get_user_data) {
		pr_warn("libdebuginfod.so.1 lacks the client functions: debug files not fetched");
		return;
	}
	/* Stays loaded: libcurl keeps global state. */
	loaded = &lib;
}

static int req_eq(const void *entry, const void *key)
{
	return strcmp(((const struct request *)entry)->id, key) == 0;
}

struct debuginfod *debuginfod__new(unsigned int timeout_s)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct debuginfod *d;

	errno = 0;
	if (!urls || !urls[strspn(urls, " \t")])
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->work, NULL);
	pthread_cond_init(&d->done, NULL);
	hmap_init(&d->requests, req_eq);
	d->timeout_s = timeout_s ? timeout_s : DEBUGINFOD_TIMEOUT_S;
	return d;
}

/* libdebuginfod calls this while it waits on the network: non-zero aborts the fetch. */
static int progress(debuginfod_client *c, long done, long total)
{
	struct fetch *f = lib.get_user_data(c);
	struct timespec now;

	if (__atomic_load_n(&f->d->stopping, __ATOMIC_RELAXED))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > f->deadline.tv_sec ||
	       (now.tv_sec == f->deadline.tv_sec && now.tv_nsec >= f->deadline.tv_nsec);
}

/* Runs one fetch without the lock held; returns the descriptor or a negative errno. */
static int fetch_one(struct debuginfod *d, debuginfod_client *c, const char *id)
{
	struct fetch f = {.d = d};
	char *path = NULL;
	int fd;

	clock_gettime(CLOCK_MONOTONIC, &f.deadline);
	f.deadline.tv_sec += d->timeout_s;
	lib.set_user_data(c, &f);
	fd = lib.find_debuginfo(c, (const unsigned char *)id, 0, &path);
	lib.set_user_data(c, NULL);
	if (fd < 0)
		pr_debug("debuginfod: no debug file for %s: %s", id, strerror(-fd));
	else
		pr_debug("debuginfod: %s -> %s", id, path ? path : "?");
	free(path);
	return fd;
}

static void *worker(void *arg)
{
	struct debuginfod *d = arg;
	debuginfod_client *c = lib.begin();
	struct request *r;
	int fd;

	if (c)
		lib.set_progressfn(c, progress);
	pthread_mutex_lock(&d->lock);
	while (!d->stopping) {
		if (!d->head) {
			pthread_cond_wait(&d->work, &d->lock);
			continue;
		}
		r = d->head;
		d->head = r->next;
		if (!d->head)
			d->tail = NULL;
		r->state = REQ_RUNNING;
		pthread_mutex_unlock(&d->lock);
		fd = c ? fetch_one(d, c, r->id) : -ENOSYS;
		pthread_mutex_lock(&d->lock);
		r->fd = fd;
		r->state = fd >= 0 ? REQ_FOUND : REQ_MISSING;
		d->st.pending--;
		if (fd >= 0)
			d->st.fetched++;
		else
			d->st.missing++;
		pthread_cond_broadcast(&d->done);
	}
	pthread_mutex_unlock(&d->lock);
	if (c)
		lib.end(c);
	return NULL;
}

/* Starts the workers on the first request (lock held). Returns 0 or -ENOSYS. */
static int start_workers(struct debuginfod *d)
{
	if (d->started)
		return d->nworkers ? 0 : -ENOSYS;
	d->started = true;
	pthread_once(&once, load);
	if (!loaded)
		return -ENOSYS;
	for (int i = 0; i < DEBUGINFOD_FETCHES; i++) {
		if (crash__thread_create(&d->workers[d->nworkers], worker, d))
			break;
		d->nworkers++;
	}
	return d->nworkers ? 0 : -ENOSYS;
}

/* Queues a fetch of id (lock held). Returns -EAGAIN (queued) or a negative errno. */
static int enqueue(struct debuginfod *d, const char *id, uint64_t h)
{
	struct request *r;
	int err = start_workers(d);

	if (err)
		return err;
	if (d->requests.len >= DEBUGINFOD_MAX_REQUESTS) {
		d->st.refused++;
		return -ENOENT;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	strcpy(r->id, id);
	r->fd = -1;
	if (hmap_insert(&d->requests, h, r)) {
		free(r);
		return -ENOMEM;
	}
	if (d->tail)
		d->tail->next = r;
	else
		d->head = r;
	d->tail = r;
	d->st.pending++;
	pthread_cond_signal(&d->work);
	return -EAGAIN;
}

static bool valid_id(const char *id)
{
	size_t n = strlen(id);

	return n >= 2 && n <= BUILD_ID_HEX_MAX && n % 2 == 0 && strspn(id, "0123456789abcdef") == n;
}

static int dup_fd(int fd)
{
	int n = fcntl(fd, F_DUPFD_CLOEXEC, 0);

	return n >= 0 ? n : -errno;
}

int debuginfod__find(struct debuginfod *d, const char *build_id)
{
	uint64_t h;
	struct request *r;
	int ret;

	if (!d || !build_id || !valid_id(build_id))
		return -ENOENT;
	h = hash_bytes(build_id, strlen(build_id), 0);
	pthread_mutex_lock(&d->lock);
	r = hmap_find(&d->requests, h, build_id);
	if (!r)
		ret = enqueue(d, build_id, h);
	else if (r->state == REQ_FOUND)
		ret = dup_fd(r->fd);
	else
		ret = r->state == REQ_MISSING ? -ENOENT : -EAGAIN;
	pthread_mutex_unlock(&d->lock);
	return ret;
}

void debuginfod__wait(struct debuginfod *d, int timeout_ms)
{
	struct timespec until;

	if (!d)
		return;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&d->lock);
	while (d->st.pending && d->nworkers &&
	       pthread_cond_timedwait(&d->done, &d->lock, &until) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&d->lock);
}

void debuginfod__stats(struct debuginfod *d, struct debuginfod_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	*out = d->st;
	pthread_mutex_unlock(&d->lock);
}

void debuginfod__free(struct debuginfod *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	__atomic_store_n(&d->stopping, true, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&d->work);
	pthread_mutex_unlock(&d->lock);
	for (int i = 0; i < d->nworkers; i++)
		pthread_join(d->workers[i], NULL);
	hmap_for_each(&d->requests, i)
	{
		struct request *r = d->requests.slots[i].entry;

		if (r->fd >= 0)
			close(r->fd);
		free(r);
	}
	hmap_free(&d->requests);
	pthread_cond_destroy(&d->work);
	pthread_cond_destroy(&d->done);
	pthread_mutex_destroy(&d->lock);
	free(d);
}
