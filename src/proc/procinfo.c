// SPDX-License-Identifier: Apache-2.0
/* Per-process resource facts for exporters, from /proc/PID/{exe,stat,cgroup,environ}.
 * Every read tolerates a process that is gone: what could not be read stays NULL. */
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/procinfo.h"
#include "util/safe_file.h"

#define READ_MAX (64 << 10) /* cgroup and environ beyond this are not worth reading */

static int info_eq(const void *entry, const void *key)
{
	return ((const struct proc_info *)entry)->pid == *(const uint32_t *)key;
}

void proc_info_cache__init(struct proc_info_cache *c)
{
	hmap_init(&c->by_pid, info_eq);
	c->generation = 0;
	c->proc_root = "/proc";
}

static void info_free(struct proc_info *p)
{
	free(p->exe_path);
	free(p->exe_name);
	free(p->container_id);
	free(p->pod_uid);
	free(p->service_name);
	free(p);
}

void proc_info_cache__free(struct proc_info_cache *c)
{
	hmap_for_each(&c->by_pid, i) info_free(c->by_pid.slots[i].entry);
	hmap_free(&c->by_pid);
}

/* Reads up to READ_MAX bytes of a /proc file, NUL-terminated (what lies past them is not
 * worth the reading); returns its length or a negative errno. */
