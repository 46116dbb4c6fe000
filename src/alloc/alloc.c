// SPDX-License-Identifier: Apache-2.0
/* Allocation profiling in ebprof: the command's environment for libebprof-alloc.so, the
 * uprobes, the weights of each sample, and the table of sampled blocks still live (by
 * process and address) from which the in-use profiles are made. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/abi.h"
#include "alloc/alloc.h"
#include "elf/elf_file.h"
#include "util/options.h"
#include "loader/sampler.h"
#include "profile/ingest.h"
#include "profile/profile.h"
#include "sample.h"
#include "util/hmap.h"
#include "util/log.h"
#include "util/safe_file.h"

/* The largest mean the in-BPF sampler's fixed-point arithmetic takes. */
#define ALLOC_MAX_MEAN (1ULL << 40)

struct live_block {
	uint32_t pid;
	uint64_t ptr;
	uint64_t objects; /* the weights of its sample */
	uint64_t bytes;
	struct stack *stack; /* malloc'd copy, event set to the in-use event */
};

struct live_key {
	uint32_t pid;
	uint64_t ptr;
};

struct alloc {
	struct alloc_opts opts;
	struct hmap live; /* struct live_block by (pid, ptr) */
	uint32_t alloc_event;
	int32_t inuse_event; /* -1 in kernel-only mode */
	uint64_t rng;	     /* for rounding fractional object weights without bias */
	uint64_t samples, frees, untracked, unknown_frees, nomem;
};

int alloc_opts__parse(struct alloc_opts *o, enum alloc_mode mode, const char *arg)
{
	const char *flag = mode == ALLOC_KERNEL ? "--alloc-kernel" : "--alloc";

	if (o->mode != ALLOC_OFF && o->mode != mode) {
		pr_err("--alloc and --alloc-kernel exclude each other");
		return -EINVAL;
	}
	o->mode = mode;
	o->mean = ALLOC_DEFAULT_MEAN;
	if (!arg)
		return 0;
	if (opt_size(flag, arg, &o->mean))
		return -EINVAL;
	if (o->mean < 1 || o->mean > ALLOC_MAX_MEAN) {
		pr_err("%s: the mean sampling distance must be between 1 and 1T bytes", flag);
		return -EINVAL;
	}
	return 0;
}

int alloc__find_lib(char *out, size_t n)
{
	const char *env = getenv("EBPROF_ALLOC_LIB");
	char exe[PATH_MAX], *slash;
	ssize_t len;

	if (env && *env) {
		if (!realpath(env, out) || access(out, R_OK)) {
			pr_err("EBPROF_ALLOC_LIB=%s: %s", env, strerror(errno));
			return -ENOENT;
		}
		return 0;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0)
		return -errno;
	exe[len] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	if ((size_t)snprintf(out, n, "%s/%s", exe, ALLOC_LIB_NAME) >= n || access(out, R_OK)) {
		pr_err("--alloc needs %s beside the ebprof binary (%s/; 'make' builds it) or "
		       "named by EBPROF_ALLOC_LIB",
		       ALLOC_LIB_NAME, exe);
		return -ENOENT;
	}
	return 0;
}

static char *dup_env(const char *name)
{
	const char *v = getenv(name);

	return v ? strdup(v) : NULL;
}

int alloc_env__apply(struct alloc_env *e, const char *lib, uint64_t mean)
{
	char mean_s[32], *preload;
	const char *old;
	int err = 0;

	*e = (struct alloc_env){.old_preload = dup_env("LD_PRELOAD"),
				.old_mean = dup_env(ALLOC_ENV_MEAN)};
	old = e->old_preload;
	/* ld.so splits LD_PRELOAD at spaces and colons: keep what the user preloads. */
	if (asprintf(&preload, "%s%s%s", old && *old ? old : "", old && *old ? ":" : "", lib) < 0)
		return -ENOMEM;
	snprintf(mean_s, sizeof(mean_s), "%llu", (unsigned long long)mean);
	if (setenv("LD_PRELOAD", preload, 1) || setenv(ALLOC_ENV_MEAN, mean_s, 1))
		err = -errno;
	free(preload);
	e->applied = true;
	return err;
}

static void restore_one(const char *name, const char *old)
{
	if (old)
		setenv(name, old, 1);
	else
		unsetenv(name);
}

