// SPDX-License-Identifier: Apache-2.0
/* Probes: "--probe" specs parsed into kinds, the programs each kind needs, and attaching
 * through libbpf (uprobes by symbol, USDT notes, tracepoints as perf events). The event
 * index travels in the attach cookie, so one program serves every probe of a kind. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "arch/arch.h"
#include "elf/elf_file.h"
#include "loader/features.h"
#include "loader/loader.h"
#include "loader/probes.h"
#include "sample.h"
#include "util/errstr.h"
#include "util/log.h"
#include "util/mapguard.h"
#include "util/safe_file.h"

/* A larger file is not a program or library to probe. */
#define PROBE_FILE_MAX (4ull << 30)

struct probes {
	struct bpf_link **links;
	size_t n;
};

static int spec_error(char *err, size_t len, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return code;
}

/* Kernel hooks need a kernel that has them: say which ones this one offers. */
static int kprobe_error(const char *text, char *err, size_t len)
{
	struct stat st;
	bool has = stat("/sys/bus/event_source/devices/kprobe", &st) == 0;

	return spec_error(err, len, -EOPNOTSUPP,
			  "%s: %s; hook the kernel at a tracepoint instead "
			  "(tracepoint:CATEGORY:NAME, listed under /sys/kernel/tracing/events; "
			  "tp_btf and fentry programs are the other kernel hooks)",
			  text,
			  has ? "ebprof does not attach kprobes"
			      : "this kernel has no kprobes (CONFIG_KPROBES is not set)");
}

/* Tracefs names: letters, digits and '_' only, so a name never leaves events/. */
static bool tracefs_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9')))
			return false;
	}
	return true;
}

/* Splits "SYMBOL+OFF" when OFF is a whole number (decimal or 0x hex). */
static void split_offset(struct probe_spec *s)
{
	char *plus = strrchr(s->target, '+'), *end;
	unsigned long long off;

	if (!plus || plus == s->target || !plus[1])
		return;
	errno = 0;
	off = strtoull(plus + 1, &end, 0);
	if (errno || *end)
		return;
	*plus = '\0';
	s->offset = off;
	s->has_offset = 1;
}

/* Cuts rest at its last ':' into *head (before) and *tail (after); both non-empty. */
static int cut_last(char *rest, char **head, char **tail)
{
	char *c = strrchr(rest, ':');

	if (!c || c == rest || !c[1])
		return -EINVAL;
	*c = '\0';
	*head = rest;
	*tail = c + 1;
	return 0;
}

static int parse_rest(struct probe_spec *s, char *rest, char *err, size_t len)
{
	char *a, *b, *c;

	switch (s->kind) {
	case PROBE_UPROBE:
	case PROBE_URETPROBE:
		if (cut_last(rest, &a, &b))
			return spec_error(err, len, -EINVAL, "%s: expected %s:PATH:SYMBOL%s",
					  s->text, s->kind == PROBE_UPROBE ? "uprobe" : "uretprobe",
					  s->kind == PROBE_UPROBE ? "[+OFFSET]" : "");
		s->path = strdup(a);
		s->target = strdup(b);
		break;
	case PROBE_TRACEPOINT:
		if (cut_last(rest, &a, &b) || !tracefs_name(a) || !tracefs_name(b))
			return spec_error(err, len, -EINVAL,
					  "%s: expected tracepoint:CATEGORY:NAME (names of "
					  "letters, digits and '_', as under /sys/kernel/tracing/"
					  "events)",
					  s->text);
		s->target = strdup(a);
		s->name = strdup(b);
		break;
	case PROBE_USDT:
		if (cut_last(rest, &a, &c) || cut_last(a, &a, &b))
			return spec_error(err, len, -EINVAL, "%s: expected usdt:PATH:PROVIDER:NAME",
					  s->text);
		s->path = strdup(a);
		s->target = strdup(b);
		s->name = strdup(c);
		break;
	}
	return 0;
}

