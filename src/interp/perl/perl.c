// SPDX-License-Identifier: Apache-2.0
/* Perl support, one runtime of the registry (src/interp/runtime.h). Detection: a mapped
 * file whose name says "perl" and whose symbols hold a runops loop, the version bytes
 * and an interpreter pointer (perl_elf.h). Description: the version read from the
 * process picks a layout (perl_layout.h), the interpreter's whereabouts are checked on
 * the main interpreter and go to BPF (pid_to_perl), the runops loops are claimed as
 * activations. Ingest: each (CV, COP) frame is named from the process's memory
 * (perl_names.h), "Package::sub (file:LINE)", and cached per process. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "elf/elf_file.h"
#include "interp/perl/perl_elf.h"
#include "interp/perl/perl_layout.h"
#include "interp/perl/perl_names.h"
#include "interp/perl/perl_proc.h"
#include "interp/runtime.h"
#include "interp/runtime_state.h"
#include "loader/counters.h"
#include "perl.skel.h"
#include "sample.h"
#include "util/arena.h"
#include "util/functab.h"
#include "util/hmap.h"
#include "util/log.h"

#define MAX_FUNCS (1 << 20)  /* distinct (name, file) kept; then frames are unnamed */
#define MAX_FRAMES (1 << 16) /* (CV, COP) pairs cached per process; then it starts over */
#define MAX_SEGS ELF_FILE_MAX_SEGMENTS
#define MAX_TPOFF (1ll << 30) /* a thread-pointer offset farther than this is not believed */

/* A file detect() accepted, by file id (first: runtime_state.h). */
struct pl_file {
	uint32_t file_id;
	struct pl_symbols sym;
	struct elf_segment segs[MAX_SEGS];
	size_t nsegs;
	char *path;
	bool said, said_layout, said_tls;
};

/* A frame as first named: its function (functab id; 0: unnamed) and line. */
struct pl_frame_entry {
	uint64_t cv, cop;
	uint32_t func, line;
};

struct pl_process {
	uint32_t pid; /* first: runtime_state.h; the memory reader's context */
	const struct pl_layout *layout;
	struct pl_mem mem;
	struct hmap frames; /* struct pl_frame_entry by (cv, cop) */
	bool said_threads;
};
_Static_assert(offsetof(struct pl_file, file_id) == 0 && offsetof(struct pl_process, pid) == 0,
	       "keyed as runtime_state.h says");

struct pl_stats {
	uint64_t processes;	  /* processes described to BPF */
	uint64_t unknown_version; /* described with a version ebprof has no layout for */
	uint64_t unusable;	  /* whose interpreter did not read as the layout says */
	uint64_t frame_reads;	  /* (CV, COP) pairs named (cache misses) */
	uint64_t unreadable_subs; /* frames whose CV read as none (freed): "[perl: ...]" */
	uint64_t unreadable_cops; /* frames whose statement read as none: no file, line */
};

/* Files: struct pl_file; processes: struct pl_process; names: (name, file). */
struct perl {
	struct runtime_state rs; /* first: runtime_state__new makes the whole */
	struct proc_table *procs;
	struct pl_stats st; /* under rs.lock */
};
_Static_assert(offsetof(struct perl, rs) == 0, "runtime_state.h");

static int frame_eq(const void *e, const void *k)
{
	const struct pl_frame_entry *a = e, *b = k;

	return a->cv == b->cv && a->cop == b->cop;
}

static uint64_t frame_hash(uint64_t cv, uint64_t cop)
{
	return hash_u64(cv ^ (cop << 17 | cop >> 47));
}

static void free_process(struct runtime_state *rs, void *proc)
{
	struct pl_process *p = proc;

	hmap_free_entries(&p->frames);
	free(p);
}

static void free_file(void *file)
{
	struct pl_file *f = file;

	free(f->path);
	free(f);
}

static const struct runtime_state_conf state = {
    .pid_map = "pid_to_perl",
    .counters_map = "perl_counters", /* what the walker could not do */
    .max_names = MAX_FUNCS,
    .free_file = free_file,
    .free_proc = free_process,
};

/* ---- detection ---- */

