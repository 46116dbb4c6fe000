// SPDX-License-Identifier: Apache-2.0
/* The runtime registry and what every layer asks of it: which mapped files belong to
 * which runtime (decided once per file), the markers the runtimes' claims put in a
 * process's description, and dispatch of frames to the runtime that made them. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "ebprof_shared.h"
#include "elf/elf_file.h"
#include "interp/runtime.h"
#include "loader/loader.h"
#include "loader/objects.h"
#include "profile/frame_source.h"
#include "sample.h"
#include "util/cancel.h"
#include "util/crash.h"
#include "util/hmap.h"
#include "util/log.h"

/* The registry: one line per runtime, whose struct runtime_ops is NAME_runtime in
 * src/interp/NAME/NAME.c. */
#define EBPROF_RUNTIMES(X) X(python) X(go) X(hotspot) X(v8) X(php) X(perl) X(ruby) X(beam) X(dotnet)

#define DECLARE_RUNTIME(name) extern const struct runtime_ops name##_runtime;
EBPROF_RUNTIMES(DECLARE_RUNTIME)
#define LIST_RUNTIME(name) &name##_runtime,
static const struct runtime_ops *const registry[] = {EBPROF_RUNTIMES(LIST_RUNTIME)};
#define NRUNTIMES (sizeof(registry) / sizeof(registry[0]))

_Static_assert(NRUNTIMES < WALKER__COUNT, "every runtime has a walker slot");
_Static_assert(WALKER__COUNT <= 32, "runtimes are bits of 32-bit masks (chain.h)");

struct runtime_entry {
	const struct runtime_ops *ops;
	struct bpf_object *obj;
	void *priv;
	bool on; /* its maps made and started (init) */
	/* Its walker is verified on demand (runtime_set__start): installed in its slot,
	 * or failed to verify (the runtime is then off: no file is its, no process).
	 * Written under the set's vlock, by start-up or the verifier thread; failed is
	 * read without it too (atomically). */
	bool installed, failed;
	/* Under vlock: its verification is asked of the verifier thread, or running, or
	 * its processes are being handed back to the tracker. */
	bool asked;
	/* Under vlock: the processes described without its marks while its walker was not
	 * in (pids, each once), to be looked at again once it is. */
	uint32_t *waiting;
	size_t nwaiting, capwaiting;
};

/* file id -> the runtimes that claimed the file (bit = walker slot), or pid -> the
 * runtimes that described it. */
struct id_mask {
	uint32_t id;
	uint32_t mask;
};

struct runtime_set {
	struct runtime_env env;
	struct loader *loader; /* the session's, for the walkers verified on demand */
	chain_types types;
	struct runtime_entry e[NRUNTIMES];
	size_t n; /* entries in e: the runtimes this session loads */
	/* struct id_mask by file id; the tracker thread's, and start-up's before it runs */
	struct hmap claims;
	struct hmap described; /* struct id_mask by pid; tracker thread only */
	/* The verifier thread, started the first time the tracker meets a runtime whose
	 * walker is not verified yet: the tracker goes on with other processes meanwhile. */
	pthread_mutex_t vlock; /* the entries' asked, waiting, installed, failed; vstop */
	pthread_cond_t vwake;  /* the verifier's: a verification asked, or the stop */
	pthread_t verifier;
	bool verifier_started, vstop;
	const bool *vcancel;	/* the tracker's stop flag: a verification not begun is skipped */
	runtime_ready_fn ready; /* the tracker's: look at pid again */
	void *ready_ctx;
	bool named; /* the runtimes were named: their walkers are verified at start-up */
};

int runtime_registry__images(struct bpf_images *imgs)
{
	const void *elf;
	size_t size;
	int err;

	for (size_t i = 0; i < NRUNTIMES; i++) {
		elf = registry[i]->bpf_elf(&size);
		err = bpf_images__add(imgs, elf, size);
		if (err)
			return err;
	}
	return 0;
}

