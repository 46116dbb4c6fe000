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

#include "arch/arch.h"
#include "cli/host.h"
#include "interp/runtime.h"
#include "loader/features.h"
#include "util/json.h"
#include "util/log.h"

/* CAP_BPF and CAP_PERFMON exist from Linux 5.8; older headers lack the numbers. */
#define CAP_PERFMON_NR 38
#define CAP_BPF_NR 39
#define CAP_SYS_ADMIN_NR 21

struct probe {
	const char *name;
	bool required;
	bool feature;	 /* a kernel feature ebprof adapts to: "yes" or "no", never a failure */
	bool privileged; /* asks the kernel something only CAP_BPF/CAP_PERFMON may ask */
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
	/* The floor; what it lacks beside later kernels is probed feature by feature. */
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

/* A kernel feature (src/loader/features.c): what ebprof does with it or without it. */
static int feature(bool has, const char *name, const char *since, const char *with,
		   const char *without, char *detail, size_t len)
{
	if (has)
		snprintf(detail, len, "%s(): %s", name, with);
	else
		snprintf(detail, len, "%s() needs %s: %s", name, since, without);
	return has ? 0 : -ENOTSUP;
}

/* What recording without bpf_loop does, from the registry: "native, <each runtime with an
 * unrolled walker> walkers unrolled, tail-calling themselves; <what each other lacks>". */
static void without_bpf_loop(char *buf, size_t len)
{
	const struct runtime_ops *r;
	size_t at, unrolled = 0, total = 0;
	bool first = true;

	for (size_t i = 0; (r = runtime_registry__get(i)); i++)
		total += !r->floor.bpf_loop;
	at = (size_t)snprintf(buf, len, "native");
	for (size_t i = 0; (r = runtime_registry__get(i)) && at < len; i++) {
		if (!r->floor.bpf_loop) {
			unrolled++;
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
					       unrolled == total ? " and " : ", ", r->title);
		}
	}
	if (at < len)
		at += (size_t)snprintf(buf + at, len - at, "%s",
				       unrolled ? " walkers unrolled, tail-calling themselves"
						: " walker unrolled, tail-calling itself");
	for (size_t i = 0; (r = runtime_registry__get(i)) && at < len; i++) {
		if (r->floor.bpf_loop) {
			at += (size_t)snprintf(buf + at, len - at, "%s%s", first ? "; " : ", ",
					       r->floor.without);
			first = false;
		}
	}
}

static int probe_bpf_loop(char *detail, size_t len)
{
	char without[384];

	without_bpf_loop(without, sizeof(without));
	return feature(kernel_features()->bpf_loop, "bpf_loop", "5.17",
		       "each walker loops in one program", without, detail, len);
}

static int probe_task_regs(char *detail, size_t len)
{
	return feature(kernel_features()->task_pt_regs, "bpf_task_pt_regs", "5.15",
		       "user registers of in-kernel events from the helper",
		       "user registers read from the top of the kernel stack", detail, len);
}

static int probe_cookies(char *detail, size_t len)
{
	return feature(kernel_features()->attach_cookie, "bpf_get_attach_cookie", "5.15",
		       "any number of probes",
		       "one uprobe and one tracepoint --probe (USDT: any), no --alloc-kernel",
		       detail, len);
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
    {"privileges", true, false, false, probe_privileges,
     "run as root (sudo) or grant CAP_BPF and CAP_PERFMON"},
    {"kernel", true, false, false, probe_kernel, "ebprof needs Linux 5.10 or later"},
    {"btf", true, false, false, probe_btf, "boot a kernel built with CONFIG_DEBUG_INFO_BTF=y"},
    {"bpf", true, false, true, probe_bpf_syscall,
     "check kernel.unprivileged_bpf_disabled and seccomp/LSM policy"},
    {"ringbuf", true, false, true, probe_ringbuf, "ebprof needs Linux 5.8 or later"},
    {"perf", true, false, true, probe_perf,
     "check kernel.perf_event_paranoid and that perf events are not blocked"},
    {"bpf_loop", false, true, true, probe_bpf_loop, NULL},
    {"task_regs", false, true, true, probe_task_regs, NULL},
    {"cookies", false, true, true, probe_cookies, NULL},
    {"kallsyms", false, false, false, probe_kallsyms,
     "kernel frames stay unnamed; set kernel.kptr_restrict=0 or run as root"},
};

#define NPROBES (sizeof(probes) / sizeof(probes[0]))

/* What one probe found: its status word and what it saw. */
enum check_status { CHECK_OK, CHECK_FAIL, CHECK_WARN, CHECK_YES, CHECK_NO, CHECK_UNTESTED };