/* The registry's question, once per mapped file: is it a perl ("perl", "perl5.36.0",
 * "libperl.so.5.36")? What it is is kept for the processes that map it. */
static bool perl_detect(void *priv, const struct runtime_file *rf)
{
	struct perl *pl = priv;
	const struct elf_segment *segs;
	struct pl_file *f;
	bool yes = false;

	if (!strstr(basename(rf->path), "perl") || !rf->elf)
		return false;
	f = calloc(1, sizeof(*f));
	if (!f)
		return false;
	f->file_id = rf->file_id;
	f->path = strdup(rf->path);
	if (f->path && !pl_symbols__read(rf->elf, &f->sym)) {
		segs = elf_file__segments(rf->elf, &f->nsegs);
		if (f->nsegs > MAX_SEGS)
			f->nsegs = MAX_SEGS;
		memcpy(f->segs, segs, f->nsegs * sizeof(*segs));
		yes = runtime_state__add_file(&pl->rs, f);
		if (yes)
			pr_debug("perl: %s is a perl", rf->path);
	}
	if (!yes)
		free_file(f);
	return yes || runtime_state__file(&pl->rs, rf->file_id);
}

/* The perl file among pid's mappings, and its load bias. */
static struct pl_file *find_perl(struct perl *pl, const struct proc_mapping *maps, uint32_t n,
				 uint64_t *bias)
{
	struct pl_file *f;

	for (uint32_t i = 0; (f = runtime_state__mapped_file(&pl->rs, maps, n, &i)); i++) {
		if (elf_segments__vaddr_bias(f->segs, f->nsegs, maps[i].start, maps[i].pgoff, bias))
			return f;
	}
	return NULL;
}

/* ---- description ---- */

static int read_mem(uint32_t pid, uint64_t addr, void *buf, size_t len)
{
	return runtime_mem__read(pid, addr, buf, len);
}

/* Perl's version as the process holds it (PL_revision, PL_version, PL_subversion). */
static int read_version(const struct pl_file *f, uint32_t pid, uint64_t bias, uint8_t v[3])
{
	int err = read_mem(pid, f->sym.revision + bias, &v[0], 1);

	if (!err)
		err = read_mem(pid, f->sym.version + bias, &v[1], 1);
	if (!err)
		err = read_mem(pid, f->sym.subversion + bias, &v[2], 1);
	return err;
}

/* Says once per file which Perl it is, or that ebprof has no layout for it. */
static void say_file(struct pl_file *f, uint32_t pid, const uint8_t v[3], bool known)
{
	if (f->said)
		return;
	f->said = true;
	if (known)
		pr_info("perl: %s is Perl %u.%u.%u (pid %u)", f->path, v[0], v[1], v[2], pid);
	else
		pr_warn("perl: %s (pid %u) is Perl %u.%u.%u, which ebprof cannot unwind (it knows "
			"%s): its processes get native stacks",
			f->path, pid, v[0], v[1], v[2], pl_layout__known());
}

/* The thread-pointer offset of PL_current_context, which the dynamic linker wrote in
 * its GOT slot: -EAGAIN before it has (the process is starting). */
static int read_tls(struct pl_file *f, uint32_t pid, uint64_t bias, int64_t *tls)
{
	int err;

	*tls = 0;
	if (!f->sym.tls)
		return 0;
	if (!f->sym.tls_slot) {
		if (!f->said_tls)
			pr_warn("perl: %s has PL_current_context but no TPOFF64 relocation for it: "
				"only the main thread's Perl frames are shown",
				f->path);
		f->said_tls = true;
		return 0;
	}
	err = read_mem(pid, f->sym.tls_slot + bias, tls, sizeof(*tls));
	if (err)
		return err;
	if (!*tls)
		return -EAGAIN;
	return *tls < 0 && *tls > -MAX_TPOFF ? 0 : -EINVAL;
}

/* Checks the layout on the main interpreter: its stack info and statement read as such.
 * -EAGAIN while the interpreter is being built, -EINVAL when they do not. */
