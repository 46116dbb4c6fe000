// SPDX-License-Identifier: Apache-2.0
/* Preloaded into ebprof by the kernel tests (tests/kernel/lib.sh: track_bpf): writes one
 * line for every BPF program, map, link and BTF object and every perf event the process
 * creates, with its kernel id, to $EBPROF_BPF_LOG, so that a test can check afterwards
 * that exactly those are gone (bpf_gone.c), whatever else the host loads meanwhile.
 * libbpf and ebprof create them all through libc's syscall(), which this file interposes;
 * tests/kernel/teardown.sh checks that every object ebprof holds was logged. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef long (*syscall_fn)(long, ...);

static syscall_fn real_syscall;
static int log_fd = -1;

/* LD_PRELOAD without this library: ebprof's children (record -- CMD, a runtime in a
 * chroot where the path does not exist) are not tracked and see no preload of ours. */
static void unpreload(const char *self)
{
	const char *v = getenv("LD_PRELOAD");
	char rest[4096] = "", *copy, *tok, *save;

	if (!v || !(copy = strdup(v)))
		return;
	for (tok = strtok_r(copy, ": ", &save); tok; tok = strtok_r(NULL, ": ", &save)) {
		if (strcmp(tok, self) == 0)
			continue;
		if (strlen(rest) + strlen(tok) + 2 > sizeof(rest))
			break;
		if (rest[0])
			strcat(rest, ":");
		strcat(rest, tok);
	}
	free(copy);
	if (rest[0])
		setenv("LD_PRELOAD", rest, 1);
	else
		unsetenv("LD_PRELOAD");
}

__attribute__((constructor)) static void bpf_log__init(void)
{
	const char *path = getenv("EBPROF_BPF_LOG");
	Dl_info self;

	real_syscall = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
	if (dladdr((void *)bpf_log__init, &self) && self.dli_fname)
		unpreload(self.dli_fname);
	/* A process that may not write there (errors.sh runs ebprof as nobody) creates no
	 * BPF object either. */
	if (path)
		log_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

static int obj_info(int fd, void *info, __u32 len)
{
	union bpf_attr a;

	memset(info, 0, len);
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = len;
	a.info.info = (__u64)(unsigned long)info;
	return real_syscall(__NR_bpf, BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a)) ? -1 : 0;
}

/* One line per object, in one write: the loader's threads log concurrently. */
static void emit(const char *kind, unsigned long long id, const char *name)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "%s %llu %s pid %d\n", kind, id,
			 name && name[0] ? name : "-", getpid());

	if (n > 0 && write(log_fd, line, (size_t)n) < 0)
		return;
}

static void note_bpf(long cmd, int fd)
{
	union {
		struct bpf_prog_info prog;
		struct bpf_map_info map;
		struct bpf_link_info link;
		struct bpf_btf_info btf;
	} i;

	switch (cmd) {
	case BPF_PROG_LOAD:
		if (!obj_info(fd, &i.prog, sizeof(i.prog)))
			emit("prog", i.prog.id, i.prog.name);
		break;
	case BPF_MAP_CREATE:
		if (!obj_info(fd, &i.map, sizeof(i.map)))
			emit("map", i.map.id, i.map.name);
		break;
	case BPF_LINK_CREATE:
	case BPF_RAW_TRACEPOINT_OPEN: /* a link since Linux 5.7 */
		if (!obj_info(fd, &i.link, sizeof(i.link)))
			emit("link", i.link.id, NULL);
		break;
	case BPF_BTF_LOAD:
		if (!obj_info(fd, &i.btf, sizeof(i.btf)))
			emit("btf", i.btf.id, NULL);
		break;
	}
}

static void note_perf(int fd)
{
	unsigned long long id;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0)
		emit("perf", id, NULL);
}

/* Reads six arguments whatever the call takes, as libc's own syscall() does. */
long syscall(long nr, ...)
{
	long a[6], ret;
	va_list ap;
	int saved;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real_syscall)
		real_syscall = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
	ret = real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (ret < 0 || log_fd < 0)
		return ret;
	saved = errno;
	if (nr == __NR_bpf)
		note_bpf(a[0], (int)ret);
	else if (nr == __NR_perf_event_open)
		note_perf((int)ret);
	errno = saved;
	return ret;
}