const struct runtime_ops *runtime_registry__get(size_t i)
{
	return i < NRUNTIMES ? registry[i] : NULL;
}

const struct frame_kind_info *runtime_registry__kind(uint32_t kind)
{
	/* A native kind is nobody's, though a runtime of native frames (Go) names it. */
	if (!frame_kind_is_runtime(kind))
		return NULL;
	for (size_t i = 0; i < NRUNTIMES; i++) {
		if (registry[i]->frame_kind == kind)
			return &registry[i]->kind;
	}
	return NULL;
}

static int id_eq(const void *entry, const void *key)
{
	return ((const struct id_mask *)entry)->id == *(const uint32_t *)key;
}

/* Whether word (len bytes) names ops: its name or its title, in any case. */
static bool names(const struct runtime_ops *ops, const char *word, size_t len)
{
	return (strlen(ops->name) == len && !strncasecmp(ops->name, word, len)) ||
	       (strlen(ops->title) == len && !strncasecmp(ops->title, word, len));
}

/* Says that word (len bytes) names no runtime, and which names do. */
static void bad_name(const char *word, size_t len)
{
	char known[512];
	size_t at = 0;

	known[0] = 0;
	for (size_t i = 0; i < NRUNTIMES && at < sizeof(known); i++)
		at += (size_t)snprintf(known + at, sizeof(known) - at, "%s%s (%s)", i ? ", " : "",
				       registry[i]->name, registry[i]->title);
	pr_err("--runtimes: '%.*s' is not a runtime ebprof walks: give a comma-separated list "
	       "of %s, by either name, or 'none'",
	       (int)len, word, known);
}

int runtime_list__mask(const char *list, uint32_t *mask)
{
	const char *p = list, *end;

	*mask = 0;
	if (!strcmp(list, "none"))
		return 0;
	if (!*list) {
		bad_name(list, 0);
		return -EINVAL;
	}
	for (; *p; p = *end ? end + 1 : end) {
		size_t len, i;

		end = p + strcspn(p, ",");
		len = (size_t)(end - p);
		for (i = 0; i < NRUNTIMES && !names(registry[i], p, len); i++)
			;
		if (!len || i == NRUNTIMES) {
			bad_name(p, len);
			return -EINVAL;
		}
		*mask |= 1u << i;
	}
	return 0;
}

struct runtime_set *runtime_set__new(const struct runtime_env *env)
{
	const char *list = env->only ? env->only : getenv("EBPROF_RUNTIMES");
	uint32_t mask = ~0u;
	struct runtime_set *rs;

	if (list && runtime_list__mask(list, &mask)) {
		errno = EINVAL;
		return NULL;
	}
	rs = calloc(1, sizeof(*rs));
	if (!rs)
		return NULL;
	rs->env = *env;
	rs->named = list != NULL;
	hmap_init(&rs->claims, id_eq);
	hmap_init(&rs->described, id_eq);
	pthread_mutex_init(&rs->vlock, NULL);
	pthread_cond_init(&rs->vwake, NULL);
	for (size_t i = 0; i < NRUNTIMES; i++) {
		if (mask & (1u << i))
			rs->e[rs->n++].ops = registry[i];
	}
	return rs;
}

void runtime_set__free(struct runtime_set *rs)
{
	if (!rs)
		return;
	runtime_set__stop_verifier(rs);
	for (size_t i = 0; i < rs->n; i++) {
		if (rs->e[i].on && rs->e[i].ops->free)
			rs->e[i].ops->free(rs->e[i].priv);
		bpf_object__close(rs->e[i].obj);
		free(rs->e[i].waiting);
	}
	hmap_free_entries(&rs->claims);
	hmap_free_entries(&rs->described);
	pthread_cond_destroy(&rs->vwake);
	pthread_mutex_destroy(&rs->vlock);
	free(rs);
}

