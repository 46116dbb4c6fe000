// SPDX-License-Identifier: Apache-2.0
/* Unit tests of the cgroup side of --cgroup / --container: the v2 mount found in
 * mountinfo texts of unified, hybrid and v1-only hosts, the walk below a group (every
 * group once, bounded), and container ids resolved to groups on a tree laid out as
 * Docker's, containerd's and Podman's (a plain directory tree: these read names only),
 * and samples' group ids named, with the walks paced. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "proc/cgroup.h"
#include "proc/cgroup_names.h"

#define ID1 "3f4e2d1c0b9a8f7e6d5c4b3a29181706f5e4d3c2b1a098f7e6d5c4b3a2918170"
#define ID2 "3f4e99990b9a8f7e6d5c4b3a29181706f5e4d3c2b1a098f7e6d5c4b3a2918170"
#define ID3 "77aa2d1c0b9a8f7e6d5c4b3a29181706f5e4d3c2b1a098f7e6d5c4b3a2918170"

static void test_mount_in_mountinfo(void)
{
	static const char unified[] =
	    "22 1 0:21 / /proc rw,nosuid - proc proc rw\n"
	    "25 21 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 "
	    "cgroup2 rw,nsdelegate\n";
	static const char hybrid[] =
	    "30 25 0:26 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755\n"
	    "31 30 0:27 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw\n"
	    "32 30 0:28 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory\n";
	static const char v1[] = "32 30 0:28 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory";
	char out[PATH_MAX];

	CHECK(cgroup__mount_in(unified, out, sizeof(out)) == 0);
	CHECK(strcmp(out, "/sys/fs/cgroup") == 0);
	CHECK(cgroup__mount_in(hybrid, out, sizeof(out)) == 0);
	CHECK(strcmp(out, "/sys/fs/cgroup/unified") == 0);
	CHECK(cgroup__mount_in(v1, out, sizeof(out)) == -ENOENT);
	CHECK(cgroup__mount_in("", out, sizeof(out)) == -ENOENT);
	/* A line cut short, and a mount point too long for out: no crash, no match. */
	CHECK(cgroup__mount_in("31 30 0:27 / /sys/fs/cgroup/unified", out, sizeof(out)) == -ENOENT);
	CHECK(cgroup__mount_in(hybrid, out, 8) == -ENOENT);
}

/* A tree of groups as the runtimes lay them out, under a scratch directory. */
static char root[PATH_MAX];

