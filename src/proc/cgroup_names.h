/* SPDX-License-Identifier: Apache-2.0 */
/* The names of the cgroup v2 groups samples ran in: BPF sends each sample's group id
 * (bpf_get_current_cgroup_id), which says nothing to a reader; this turns it into the
 * group's path and the container id its name carries, for the samples' labels. Groups
 * are found by walking the hierarchy, again at most once a second while an id is
 * unknown, so a sample costs one lookup. Bounded: CGROUP_NAMES_MAX groups are kept. */
#ifndef EBPROF_CGROUP_NAMES_H
#define EBPROF_CGROUP_NAMES_H

#include <limits.h>
#include <stdint.h>

#include "util/hmap.h"

#define CGROUP_NAMES_MAX 16384

struct cgroup_name {
	uint64_t id;
	char *path;	       /* below the mount ("/system.slice/nginx.service"); NULL: unknown */
	char container_id[65]; /* "" when the name carries none */
	char pod_uid[37];      /* the Kubernetes pod's, from the path; "" outside pods */
};

struct cgroup_names {
	struct hmap by_id;
	char mount[PATH_MAX]; /* "" on a host without cgroup v2: nothing is ever named */
	uint64_t next_walk_ns;
	unsigned int count;
};

/* mount: the v2 hierarchy (NULL: the host's, from mountinfo). Never fails: a host
 * without one names nothing. */
void cgroup_names__init(struct cgroup_names *cn, const char *mount);
void cgroup_names__free(struct cgroup_names *cn);
/* Group id's name, now_ns (CLOCK_MONOTONIC) pacing the walks; NULL for the root group
 * (no container, nothing to say) and for groups not found (gone, or past the bound). */
const struct cgroup_name *cgroup_names__get(struct cgroup_names *cn, uint64_t id, uint64_t now_ns);

#endif