/* Opens one runtime's walker object as the loader's (same BTF), named for it. */
static int prepare_one(struct runtime_entry *e, struct loader *l, chain_types types)
{
	LIBBPF_OPTS(bpf_object_open_opts, o, .object_name = e->ops->name,
		    .btf_custom_path = loader__open_opts(l)->btf_custom_path);
	const void *elf;
	size_t sz;
	int err;

	elf = e->ops->bpf_elf(&sz);
	e->obj = bpf_object__open_mem(elf, sz, &o);
	if (!e->obj) {
		err = -errno;
		pr_err("%s: opening its walker: %s", e->ops->name, strerror(-err));
		return err;
	}
	err = walkers__enable(e->obj, e->ops->bpf_walker, types);
	if (err == -ENOTSUP)
		return err;
	if (err) {
		pr_err("%s: its walker %s has no program for every entry type", e->ops->name,
		       e->ops->bpf_walker);
		return err;
	}
	err = loader__add(l, e->obj, elf, sz);
	/* Its maps are made with everyone's; its walker is verified once a file of its
	 * is found (walker_ready), so a host that runs no JVM verifies no JVM walker. */
	if (!err)
		loader__defer(l, e->obj);
	return err;
}

int runtime_set__prepare(struct runtime_set *rs, struct loader *l, chain_types types)
{
	rs->types = types;
	for (size_t i = 0; i < rs->n; i++) {
		int err = prepare_one(&rs->e[i], l, types);

		/* A walker only written with bpf_loop: this kernel records without it. */
		if (err == -ENOTSUP) {
			pr_warn("%s: its walker needs bpf_loop (Linux 5.17): %s",
				rs->e[i].ops->name, rs->e[i].ops->floor.without);
			bpf_object__close(rs->e[i].obj);
			memmove(&rs->e[i], &rs->e[i + 1], (rs->n - i - 1) * sizeof(rs->e[0]));
			rs->n--;
			i--;
			continue;
		}
		if (err)
			return err;
	}
	return 0;
}

int runtime_set__start(struct runtime_set *rs, struct loader *l)
{
	rs->loader = l;
	for (size_t i = 0; i < rs->n; i++) {
		struct runtime_entry *e = &rs->e[i];
		/* init needs only the maps: the walker is verified and installed later. */
		int err = e->ops->init(&rs->env, e->obj, &e->priv);

		/* A runtime that cannot start costs the rest nothing: it marks no process,
		 * so its walker is never verified and never runs. */
		if (err) {
			pr_warn("%s: cannot start (%s): its frames stay native", e->ops->name,
				strerror(-err));
			continue;
		}
		e->on = true;
	}
	return 0;
}

/* Whether e may claim files and mark processes: started, its walker not failed. */
static bool usable(const struct runtime_entry *e)
{
	return e->on && !__atomic_load_n(&e->failed, __ATOMIC_ACQUIRE);
}

/* Verifies e's walker and installs it in its slot: 30-250 ms on an idle host, seconds
 * on a loaded one. Returns 0, or -errno when it failed (said once here). */
static int verify_walker(struct runtime_set *rs, struct runtime_entry *e)
{
	int err = loader__run_pending(rs->loader, e->obj);

	if (!err)
		err = walkers__install(rs->loader, e->obj, e->ops->bpf_walker, e->ops->walker,
				       rs->types);
	if (err)
		pr_warn("%s: its walker did not load (%s, why above): %s is off, its frames "
			"stay native; the recording goes on",
			e->ops->name, strerror(-err), e->ops->title);
	return err;
}

/* Under vlock: what verify_walker said of e. */
static void set_verified(struct runtime_entry *e, int err)
{
	e->installed = !err;
	__atomic_store_n(&e->failed, err != 0, __ATOMIC_RELEASE);
}

/* Start-up, before the tracker runs: verifies e's walker now, the first time one of its
 * files is expected, so a command's runtime has it before the command runs. False when
 * it failed: the runtime is off. */
