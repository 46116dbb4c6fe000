// SPDX-License-Identifier: Apache-2.0
/* The kernel tests' leak check: are the BPF objects and perf events a process logged
 * (bpf_log.c) all gone? Looks each one up by its id, never compares the kernel's whole
 * lists, so other programs loading or unloading BPF meanwhile change nothing. A survivor
 * is named with the processes that still hold it.
 * Usage: bpf_gone LOG [WAIT_MS]   exit 0: all gone (or LOG is empty); 1: a survivor after
 *        WAIT_MS (default 30000); 2: bad usage */
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_OBJECTS 65536
/* How long an object may take to go. Freed programs and maps leave the id tables after an
 * RCU grace period, a program array is cleared by a deferred work item, and any process
 * that lists the kernel's objects (bpftool, a monitoring agent) holds each for a moment:
 * once in a loaded host's suite, maps outlived ebprof by over 2 s that way, and once the
 * program arrays of a crashed run (each holds programs that hold it: the cycle breaks only
 * when that work item runs) outlived 10 s. Only a leak waits the whole time. */
#define SETTLE_MS 30000

enum kind { PROG, MAP, LINK, BTF, PERF, NKINDS };

static const char *const kind_names[NKINDS] = {"prog", "map", "link", "btf", "perf"};
/* What /proc/PID/fdinfo says for a descriptor of each kind, and its link target. */
static const char *const fdinfo_keys[NKINDS] = {"prog_id:", "map_id:", "link_id:", "btf_id:", NULL};

struct object {
	enum kind kind;
	unsigned long long id;
	char name[32];
	bool alive;
};

static struct object objects[MAX_OBJECTS];
static size_t nobjects;

static int kind_of(const char *s)
{
	for (int k = 0; k < NKINDS; k++)
		if (strcmp(s, kind_names[k]) == 0)
			return k;
	return -1;
}

static bool known(enum kind k, unsigned long long id)
{
	for (size_t i = 0; i < nobjects; i++)
		if (objects[i].kind == k && objects[i].id == id)
			return true;
	return false;
}

/* Reads LOG's "KIND ID NAME pid PID" lines; each object once. */
static int read_log(const char *path)
{
	char line[256], kind[16], name[32];
	unsigned long long id;
	FILE *f = fopen(path, "r");
	int k;

	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f) && nobjects < MAX_OBJECTS) {
		if (sscanf(line, "%15s %llu %31s", kind, &id, name) != 3 || (k = kind_of(kind)) < 0)
			continue;
		if (known(k, id))
			continue;
		objects[nobjects].kind = k;
		objects[nobjects].id = id;
		snprintf(objects[nobjects].name, sizeof(objects[0].name), "%s", name);
		nobjects++;
	}
	fclose(f);
	return 0;
}

/* True while the kernel still has the BPF object: its id still gives a descriptor. */
static bool bpf_alive(const struct object *o)
{
	__u32 id = (__u32)o->id;
	int fd = -1;

	switch (o->kind) {
	case PROG:
		fd = bpf_prog_get_fd_by_id(id);
		break;
	case MAP:
		fd = bpf_map_get_fd_by_id(id);
		break;
	case LINK:
		fd = bpf_link_get_fd_by_id(id);
		break;
	case BTF:
		fd = bpf_btf_get_fd_by_id(id);
		break;
	default:
		return false;
	}
	if (fd >= 0)
		close(fd);
	return fd >= 0 || errno != ENOENT;
}

/* The id of the perf event behind PID's descriptor FD (a copy made with pidfd_getfd), or
 * 0 when it is not one or cannot be read. */
static unsigned long long perf_id(int pid, int fd)
{
	unsigned long long id = 0;
	int pidfd = syscall(SYS_pidfd_open, pid, 0), copy;

	if (pidfd < 0)
		return 0;
	copy = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (copy >= 0 && ioctl(copy, PERF_EVENT_IOC_ID, &id))
		id = 0;
	if (copy >= 0)
		close(copy);
	close(pidfd);
	return id;
}

/* Calls fn for every descriptor of every process but this one whose link target starts
 * with target ("anon_inode:[perf_event]", "anon_inode:bpf-map"...). */