static ssize_t read_small(const struct proc_info_cache *c, uint32_t pid, const char *name,
			  char **out)
{
	char path[PATH_MAX];
	ssize_t n, len = 0;
	char *buf;
	int fd;

	snprintf(path, sizeof(path), "%s/%u/%s", c->proc_root, pid, name);
	fd = safe_file__open_proc(path);
	if (fd < 0)
		return fd;
	buf = malloc(READ_MAX + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (len < READ_MAX && (n = read(fd, buf + len, READ_MAX - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return len;
}

/* Field 22 of /proc/PID/stat, counted after the ")" that ends the name (which may hold
 * spaces and parentheses itself). 0 when unreadable. */
static uint64_t start_ticks(const struct proc_info_cache *c, uint32_t pid)
{
	unsigned long long v = 0;
	char *buf = NULL, *p;
	int field = 2;

	if (read_small(c, pid, "stat", &buf) < 0)
		return 0;
	p = strrchr(buf, ')');
	while (p && *p && field < 22) {
		p = strchr(p + 1, ' ');
		field++;
	}
	if (p)
		sscanf(p, " %llu", &v);
	free(buf);
	return v;
}

/* The machine's name in systemd's machine-NAME.scope (systemd-nspawn, machinectl): the
 * last such group in cgroup, systemd's \xNN escapes undone; 0 or -ENOENT. */
static int machine_name(const char *cgroup, char out[65])
{
	const char *p = cgroup, *found = NULL;
	size_t n = 0;

	for (; (p = strstr(p, "machine-")); p++)
		if (p == cgroup || p[-1] == '/')
			found = p + 8;
	if (!found)
		return -ENOENT;
	for (p = found; *p && *p != '/' && *p != '\n' && strncmp(p, ".scope", 6); p++) {
		unsigned int c = (unsigned char)*p;

		if (c == '\\' && p[1] == 'x' && isxdigit((unsigned char)p[2]) &&
		    isxdigit((unsigned char)p[3]) && sscanf(p + 2, "%2x", &c) == 1)
			p += 3;
		if (n == 64 || !(isalnum(c) || c == '-' || c == '_' || c == '.'))
			return -ENOENT;
		out[n++] = (char)c;
	}
	if (!n || strncmp(p, ".scope", 6) || (p[6] && p[6] != '/' && p[6] != '\n'))
		return -ENOENT;
	out[n] = '\0';
	return 0;
}

int proc_info__container_id(const char *cgroup, char out[65])
{
	const char *p = cgroup, *found = NULL;
	size_t run = 0;

	for (; *p; p++) {
		if (isxdigit((unsigned char)*p) && !isupper((unsigned char)*p)) {
			run++;
			continue;
		}
		if (run == 64)
			found = p - 64;
		run = 0;
	}
	if (run == 64)
		found = p - 64;
	if (!found)
		return machine_name(cgroup, out);
	memcpy(out, found, 64);
	out[64] = '\0';
	return 0;
}

/* Whether s starts with a uuid whose groups are separated by sep. */
static bool is_uuid(const char *s, char sep)
{
	for (int i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		unsigned char c = (unsigned char)s[i];

		if (dash ? c != (unsigned char)sep : !isxdigit(c) || isupper(c))
			return false;
	}
	return true;
}

int proc_info__pod_uid(const char *cgroup, char out[37])
{
	const char *p = cgroup, *found = NULL;

	while ((p = strstr(p, "pod"))) {
		p += 3;
		if (strnlen(p, 36) == 36 && (is_uuid(p, '-') || is_uuid(p, '_')))
			found = p;
	}
	if (!found)
		return -ENOENT;
	for (int i = 0; i < 36; i++)
		out[i] = found[i] == '_' ? '-' : found[i];
	out[36] = '\0';
	return 0;
}

/* The container id and pod uid in the process's /proc/PID/cgroup. */
static void read_cgroup_ids(const struct proc_info_cache *c, struct proc_info *p)
{
	char *buf = NULL, id[65], uid[37];

	if (read_small(c, p->pid, "cgroup", &buf) < 0)
		return;
	if (!proc_info__container_id(buf, id))
		p->container_id = strdup(id);
	if (!proc_info__pod_uid(buf, uid))
		p->pod_uid = strdup(uid);
	free(buf);
}

/* The process's own OTEL_SERVICE_NAME, from its NUL-separated environment. */
static char *read_service_name(const struct proc_info_cache *c, uint32_t pid)
{
	static const char key[] = "OTEL_SERVICE_NAME=";
	char *buf = NULL, *res = NULL;
	ssize_t len = read_small(c, pid, "environ", &buf);

	for (ssize_t i = 0; i < len; i += strlen(buf + i) + 1) {
		if (!strncmp(buf + i, key, sizeof(key) - 1) && buf[i + sizeof(key) - 1]) {
			res = strdup(buf + i + sizeof(key) - 1);
			break;
		}
	}
	free(buf);
	return res;
}

static char *read_exe(const struct proc_info_cache *c, uint32_t pid)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%u/exe", c->proc_root, pid);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return NULL;
	target[n] = '\0';
	return strdup(target);
}

static int fill(const struct proc_info_cache *c, struct proc_info *p, const char *comm)
{
	const char *base;

	p->exe_path = read_exe(c, p->pid);
	base = p->exe_path ? strrchr(p->exe_path, '/') : NULL;
	p->exe_name = strdup(base ? base + 1 : (comm ? comm : ""));
	read_cgroup_ids(c, p);
	p->service_name = read_service_name(c, p->pid);
	return p->exe_name ? 0 : -ENOMEM;
}

const struct proc_info *proc_info__get(struct proc_info_cache *c, uint32_t pid, const char *comm)
{
	uint64_t h = hash_u64(pid), ticks = start_ticks(c, pid);
	struct proc_info *p = hmap_find(&c->by_pid, h, &pid);

	/* A process that is gone keeps what we knew; a reused pid is read afresh. */
	if (p && (!ticks || ticks == p->start_ticks)) {
		p->generation = c->generation;
		return p;
	}
	if (p) {
		hmap_remove(&c->by_pid, h, &pid);
		info_free(p);
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->start_ticks = ticks;
	p->generation = c->generation;
	if (fill(c, p, comm) || hmap_insert(&c->by_pid, h, p)) {
		info_free(p);
		return NULL;
	}
	return p;
}

static bool drop_stale(void *entry, void *ctx)
{
	struct proc_info *p = entry;

	if (p->generation == *(uint32_t *)ctx)
		return false;
	info_free(p);
	return true;
}

void proc_info_cache__age(struct proc_info_cache *c)
{
	hmap_filter(&c->by_pid, drop_stale, &c->generation);
	c->generation++;
}