static bool walker_ready(struct runtime_set *rs, struct runtime_entry *e)
{
	bool done, in;
	int err;

	pthread_mutex_lock(&rs->vlock);
	done = e->installed || e->failed || e->asked;
	in = e->installed;
	pthread_mutex_unlock(&rs->vlock);
	if (done)
		return in;
	err = verify_walker(rs, e);
	pthread_mutex_lock(&rs->vlock);
	set_verified(e, err);
	pthread_mutex_unlock(&rs->vlock);
	return !err;
}

/* The next runtime whose verification is asked and not begun, under vlock. */
static struct runtime_entry *next_asked(struct runtime_set *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		struct runtime_entry *e = &rs->e[i];

		if (e->asked && !e->installed && !e->failed)
			return e;
	}
	return NULL;
}

/* Verifies e's walker, then hands the processes that waited for it to the tracker. */
static void verify_asked(struct runtime_set *rs, struct runtime_entry *e)
{
	int err = verify_walker(rs, e);
	uint32_t *pids;
	size_t n;

	pthread_mutex_lock(&rs->vlock);
	set_verified(e, err);
	pids = e->waiting;
	n = e->nwaiting;
	e->waiting = NULL;
	e->nwaiting = e->capwaiting = 0;
	pthread_mutex_unlock(&rs->vlock);
	/* A walker that failed marks nothing: their descriptions without it stay. */
	for (size_t i = 0; !err && rs->ready && i < n; i++)
		rs->ready(rs->ready_ctx, pids[i]);
	free(pids);
	pthread_mutex_lock(&rs->vlock);
	e->asked = false;
	pthread_mutex_unlock(&rs->vlock);
}

/* The verifier thread: the verifications the tracker asks for, one at a time (the
 * loader verifies one runtime's programs on its pool). A stop skips those not begun
 * and waits for the one running, which cannot be interrupted. */
static void *verifier_main(void *arg)
{
	struct runtime_set *rs = arg;
	struct runtime_entry *e;

	pthread_setname_np(pthread_self(), "ebprof-verify"); /* for ps and bench/ */
	pthread_mutex_lock(&rs->vlock);
	while (!rs->vstop) {
		if (cancel__requested(rs->vcancel) || !(e = next_asked(rs))) {
			pthread_cond_wait(&rs->vwake, &rs->vlock);
			continue;
		}
		pthread_mutex_unlock(&rs->vlock);
		verify_asked(rs, e);
		pthread_mutex_lock(&rs->vlock);
	}
	pthread_mutex_unlock(&rs->vlock);
	return NULL;
}

/* Under vlock: pid waits for e's walker (each pid once). */
static void keep_waiting(struct runtime_entry *e, uint32_t pid)
{
	for (size_t i = 0; i < e->nwaiting; i++) {
		if (e->waiting[i] == pid)
			return;
	}
	if (e->nwaiting == e->capwaiting) {
		size_t cap = e->capwaiting ? e->capwaiting * 2 : 16;
		uint32_t *v = realloc(e->waiting, cap * sizeof(*v));

		if (!v)
			return; /* described without it until a notice asks again */
		e->waiting = v;
		e->capwaiting = cap;
	}
	e->waiting[e->nwaiting++] = pid;
}

/* Tracker thread: whether e's walker is in its slot. When it is not verified yet, asks
 * the verifier thread for it (starting the thread the first time) and keeps pid, to be
 * handed back (runtime_ready_fn) once it is in; false meanwhile. cancel: the tracker's
 * stop flag. */
static bool walker_in(struct runtime_set *rs, struct runtime_entry *e, uint32_t pid,
		      const bool *cancel)
{
	bool in, inline_verify = false;

	pthread_mutex_lock(&rs->vlock);
	in = e->installed;
	if (!in && !e->failed && !rs->vstop) {
		rs->vcancel = cancel;
		if (!rs->verifier_started)
			rs->verifier_started =
			    !crash__thread_create(&rs->verifier, verifier_main, rs);
		/* No thread: verified here, as the tracker did before it had one. */
		inline_verify = !rs->verifier_started;
		if (!inline_verify) {
			keep_waiting(e, pid);
			e->asked = true;
			pthread_cond_signal(&rs->vwake);
		}
	}
	pthread_mutex_unlock(&rs->vlock);
	if (inline_verify) {
		pr_debug("%s: no thread to verify its walker: verified by the tracker",
			 e->ops->name);
		return walker_ready(rs, e);
	}
	return in;
}

