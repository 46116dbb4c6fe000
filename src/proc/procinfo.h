/* SPDX-License-Identifier: Apache-2.0 */
/* What a backend wants to know about a process beyond its stacks: the executable's
 * path and name, the container it runs in, and the service it says it is. Read from
 * /proc once per process and kept while the process appears in intervals, so an export
 * costs no /proc reads for processes already known. */
#ifndef EBPROF_PROCINFO_H
#define EBPROF_PROCINFO_H

#include <stdint.h>

#include "util/hmap.h"

struct proc_info {
	uint32_t pid;
	uint64_t start_ticks; /* /proc/PID/stat starttime: tells a reused pid apart */
	uint32_t generation;  /* the last interval that asked for it */
	char *exe_path;	      /* NULL when unreadable (kernel thread, gone) */
	char *exe_name;	      /* basename of exe_path, else the process name */
	char *container_id;   /* NULL outside containers */
	char *pod_uid;	      /* the Kubernetes pod's uid; NULL outside pods */
	char *service_name;   /* the process's own OTEL_SERVICE_NAME, else NULL */
};

struct proc_info_cache {
	struct hmap by_pid;
	uint32_t generation;
	const char *proc_root; /* "/proc"; tests point it elsewhere */
};

void proc_info_cache__init(struct proc_info_cache *c);
void proc_info_cache__free(struct proc_info_cache *c);
/* Returns what is known of pid, reading /proc when the pid is new or was reused. comm
 * names the process when its executable cannot be read. NULL only on ENOMEM. */
const struct proc_info *proc_info__get(struct proc_info_cache *c, uint32_t pid, const char *comm);
/* Ends an interval: forgets the processes no lookup asked for during it. */
void proc_info_cache__age(struct proc_info_cache *c);

/* The container id in a /proc/PID/cgroup text or a cgroup path: the last 64-hex-digit
 * run of any line (docker-ID.scope, /docker/ID, cri-containerd-ID.scope, crio-ID,
 * libpod-ID), else the name of a systemd machine (machine-NAME.scope: systemd-nspawn,
 * machinectl; escapes undone), which is all such a container is known by. Writes it
 * NUL-terminated into out[65]; returns 0, or -ENOENT when there is none. */
int proc_info__container_id(const char *cgroup, char out[65]);
/* The Kubernetes pod uid in a cgroup path or /proc/PID/cgroup text: the last "pod"
 * followed by a uuid, written with dashes (the cgroupfs driver's
 * /kubepods/burstable/podUID/) or underscores (the systemd driver's
 * kubepods-burstable-podUID.slice). Writes it with dashes into out[37]; 0 or -ENOENT. */
int proc_info__pod_uid(const char *cgroup, char out[37]);

#endif
