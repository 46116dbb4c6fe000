// SPDX-License-Identifier: Apache-2.0
/* --cgroup and --container: the groups a session profiles, resolved and walked again
 * every second (see cgroups.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cgroups.h"
#include "proc/cgroup.h"
#include "util/log.h"

#define RESCAN_NS 1000000000ULL

/* Where id goes in the sorted ids; *found when it is there. */
static size_t id_slot(const struct cgroup_filter *f, uint64_t id, bool *found)
{
	size_t lo = 0, hi = f->nids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < f->nids && f->ids[lo] == id;
	return lo;
}

/* Adds id; 1 when it is new, 0 when known, -ENOMEM. */
static int remember(struct cgroup_filter *f, uint64_t id)
{
	bool found;
	size_t at = id_slot(f, id, &found);

	if (found)
		return 0;
	if (f->nids == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;
		uint64_t *ids = realloc(f->ids, cap * sizeof(*ids));

		if (!ids)
			return -ENOMEM;
		f->ids = ids;
		f->cap = cap;
	}
	memmove(&f->ids[at + 1], &f->ids[at], (f->nids - at) * sizeof(*f->ids));
	f->ids[at] = id;
	f->nids++;
	return 1;
}

struct scan {
	struct cgroup_filter *f;
	int (*add)(void *ctx, uint64_t id);
	void *ctx;
	int err;
};

static int scan_one(const char *dir, uint64_t id, void *ctx)
{
	struct scan *sc = ctx;
	int n;

	(void)dir;
	if (sc->f->nids >= CGROUP_MAX_GROUPS)
		return -E2BIG;
	n = remember(sc->f, id);
	if (n < 0)
		return n;
	if (n && sc->add && sc->add(sc->ctx, id))
		return -E2BIG; /* the kernel's map is full */
	return 0;
}

static int scan(struct cgroup_filter *f, int (*add)(void *ctx, uint64_t id), void *ctx)
{
	struct scan sc = {.f = f, .add = add, .ctx = ctx};
	int err = 0;

	for (size_t i = 0; i < f->ndirs && !err; i++)
		err = cgroup__walk(f->dirs[i], scan_one, &sc);
	if (err == -E2BIG && !f->full_said) {
		pr_warn("more than %d cgroups below the --cgroup/--container groups: the groups "
			"made after the %d-th are not profiled",
			CGROUP_MAX_GROUPS, (int)f->nids);
		f->full_said = true;
	}
	return err == -E2BIG ? 0 : err;
}

/* The directory of one argument, said why not when there is none. */
static int resolve(const char *mount, const struct cgroup_arg *a, char *dir, size_t len)
{
	int err;

	if (a->container) {
		err = cgroup__find_container(mount, a->text, dir, len);
		if (err == -EINVAL)
			pr_err("--container %s: give a container id, its first 4 or more hex "
			       "digits, or a systemd machine's name",
			       a->text);
		else if (err == -ENOENT)
			pr_err(
			    "--container %s: no cgroup below %s is named with that id or machine",
			    a->text, mount);
		else if (err == -EEXIST)
			pr_err(
			    "--container %s: more than one container has an id starting so; give "
			    "more digits. Two of them:\n%s",
			    a->text, dir);
		else if (err)
			pr_err("--container %s: reading %s: %s", a->text, mount, strerror(-err));
		return err;
	}
	err = cgroup__resolve(mount, a->text, dir, len);
	if (err == -ENOTDIR)
		pr_err("--cgroup %s: not a cgroup v2 group (this host's v2 hierarchy is at %s)",
		       a->text, mount);
	else if (err)
		pr_err("--cgroup %s: no such group (neither a cgroup v2 directory nor %s/%s)",
		       a->text, mount, a->text[0] == '/' ? a->text + 1 : a->text);
	return err;
}

int cgroup_filter__init(struct cgroup_filter *f, const struct cgroup_arg *args, size_t nargs)
{
	char mount[PATH_MAX], dir[PATH_MAX * 2];
	int err;

	*f = (struct cgroup_filter){0};
	if (!nargs)
		return 0;
	if (cgroup__mount(mount, sizeof(mount))) {
		pr_err("--cgroup/--container: no cgroup v2 hierarchy is mounted on this host "
		       "(ebprof filters by cgroup v2 groups)");
		return -ENOENT;
	}
	f->dirs = calloc(nargs, sizeof(*f->dirs));
	if (!f->dirs)
		return -ENOMEM;
	for (size_t i = 0; i < nargs; i++) {
		err = resolve(mount, &args[i], dir, sizeof(dir));
		if (err)
			goto fail;
		f->dirs[f->ndirs] = strdup(dir);
		if (!f->dirs[f->ndirs]) {
			err = -ENOMEM;
			goto fail;
		}
		f->ndirs++;
		pr_debug("profiling cgroup %s and the groups below it", dir);
	}
	err = scan(f, NULL, NULL);
	if (err)
		goto fail;
	return 0;
fail:
	cgroup_filter__free(f);
	return err;
}

void cgroup_filter__free(struct cgroup_filter *f)
{
	for (size_t i = 0; i < f->ndirs; i++)
		free(f->dirs[i]);
	free(f->dirs);
	free(f->ids);
	*f = (struct cgroup_filter){0};
}

void cgroup_filter__refresh(struct cgroup_filter *f, uint64_t now_ns,
			    int (*add)(void *ctx, uint64_t id), void *ctx)
{
	if (!f->ndirs || now_ns < f->next_scan_ns)
		return;
	f->next_scan_ns = now_ns + RESCAN_NS;
	scan(f, add, ctx);
}

struct procs {
	uint32_t *pids;
	size_t n, cap;
};

static int procs_one(const char *dir, uint64_t id, void *ctx)
{
	struct procs *p = ctx;

	(void)id;
	return cgroup__procs(dir, &p->pids, &p->n, &p->cap) == -ENOMEM ? -ENOMEM : 0;
}

int cgroup_filter__pids(const struct cgroup_filter *f, uint32_t **pids, size_t *n)
{
	struct procs p = {0};
	int err = 0;

	for (size_t i = 0; i < f->ndirs && !err; i++)
		err = cgroup__walk(f->dirs[i], procs_one, &p);
	if (err == -ENOMEM) {
		free(p.pids);
		return err;
	}
	*pids = p.pids;
	*n = p.n;
	return 0;
}
