// SPDX-License-Identifier: Apache-2.0
/* Host capability probes. Each probe is a small function returning 0 or -errno plus a
 * hint; the table below says which are required to record. */
#include <errno.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cli/host.h"
#include "util/log.h"

/* CAP_BPF and CAP_PERFMON exist from Linux 5.8; older headers lack the numbers. */
#define CAP_PERFMON_NR 38
#define CAP_BPF_NR 39
#define CAP_SYS_ADMIN_NR 21

struct probe {
	const char *name;
	bool required;
	int (*run)(char *detail, size_t len);
	const char *hint; /* what to do when it fails */
};

static bool has_cap(const struct __user_cap_data_struct d[2], int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

static int probe_privileges(char *detail, size_t len)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2] = {0};

	if (syscall(SYS_capget, &h, d))
		return -errno;
	if (has_cap(d, CAP_SYS_ADMIN_NR) ||
	    (has_cap(d, CAP_BPF_NR) && has_cap(d, CAP_PERFMON_NR))) {
		snprintf(detail, len, "%s", geteuid() == 0 ? "root" : "CAP_BPF and CAP_PERFMON");
		return 0;
	}
	snprintf(detail, len, "missing CAP_BPF/CAP_PERFMON (or CAP_SYS_ADMIN)");
	return -EPERM;
}

static int probe_btf(char *detail, size_t len)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		int err = errno;

		snprintf(detail, len, "/sys/kernel/btf/vmlinux: %s", strerror(err));
		return -err;
	}
	snprintf(detail, len, "/sys/kernel/btf/vmlinux");
	return 0;
}

static int probe_kernel(char *detail, size_t len)
{
	struct utsname u;
	int major = 0, minor = 0;

	uname(&u);
	sscanf(u.release, "%d.%d", &major, &minor);
	snprintf(detail, len, "%s", u.release);
	/* The floor ebprof is tested on (tests/run.sh's kernel matrix starts there); what
	 * each feature needs above it is probed below, not read from the version. */
	return major > 5 || (major == 5 && minor >= 10) ? 0 : -ENOTSUP;
}

static int probe_bpf_syscall(char *detail, size_t len)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ebprof_probe", 4, 4, 1, NULL);

	if (fd < 0) {
		int err = errno;

		snprintf(detail, len, "bpf(BPF_MAP_CREATE): %s", strerror(err));
		return -err;
	}
	close(fd);
	snprintf(detail, len, "bpf() works");
	return 0;
}

static int probe_ringbuf(char *detail, size_t len)
{
	int r = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL);

	snprintf(detail, len, "%s", r > 0 ? "BPF ring buffer" : "no BPF ring buffer (needs 5.8)");
	return r > 0 ? 0 : -ENOTSUP;
}

/* Whether a program of type may call helper func, which appeared in Linux since. */
static int probe_helper_in(enum bpf_prog_type type, enum bpf_func_id func, const char *name,
			   const char *since, char *detail, size_t len)
{
	int r = libbpf_probe_bpf_helper(type, func, NULL);

	if (r > 0)
		snprintf(detail, len, "%s() available", name);
	else
		snprintf(detail, len, "no %s() (needs %s)", name, since);
	return r > 0 ? 0 : -ENOTSUP;
}

/* Whether the sampling program may call helper func. */
static int probe_helper(enum bpf_func_id func, const char *name, const char *since, char *detail,
			size_t len)
{
	return probe_helper_in(BPF_PROG_TYPE_PERF_EVENT, func, name, since, detail, len);
}

static int probe_bpf_loop(char *detail, size_t len)
{
	return probe_helper(BPF_FUNC_loop, "bpf_loop", "5.17", detail, len);
}

static int probe_task_regs(char *detail, size_t len)
{
	return probe_helper(BPF_FUNC_task_pt_regs, "bpf_task_pt_regs", "5.15", detail, len);
}

static int probe_task_btf(char *detail, size_t len)
{
	return probe_helper(BPF_FUNC_get_current_task_btf, "bpf_get_current_task_btf", "5.11",
			    detail, len);
}

/* Probe and allocation events find their index in the attach cookie; uprobes are
 * programs of the kprobe type. */
static int probe_attach_cookie(char *detail, size_t len)
{
	return probe_helper_in(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_attach_cookie,
			       "bpf_get_attach_cookie", "5.15", detail, len);
}