/* As printed, and as JSON says them. */
static const char *const status_words[][2] = {
    [CHECK_OK] = {"ok", "ok"},	     [CHECK_FAIL] = {"FAIL", "fail"},
    [CHECK_WARN] = {"warn", "warn"}, [CHECK_YES] = {"yes", "yes"},
    [CHECK_NO] = {"no", "no"},	     [CHECK_UNTESTED] = {"untested", "untested"},
};

struct check_result {
	enum check_status status;
	char detail[512];
};

/* Runs probe p, unless it needs privileges this process lacks: without them the kernel
 * refuses the question, which says nothing about the kernel, so it is not asked. */
static void check_one(const struct probe *p, bool privileged, struct check_result *r)
{
	int err;

	r->detail[0] = '\0';
	if (p->privileged && !privileged) {
		r->status = CHECK_UNTESTED;
		snprintf(r->detail, sizeof(r->detail),
			 "the kernel answers this only with CAP_BPF and CAP_PERFMON (root)");
		return;
	}
	err = p->run(r->detail, sizeof(r->detail));
	if (p->feature)
		r->status = err ? CHECK_NO : CHECK_YES;
	else if (!err)
		r->status = CHECK_OK;
	else
		r->status = p->required ? CHECK_FAIL : CHECK_WARN;
}

static void check_all(struct check_result res[NPROBES])
{
	char unused[512];
	bool privileged = probe_privileges(unused, sizeof(unused)) == 0;

	for (size_t i = 0; i < NPROBES; i++)
		check_one(&probes[i], privileged, &res[i]);
}

int host__require_recording(void)
{
	char detail[512];

	for (size_t i = 0; i < NPROBES; i++) {
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

static void report_json(FILE *out, const struct check_result res[NPROBES], bool can_record)
{
	fprintf(out, "{\"can_record\":%s,\"checks\":[", can_record ? "true" : "false");
	for (size_t i = 0; i < NPROBES; i++) {
		fprintf(out, "%s{\"name\":", i ? "," : "");
		json_put_string(out, probes[i].name, 0);
		fprintf(out, ",\"status\":\"%s\",\"required\":%s,\"detail\":",
			status_words[res[i].status][1], probes[i].required ? "true" : "false");
		json_put_string(out, res[i].detail, 0);
		fputs(",\"hint\":", out);
		if (res[i].status == CHECK_FAIL || res[i].status == CHECK_WARN)
			json_put_string(out, probes[i].hint ? probes[i].hint : "", 0);
		else
			fputs("null", out);
		fputc('}', out);
	}
	fputs("]}\n", out);
}

/* The architecture ebprof was built for. On arm64, which runtimes' walkers the arm64
 * guest's tests prove there (native unwinding is proven on both); on x86-64 the whole
 * suite runs. */
static void report_arch(FILE *out)
{
	char proven[160] = "", unproven[160] = "";
	const struct runtime_ops *ops;

	if (strcmp(ARCH_NAME, "arm64")) {
		fprintf(out, "%-11s %-8s %s: every walker proven by the test suite\n", "arch", "ok",
			ARCH_NAME);
		return;
	}
	for (size_t i = 0; (ops = runtime_registry__get(i)); i++) {
		char *list = ops->arm64_proven ? proven : unproven;
		size_t used = strlen(list);

		snprintf(list + used, sizeof(proven) - used, "%s%s", used ? ", " : "", ops->title);
	}
	fprintf(out, "%-11s %-8s %s: native and %s walkers proven in the arm64 guest%s%s\n", "arch",
		"ok", ARCH_NAME, proven[0] ? proven : "no runtime",
		unproven[0] ? "; not proven there yet: " : "", unproven);
}

static void report_text(FILE *out, const struct check_result res[NPROBES])
{
	size_t untested = 0;

	for (size_t i = 0; i < NPROBES; i++) {
		bool bad = res[i].status == CHECK_FAIL || res[i].status == CHECK_WARN;

		fprintf(out, "%-11s %-8s %s%s%s\n", probes[i].name, status_words[res[i].status][0],
			res[i].detail, bad && probes[i].hint ? ": " : "",
			bad && probes[i].hint ? probes[i].hint : "");
		untested += res[i].status == CHECK_UNTESTED;
	}
	report_arch(out);
	if (untested)
		fprintf(out,
			"%zu checks not run: without CAP_BPF and CAP_PERFMON the kernel refuses "
			"them whatever it supports; run 'sudo ebprof check' to test them\n",
			untested);
}

int host__report(FILE *out, bool json)
{
	struct check_result res[NPROBES];
	int missing = 0;

	check_all(res);
	for (size_t i = 0; i < NPROBES; i++)
		missing += res[i].status == CHECK_FAIL;
	if (json)
		report_json(out, res, !missing);
	else
		report_text(out, res);
	return missing;
}
