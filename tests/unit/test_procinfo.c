// SPDX-License-Identifier: Apache-2.0
/* Unit tests of the per-process resource facts: container ids and pod uids from the
 * cgroup layouts of the common runtimes, and /proc reads of a live child and of a vanished pid. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "proc/procinfo.h"

#define ID "3f4e2d1c0b9a8f7e6d5c4b3a29181706f5e4d3c2b1a098f7e6d5c4b3a2918170"

static void test_container_ids(void)
{
	static const char *const layouts[] = {
	    "0::/system.slice/docker-" ID ".scope\n",
	    "12:memory:/docker/" ID "\n0::/\n",
	    "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234.slice/"
	    "cri-containerd-" ID ".scope\n",
	    "0::/kubepods/besteffort/pod0a1b2c3d-1111-2222-3333-444455556666/crio-" ID ".scope\n",
	    "0::/machine.slice/libpod-" ID ".scope/container\n",
	    /* An id wins over a machine's name around it. */
	    "0::/machine.slice/machine-box.scope/payload/docker-" ID ".scope\n",
	};
	/* systemd-nspawn and machinectl: the machine's name, escapes undone. */
	static const char *const machines[][2] = {
	    {"0::/machine.slice/machine-web.scope/payload\n", "web"},
	    {"0::/machine.slice/machine-my\\x2dbox.scope\n", "my-box"},
	    {"/machine.slice/machine-qemu\\x2d1\\x2dvm.scope/libvirt", "qemu-1-vm"},
	    {"machine-db.01.scope", "db.01"},
	};
	char out[65];

	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		memset(out, 0, sizeof(out));
		CHECK(proc_info__container_id(layouts[i], out) == 0);
		CHECK(strcmp(out, ID) == 0);
	}
	for (size_t i = 0; i < sizeof(machines) / sizeof(machines[0]); i++) {
		memset(out, 0, sizeof(out));
		CHECK(proc_info__container_id(machines[i][0], out) == 0);
		CHECK(strcmp(out, machines[i][1]) == 0);
	}
	/* Not machines: no .scope, an empty name, a character systemd escapes left raw,
	 * a bad escape, "machine-" inside a name, a name past 64 characters. */
	CHECK(proc_info__container_id("0::/machine.slice/machine-web.service\n", out) == -ENOENT);
	CHECK(proc_info__container_id("0::/machine.slice/machine-.scope\n", out) == -ENOENT);
	CHECK(proc_info__container_id("0::/machine.slice/machine-a b.scope\n", out) == -ENOENT);
	CHECK(proc_info__container_id("0::/machine-a\\xzz.scope\n", out) == -ENOENT);
	CHECK(proc_info__container_id("0::/user.slice/notmachine-web.scope\n", out) == -ENOENT);
	CHECK(proc_info__container_id("0::/machine-web.scopes\n", out) == -ENOENT);
	CHECK(proc_info__container_id(
		  "/machine-0123456789012345678901234567890123456789012345678901234567890123"
		  "4.scope",
		  out) == -ENOENT);
	/* Not containers: the host, a 32-digit id, 65 digits, upper case. */
	CHECK(proc_info__container_id("0::/\n", out) == -ENOENT);
	CHECK(proc_info__container_id("4:memory:/process_api/8ccd53c7c54c000d707907a602290cbd\n",
				      out) == -ENOENT);
	CHECK(proc_info__container_id("0::/docker/" ID "a\n", out) == -ENOENT);
	CHECK(proc_info__container_id(
		  "0::/docker/3F4E2D1C0B9A8F7E6D5C4B3A29181706F5E4D3C2B1A098F7E6D5"
		  "C4B3A2918170\n",
		  out) == -ENOENT);
}

#define UID "0a1b2c3d-1111-2222-3333-444455556666"

static void test_pod_uids(void)
{
	static const char *const layouts[] = {
	    /* cgroupfs driver, and systemd's with underscores */
	    "0::/kubepods/besteffort/pod" UID "/crio-" ID ".scope\n",
	    "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
	    "0a1b2c3d_1111_2222_3333_444455556666.slice/cri-containerd-" ID ".scope\n",
	    "/kubepods.slice/kubepods-pod" UID ".slice",
	};
	char out[37];

	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		memset(out, 0, sizeof(out));
		CHECK(proc_info__pod_uid(layouts[i], out) == 0);
		CHECK(strcmp(out, UID) == 0);
	}
	/* Not pods: Docker, a cut uuid, mixed separators, upper case, no "pod" before. */
	CHECK(proc_info__pod_uid("0::/system.slice/docker-" ID ".scope\n", out) == -ENOENT);
	CHECK(proc_info__pod_uid("0::/kubepods/pod0a1b2c3d-1111-2222-3333-4444", out) == -ENOENT);
	CHECK(proc_info__pod_uid("0::/kubepods/pod0a1b2c3d-1111_2222-3333-444455556666/", out) ==
	      -ENOENT);
	CHECK(proc_info__pod_uid("0::/kubepods/pod0A1B2C3D-1111-2222-3333-444455556666/", out) ==
	      -ENOENT);
	CHECK(proc_info__pod_uid("0::/kubepods/" UID "/", out) == -ENOENT);
}

/* A child with its own OTEL_SERVICE_NAME, read while it lives and after it is gone. */
static void test_live_and_gone(void)
{
	struct proc_info_cache c;
	const struct proc_info *p;
	pid_t pid = fork();

	if (pid == 0) {
		char *argv[] = {"sleep", "30", NULL};
		char *envp[] = {"OTEL_SERVICE_NAME=checkout", NULL};

		execve("/bin/sleep", argv, envp);
		_exit(127);
	}
	CHECK(pid > 0);
	usleep(200000); /* let it exec */
	proc_info_cache__init(&c);
	p = proc_info__get(&c, pid, "sleep");
	CHECK(p && p->exe_path && strstr(p->exe_path, "sleep"));
	CHECK(p && !strcmp(p->exe_name, "sleep"));
	CHECK(p && p->service_name && !strcmp(p->service_name, "checkout"));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* Gone: the cache still answers with what it knew. */
	p = proc_info__get(&c, pid, "other");
	CHECK(p && p->service_name && !strcmp(p->service_name, "checkout"));
	/* An interval without it forgets it; then only the name we pass is known. */
	proc_info_cache__age(&c);
	proc_info_cache__age(&c);
	p = proc_info__get(&c, pid, "other");
	CHECK(p && !p->exe_path && !strcmp(p->exe_name, "other") && !p->service_name);
	proc_info_cache__free(&c);
}

int main(void)
{
	RUN_TEST(test_container_ids);
	RUN_TEST(test_pod_uids);
	RUN_TEST(test_live_and_gone);
	HARNESS_EXIT();
}