static int check_interp(uint32_t pid, const struct pl_layout *l, uint64_t curinterp)
{
	struct pl_mem m = {.read = runtime_proc__read, .ctx = &pid};
	const struct pl_offsets *o = &l->bpf;
	uint64_t interp = 0, si = 0, cop = 0, cxstack = 0;
	struct pl_cop c;
	int32_t ix = 0;

	if (read_mem(pid, curinterp, &interp, 8) || !interp ||
	    read_mem(pid, interp + o->curstackinfo, &si, 8) || !si)
		return -EAGAIN;
	if (read_mem(pid, si + o->si_cxstack, &cxstack, 8) ||
	    read_mem(pid, si + o->si_cxix, &ix, 4) || !cxstack || ix < -1 || ix > (1 << 24))
		return -EINVAL;
	if (read_mem(pid, interp + o->curcop, &cop, 8))
		return -EINVAL;
	return cop && pl_cop__read(&m, l, cop, &c) == -EINVAL ? -EINVAL : 0;
}

/* Every activation of a runops loop is one the walker fills. */
static void claim_runops(const struct pl_file *f, uint64_t bias, struct runtime_marks *marks)
{
	for (int r = 0; r < PL_RUNOPS && marks->n < RUNTIME_MAX_MARKS; r++) {
		if (!f->sym.runops[r][1])
			continue;
		marks->m[marks->n].start = f->sym.runops[r][0] + bias;
		marks->m[marks->n].end = f->sym.runops[r][1] + bias;
		marks->m[marks->n++].mark = UNW_MARK_ACTIVATION;
	}
}

/* Under 5.32 the walker reads the main interpreter, which other threads do not run:
 * said once per process that maps threads.so (ithreads). */
static void say_threads(struct perl *pl, struct pl_process *p, const struct pl_proc *bp,
			const struct proc_mapping *maps, uint32_t n)
{
	bool threads = false;

	if (bp->tls || p->said_threads)
		return;
	pthread_mutex_lock(&pl->procs->lock);
	for (uint32_t i = 0; i < n && !threads; i++) {
		struct file_entry *fe = file_table__get(pl->procs->files, maps[i].file_id);

		threads = fe && fe->path && strstr(fe->path, "/threads/threads.so");
	}
	pthread_mutex_unlock(&pl->procs->lock);
	if (!threads)
		return;
	p->said_threads = true;
	pr_warn("perl: pid %u runs Perl threads on a Perl without a per-thread interpreter "
		"pointer ebprof can read: only its main thread gets Perl frames",
		p->pid);
}

/* A new process entry of pid for layout l, in place of the one before: a description
 * follows a change of the mappings, an exec among them, after which the cached frames'
 * CVs and COPs may be others. What was said of the process stays said. */
static struct pl_process *process(struct perl *pl, uint32_t pid, const struct pl_layout *l)
{
	struct pl_process *old = runtime_state__proc(&pl->rs, pid), *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pid = pid;
	p->layout = l;
	p->mem = (struct pl_mem){.read = runtime_proc__read, .ctx = p};
	p->said_threads = old && old->said_threads;
	hmap_init(&p->frames, frame_eq);
	if (!old)
		pl->st.processes++;
	if (runtime_state__set_proc(&pl->rs, pid, p))
		return NULL;
	return p;
}

/* Fills bp for the process; -EAGAIN while it is starting, -EINVAL when its
 * interpreter does not read as the layout says. */
static int fill_proc(struct pl_file *f, uint32_t pid, uint64_t bias, const struct pl_layout *l,
		     struct pl_proc *bp)
{
	int64_t tls;
	int err;

	memset(bp, 0, sizeof(*bp));
	bp->off = l->bpf;
	bp->curinterp = f->sym.curinterp + bias;
	err = read_tls(f, pid, bias, &tls);
	bp->tls = tls;
	if (!err && f->sym.curinterp)
		err = check_interp(pid, l, bp->curinterp);
	return err;
}

/* The layout of the perl pid runs, said once per file; NULL when there is none. */
static const struct pl_layout *layout_of(struct perl *pl, struct pl_file *f, uint32_t pid,
					 uint64_t bias)
{
	const struct pl_layout *l;
	uint8_t v[3];

	if (read_version(f, pid, bias, v))
		return NULL;
	l = pl_layout__for(v[0], v[1]);
	say_file(f, pid, v, l != NULL);
	if (!l)
		pl->st.unknown_version++;
	return l;
}

