/* SPDX-License-Identifier: Apache-2.0 */
/* The groups a session profiles with --cgroup PATH and --container ID: each resolved
 * once to a cgroup v2 directory, then walked for the groups below it, at the start and
 * again every second, so that a group made meanwhile (a container's own, a pod's next
 * container) joins the kernel's filter. Processes that join a group need nothing: BPF
 * checks the group of every event's task. */
#ifndef EBPROF_CGROUPS_H
#define EBPROF_CGROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a group was named on the command line. */
struct cgroup_arg {
	bool container; /* --container: a container id prefix; else --cgroup: a path */
	const char *text;
};

struct cgroup_filter {
	char **dirs; /* the resolved groups */
	size_t ndirs;
	uint64_t *ids; /* every group found so far, sorted */
	size_t nids, cap;
	uint64_t next_scan_ns;
	bool full_said;
};

/* Resolves every argument (nargs 0: an empty filter, which filters nothing) and walks
 * the groups once. 0, or a negative errno after saying which argument and why. */
int cgroup_filter__init(struct cgroup_filter *f, const struct cgroup_arg *args, size_t nargs);
void cgroup_filter__free(struct cgroup_filter *f);
/* The processes in the groups now, for the first scan of the processes: *pids
 * malloc'd (*n of them; NULL and 0 when there are none). 0 or -ENOMEM. */
int cgroup_filter__pids(const struct cgroup_filter *f, uint32_t **pids, size_t *n);
/* Walks the groups again when a second has passed since the last walk, calling add for
 * each group not seen before. */
void cgroup_filter__refresh(struct cgroup_filter *f, uint64_t now_ns,
			    int (*add)(void *ctx, uint64_t id), void *ctx);

#endif