static const struct {
	const char *prefix;
	enum probe_kind kind;
} kinds[] = {
    {"uprobe:", PROBE_UPROBE},
    {"uretprobe:", PROBE_URETPROBE},
    {"tracepoint:", PROBE_TRACEPOINT},
    {"usdt:", PROBE_USDT},
};

static int parse_kind(const char *text, struct probe_spec *s, char *err, size_t len)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i].prefix);

		if (strncmp(text, kinds[i].prefix, n) == 0) {
			s->kind = kinds[i].kind;
			return (int)n;
		}
	}
	if (!strncmp(text, "kprobe:", 7) || !strncmp(text, "kretprobe:", 10))
		return kprobe_error(text, err, len);
	return spec_error(err, len, -EINVAL,
			  "%s: unknown probe kind; expected uprobe:PATH:SYMBOL[+OFFSET], "
			  "uretprobe:PATH:SYMBOL, tracepoint:CATEGORY:NAME or "
			  "usdt:PATH:PROVIDER:NAME",
			  text);
}

int probe_spec__parse(const char *text, struct probe_spec *out, char *err, size_t errlen)
{
	char *rest = NULL;
	int n, ret;

	memset(out, 0, sizeof(*out));
	n = parse_kind(text, out, err, errlen);
	if (n < 0)
		return n;
	out->text = strdup(text);
	rest = strdup(text + n);
	if (!out->text || !rest) {
		ret = spec_error(err, errlen, -ENOMEM, "%s: out of memory", text);
		goto out;
	}
	ret = parse_rest(out, rest, err, errlen);
	if (ret)
		goto out;
	if ((out->kind != PROBE_TRACEPOINT && !out->path) || !out->target ||
	    (out->kind >= PROBE_TRACEPOINT && !out->name)) {
		ret = spec_error(err, errlen, -ENOMEM, "%s: out of memory", text);
		goto out;
	}
	if (out->kind == PROBE_UPROBE || out->kind == PROBE_URETPROBE)
		split_offset(out);
	/* The return probe is planted at the entry, where the return address is known. */
	if (out->kind == PROBE_URETPROBE && out->has_offset)
		ret = spec_error(err, errlen, -EINVAL,
				 "%s: a uretprobe takes a function, not an offset into it", text);
out:
	free(rest);
	if (ret)
		probe_spec__free(out);
	return ret;
}

void probe_spec__free(struct probe_spec *s)
{
	free(s->text);
	free(s->path);
	free(s->target);
	free(s->name);
	memset(s, 0, sizeof(*s));
}

/* Appends part to buf, anything but letters, digits, '_' and '.' becoming '_'. */
static void slug_part(char *buf, size_t len, size_t *at, const char *part)
{
	for (const char *p = part; *p && *at + 1 < len; p++) {
		bool ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			  (*p >= '0' && *p <= '9') || *p == '_' || *p == '.';

		buf[(*at)++] = ok ? *p : '_';
	}
	buf[*at] = '\0';
}

static void slug_sep(char *buf, size_t len, size_t *at)
{
	if (*at + 1 < len) {
		buf[(*at)++] = '-';
		buf[*at] = '\0';
	}
}

void probe_spec__slug(const struct probe_spec *s, char *buf, size_t len)
{
	static const char *const names[] = {"uprobe", "uretprobe", "tracepoint", "usdt"};
	size_t at = 0;

	if (!len)
		return;
	buf[0] = '\0';
	slug_part(buf, len, &at, names[s->kind]);
	slug_sep(buf, len, &at);
	slug_part(buf, len, &at, s->target);
	if (s->name) {
		slug_sep(buf, len, &at);
		slug_part(buf, len, &at, s->name);
	}
}

/* The file a relative PATH names, searched as libbpf searches it: libraries in the
 * usual directories, programs in $PATH. */