void runtime_set__on_ready(struct runtime_set *rs, runtime_ready_fn ready, void *ctx)
{
	pthread_mutex_lock(&rs->vlock);
	rs->ready = ready;
	rs->ready_ctx = ctx;
	pthread_mutex_unlock(&rs->vlock);
}

bool runtime_set__verifying(struct runtime_set *rs)
{
	bool busy = false;

	pthread_mutex_lock(&rs->vlock);
	for (size_t i = 0; i < rs->n && !busy; i++)
		busy = rs->e[i].asked;
	pthread_mutex_unlock(&rs->vlock);
	return busy;
}

void runtime_set__stop_verifier(struct runtime_set *rs)
{
	bool started;

	pthread_mutex_lock(&rs->vlock);
	rs->vstop = true;
	started = rs->verifier_started;
	rs->verifier_started = false;
	pthread_cond_signal(&rs->vwake);
	pthread_mutex_unlock(&rs->vlock);
	if (started)
		pthread_join(rs->verifier, NULL);
	rs->ready = NULL;
}

/* Asks every usable runtime whether the file at fd is its own; the file is opened (as
 * an ELF view) once for all of them. Returns the mask of those that said yes. */
static uint32_t detect_fd(struct runtime_set *rs, uint32_t file_id, const char *path, int fd)
{
	struct elf_file *elf = elf_file__open(fd);
	uint32_t mask = 0;

	for (size_t i = 0; i < rs->n; i++) {
		const struct runtime_entry *e = &rs->e[i];
		struct runtime_file rf = {.file_id = file_id, .path = path, .fd = fd, .elf = elf};

		if (usable(e) && e->ops->detect(e->priv, &rf))
			mask |= 1u << e->ops->walker;
	}
	elf_file__free(elf);
	return mask;
}

/* Asks every runtime about a file the first time one of its mappings is described. */
static uint32_t detect_file(struct runtime_set *rs, uint32_t file_id)
{
	char path[4096] = "";
	struct file_entry *f;
	uint32_t mask;
	int fd = -1;

	pthread_mutex_lock(&rs->env.procs->lock);
	f = file_table__get(rs->env.procs->files, file_id);
	if (f) {
		snprintf(path, sizeof(path), "%s", f->path ? f->path : "");
		fd = f->fd >= 0 ? dup(f->fd) : -1;
	}
	pthread_mutex_unlock(&rs->env.procs->lock);
	if (fd < 0)
		return 0;
	mask = detect_fd(rs, file_id, path, fd);
	close(fd);
	return mask;
}

/* Remembers what the runtimes said of file_id. Returns mask. */
static uint32_t keep_claims(struct runtime_set *rs, uint32_t file_id, uint32_t mask)
{
	struct id_mask *c = malloc(sizeof(*c));

	if (!c)
		return mask;
	*c = (struct id_mask){.id = file_id, .mask = mask};
	if (hmap_insert(&rs->claims, hash_u64(file_id), c))
		free(c);
	return mask;
}

/* The runtimes that claimed file_id, asking them the first time. */
static uint32_t file_claims(struct runtime_set *rs, uint32_t file_id)
{
	struct id_mask *c = hmap_find(&rs->claims, hash_u64(file_id), &file_id);

	if (c)
		return c->mask;
	return keep_claims(rs, file_id, detect_file(rs, file_id));
}

void runtime_set__expect(struct runtime_set *rs, uint32_t file_id, const char *path, int fd)
{
	uint32_t mask;

	if (hmap_find(&rs->claims, hash_u64(file_id), &file_id))
		return;
	mask = keep_claims(rs, file_id, detect_fd(rs, file_id, path, fd));
	for (size_t i = 0; i < rs->n; i++) {
		if (usable(&rs->e[i]) && (mask & (1u << rs->e[i].ops->walker)))
			walker_ready(rs, &rs->e[i]);
	}
}