void alloc_env__restore(struct alloc_env *e)
{
	if (e->applied) {
		restore_one("LD_PRELOAD", e->old_preload);
		restore_one(ALLOC_ENV_MEAN, e->old_mean);
	}
	free(e->old_preload);
	free(e->old_mean);
	*e = (struct alloc_env){0};
}

static int live_eq(const void *entry, const void *key)
{
	const struct live_block *b = entry;
	const struct live_key *k = key;

	return b->pid == k->pid && b->ptr == k->ptr;
}

static uint64_t live_hash(uint32_t pid, uint64_t ptr)
{
	return hash_u64(ptr ^ ((uint64_t)pid << 48) ^ pid);
}

static int declare_events(struct alloc *a, struct profile *p, uint64_t cpu_period_ns)
{
	const struct report_event cpu = {
	    .name = "cpu",
	    .period_type = {"cpu", "nanoseconds"},
	    .period = cpu_period_ns,
	    .nvalues = 1,
	    .values = {{"samples", "count"}},
	};
	const struct report_event alloc = {
	    .name = "alloc",
	    .period_type = {"space", "bytes"},
	    .period = a->opts.mean,
	    .nvalues = 2,
	    .values = {{"alloc_objects", "count"}, {"alloc_space", "bytes"}},
	};
	const struct report_event inuse = {
	    .name = "inuse",
	    .period_type = {"space", "bytes"},
	    .period = a->opts.mean,
	    .nvalues = 2,
	    .values = {{"inuse_objects", "count"}, {"inuse_space", "bytes"}},
	};
	int i;

	if (!p->nevents && profile__add_event(p, &cpu) < 0)
		return -ENOSPC;
	i = profile__add_event(p, &alloc);
	if (i < 0)
		return i;
	a->alloc_event = (uint32_t)i;
	a->inuse_event = -1;
	if (a->opts.mode != ALLOC_PRELOAD)
		return 0;
	i = profile__add_event(p, &inuse);
	a->inuse_event = i;
	return i < 0 ? i : 0;
}

struct alloc *alloc__new(const struct alloc_opts *o, struct profile *p, uint64_t cpu_period_ns)
{
	struct alloc *a = calloc(1, sizeof(*a));
	int err;

	if (!a)
		return NULL;
	a->opts = *o;
	a->rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
	hmap_init(&a->live, live_eq);
	err = declare_events(a, p, cpu_period_ns);
	if (err) {
		alloc__free(a);
		errno = -err;
		return NULL;
	}
	return a;
}

void alloc__free(struct alloc *a)
{
	if (!a)
		return;
	hmap_for_each(&a->live, i)
	{
		struct live_block *b = a->live.slots[i].entry;

		free(b->stack);
		free(b);
	}
	hmap_free(&a->live);
	free(a);
}

uint32_t alloc__event(const struct alloc *a)
{
	return a->alloc_event;
}

/* The libc.so the process pid maps (0: ebprof itself), as a path that reaches it from
 * here (through /proc/PID/root, for containers). Returns 0 or -ENOENT. */
static int libc_path(uint32_t pid, char *out, size_t n)
{
	char maps[64], line[4096], path[PATH_MAX];
	int err = -ENOENT, fd;
	FILE *f;

	snprintf(maps, sizeof(maps), pid ? "/proc/%u/maps" : "/proc/self/maps", pid);
	fd = safe_file__open_proc(maps);
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return fd >= 0 ? -ENOMEM : fd;
	}
	while (err && fgets(line, sizeof(line), f)) {
		const char *base;

		if (sscanf(line, "%*s %*s %*s %*s %*s %4095s", path) != 1)
			continue;
		base = strrchr(path, '/');
		if (!base || (strncmp(base, "/libc.so", 8) && strncmp(base, "/libc-", 6)))
			continue;
		if (pid)
			snprintf(out, n, "/proc/%u/root%s", pid, path);
		else
			snprintf(out, n, "%s", path);
		err = 0;
	}
	fclose(f);
	return err;
}

struct libc_entry {
	const char *name;
	enum alloc_size_arg arg;
};

/* Entry points a C program allocates through. glibc aliases some (memalign and
 * aligned_alloc share an address): a second probe on one address would count its calls
 * twice, so duplicates are skipped by the address libbpf resolves. */