static int resolve_path(const char *name, char *out, size_t len)
{
	static const char *const libdirs =
	    "/lib64:/usr/lib64:/lib/" ARCH_MULTIARCH ":/usr/lib/" ARCH_MULTIARCH ":/lib:/usr/lib";
	const char *dirs = strstr(name, ".so") ? libdirs : getenv("PATH");
	const char *p = dirs;

	if (strchr(name, '/'))
		return snprintf(out, len, "%s", name) < (int)len ? 0 : -ENAMETOOLONG;
	while (p && *p) {
		const char *end = strchrnul(p, ':');

		snprintf(out, len, "%.*s/%s", (int)(end - p), p, name);
		if (access(out, R_OK) == 0)
			return 0;
		p = *end ? end + 1 : end;
	}
	return -ENOENT;
}

/* A probe's file, opened once: without blocking (a FIFO there would block for ever), a
 * regular ELF file of at most PROBE_FILE_MAX bytes. libbpf reads and probes it as
 * /proc/self/fd/N (path), so what was checked is what is probed, whatever its name
 * points at meanwhile. */
struct target {
	int fd;
	char path[64];
};

/* Opens s's file (PATH resolved as libbpf would); says why not. Returns 0, or -errno
 * with errno set, as a failed attach leaves it. */
static int target__open(struct target *t, const struct probe_spec *s)
{
	char path[4096], why[SAFE_FILE_WHY];
	struct elf_file *e;

	if (resolve_path(s->path, path, sizeof(path)))
		snprintf(path, sizeof(path), "%s", s->path);
	t->fd = safe_file__open(path, SAFE_FILE_FOLLOW, PROBE_FILE_MAX, NULL, why);
	if (t->fd < 0) {
		pr_err("%s: %s %s", s->text, path, why);
		errno = -t->fd;
		return t->fd;
	}
	e = elf_file__open(t->fd);
	if (!e) {
		pr_err("%s: %s is not an ELF file", s->text, path);
		close(t->fd);
		errno = ENOEXEC;
		return -ENOEXEC;
	}
	elf_file__free(e);
	snprintf(t->path, sizeof(t->path), "/proc/self/fd/%d", t->fd);
	return 0;
}

/* Closes t after libbpf made link (NULL: failed, errno set) reading it in the guarded
 * section begun with guard: libbpf maps the file (ELF_C_READ_MMAP), and a file that
 * shrank meanwhile is a failed attach, not SIGBUS (mapguard.h); the offset probed then
 * came from zeros, so the link goes too. Returns the link, or NULL with errno set. */
static struct bpf_link *target__close(struct target *t, const struct probe_spec *s,
				      struct bpf_link *link, unsigned int guard)
{
	int err = errno;

	if (mapguard__end(guard)) {
		bpf_link__destroy(link);
		link = NULL;
		pr_err("%s: %s shrank while it was read", s->text, s->path);
		err = EIO;
	}
	close(t->fd);
	errno = err;
	return link;
}

/* Bytes to skip at the entry of sym in the ELF file on fd (see arch__uprobe_entry_skip);
 * 0 when unsure. */
static unsigned int entry_skip(int fd, const char *sym)
{
	uint8_t bytes[16];
	unsigned int skip = 0;
	uint64_t vaddr, off;
	struct elf_file *e = elf_file__open(fd);

	if (e && !elf_file__symbol(e, sym, &vaddr, NULL) &&
	    elf_file__vaddr_to_off(e, vaddr, &off) &&
	    pread(fd, bytes, sizeof(bytes), (off_t)off) == (ssize_t)sizeof(bytes))
		skip = arch__uprobe_entry_skip(bytes, sizeof(bytes));
	elf_file__free(e);
	return skip;
}

/* The cookie a probe's program reads: its event, and for uprobes whether it returns. */
static uint64_t probe_cookie(const struct probe_spec *s, uint32_t event)
{
	return event | (s->kind == PROBE_URETPROBE ? PROBE_COOKIE_RETURN : 0);
}

/* The cookie to attach with: none when the kernel has no cookies (the program reads
 * the one fixed cookie probes__fixed_cookies gave it). */
static uint64_t attach_cookie(const struct probe_spec *s, uint32_t event)
{
	return kernel_features()->attach_cookie ? probe_cookie(s, event) : 0;
}