void runtime_set__expect_command(struct runtime_set *rs, const char *exe)
{
	for (size_t i = 0; i < rs->n; i++) {
		struct runtime_entry *e = &rs->e[i];

		if (usable(e) && e->ops->launches && e->ops->launches(exe))
			walker_ready(rs, e);
	}
}

void runtime_set__verify_named(struct runtime_set *rs)
{
	for (size_t i = 0; rs->named && i < rs->n; i++) {
		if (usable(&rs->e[i]))
			walker_ready(rs, &rs->e[i]);
	}
}

static void set_described(struct runtime_set *rs, uint32_t pid, uint32_t mask)
{
	struct id_mask *d = hmap_find(&rs->described, hash_u64(pid), &pid);

	if (d) {
		d->mask = mask;
		return;
	}
	if (!mask || !(d = malloc(sizeof(*d))))
		return;
	*d = (struct id_mask){.id = pid, .mask = mask};
	if (hmap_insert(&rs->described, hash_u64(pid), d))
		free(d);
}

static uint32_t described(struct runtime_set *rs, uint32_t pid)
{
	struct id_mask *d = hmap_find(&rs->described, hash_u64(pid), &pid);

	return d ? d->mask : 0;
}

/* One runtime's description of pid, its claims written into desc. */
static bool describe_one(const struct runtime_entry *e, uint32_t pid,
			 const struct proc_mapping *maps, uint32_t n, struct unw_proc *desc)
{
	struct runtime_marks marks = {0};

	if (e->ops->describe(e->priv, pid, maps, n, &marks))
		return false;
	for (uint32_t k = 0; k < marks.n && k < RUNTIME_MAX_MARKS; k++) {
		if (runtime_marks__apply(desc, marks.m[k].start, marks.m[k].end, e->ops->walker,
					 marks.m[k].mark))
			pr_debug("%s: pid %u has too many mappings for all of its claims",
				 e->ops->name, pid);
	}
	if (marks.always)
		desc->always |= 1u << e->ops->walker;
	return true;
}

int runtime_set__describe(struct runtime_set *rs, uint32_t pid, const struct proc_mapping *maps,
			  uint32_t n, struct unw_proc *desc, const bool *cancel)
{
	uint32_t claimed = 0, was = described(rs, pid), now = 0;

	/* Detection opens each new file's ELF view and looks symbols up: a stop is heeded
	 * between files, and once more before a walker may be verified (which cannot be
	 * interrupted). Claims of the files already asked about stay: they are complete. */
	for (uint32_t i = 0; i < n; i++) {
		if (cancel__requested(cancel))
			return -ECANCELED;
		if (maps[i].file_id)
			claimed |= file_claims(rs, maps[i].file_id);
	}
	if (cancel__requested(cancel))
		return -ECANCELED;
	for (size_t i = 0; i < rs->n; i++) {
		struct runtime_entry *e = &rs->e[i];
		uint32_t bit = 1u << e->ops->walker;

		if (!e->on)
			continue;
		/* Its walker is in its slot before its first mark reaches BPF; until then pid
		 * is described without its marks, and looked at again once it is. */
		if ((claimed & bit) && walker_in(rs, e, pid, cancel) &&
		    describe_one(e, pid, maps, n, desc))
			now |= bit;
		else if (was & bit)
			e->ops->forget(e->priv, pid);
	}
	set_described(rs, pid, now);
	return (int)claimed;
}

uint32_t runtime_set__claims(struct runtime_set *rs, uint32_t file_id)
{
	return file_claims(rs, file_id);
}