static const struct libc_entry libc_entries[] = {
    {"malloc", ALLOC_ARG_1},	     {"calloc", ALLOC_ARG_1_TIMES_2}, {"realloc", ALLOC_ARG_2},
    {"posix_memalign", ALLOC_ARG_3}, {"aligned_alloc", ALLOC_ARG_2},  {"memalign", ALLOC_ARG_2},
    {"valloc", ALLOC_ARG_1},	     {"pvalloc", ALLOC_ARG_1},
};

/* The address of each libc entry point in the file at path (0: not there, or the file
 * is unreadable). */
static void libc_addrs(const char *path, uint64_t *addrs)
{
	int fd = safe_file__open(path, SAFE_FILE_FOLLOW, 0, NULL, NULL);
	struct elf_file *elf = fd >= 0 ? elf_file__open(fd) : NULL;

	memset(addrs, 0, sizeof(libc_entries) / sizeof(libc_entries[0]) * sizeof(*addrs));
	if (fd >= 0)
		close(fd);
	if (!elf)
		return;
	for (size_t i = 0; i < sizeof(libc_entries) / sizeof(libc_entries[0]); i++)
		if (elf_file__symbol(elf, libc_entries[i].name, &addrs[i], NULL))
			addrs[i] = 0;
	elf_file__free(elf);
}

static int attach_libc(struct alloc *a, struct sampler *s, struct loader *l, const char *path,
		       int pid)
{
	uint64_t addrs[sizeof(libc_entries) / sizeof(libc_entries[0])];
	size_t nattached = 0;
	int err;

	libc_addrs(path, addrs);
	for (size_t i = 0; i < sizeof(libc_entries) / sizeof(libc_entries[0]); i++) {
		const struct libc_entry *e = &libc_entries[i];
		uint64_t cookie = a->alloc_event | (uint64_t)e->arg << ALLOC_COOKIE_ARG_SHIFT;
		bool dup = false;

		if (!addrs[i]) {
			pr_debug("%s: no %s to probe", path, e->name);
			continue;
		}
		for (size_t j = 0; j < i; j++)
			dup |= addrs[j] == addrs[i];
		if (dup)
			continue;
		err = sampler__attach_uprobe(s, l, "on_libc_alloc", path, e->name, pid, cookie);
		if (err)
			return err;
		nattached++;
	}
	return nattached ? 0 : -ENOENT;
}

static int attach_kernel_mode(struct alloc *a, struct sampler *s, struct loader *l,
			      const uint32_t *pids, size_t npids)
{
	char path[PATH_MAX + 64];
	int err;

	if (!npids) {
		if (libc_path(0, path, sizeof(path))) {
			pr_err("--alloc-kernel: cannot find the libc ebprof runs with");
			return -ENOENT;
		}
		return attach_libc(a, s, l, path, -1);
	}
	for (size_t i = 0; i < npids; i++) {
		/* A command held before its exec maps ebprof's libc, which it will keep. */
		err = libc_path(pids[i], path, sizeof(path));
		if (err) {
			pr_err("--alloc-kernel: process %u maps no libc.so (a static program?)",
			       pids[i]);
			return err;
		}
		err = attach_libc(a, s, l, path, (int)pids[i]);
		if (err)
			return err;
	}
	return 0;
}

int alloc__attach(struct alloc *a, struct sampler *s, struct loader *l, const char *lib,
		  const uint32_t *pids, size_t npids)
{
	int err;

	if (a->opts.mode == ALLOC_KERNEL)
		return attach_kernel_mode(a, s, l, pids, npids);
	/* Every process that maps the library: the BPF process filter keeps the wanted. */
	err = sampler__attach_uprobe(s, l, "on_alloc_sample", lib, ALLOC_SAMPLE_SYMBOL, -1,
				     a->alloc_event);
	if (!err)
		err = sampler__attach_uprobe(s, l, "on_alloc_free", lib, ALLOC_FREE_SYMBOL, -1, 0);
	return err;
}