/* Whether the ELF file at path is position-independent (a PIE or a library). */
static bool elf_is_dyn(const char *path)
{
	int fd = safe_file__open(path, SAFE_FILE_FOLLOW, PROBE_FILE_MAX, NULL, NULL);
	struct elf_file *e;
	bool dyn;

	if (fd < 0)
		return false;
	e = elf_file__open(fd);
	dyn = e && elf_file__type(e) == ET_DYN;
	elf_file__free(e);
	close(fd);
	return dyn;
}

int probes__fixed_cookies(const struct probe_spec *specs, size_t n, uint32_t first_event,
			  uint64_t *uprobe, uint64_t *tracepoint)
{
	unsigned int nuprobes = 0, ntracepoints = 0;

	for (size_t i = 0; i < n; i++) {
		const struct probe_spec *s = &specs[i];
		char path[4096];

		/* libbpf tells USDT probes apart by address without cookies, which it can
		 * only do in a position-independent file for one process at a time. */
		if (s->kind == PROBE_USDT && !resolve_path(s->path, path, sizeof(path)) &&
		    elf_is_dyn(path)) {
			pr_err("%s: a USDT probe in a position-independent binary or library needs "
			       "Linux 5.15 (bpf_get_attach_cookie)",
			       s->text);
			return -ENOTSUP;
		}

		if (s->kind == PROBE_UPROBE || s->kind == PROBE_URETPROBE) {
			*uprobe = probe_cookie(s, first_event + (uint32_t)i);
			nuprobes++;
		} else if (s->kind == PROBE_TRACEPOINT) {
			*tracepoint = probe_cookie(s, first_event + (uint32_t)i);
			ntracepoints++;
		}
	}
	if (nuprobes > 1 || ntracepoints > 1) {
		pr_err("--probe: more than one %s probe needs Linux 5.15 (bpf_get_attach_cookie)",
		       nuprobes > 1 ? "uprobe/uretprobe" : "tracepoint");
		return -ENOTSUP;
	}
	return 0;
}

static struct bpf_link *attach_uprobe(struct bpf_program *prog, const struct probe_spec *s,
				      uint32_t event)
{
	bool ret = s->kind == PROBE_URETPROBE;
	LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = s->target, .retprobe = ret,
		    .bpf_cookie = attach_cookie(s, event));
	size_t off = s->offset;
	struct bpf_link *link;
	struct target t;
	unsigned int guard;

	if (target__open(&t, s))
		return NULL;
	/* A uretprobe's entry hit reads the return address at sp, which the skipped
	 * instructions leave alone, so both kinds move to an emulated instruction. */
	if (!s->has_offset) {
		off = entry_skip(t.fd, s->target);
		if (off)
			pr_debug("%s: probing %s+%zu, an instruction the kernel emulates", s->text,
				 s->target, off);
	}
	guard = mapguard__begin();
	link = bpf_program__attach_uprobe_opts(prog, -1, t.path, off, &o);
	return target__close(&t, s, link, guard);
}

static struct bpf_link *attach_usdt(struct bpf_program *prog, const struct probe_spec *s,
				    uint32_t event)
{
	LIBBPF_OPTS(bpf_usdt_opts, o, .usdt_cookie = event);
	struct bpf_link *link;
	struct target t;
	unsigned int guard;

	if (target__open(&t, s))
		return NULL;
	guard = mapguard__begin();
	link = bpf_program__attach_usdt(prog, -1, t.path, s->target, s->name, &o);
	return target__close(&t, s, link, guard);
}

/* Reads a tracepoint's id from tracefs at root; -errno when it cannot. */
static int read_tp_id(const char *root, const struct probe_spec *s)
{
	char path[512], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, s->target, s->name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	return atoi(buf);
}

#define TRACEFS "/sys/kernel/tracing"

/* The tracepoint's id. Tracefs is not always mounted (minimal VMs, containers): then it
 * is mounted for the look-up and unmounted again, leaving the system as it was. */
