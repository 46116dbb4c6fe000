// SPDX-License-Identifier: Apache-2.0
/* HotSpot JVM support: the runtime registry's entry (src/interp/runtime.h). Detection:
 * a mapped libjvm.so whose .dynsym exports gHotSpotVMStructs. Description: the JVM's own
 * tables give the build's layout (once per process, said once per library with its
 * version), the process's code cache and interpreter go to BPF (pid_to_hotspot), and the
 * code cache is claimed UNW_MARK_WALK. Ingest: each frame the walker recorded is named
 * from the process's memory (hotspot_names.c), inlined methods expanding into frames. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hotspot.skel.h"
#include "hotspot_proc.h"
#include "interp/hotspot_describe.h"
#include "interp/hotspot_elf.h"
#include "interp/hotspot_method.h"
#include "interp/hotspot_names.h"
#include "interp/runtime.h"
#include "loader/counters.h"
#include "profile/profile.h"
#include "profile/report.h"
#include "sample.h"
#include "util/arena.h"
#include "util/functab.h"
#include "util/hmap.h"
#include "util/log.h"

#define MAX_FUNCS (1 << 20) /* distinct (method, file) names kept; then frames are "?" */

/* A libjvm.so detect() accepted, by file id. */
struct hs_file {
	uint32_t file_id;
	struct hs_elf elf;
	char *path;
	bool said; /* its version (or what its tables lack) was reported */
};

struct hs_process {
	uint32_t pid;
	struct hs_mem mem; /* reads pid */
	struct hs_layout layout;
	struct hs_names *names;
};

struct hotspot_stats {
	uint64_t processes, unusable; /* JVMs described; JVMs whose tables lacked something */
};

struct hotspot {
	pthread_mutex_t lock; /* the tracker's thread and ingest share everything below */
	int map_fd, counters_fd;
	struct hmap files, procs;
	struct functab funcs; /* (method, file) by id; 0 could not be named */
	struct hotspot_stats st;
	struct hs_names_stats gone; /* names statistics of processes forgotten */
};

static int file_eq(const void *e, const void *k)
{
	return ((const struct hs_file *)e)->file_id == *(const uint32_t *)k;
}

static int proc_eq(const void *e, const void *k)
{
	return ((const struct hs_process *)e)->pid == *(const uint32_t *)k;
}

