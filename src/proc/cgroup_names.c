// SPDX-License-Identifier: Apache-2.0
/* Cgroup ids to the groups' paths and container ids, by walking the v2 hierarchy on
 * demand (see cgroup_names.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/cgroup.h"
#include "proc/cgroup_names.h"
#include "proc/procinfo.h"

#define WALK_EVERY_NS 1000000000ULL

static int eq_id(const void *entry, const void *key)
{
	return ((const struct cgroup_name *)entry)->id == *(const uint64_t *)key;
}

void cgroup_names__init(struct cgroup_names *cn, const char *mount)
{
	*cn = (struct cgroup_names){0};
	hmap_init(&cn->by_id, eq_id);
	if (mount)
		snprintf(cn->mount, sizeof(cn->mount), "%s", mount);
	else if (cgroup__mount(cn->mount, sizeof(cn->mount)))
		cn->mount[0] = '\0';
}

static bool drop_name(void *entry, void *ctx)
{
	struct cgroup_name *n = entry;

	(void)ctx;
	free(n->path);
	free(n);
	return true;
}

void cgroup_names__free(struct cgroup_names *cn)
{
	hmap_filter(&cn->by_id, drop_name, NULL);
	hmap_free(&cn->by_id);
}

/* The entry of id, added (unknown: no path) when it is new and there is room. */
static struct cgroup_name *entry(struct cgroup_names *cn, uint64_t id)
{
	uint64_t h = hash_u64(id);
	struct cgroup_name *n = hmap_find(&cn->by_id, h, &id);

	if (n || cn->count >= CGROUP_NAMES_MAX)
		return n;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->id = id;
	if (hmap_insert(&cn->by_id, h, n)) {
		free(n);
		return NULL;
	}
	cn->count++;
	return n;
}

static int name_one(const char *dir, uint64_t id, void *ctx)
{
	struct cgroup_names *cn = ctx;
	const char *path = dir + strlen(cn->mount);
	struct cgroup_name *n = entry(cn, id);

	if (!n)
		return cn->count >= CGROUP_NAMES_MAX ? 1 : -ENOMEM;
	if (n->path)
		return 0;
	n->path = strdup(path);
	if (!n->path)
		return -ENOMEM;
	/* The whole path: a container's own groups below it (Podman's container/, a
	 * machine's payload/) are that container's. */
	if (proc_info__container_id(path, n->container_id))
		n->container_id[0] = '\0';
	if (proc_info__pod_uid(path, n->pod_uid))
		n->pod_uid[0] = '\0';
	return 0;
}

const struct cgroup_name *cgroup_names__get(struct cgroup_names *cn, uint64_t id, uint64_t now_ns)
{
	struct cgroup_name *n;

	if (!cn->mount[0])
		return NULL;
	n = hmap_find(&cn->by_id, hash_u64(id), &id);
	if ((!n || !n->path) && now_ns >= cn->next_walk_ns) {
		cn->next_walk_ns = now_ns + WALK_EVERY_NS;
		cgroup__walk(cn->mount, name_one, cn);
		n = entry(cn, id); /* remembered unknown until a walk finds it */
	}
	return n && n->path && n->path[0] ? n : NULL;
}