static void each_fd(const char *target, void (*fn)(int pid, int fd, void *ctx), void *ctx)
{
	char path[PATH_MAX], link[256];
	DIR *procs = opendir("/proc"), *fds;
	struct dirent *p, *f;
	ssize_t n;

	while (procs && (p = readdir(procs))) {
		int pid = atoi(p->d_name);

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd", pid);
		if (!(fds = opendir(path)))
			continue;
		while ((f = readdir(fds))) {
			snprintf(path, sizeof(path), "/proc/%d/fd/%s", pid, f->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			if (strncmp(link, target, strlen(target)) == 0)
				fn(pid, atoi(f->d_name), ctx);
		}
		closedir(fds);
	}
	if (procs)
		closedir(procs);
}

static void mark_perf(int pid, int fd, void *ctx)
{
	unsigned long long id = perf_id(pid, fd);

	(void)ctx;
	for (size_t i = 0; id && i < nobjects; i++)
		if (objects[i].kind == PERF && objects[i].id == id)
			objects[i].alive = true;
}

/* Looks every object up; returns how many are still there. Perf events have no lookup by
 * id: one is alive while a process holds a descriptor of it (a BPF link or a perf event
 * array that holds one is itself an object checked here). */
static size_t survey(void)
{
	size_t alive = 0, i;
	bool perf = false;

	for (i = 0; i < nobjects; i++) {
		objects[i].alive = bpf_alive(&objects[i]);
		perf |= objects[i].kind == PERF;
	}
	if (perf)
		each_fd("anon_inode:[perf_event]", mark_perf, NULL);
	for (i = 0; i < nobjects; i++)
		alive += objects[i].alive;
	return alive;
}

static void print_holder(int pid, int fd, void *ctx)
{
	const struct object *o = ctx;
	char path[64], line[128], comm[32] = "?";
	bool holds = o->kind == PERF;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	f = fopen(path, "r");
	while (!holds && f && fgets(line, sizeof(line), f)) {
		const char *key = fdinfo_keys[o->kind];

		holds = strncmp(line, key, strlen(key)) == 0 &&
			strtoull(line + strlen(key), NULL, 10) == o->id;
	}
	if (f)
		fclose(f);
	if (o->kind == PERF)
		holds = perf_id(pid, fd) == o->id;
	if (!holds)
		return;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (f && fgets(comm, sizeof(comm), f))
		comm[strcspn(comm, "\n")] = '\0';
	if (f)
		fclose(f);
	printf(", held by pid %d (%s) fd %d", pid, comm, fd);
}

static void report(const struct object *o)
{
	printf("%s %llu %s is still there", kind_names[o->kind], o->id, o->name);
	each_fd(o->kind == PERF ? "anon_inode:[perf_event]" : "anon_inode:", print_holder,
		(void *)o);
	printf("\n");
}

int main(int argc, char **argv)
{
	struct timespec nap = {0, 100 * 1000 * 1000};
	size_t alive, counts[NKINDS] = {0};
	int err, settle_ms = argc > 2 ? atoi(argv[2]) : SETTLE_MS;

	if (argc < 2 || argc > 3 || settle_ms < 0) {
		fprintf(stderr, "usage: bpf_gone LOG [WAIT_MS]\n");
		return 2;
	}
	err = read_log(argv[1]);
	if (err) {
		fprintf(stderr, "bpf_gone: %s: %s\n", argv[1], strerror(-err));
		return 2;
	}
	for (int waited = 0; (alive = survey()) && waited < settle_ms; waited += 100)
		nanosleep(&nap, NULL);
	for (size_t i = 0; i < nobjects; i++) {
		counts[objects[i].kind]++;
		if (objects[i].alive)
			report(&objects[i]);
	}
	printf("%zu of %zu objects left (%zu programs, %zu maps, %zu links, %zu BTF, %zu perf "
	       "events)\n",
	       alive, nobjects, counts[PROG], counts[MAP], counts[LINK], counts[BTF], counts[PERF]);
	return alive ? 1 : 0;
}