static uint64_t next_random(struct alloc *a)
{
	uint64_t z = (a->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* x rounded up with probability frac(x), down otherwise: unbiased, so summed object
 * counts stay unbiased although each value is whole. */
static uint64_t round_unbiased(struct alloc *a, double x)
{
	double f = floor(x);
	double u = (double)(next_random(a) >> 11) * 0x1p-53;

	return (uint64_t)f + (u < x - f);
}

/* The bytes a sample stands for: the library sends them; the kernel-only sampler sends
 * 0 and the same law applies: size / P(sampled) = size / (1 - exp(-size / mean)). */
static uint64_t weight_bytes(const struct alloc *a, const struct sample_record *r)
{
	double s = (double)r->alloc_size;

	if (r->value || !r->alloc_size)
		return r->value;
	return (uint64_t)(s / -expm1(-s / (double)a->opts.mean) + 0.5);
}

static void remember(struct alloc *a, const struct sample_record *r, const struct stack *s,
		     const uint64_t *values)
{
	size_t bytes = offsetof(struct stack, frames) + s->nframes * sizeof(struct frame);
	struct live_key k = {r->pid, r->alloc_ptr};
	uint64_t h = live_hash(r->pid, r->alloc_ptr);
	struct live_block *b = hmap_remove(&a->live, h, &k);

	/* A block still known here was freed without a report (lost record): replace it. */
	if (b)
		free(b->stack);
	else
		b = malloc(sizeof(*b));
	if (b)
		b->stack = malloc(bytes);
	if (!b || !b->stack) {
		free(b);
		a->nomem++;
		return;
	}
	memcpy(b->stack, s, bytes);
	b->stack->event = (uint32_t)a->inuse_event;
	*b = (struct live_block){r->pid, r->alloc_ptr, values[0], values[1], b->stack};
	if (hmap_insert(&a->live, h, b)) {
		free(b->stack);
		free(b);
		a->nomem++;
	}
}

int alloc__sample(struct alloc *a, struct ingest *in, const struct sample_record *r,
		  uint64_t now_ns)
{
	uint64_t values[2];
	int err;

	values[1] = weight_bytes(a, r);
	values[0] = r->alloc_size ? round_unbiased(a, (double)values[1] / r->alloc_size) : 0;
	a->samples++;
	/* The marker the uprobe sits on is in the library, so the innermost frame names
	 * its file: the library's own frames (marker, sampler, malloc wrapper) are left
	 * out and the stack starts at the caller that allocated. Kernel-only samples
	 * start in libc's allocator, which is left as it is. */
	in->trim_innermost_file = a->inuse_event >= 0;
	err = ingest__event(in, r, now_ns, values);
	in->trim_innermost_file = false;
	if (err)
		return err;
	if (a->inuse_event < 0)
		return 0;
	if (!r->alloc_ptr) {
		a->untracked++;
		return 0;
	}
	remember(a, r, &in->scratch.stack, values);
	return 0;
}

void alloc__freed(struct alloc *a, uint32_t pid, uint64_t ptr)
{
	struct live_key k = {pid, ptr};
	struct live_block *b = hmap_remove(&a->live, live_hash(pid, ptr), &k);

	if (!b) {
		/* Sampled before we attached, or by a process we do not profile. */
		a->unknown_frees++;
		return;
	}
	a->frees++;
	free(b->stack);
	free(b);
}

void alloc__forget_pid(struct alloc *a, uint32_t pid)
{
	for (size_t i = 0; i < a->live.cap; i++) {
		struct live_block *b = a->live.slots[i].entry;
		struct live_key k;

		if (!b || b->pid != pid)
			continue;
		k = (struct live_key){b->pid, b->ptr};
		hmap_remove(&a->live, live_hash(k.pid, k.ptr), &k);
		free(b->stack);
		free(b);
		i = (size_t)-1; /* removal may move entries: rescan */
	}
}

int alloc__add_inuse(struct alloc *a, struct profile *p)
{
	if (a->inuse_event < 0)
		return 0;
	hmap_for_each(&a->live, i)
	{
		const struct live_block *b = a->live.slots[i].entry;
		const uint64_t values[2] = {b->objects, b->bytes};
		int err = profile__add(p, b->stack, values, 0);

		if (err)
			return err;
	}
	return 0;
}

void alloc__print_stats(const struct alloc *a, FILE *out)
{
	fprintf(out, "  allocations: %llu sampled (mean %llu bytes, %s)",
		(unsigned long long)a->samples, (unsigned long long)a->opts.mean,
		a->opts.mode == ALLOC_KERNEL ? "kernel-only uprobes" : "preloaded library");
	if (a->inuse_event >= 0)
		fprintf(out, "; %llu freed, %zu still live, %llu untracked by the library",
			(unsigned long long)a->frees, a->live.len,
			(unsigned long long)a->untracked);
	if (a->nomem)
		fprintf(out, "; %llu not tracked (no memory)", (unsigned long long)a->nomem);
	fputc('\n', out);
}