/* Off-CPU reads task_struct.__state, the name of the field since 5.14 (state before). */
static int probe_task_state(char *detail, size_t len)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	int id, found = 0;

	if (!btf) {
		snprintf(detail, len, "no kernel BTF");
		return -ENOENT;
	}
	id = btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (int i = 0; t && i < btf_vlen(t) && !found; i++)
		found = !strcmp(btf__name_by_offset(btf, btf_members(t)[i].name_off), "__state");
	btf__free(btf);
	snprintf(detail, len, "%s",
		 found ? "task_struct.__state" : "no task_struct.__state (needs 5.14)");
	return found ? 0 : -ENOTSUP;
}

static int probe_perf(char *detail, size_t len)
{
	struct perf_event_attr a = {.type = PERF_TYPE_SOFTWARE,
				    .size = sizeof(a),
				    .config = PERF_COUNT_SW_CPU_CLOCK,
				    .sample_freq = 99,
				    .freq = 1};
	int fd = syscall(__NR_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0) {
		int err = errno;

		snprintf(detail, len, "cpu-clock perf event: %s", strerror(err));
		return -err;
	}
	close(fd);
	snprintf(detail, len, "cpu-clock perf event on CPU 0");
	return 0;
}

/* Whether kallsyms shows addresses. The first symbols may truly sit at 0 (x86-64's per-CPU
 * section before 6.15: fixed_percpu_data, __per_cpu_start), so any of the first lines
 * with an address other than 0 says they are shown; hidden ones are all 0. */
static int probe_kallsyms(char *detail, size_t len)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	unsigned long long addr = 0;
	char line[256];

	for (int i = 0; f && !addr && i < 64 && fgets(line, sizeof(line), f); i++)
		if (sscanf(line, "%llx", &addr) != 1)
			addr = 0;
	if (f)
		fclose(f);
	snprintf(detail, len, "%s",
		 addr ? "/proc/kallsyms readable" : "kernel addresses hidden (kptr_restrict)");
	return addr ? 0 : -EPERM;
}

static const struct probe probes[] = {
    {"privileges", true, probe_privileges, "run as root (sudo) or grant CAP_BPF and CAP_PERFMON"},
    {"kernel", true, probe_kernel, "ebprof needs Linux 5.10 or later"},
    {"btf", true, probe_btf, "boot a kernel built with CONFIG_DEBUG_INFO_BTF=y"},
    {"bpf", true, probe_bpf_syscall,
     "check kernel.unprivileged_bpf_disabled and seccomp/LSM policy"},
    {"ringbuf", true, probe_ringbuf, "ebprof needs Linux 5.8 or later"},
    {"perf", true, probe_perf,
     "check kernel.perf_event_paranoid and that perf events are not blocked"},
    {"bpf_loop", true, probe_bpf_loop, "the native unwinder needs Linux 5.17 or later"},
    {"task_regs", true, probe_task_regs, "the native unwinder needs Linux 5.15 or later"},
    {"task_btf", true, probe_task_btf, "the sampling program needs Linux 5.11 or later"},
    {"cookie", false, probe_attach_cookie, "probe and allocation events need Linux 5.15 or later"},
    {"task_state", false, probe_task_state, "off-CPU profiling needs Linux 5.14 or later"},
    {"kallsyms", false, probe_kallsyms,
     "kernel frames stay unnamed; set kernel.kptr_restrict=0 or run as root"},
};

int host__require_recording(void)
{
	char detail[256];

	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		int err;

		if (!probes[i].required)
			continue;
		detail[0] = '\0';
		err = probes[i].run(detail, sizeof(detail));
		if (err) {
			pr_err("%s: %s; %s", probes[i].name, detail, probes[i].hint);
			return err;
		}
	}
	return 0;
}

int host__report(FILE *out)
{
	char detail[256];
	int missing = 0;

	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		int err;

		detail[0] = '\0';
		err = probes[i].run(detail, sizeof(detail));
		fprintf(out, "%-11s %-3s %s%s%s\n", probes[i].name, err ? "no" : "yes", detail,
			err ? ": " : "", err ? probes[i].hint : "");
		if (err && probes[i].required)
			missing++;
	}
	return missing;
}
