/* SPDX-License-Identifier: Apache-2.0 */
/* Control groups (v2) as the filter of --cgroup and --container sees them: where the
 * hierarchy is mounted, what the kernel calls a group (its id is what BPF's
 * bpf_get_current_cgroup_id returns), the groups below one, and which group a container
 * id stands for. A container is a group whose name carries its 64-hex-digit id (Docker,
 * containerd/CRI, CRI-O, Podman); systemd-nspawn names its groups by machine name,
 * which --cgroup takes instead. */
#ifndef EBPROF_CGROUP_H
#define EBPROF_CGROUP_H

#include <stddef.h>
#include <stdint.h>

/* How deep below a --cgroup group the walk goes, and how many groups it takes in all:
 * a container has a few, a host's whole tree some hundreds. */
#define CGROUP_MAX_DEPTH 16
#define CGROUP_MAX_GROUPS 4096

/* Where the v2 hierarchy is mounted (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a
 * hybrid host), from mountinfo (its text given, as /proc/self/mountinfo reads). 0, or
 * -ENOENT when no cgroup2 is mounted. */
int cgroup__mount_in(const char *mountinfo, char *out, size_t len);
int cgroup__mount(char *out, size_t len);

/* The directory that spec names: a directory of a cgroup2 file system as it is, else a
 * path in the hierarchy (as /proc/PID/cgroup shows it) below mount. 0, -ENOENT (no such
 * group) or -ENOTDIR (a directory, but not of a cgroup2 file system). */
int cgroup__resolve(const char *mount, const char *spec, char *out, size_t len);

/* A group's id: the kernel's, as BPF sees it (the file handle of the directory). */
int cgroup__id(const char *dir, uint64_t *id);

/* Calls fn for dir and every group below it, at most CGROUP_MAX_DEPTH deep, until fn
 * returns nonzero (which it returns) or CGROUP_MAX_GROUPS were seen (then -E2BIG). A
 * group removed meanwhile is skipped. */
int cgroup__walk(const char *dir, int (*fn)(const char *dir, uint64_t id, void *ctx), void *ctx);

/* Appends the processes of group dir (its cgroup.procs) to *pids (*n of them, room for
 * *cap, grown as needed). 0, or a negative errno (a group removed meanwhile: 0). */
int cgroup__procs(const char *dir, uint32_t **pids, size_t *n, size_t *cap);

/* The group below mount of the container whose id starts with prefix (at least 4
 * lower-case hex digits) or, for any other name, the systemd machine of that name
 * (machine-NAME.scope), its id read from the group's name as proc_info__container_id
 * reads it. 0; -EINVAL (neither an id prefix nor a machine's name), -ENOENT (no such
 * container), -EEXIST (more than one: out holds the first two, separated by a newline).
 * A container with groups of its own below its group is found once, at the top. */
int cgroup__find_container(const char *mount, const char *prefix, char *out, size_t len);

#endif
