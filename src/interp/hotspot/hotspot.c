// SPDX-License-Identifier: Apache-2.0
/* HotSpot JVM support: the runtime registry's entry (src/interp/runtime.h). Detection:
 * a mapped libjvm.so whose .dynsym exports gHotSpotVMStructs. Description: the JVM's own
 * tables give the build's layout (once per process, said once per library with its
 * version), the process's code cache and interpreter go to BPF (pid_to_hotspot), and the
 * code cache is claimed UNW_MARK_WALK. Ingest: each frame the walker recorded is named
 * from the process's memory (hotspot_names.c), inlined methods expanding into frames. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hotspot.skel.h"
#include "interp/hotspot/hotspot_proc.h"
#include "interp/hotspot/hotspot_describe.h"
#include "interp/hotspot/hotspot_elf.h"
#include "interp/hotspot/hotspot_method.h"
#include "interp/hotspot/hotspot_names.h"
#include "interp/runtime.h"
#include "interp/runtime_state.h"
#include "loader/counters.h"
#include "sample.h"
#include "util/arena.h"
#include "util/functab.h"
#include "util/hmap.h"
#include "util/log.h"

#define MAX_FUNCS (1 << 20) /* distinct (method, file) names kept; then frames are "?" */

/* A libjvm.so detect() accepted, by file id (first: runtime_state.h). */
struct hs_file {
	uint32_t file_id;
	struct hs_elf elf;
	char *path;
	bool said; /* its version (or what its tables lack) was reported */
};

struct hs_process {
	uint32_t pid;	   /* first: runtime_state.h */
	struct hs_mem mem; /* reads pid */
	struct hs_layout layout;
	struct hs_names *names;
};
_Static_assert(offsetof(struct hs_file, file_id) == 0 && offsetof(struct hs_process, pid) == 0,
	       "keyed as runtime_state.h says");

struct hotspot_stats {
	uint64_t processes, unusable; /* JVMs described; JVMs whose tables lacked something */
};

/* Files: struct hs_file; processes: struct hs_process; names: (method, file). */
struct hotspot {
	struct runtime_state rs; /* first: runtime_state__new makes the whole */
	struct hotspot_stats st;
	struct hs_names_stats gone; /* names statistics of processes forgotten */
};
_Static_assert(offsetof(struct hotspot, rs) == 0, "runtime_state.h");

static void add_names_stats(struct hs_names_stats *to, const struct hs_names_stats *s)
{
	to->method_reads += s->method_reads;
	to->nmethod_reads += s->nmethod_reads;
	to->unreadable += s->unreadable;
	to->replaced += s->replaced;
	to->stubs += s->stubs;
	to->no_bci += s->no_bci;
	to->no_scope += s->no_scope;
}

static void free_process(struct runtime_state *rs, void *proc)
{
	struct hotspot *hs = (struct hotspot *)rs;
	struct hs_process *p = proc;

	if (p->names)
		add_names_stats(&hs->gone, hs_names__stats(p->names));
	hs_names__free(p->names);
	free(p);
}

static void free_file(void *file)
{
	struct hs_file *f = file;

	free(f->path);
	free(f);
}

static const struct runtime_state_conf state = {
    .pid_map = "pid_to_hotspot",
    .counters_map = "hotspot_counters",
    .max_names = MAX_FUNCS,
    .free_file = free_file,
    .free_proc = free_process,
};

static int hotspot_init(const struct runtime_env *env, struct bpf_object *obj, void **priv)
{
	return runtime_state__new(obj, &state, sizeof(struct hotspot), priv);
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
	if (f->path && !hs_elf__read(rf->fd, &f->elf))
		yes = runtime_state__add_file(&hs->rs, f);
	if (!yes)
		free_file(f);
	return yes || runtime_state__file(&hs->rs, rf->file_id);
}

/* JDK and JRE layouts of the launcher's home, JDK 8's JRE inside the JDK too. */
static const char *const libjvm_dirs[] = {"lib/server", "lib/client", "jre/lib/amd64/server",
					  "lib/amd64/server"};

/* java's launcher (HOME/bin/java) dlopens HOME's libjvm.so after it started. */
static bool hotspot_launches(const char *exe)
{
	size_t n = strlen(exe);
	char path[4096];

	if (n < 9 || strcmp(exe + n - 9, "/bin/java"))
		return false;
	for (size_t i = 0; i < sizeof(libjvm_dirs) / sizeof(libjvm_dirs[0]); i++) {
		if (snprintf(path, sizeof(path), "%.*s/%s/libjvm.so", (int)(n - 9), exe,
			     libjvm_dirs[i]) < (int)sizeof(path) &&
		    access(path, R_OK) == 0)
			return true;
	}
	return false;
}