static int tracepoint_id(const struct probe_spec *s)
{
	struct stat st;
	int id;

	if (stat(TRACEFS "/events", &st) == 0)
		return read_tp_id(TRACEFS, s);
	if (stat("/sys/kernel/debug/tracing/events", &st) == 0)
		return read_tp_id("/sys/kernel/debug/tracing", s);
	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL)) {
		id = -errno;
		pr_err("%s: tracefs is not mounted and mounting it on %s failed: %s", s->text,
		       TRACEFS, strerror(errno));
		return id;
	}
	id = read_tp_id(TRACEFS, s);
	umount2(TRACEFS, MNT_DETACH);
	return id;
}

static struct bpf_link *attach_tracepoint(struct bpf_program *prog, const struct probe_spec *s,
					  uint32_t event)
{
	LIBBPF_OPTS(bpf_perf_event_opts, o, .bpf_cookie = attach_cookie(s, event));
	struct perf_event_attr attr = {
	    .type = PERF_TYPE_TRACEPOINT,
	    .size = sizeof(attr),
	    .sample_period = 1,
	    .wakeup_events = 1,
	};
	struct bpf_link *link;
	int id = tracepoint_id(s), fd, err;

	if (id < 0) {
		errno = -id;
		return NULL;
	}
	attr.config = (uint64_t)id;
	/* A BPF program on a tracepoint event runs on every CPU, whatever CPU the event
	 * was opened for. */
	fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return NULL;
	link = bpf_program__attach_perf_event_opts(prog, fd, &o);
	if (!link) {
		err = errno;
		close(fd);
		errno = err;
	}
	return link;
}

static const char *const prog_names[] = {
    [PROBE_UPROBE] = "on_uprobe",
    [PROBE_URETPROBE] = "on_uprobe",
    [PROBE_TRACEPOINT] = "on_tracepoint",
    [PROBE_USDT] = "on_usdt",
};

int probes__select(struct bpf_object *owner, const struct probe_spec *specs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct bpf_program *p =
		    bpf_object__find_program_by_name(owner, prog_names[specs[i].kind]);
		int err;

		if (!p)
			return -ENOENT;
		err = bpf_program__set_autoload(p, true);
		if (err)
			return err;
	}
	return 0;
}

static struct bpf_link *attach_one(struct bpf_program *prog, const struct probe_spec *s,
				   uint32_t event)
{
	switch (s->kind) {
	case PROBE_UPROBE:
	case PROBE_URETPROBE:
		return attach_uprobe(prog, s, event);
	case PROBE_USDT:
		return attach_usdt(prog, s, event);
	case PROBE_TRACEPOINT:
		return attach_tracepoint(prog, s, event);
	}
	errno = EINVAL;
	return NULL;
}

int probes__attach(struct probes **out, struct loader *l, const struct bpf_object *owner,
		   const struct probe_spec *specs, size_t n, uint32_t first_event)
{
	struct probes *p = calloc(1, sizeof(*p));
	unsigned int errors;
	int err = 0;

	*out = p;
	if (!p)
		return -ENOMEM;
	p->links = calloc(n ? n : 1, sizeof(*p->links));
	if (!p->links)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct bpf_program *prog = loader__program(l, owner, prog_names[specs[i].kind]);

		if (!prog)
			return -ENOENT;
		errors = log_errors();
		p->links[i] = attach_one(prog, &specs[i], first_event + (uint32_t)i);
		if (!p->links[i]) {
			err = errno ? -errno : -EINVAL;
			/* libbpf's codes (LIBBPF_ERRNO__*) have no strerror text. */
			if (log_errors() == errors)
				pr_err("attaching %s: %s", specs[i].text, errstr(err));
			return err;
		}
		p->n = i + 1;
	}
	return 0;
}

void probes__free(struct probes *p)
{
	if (!p)
		return;
	for (size_t i = p->n; i > 0; i--)
		bpf_link__destroy(p->links[i - 1]);
	free(p->links);
	free(p);
}