/* Says once per file that its interpreter does not read as its version's layout. */
static void say_layout(struct perl *pl, struct pl_file *f, uint32_t pid)
{
	pl->st.unusable++;
	if (f->said_layout)
		return;
	f->said_layout = true;
	pr_warn("perl: %s (pid %u): its interpreter does not read as its version's layout (a "
		"build other than Debian's?): its processes get native stacks",
		f->path, pid);
}

static int perl_describe(void *priv, uint32_t pid, const struct proc_mapping *maps, uint32_t n,
			 struct runtime_marks *marks)
{
	struct perl *pl = priv;
	const struct pl_layout *l;
	struct pl_process *p;
	struct pl_file *f;
	struct pl_proc bp;
	uint64_t bias = 0;
	int err = -ENOENT;

	pthread_mutex_lock(&pl->rs.lock);
	f = find_perl(pl, maps, n, &bias);
	l = f ? layout_of(pl, f, pid, bias) : NULL;
	if (!l)
		goto none;
	err = fill_proc(f, pid, bias, l, &bp);
	if (err == -EINVAL)
		say_layout(pl, f, pid);
	/* A perl still starting already runs its loops: claimed, so the walker meets them
	 * with no description and asks for another. */
	if (!err || err == -EAGAIN)
		claim_runops(f, bias, marks);
	if (err)
		goto none;
	p = process(pl, pid, l);
	if (!p || bpf_map_update_elem(pl->rs.map_fd, &pid, &bp, BPF_ANY)) {
		err = -ENOMEM;
		goto none;
	}
	say_threads(pl, p, &bp, maps, n);
	pthread_mutex_unlock(&pl->rs.lock);
	return 0;
none:
	bpf_map_delete_elem(pl->rs.map_fd, &pid);
	if (err != -EAGAIN)
		runtime_state__set_proc(&pl->rs, pid, NULL);
	pthread_mutex_unlock(&pl->rs.lock);
	return err == -EAGAIN ? 0 : err;
}

static void perl_forget(void *priv, uint32_t pid)
{
	struct perl *pl = priv;

	runtime_state__forget(&pl->rs, pid);
}

/* ---- frames ---- */

/* Names the frame (cv, cop) of p: reads the statement and the sub. */
static void name_frame(struct perl *pl, struct pl_process *p, struct pl_frame_entry *e)
{
	char name[PL_TEXT_MAX];
	struct pl_cop c;

	pl->st.frame_reads++;
	if (pl_cop__read(&p->mem, p->layout, e->cop, &c))
		pl->st.unreadable_cops++;
	if (pl_cv__name(&p->mem, p->layout, e->cv, name, sizeof(name))) {
		pl->st.unreadable_subs++;
		snprintf(name, sizeof(name), "[perl: unreadable sub]");
	}
	e->line = c.line;
	e->func = functab__intern(&pl->rs.names, name, c.file);
}

/* The cached frame (cv, cop) of p, named on a miss; NULL on ENOMEM. */
static const struct pl_frame_entry *frame_of(struct perl *pl, struct pl_process *p, uint64_t cv,
					     uint64_t cop)
{
	struct pl_frame_entry key = {.cv = cv, .cop = cop}, *e;
	uint64_t h = frame_hash(cv, cop);

	e = hmap_find(&p->frames, h, &key);
	if (e)
		return e;
	if (p->frames.len >= MAX_FRAMES)
		hmap_free_entries(&p->frames);
	e = malloc(sizeof(*e));
	if (!e)
		return NULL;
	*e = key;
	name_frame(pl, p, e);
	if (hmap_insert(&p->frames, h, e)) {
		free(e);
		return NULL;
	}
	return e;
}

static unsigned int perl_ingest(void *priv, uint32_t pid, const struct user_frame *uf,
				struct frame *out, unsigned int max)
{
	struct perl *pl = priv;
	const struct pl_frame_entry *e = NULL;
	struct pl_process *p;