static void make(const char *rel)
{
	char path[PATH_MAX * 2], *p;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

static int count_one(const char *dir, uint64_t id, void *ctx)
{
	(void)dir;
	(void)id;
	(*(int *)ctx)++;
	return 0;
}

static void test_walk_and_find(void)
{
	char out[PATH_MAX * 3], want[PATH_MAX * 2];
	int n = 0;

	snprintf(root, sizeof(root), "/tmp/ebprof-cgroup.XXXXXX");
	CHECK(mkdtemp(root) != NULL);
	make("system.slice/docker-" ID1 ".scope");
	make("kubepods.slice/kubepods-pod1.slice/cri-containerd-" ID2 ".scope");
	/* Podman's payload group below the container's: the same container, found once. */
	make("machine.slice/libpod-" ID3 ".scope/container");
	make("machine.slice/machine-web.scope/payload");

	CHECK(cgroup__walk(root, count_one, &n) == 0);
	CHECK(n == 11);

	snprintf(want, sizeof(want), "%s/system.slice/docker-" ID1 ".scope", root);
	CHECK(cgroup__find_container(root, "3f4e2d", out, sizeof(out)) == 0);
	CHECK(strcmp(out, want) == 0);
	CHECK(cgroup__find_container(root, ID1, out, sizeof(out)) == 0);
	CHECK(strcmp(out, want) == 0);
	snprintf(want, sizeof(want), "%s/machine.slice/libpod-" ID3 ".scope", root);
	CHECK(cgroup__find_container(root, "77aa", out, sizeof(out)) == 0);
	CHECK(strcmp(out, want) == 0);
	/* Two containers start 3f4e: both named. */
	CHECK(cgroup__find_container(root, "3f4e", out, sizeof(out)) == -EEXIST);
	CHECK(strchr(out, '\n') != NULL);
	CHECK(cgroup__find_container(root, "0000", out, sizeof(out)) == -ENOENT);
	/* A systemd machine by its whole name; not by a part of it. */
	snprintf(want, sizeof(want), "%s/machine.slice/machine-web.scope", root);
	CHECK(cgroup__find_container(root, "web", out, sizeof(out)) == 0);
	CHECK(strcmp(out, want) == 0);
	CHECK(cgroup__find_container(root, "we", out, sizeof(out)) == -ENOENT);
	/* Not id prefixes, so machines' names, none of them here: too short, not hex,
	 * upper case. */
	CHECK(cgroup__find_container(root, "3f4", out, sizeof(out)) == -ENOENT);
	CHECK(cgroup__find_container(root, "web1", out, sizeof(out)) == -ENOENT);
	CHECK(cgroup__find_container(root, "3F4E", out, sizeof(out)) == -ENOENT);
	/* Neither: longer than an id, a character no machine's name has, empty. */
	CHECK(cgroup__find_container(root, ID1 "0", out, sizeof(out)) == -EINVAL);
	CHECK(cgroup__find_container(root, "a/b", out, sizeof(out)) == -EINVAL);
	CHECK(cgroup__find_container(root, "", out, sizeof(out)) == -EINVAL);

	snprintf(out, sizeof(out), "rm -rf '%s'", root);
	CHECK(system(out) == 0);
}

/* A deeper tree than the walk goes: bounded, every group at most once. */
static void test_walk_bounded(void)
{
	char rel[PATH_MAX] = "d", cmd[PATH_MAX + 16];
	int n = 0;

	snprintf(root, sizeof(root), "/tmp/ebprof-cgroup.XXXXXX");
	CHECK(mkdtemp(root) != NULL);
	for (int i = 0; i < CGROUP_MAX_DEPTH + 4; i++)
		strcat(rel, "/d");
	make(rel);
	CHECK(cgroup__walk(root, count_one, &n) == 0);
	CHECK(n == CGROUP_MAX_DEPTH + 1);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
}

static uint64_t id_of(const char *rel)
{
	char path[PATH_MAX * 2];
	uint64_t id = 0;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	CHECK(cgroup__id(path, &id) == 0);
	return id;
}

static void test_names(void)
{
	const uint64_t s = 1000000000ULL;
	const struct cgroup_name *n;
	struct cgroup_names cn;
	char cmd[PATH_MAX + 16];
	uint64_t late;

	snprintf(root, sizeof(root), "/tmp/ebprof-cgroup.XXXXXX");
	CHECK(mkdtemp(root) != NULL);
	make("system.slice/docker-" ID1 ".scope");
	make("system.slice/nginx.service");
	make("kubepods.slice/kubepods-pod0a1b2c3d_1111_2222_3333_444455556666.slice/"
	     "cri-containerd-" ID2 ".scope");
	make("machine.slice/libpod-" ID3 ".scope/container");
	make("machine.slice/machine-my\\x2dbox.scope/payload");
	cgroup_names__init(&cn, root);

	n = cgroup_names__get(&cn, id_of("system.slice/docker-" ID1 ".scope"), 1 * s);
	CHECK(n && strcmp(n->path, "/system.slice/docker-" ID1 ".scope") == 0);
	CHECK(n && strcmp(n->container_id, ID1) == 0);
	n = cgroup_names__get(&cn, id_of("system.slice/nginx.service"), 1 * s);
	CHECK(n && strcmp(n->path, "/system.slice/nginx.service") == 0 && !n->container_id[0]);
	CHECK(n && !n->pod_uid[0]);
	n = cgroup_names__get(
	    &cn,
	    id_of("kubepods.slice/kubepods-pod0a1b2c3d_1111_2222_3333_444455556666"
		  ".slice/cri-containerd-" ID2 ".scope"),
	    1 * s);
	CHECK(n && strcmp(n->container_id, ID2) == 0);
	CHECK(n && strcmp(n->pod_uid, "0a1b2c3d-1111-2222-3333-444455556666") == 0);
	/* A container's own groups below it are that container's: Podman's container/,
	 * a systemd-nspawn machine's payload/ (known by its name). */
	n = cgroup_names__get(&cn, id_of("machine.slice/libpod-" ID3 ".scope/container"), 1 * s);
	CHECK(n && strcmp(n->container_id, ID3) == 0);
	n = cgroup_names__get(&cn, id_of("machine.slice/machine-my\\x2dbox.scope/payload"), 1 * s);
	CHECK(n && strcmp(n->container_id, "my-box") == 0);
	/* The root says nothing; an id no group has is unknown. */
	CHECK(cgroup_names__get(&cn, id_of(""), 1 * s) == NULL);
	CHECK(cgroup_names__get(&cn, 1ULL << 62, 1 * s) == NULL);
	/* A group made later: not walked for again within the second, then found. */
	make("system.slice/late.service");
	late = id_of("system.slice/late.service");
	CHECK(cgroup_names__get(&cn, late, 1 * s + 1) == NULL);
	n = cgroup_names__get(&cn, late, 3 * s);
	CHECK(n && strcmp(n->path, "/system.slice/late.service") == 0);
	cgroup_names__free(&cn);

	/* No v2 hierarchy: nothing is named. */
	cgroup_names__init(&cn, "");
	CHECK(cgroup_names__get(&cn, late, 5 * s) == NULL);
	cgroup_names__free(&cn);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
}

int main(void)
{
	RUN_TEST(test_mount_in_mountinfo);
	RUN_TEST(test_walk_and_find);
	RUN_TEST(test_walk_bounded);
	RUN_TEST(test_names);
	HARNESS_EXIT();
}