void runtime_set__forget(struct runtime_set *rs, uint32_t pid)
{
	uint32_t was = described(rs, pid);
	struct id_mask *d;

	for (size_t i = 0; i < rs->n; i++) {
		const struct runtime_entry *e = &rs->e[i];

		if (e->on && (was & (1u << e->ops->walker)))
			e->ops->forget(e->priv, pid);
	}
	d = hmap_remove(&rs->described, hash_u64(pid), &pid);
	free(d);
}

static const struct runtime_entry *by_walker(const struct runtime_set *rs, uint32_t walker)
{
	for (size_t i = 0; i < rs->n; i++) {
		if (rs->e[i].on && rs->e[i].ops->walker == walker)
			return &rs->e[i];
	}
	return NULL;
}

static unsigned int source_ingest(void *ctx, uint32_t pid, const struct user_frame *uf,
				  struct frame *out, unsigned int max)
{
	const struct runtime_set *rs = ctx;
	const struct runtime_entry *e = by_walker(rs, UF_RUNTIME_OF(uf->file_id));

	if (!max)
		return 0;
	if (!e) {
		*out = (struct frame){.kind = FRAME_UNKNOWN};
		return 1;
	}
	return e->ops->ingest(e->priv, pid, uf, out, max);
}

static unsigned int source_labels(void *ctx, uint32_t pid, const struct user_frame *uf,
				  unsigned int n, struct label *out, unsigned int max)
{
	const struct runtime_set *rs = ctx;
	const struct runtime_entry *e = n ? by_walker(rs, UF_RUNTIME_OF(uf->file_id)) : NULL;

	if (!e || !e->ops->labels)
		return 0;
	return e->ops->labels(e->priv, pid, uf, n, out, max);
}

static bool source_symbol(void *ctx, const struct frame *f, struct arena *a,
			  struct frame_symbol *out)
{
	const struct runtime_set *rs = ctx;

	for (size_t i = 0; i < rs->n; i++) {
		const struct runtime_entry *e = &rs->e[i];

		if (e->on && e->ops->frame_kind == f->kind && e->ops->frame_symbol)
			return e->ops->frame_symbol(e->priv, f, a, out);
	}
	return false;
}

void runtime_set__frame_source(struct runtime_set *rs, struct frame_source *out)
{
	*out = (struct frame_source){
	    .ctx = rs,
	    .ingest = source_ingest,
	    .labels = source_labels,
	    .symbol = source_symbol,
	    .kind = runtime_registry__kind,
	};
}

void runtime_set__print_stats(const struct runtime_set *rs, FILE *out)
{
	for (size_t i = 0; rs && i < rs->n; i++) {
		if (rs->e[i].on && rs->e[i].ops->print_stats)
			rs->e[i].ops->print_stats(rs->e[i].priv, out);
	}
}

/* Makes room for a copy of desc->m[i] at i + 1. */
static int split_at(struct unw_proc *desc, uint32_t i)
{
	if (desc->n >= UNW_MAX_MAPPINGS)
		return -ENOSPC;
	memmove(&desc->m[i + 1], &desc->m[i], (desc->n - i) * sizeof(desc->m[0]));
	desc->n++;
	return 0;
}

int runtime_marks__apply(struct unw_proc *desc, uint64_t start, uint64_t end, uint8_t runtime,
			 uint8_t mark)
{
	if (desc->n > UNW_MAX_MAPPINGS)
		desc->n = UNW_MAX_MAPPINGS;
	for (uint32_t i = 0; i < desc->n && start < end; i++) {
		struct unw_mapping *m = &desc->m[i];

		if (m->end <= start)
			continue;
		if (m->start >= end)
			break;
		if (m->start < start) { /* the part before the claim stays as it was */
			if (split_at(desc, i))
				return -ENOSPC;
			desc->m[i].end = start;
			desc->m[i + 1].start = start;
			continue;
		}
		if (m->end > end) { /* and so does the part after it */
			if (split_at(desc, i))
				return -ENOSPC;
			desc->m[i].end = end;
			desc->m[i + 1].start = end;
		}
		desc->m[i].runtime = runtime;
		desc->m[i].mark = mark;
	}
	return 0;
}