/* libjvm among pid's mappings: its file and the load bias. */
static struct hs_file *find_libjvm(struct hotspot *hs, const struct proc_mapping *maps, uint32_t n,
				   uint64_t *bias)
{
	struct hs_file *f;

	for (uint32_t i = 0; (f = runtime_state__mapped_file(&hs->rs, maps, n, &i)); i++) {
		if (hs_elf__bias(&f->elf, maps[i].start, maps[i].pgoff, bias))
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
	p->mem = (struct hs_mem){.read = runtime_proc__read, .ctx = p};
	for (int i = 0; i < HS_SYM__COUNT; i++)
		syms[i] = f->elf.sym[i] ? f->elf.sym[i] + bias : 0;
	err = hs_vm__read(&p->mem, syms, &vm);
	if (!err)
		err = hs_layout__from_vm(vm, &p->mem, &p->layout, &missing);
	hs_vm__free(vm);
	if (err == -EAGAIN) { /* libjvm not ready yet: the next notice of pid asks again */
		free_process(&hs->rs, p);
		return err;
	}
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
		free_process(&hs->rs, p);
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

	pthread_mutex_lock(&hs->rs.lock);
	f = find_libjvm(hs, maps, n, &bias);
	p = runtime_state__proc(&hs->rs, pid);
	if (!f)
		goto cleanup;
	if (!p) {
		err = new_process(hs, pid, f, bias, &p);
		if (!err)
			err = runtime_state__set_proc(&hs->rs, pid, p);
		if (err)
			goto cleanup;
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
		bpf_map_delete_elem(hs->rs.map_fd, &pid);
		err = 0;
		goto cleanup;
	}
	if (err)
		goto cleanup;
	if (bpf_map_update_elem(hs->rs.map_fd, &pid, &bp, BPF_ANY))
		err = -errno;
cleanup:
	if (err && err != -ENOENT)
		pr_debug("hotspot: describing pid %u: %s", pid, strerror(-err));
	pthread_mutex_unlock(&hs->rs.lock);
	return err;
}

static void hotspot_forget(void *priv, uint32_t pid)
{
	struct hotspot *hs = priv;

	runtime_state__forget(&hs->rs, pid);
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
	pthread_mutex_lock(&hs->rs.lock);
	p = runtime_state__proc(&hs->rs, pid);
	if (p)
		k = hs_names__frame(p->names, uf->addr, uf->pad & UF_DATA_MASK, nf,
				    max < HS_INLINE_MAX ? (int)max : HS_INLINE_MAX);
	for (int i = 0; i < k; i++)
		out[i] = (struct frame){.kind = FRAME_JVM,
					.file_id =
					    functab__intern(&hs->rs.names, nf[i].func, nf[i].file),
					.addr = (uint64_t)nf[i].line};
	pthread_mutex_unlock(&hs->rs.lock);
	if (k > 0)
		return (unsigned int)k;
	out[0] = (struct frame){.kind = FRAME_JVM};
	return 1;
}

/* Java frames: "package.Class.method", its source file ("File.java", the class file
 * keeps no directory) and the line (frame.addr); stubs have no file. */
static bool hotspot_symbol(void *priv, const struct frame *f, struct arena *a,
			   struct frame_symbol *out)
{
	const struct hotspot *hs = priv;
	/* Read at report time, under the tracker's lock: no function is being added. */
	const struct functab_entry *fn = functab__get(&hs->rs.names, f->file_id);

	if (!fn) {
		*out = (struct frame_symbol){.function = "[jvm: unreadable code]", .file = ""};
		return true;
	}
	*out = (struct frame_symbol){
	    .function = fn->func, .file = fn->file, .line = fn->file[0] ? (uint32_t)f->addr : 0};
	return true;
}

static void hotspot_print_stats(void *priv, FILE *out)
{
	struct hotspot *hs = priv;
	struct hs_names_stats s;
	uint64_t c[HS_CTR__COUNT];

	pthread_mutex_lock(&hs->rs.lock);
	s = hs->gone;
	hmap_for_each(&hs->rs.procs, i)
	{
		const struct hs_process *p = hs->rs.procs.slots[i].entry;

		add_names_stats(&s, hs_names__stats(p->names));
	}
	pthread_mutex_unlock(&hs->rs.lock);
	if (!hs->st.processes && !hs->st.unusable)
		return;
	counters__sum(hs->rs.counters_fd, c, HS_CTR__COUNT);
	fprintf(out,
		"  hotspot: %llu JVMs (%llu unusable); %llu walks into the code cache, cut: %llu "
		"without a description, %llu in no code blob, %llu unreadable, %llu impossible "
		"caller, %llu not its pc, %llu full; %llu methods and %llu compiled frames read, "
		"%llu stub frames, frames unnamed: %llu unreadable, %llu whose code was replaced; "
		"without a line: %llu interpreted (no bytecode index), %llu compiled (no debug "
		"point)\n",
		(unsigned long long)hs->st.processes, (unsigned long long)hs->st.unusable,
		(unsigned long long)c[HS_CTR_WALKS], (unsigned long long)c[HS_CTR_NO_PROC],
		(unsigned long long)c[HS_CTR_NO_BLOB], (unsigned long long)c[HS_CTR_FAULT],
		(unsigned long long)c[HS_CTR_BAD], (unsigned long long)c[HS_CTR_NO_PROGRESS],
		(unsigned long long)c[HS_CTR_FULL], (unsigned long long)s.method_reads,
		(unsigned long long)s.nmethod_reads, (unsigned long long)s.stubs,
		(unsigned long long)s.unreadable, (unsigned long long)s.replaced,
		(unsigned long long)s.no_bci, (unsigned long long)s.no_scope);
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
    /* Its walker has an unrolled variant, tail-calling itself. */
    .floor = {.bpf_loop = false, .without = "Java frames stay native"},
    .bpf_elf = hotspot_elf,
    .bpf_walker = "hotspot_walk",
    .init = hotspot_init,
    .free = runtime_state__delete,
    .detect = hotspot_detect,
    .launches = hotspot_launches,
    .describe = hotspot_describe,
    .forget = hotspot_forget,
    .ingest = hotspot_ingest,
    .frame_symbol = hotspot_symbol,
    .print_stats = hotspot_print_stats,
};