	if (!max)
		return 0;
	*out = (struct frame){.kind = FRAME_PERL};
	pthread_mutex_lock(&pl->rs.lock);
	p = runtime_state__proc(&pl->rs, pid);
	if (p)
		e = frame_of(pl, p, pl_frame_cv(uf->addr), pl_frame_cop(uf->addr, uf->pad));
	if (e) {
		out->file_id = e->func;
		out->addr = e->line;
	}
	pthread_mutex_unlock(&pl->rs.lock);
	return 1;
}

/* Perl frames: "Package::sub", the statement's file and line (frame.addr). */
static bool perl_symbol(void *priv, const struct frame *f, struct arena *a,
			struct frame_symbol *out)
{
	const struct perl *pl = priv;
	/* Read at report time, under the tracker's lock: no name is being added. */
	const struct functab_entry *fn = functab__get(&pl->rs.names, f->file_id);

	if (!fn) {
		*out = (struct frame_symbol){.function = "[perl: unreadable]", .file = ""};
		return true;
	}
	*out = (struct frame_symbol){
	    .function = fn->func, .file = fn->file, .line = (uint32_t)f->addr};
	return true;
}

static void perl_print_stats(void *priv, FILE *out)
{
	struct perl *pl = priv;
	uint64_t c[PL_CTR__COUNT];
	struct pl_stats s;

	pthread_mutex_lock(&pl->rs.lock);
	s = pl->st;
	pthread_mutex_unlock(&pl->rs.lock);
	if (!s.processes && !s.unknown_version && !s.unusable)
		return;
	counters__sum(pl->rs.counters_fd, c, PL_CTR__COUNT);
	fprintf(out,
		"  perl: %llu processes, %llu of an unknown version, %llu unusable; %llu frames "
		"named; unreadable: %llu subs, %llu statements\n",
		(unsigned long long)s.processes, (unsigned long long)s.unknown_version,
		(unsigned long long)s.unusable, (unsigned long long)s.frame_reads,
		(unsigned long long)s.unreadable_subs, (unsigned long long)s.unreadable_cops);
	if (c[PL_CTR_NO_INTERP] || c[PL_CTR_OTHER_THREAD] || c[PL_CTR_READ_FAULT] ||
	    c[PL_CTR_TOO_DEEP] || c[PL_CTR_BAD_POINTER])
		fprintf(out,
			"  perl unwinding: runops kept native: %llu without an interpreter, %llu "
			"in other threads (main interpreter only); Perl stacks cut: %llu "
			"unreadable, %llu too deep; %llu frames with a bad pointer\n",
			(unsigned long long)c[PL_CTR_NO_INTERP],
			(unsigned long long)c[PL_CTR_OTHER_THREAD],
			(unsigned long long)c[PL_CTR_READ_FAULT],
			(unsigned long long)c[PL_CTR_TOO_DEEP],
			(unsigned long long)c[PL_CTR_BAD_POINTER]);
}

/* ---- the registry's entry ---- */

static int perl_init(const struct runtime_env *env, struct bpf_object *obj, void **priv)
{
	int err = runtime_state__new(obj, &state, sizeof(struct perl), priv);

	if (!err)
		((struct perl *)*priv)->procs = env->procs;
	return err;
}

static const void *perl_elf(size_t *size)
{
	return perl_bpf__elf_bytes(size);
}

const struct runtime_ops perl_runtime = {
    .name = "perl",
    .title = "Perl",
    .walker = WALKER_PERL,
    .frame_kind = FRAME_PERL,
    .kind =
	{
	    .name = "perl",
	    .otlp_type = "perl",
	    .about = "Perl frame",
	    .colour = {310, 22, 45, 62, 8}, /* magenta: apart from every other kind's hue */
	    .folded_suffix = "",
	},
    /* Its walker has an unrolled variant, tail-calling itself. */
    .floor = {.bpf_loop = false, .without = "Perl frames stay native"},
    .bpf_elf = perl_elf,
    .bpf_walker = "perl_walk",
    .init = perl_init,
    .free = runtime_state__delete,
    .detect = perl_detect,
    .describe = perl_describe,
    .forget = perl_forget,
    .ingest = perl_ingest,
    .frame_symbol = perl_symbol,
    .print_stats = perl_print_stats,
};