static int read_pid(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct hs_process *p = ctx;
	struct iovec l = {.iov_base = buf, .iov_len = len};
	struct iovec r = {.iov_base = (void *)addr, .iov_len = len};
	ssize_t n = process_vm_readv((pid_t)p->pid, &l, 1, &r, 1, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

static void add_names_stats(struct hs_names_stats *to, const struct hs_names_stats *s)
{
	to->method_reads += s->method_reads;
	to->nmethod_reads += s->nmethod_reads;
	to->unreadable += s->unreadable;
	to->replaced += s->replaced;
	to->stubs += s->stubs;
}

static void free_process(struct hotspot *hs, struct hs_process *p)
{
	if (!p)
		return;
	if (p->names)
		add_names_stats(&hs->gone, hs_names__stats(p->names));
	hs_names__free(p->names);
	free(p);
}

static void hotspot_free(void *priv);

static int hotspot_init(const struct runtime_env *env, struct bpf_object *obj, void **priv)
{
	const struct bpf_map *procs = bpf_object__find_map_by_name(obj, "pid_to_hotspot");
	const struct bpf_map *ctrs = bpf_object__find_map_by_name(obj, "hotspot_counters");
	struct hotspot *hs;

	if (!procs || !ctrs)
		return -ENOENT;
	hs = calloc(1, sizeof(*hs));
	if (!hs)
		return -ENOMEM;
	pthread_mutex_init(&hs->lock, NULL);
	hs->map_fd = bpf_map__fd(procs);
	hs->counters_fd = bpf_map__fd(ctrs);
	hmap_init(&hs->files, file_eq);
	hmap_init(&hs->procs, proc_eq);
	if (functab__init(&hs->funcs, MAX_FUNCS)) {
		hotspot_free(hs);
		return -ENOMEM;
	}
	*priv = hs;
	return 0;
}

static void hotspot_free(void *priv)
{
	struct hotspot *hs = priv;

	if (!hs)
		return;
	hmap_for_each(&hs->files, i)
	{
		struct hs_file *f = hs->files.slots[i].entry;

		free(f->path);
		free(f);
	}
	hmap_free(&hs->files);
	hmap_for_each(&hs->procs, i) free_process(hs, hs->procs.slots[i].entry);
	hmap_free(&hs->procs);
	functab__free(&hs->funcs);
	pthread_mutex_destroy(&hs->lock);
	free(hs);
}

static bool hotspot_detect(void *priv, const struct runtime_file *rf)
{
	struct hotspot *hs = priv;
	struct hs_file *f;
	bool yes = false;

	if (!hs_elf__is_libjvm(rf->path))
		return false;
	f = calloc(1, sizeof(*f));
	if (!f)
		return false;
	f->file_id = rf->file_id;
	f->path = strdup(rf->path);
	if (f->path && !hs_elf__read(rf->fd, &f->elf)) {
		pthread_mutex_lock(&hs->lock);
		yes = !hmap_find(&hs->files, hash_u64(f->file_id), &f->file_id) &&
		      !hmap_insert(&hs->files, hash_u64(f->file_id), f);
		pthread_mutex_unlock(&hs->lock);
	}
	if (!yes) {
		free(f->path);
		free(f);
	}
	return yes || hmap_find(&hs->files, hash_u64(rf->file_id), &rf->file_id);
}

/* libjvm among pid's mappings: its file and the load bias. */
static struct hs_file *find_libjvm(struct hotspot *hs, const struct proc_mapping *maps, uint32_t n,
				   uint64_t *bias)
{
	for (uint32_t i = 0; i < n; i++) {
		struct hs_file *f =
		    maps[i].file_id
			? hmap_find(&hs->files, hash_u64(maps[i].file_id), &maps[i].file_id)
			: NULL;

		if (f && hs_elf__bias(&f->elf, maps[i].start, maps[i].pgoff, bias))
			return f;
	}
	return NULL;
}

/* Reads the JVM's tables and makes pid's layout. Says once per library what it found. */
static int new_process(struct hotspot *hs, uint32_t pid, struct hs_file *f, uint64_t bias,
		       struct hs_process **out)
{
	struct hs_process *p = calloc(1, sizeof(*p));
	uint64_t syms[HS_SYM__COUNT];
	const char *missing = NULL;
	struct hs_vm *vm = NULL;
	int err;

	if (!p)
		return -ENOMEM;
	p->pid = pid;
	p->mem = (struct hs_mem){.read = read_pid, .ctx = p};
	for (int i = 0; i < HS_SYM__COUNT; i++)
		syms[i] = f->elf.sym[i] ? f->elf.sym[i] + bias : 0;
	err = hs_vm__read(&p->mem, syms, &vm);
	if (!err)
		err = hs_layout__from_vm(vm, &p->mem, &p->layout, &missing);
	hs_vm__free(vm);
	if (!err && !f->said)
		pr_info("hotspot: %s is OpenJDK %s (pid %u)", f->path, p->layout.release, pid);
	else if (err && !f->said)
		pr_warn("hotspot: %s (pid %u): %s%s: its processes get native stacks", f->path, pid,
			missing ? "its tables lack " : "its tables are unreadable: ",
			missing ? missing : strerror(-err));
	f->said = true;
	if (!err)
		p->names = hs_names__new(&p->mem, &p->layout);
	if (err || !p->names) {
		hs->st.unusable += !!err;
		free_process(hs, p);
		return err ? err : -ENOMEM;
	}
	*out = p;
	return 0;
}

static int hotspot_describe(void *priv, uint32_t pid, const struct proc_mapping *maps, uint32_t n,
			    struct runtime_marks *marks)
{
	struct hotspot *hs = priv;
	struct hs_process *p;
	struct hs_proc bp;
	struct hs_file *f;
	uint64_t bias = 0;
	int err = -ENOENT;

	pthread_mutex_lock(&hs->lock);
	f = find_libjvm(hs, maps, n, &bias);
	p = hmap_find(&hs->procs, hash_u64(pid), &pid);
	if (!f)
		goto cleanup;
	if (!p) {
		err = new_process(hs, pid, f, bias, &p);
		if (err)
			goto cleanup;
		err = hmap_insert(&hs->procs, hash_u64(pid), p);
		if (err) {
			free_process(hs, p);
			goto cleanup;
		}
		hs->st.processes++;
	}
	err = hs_proc__read(&p->mem, &p->layout, &bp);
	/* A JVM still starting (interpreter not generated yet) may already run code in its
	 * code cache: the claim stands, so the walker meets it, finds no description, and
	 * asks for another (the code cache's mapping may not change again to cause one). */
	if (bp.code_low && (!err || err == -EAGAIN)) {
		marks->m[marks->n].start = bp.code_low;
		marks->m[marks->n].end = bp.code_high;
		marks->m[marks->n++].mark = UNW_MARK_WALK;
	}
	if (err == -EAGAIN && bp.code_low) {
		bpf_map_delete_elem(hs->map_fd, &pid);
		err = 0;
		goto cleanup;
	}
	if (err)
		goto cleanup;
	if (bpf_map_update_elem(hs->map_fd, &pid, &bp, BPF_ANY))
		err = -errno;
cleanup:
	if (err && err != -ENOENT)
		pr_debug("hotspot: describing pid %u: %s", pid, strerror(-err));
	pthread_mutex_unlock(&hs->lock);
	return err;
}

static void hotspot_forget(void *priv, uint32_t pid)
{
	struct hotspot *hs = priv;

	pthread_mutex_lock(&hs->lock);
	bpf_map_delete_elem(hs->map_fd, &pid);
	free_process(hs, hmap_remove(&hs->procs, hash_u64(pid), &pid));
	pthread_mutex_unlock(&hs->lock);
}

static unsigned int hotspot_ingest(void *priv, uint32_t pid, const struct user_frame *uf,
				   struct frame *out, unsigned int max)
{
	struct hs_named nf[HS_INLINE_MAX];
	struct hotspot *hs = priv;
	struct hs_process *p;
	int k = 0;

	if (!max)
		return 0;
	pthread_mutex_lock(&hs->lock);
	p = hmap_find(&hs->procs, hash_u64(pid), &pid);
	if (p)
		k = hs_names__frame(p->names, uf->addr, uf->pad & UF_DATA_MASK, nf,
				    max < HS_INLINE_MAX ? (int)max : HS_INLINE_MAX);
	for (int i = 0; i < k; i++)
		out[i] =
		    (struct frame){.kind = FRAME_JVM,
				   .file_id = functab__intern(&hs->funcs, nf[i].func, nf[i].file),
				   .addr = (uint64_t)nf[i].line};
	pthread_mutex_unlock(&hs->lock);
	if (k > 0)
		return (unsigned int)k;
	out[0] = (struct frame){.kind = FRAME_JVM};
	return 1;
}

/* Java frames read "package.Class.method (File.java:LINE)"; stubs and frames without a
 * source file read as their name alone. */
static const char *hotspot_name(void *priv, const struct frame *f, struct arena *a)
{
	const struct hotspot *hs = priv;
	/* Read at report time, under the tracker's lock: no function is being added. */
	const struct functab_entry *fn = functab__get(&hs->funcs, f->file_id);

	if (!fn)
		return "[jvm: unreadable code]";
	if (!fn->file[0])
		return fn->func;
	return arena_printf(a, "%s (%s:%llu)", fn->func, fn->file, (unsigned long long)f->addr);
}

static void hotspot_print_stats(void *priv, FILE *out)
{
	struct hotspot *hs = priv;
	struct hs_names_stats s;
	uint64_t c[HS_CTR__COUNT];

	pthread_mutex_lock(&hs->lock);
	s = hs->gone;
	hmap_for_each(&hs->procs, i)
	{
		const struct hs_process *p = hs->procs.slots[i].entry;

		add_names_stats(&s, hs_names__stats(p->names));
	}
	pthread_mutex_unlock(&hs->lock);
	if (!hs->st.processes && !hs->st.unusable)
		return;
	counters__sum(hs->counters_fd, c, HS_CTR__COUNT);
	fprintf(out,
		"  hotspot: %llu JVMs (%llu unusable); %llu walks into the code cache, cut: %llu "
		"without a description, %llu in no code blob, %llu unreadable, %llu impossible "
		"caller, %llu not its pc, %llu full; %llu methods and %llu compiled frames read, "
		"%llu stub frames, frames unnamed: %llu unreadable, %llu whose code was replaced\n",
		(unsigned long long)hs->st.processes, (unsigned long long)hs->st.unusable,
		(unsigned long long)c[HS_CTR_WALKS], (unsigned long long)c[HS_CTR_NO_PROC],
		(unsigned long long)c[HS_CTR_NO_BLOB], (unsigned long long)c[HS_CTR_FAULT],
		(unsigned long long)c[HS_CTR_BAD], (unsigned long long)c[HS_CTR_NO_PROGRESS],
		(unsigned long long)c[HS_CTR_FULL], (unsigned long long)s.method_reads,
		(unsigned long long)s.nmethod_reads, (unsigned long long)s.stubs,
		(unsigned long long)s.unreadable, (unsigned long long)s.replaced);
}

static const void *hotspot_elf(size_t *size)
{
	return hotspot_bpf__elf_bytes(size);
}

const struct runtime_ops hotspot_runtime = {
    .name = "hotspot",
    .title = "Java",
    .walker = WALKER_HOTSPOT,
    .frame_kind = FRAME_JVM,
    .kind =
	{
	    .name = "jvm",
	    .otlp_type = "jvm",
	    .about = "Java frame",
	    .colour = {150, 25, 50, 55, 8}, /* teal: between unknown's green and kernel's blue */
	    .folded_suffix = "",
	},
    .floor = {.bpf_loop = true, .without = "Java frames stay native"},
    .bpf_elf = hotspot_elf,
    .bpf_walker = "hotspot_walk",
    .init = hotspot_init,
    .free = hotspot_free,
    .detect = hotspot_detect,
    .describe = hotspot_describe,
    .forget = hotspot_forget,
    .ingest = hotspot_ingest,
    .frame_name = hotspot_name,
    .print_stats = hotspot_print_stats,
};
