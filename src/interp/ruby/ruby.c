// SPDX-License-Identifier: Apache-2.0
/* CRuby support in userspace. Detection: a mapped file whose name says "ruby" and that
 * exports ruby_version (libruby-X.Y.so, or a ruby linked statically); what it is comes
 * from its exported functions (ruby_file.c). Description: pid_to_ruby, and the claims:
 * vm_exec and vm_exec_core as activations, anonymous executable memory (YJIT's code) as
 * code the walker steps over. Symbolization, at ingest while the process lives: iseqs
 * and method entries read once per process and address (ruby_mem.c), each use checked
 * against the tag BPF sent, so an object freed and replaced is never named for a sample. */
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "elf/elf_file.h"
#include "interp/ruby/ruby.h"
#include "interp/ruby/ruby_file.h"
#include "interp/ruby/ruby_mem.h"
#include "interp/ruby/ruby_proc.h"
#include "interp/runtime.h"
#include "interp/runtime_state.h"
#include "loader/counters.h"
#include "ruby.skel.h"
#include "sample.h"
#include "util/arena.h"
#include "util/functab.h"
#include "util/hmap.h"
#include "util/log.h"

#define MAX_FUNCS (1 << 20)  /* distinct (function, file) names kept; then "unreadable" */
#define MAX_CACHED (1 << 16) /* iseqs and method entries cached per process, then cleared */
#define GC_NAME "(garbage collection)"

/* A file detect() accepted, by file id (first: runtime_state.h). */
struct rb_file {
	uint32_t file_id;
	char *path;
	int err; /* rb_file__inspect's: 0, or why its processes keep native stacks */
	struct rb_file_info info;
	struct elf_segment segs[ELF_FILE_MAX_SEGMENTS];
	size_t nsegs;
	bool said;
};

struct rb_iseq_entry {
	uint64_t addr;
	struct rb_iseq i;
	uint32_t id;	 /* (label, path) */
	uint64_t ctx_me; /* the method entry its block name was last made with */
	uint32_t ctx_id; /* that name */
};

struct rb_me_entry {
	uint64_t addr; /* as the frame named it: the entry, or an svar holding it */
	struct rb_method m;
	uint32_t id; /* a C method's name; for a Ruby method, "Owner#label" once made */
};

struct rb_process {
	uint32_t pid; /* first: runtime_state.h */
	uint32_t file_id;
	uint64_t bias;
	struct rb_mem mem;
	struct hmap iseqs, mes;
	/* The RB_FRAME_CTX ingest just took, for the frame right after it. */
	uint64_t ctx_me;
	uint16_t ctx_tag;
	bool ctx;
};
_Static_assert(offsetof(struct rb_file, file_id) == 0 && offsetof(struct rb_process, pid) == 0,
	       "keyed as runtime_state.h says");

/* Files: struct rb_file; processes: struct rb_process; names: (function, file). */
struct ruby {
	struct runtime_state rs; /* first: runtime_state__new makes the whole */
	struct ruby_stats st;	 /* under rs.lock */
};
_Static_assert(offsetof(struct ruby, rs) == 0, "runtime_state.h");

static int u64_eq(const void *e, const void *k)
{
	return *(const uint64_t *)e == *(const uint64_t *)k;
}

static void clear_iseqs(struct hmap *iseqs)
{
	hmap_for_each(iseqs, i)
	{
		struct rb_iseq_entry *e = iseqs->slots[i].entry;

		rb_iseq__release(&e->i);
		free(e);
	}
	hmap_free(iseqs);
	hmap_init(iseqs, u64_eq);
}

static void free_process(struct runtime_state *rs, void *proc)
{
	struct rb_process *p = proc;

	clear_iseqs(&p->iseqs);
	hmap_free_entries(&p->mes);
	free(p);
}

static void free_file(void *file)
{
	struct rb_file *f = file;

	free(f->path);
	free(f);
}

static const struct runtime_state_conf state = {
    .pid_map = "pid_to_ruby",
    .counters_map = "ruby_counters", /* what the walker could not do */
    .max_names = MAX_FUNCS,
    .free_file = free_file,
    .free_proc = free_process,
};

/* ---- detection and description ---- */

static bool ruby_detect(void *priv, const struct runtime_file *f)
{
	struct ruby *rb = priv;
	const struct elf_segment *segs;
	struct rb_file *rf;

	if (!strstr(basename(f->path), "ruby") || !rb_file__is_ruby(f->elf))
		return false;
	if (runtime_state__file(&rb->rs, f->file_id))
		return true;
	rf = calloc(1, sizeof(*rf));
	if (!rf)
		return false;
	rf->file_id = f->file_id;
	rf->path = strdup(f->path);
	rf->err = rb_file__inspect(f->elf, &rf->info);
	segs = elf_file__segments(f->elf, &rf->nsegs);
	memcpy(rf->segs, segs, rf->nsegs * sizeof(*segs));
	pr_debug("ruby: %s is Ruby %s", f->path, rf->info.release);
	if (!rf->path || !runtime_state__add_file(&rb->rs, rf))
		free_file(rf);
	return true;
}

/* Says once per file what ebprof makes of it. */
static void say_file(struct rb_file *f, uint32_t pid)
{
	if (f->said)
		return;
	f->said = true;
	if (!f->err)
		pr_info("ruby: %s is Ruby %s (pid %u)", f->path, f->info.release, pid);
	else if (f->err == -ENOTSUP)
		pr_warn("ruby: %s (pid %u) is Ruby %s, which ebprof cannot unwind (it knows %s): "
			"its processes keep native stacks",
			f->path, pid, f->info.release, rb_layout__known());
	else
		pr_warn("ruby: %s (Ruby %s, pid %u): cannot find %s: its processes keep native "
			"stacks",
			f->path, f->info.release[0] ? f->info.release : "?", pid,
			f->info.missing ? f->info.missing : "what it needs");
}

/* libruby among maps, and its load bias there. */
static struct rb_file *find_ruby(struct ruby *rb, const struct proc_mapping *maps, uint32_t n,
				 uint64_t *bias)
{
	struct rb_file *f;

	for (uint32_t i = 0; (f = runtime_state__mapped_file(&rb->rs, maps, n, &i)); i++) {
		if (elf_segments__vaddr_bias(f->segs, f->nsegs, maps[i].start, maps[i].pgoff, bias))
			return f;
	}
	return NULL;
}

/* The file's code (its executable segments), as mapped with bias. */
static void text_range(const struct rb_file *f, uint64_t bias, uint64_t out[2])
{
	out[0] = UINT64_MAX;
	out[1] = 0;
	for (size_t i = 0; i < f->nsegs; i++) {
		if (!(f->segs[i].flags & PF_X))
			continue;
		if (f->segs[i].vaddr + bias < out[0])
			out[0] = f->segs[i].vaddr + bias;
		if (f->segs[i].vaddr + f->segs[i].memsz + bias > out[1])
			out[1] = f->segs[i].vaddr + f->segs[i].memsz + bias;
	}
	if (!out[1])
		out[0] = 0;
}

static void fill(const struct rb_file *f, uint64_t bias, struct rb_proc *bp)
{
	const struct rb_file_info *in = &f->info;
	const struct rb_layout *l = in->l;
	uint64_t text[2];

	memset(bp, 0, sizeof(*bp));
	bp->ec_mode = in->tls_index ? RB_EC_TLS : RB_EC_THREADS;
	bp->tls_index = in->tls_index ? in->tls_index + bias : 0;
	bp->tls_off = (uint16_t)in->tls_off;
	bp->vm_ptr = in->vm_ptr + bias;
	bp->ec_global = in->ec_global ? in->ec_global + bias : 0;
	memcpy(bp->exec_off, in->exec_off, sizeof(bp->exec_off));
	text_range(f, bias, text);
	bp->text[0] = text[0];
	bp->text[1] = text[1];
	bp->file_id = f->file_id;
	bp->gc_flags = (uint16_t)in->gc.flags;
	bp->gc_bit = in->gc.bit;
	bp->ec_thread = l->ec_thread;
	bp->cfp_size = l->cfp_size;
	bp->th_ec = l->th_ec;
	bp->th_id = l->th_id;
	bp->th_node = l->th_node;
	bp->vm_threads = l->vm_threads;
	bp->th_ractor = l->th_ractor;
	bp->ractor_ec = l->ractor_ec;
	bp->vm_objspace = l->vm_objspace;
}

static void claim(struct runtime_marks *marks, uint64_t start, uint64_t end, uint8_t mark)
{
	if (marks->n >= RUNTIME_MAX_MARKS || start >= end)
		return;
	marks->m[marks->n].start = start;
	marks->m[marks->n].end = end;
	marks->m[marks->n++].mark = mark;
}

/* vm_exec and vm_exec_core: each native frame there is an activation the walker fills;
 * from 3.1 on, anonymous executable memory is JIT code (YJIT; RJIT in 3.3), which the
 * walker steps over (2.7's MJIT loads shared objects, native code with unwind tables). */
static void claims(const struct rb_file *f, uint64_t bias, const struct proc_mapping *maps,
		   uint32_t n, struct runtime_marks *marks)
{
	claim(marks, f->info.exec[0] + bias, f->info.exec[1] + bias, UNW_MARK_ACTIVATION);
	claim(marks, f->info.core[0] + bias, f->info.core[1] + bias, UNW_MARK_ACTIVATION);
	if (f->info.version < 0x0301)
		return;
	for (uint32_t i = 0; i < n; i++) {
		if (!maps[i].file_id)
			claim(marks, maps[i].start, maps[i].end, UNW_MARK_WALK);
	}
}

/* pid's entry, kept across descriptions of the same libruby (its caches with it). */
static struct rb_process *process_for(struct ruby *rb, uint32_t pid, const struct rb_file *f,
				      uint64_t bias)
{
	struct rb_process *p = runtime_state__proc(&rb->rs, pid);

	if (p && p->file_id == f->file_id && p->bias == bias)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->file_id = f->file_id;
	p->bias = bias;
	p->mem = (struct rb_mem){.read = runtime_proc__read,
				 .ctx = p,
				 .l = f->info.l,
				 .symbols = f->info.symbols ? f->info.symbols + bias : 0,
				 .last_op_id = f->info.last_op_id ? f->info.last_op_id
								  : f->info.l->last_op_id};
	hmap_init(&p->iseqs, u64_eq);
	hmap_init(&p->mes, u64_eq);
	if (runtime_state__set_proc(&rb->rs, pid, p))
		return NULL;
	rb->st.processes++;
	return p;
}

static int ruby_describe(void *priv, uint32_t pid, const struct proc_mapping *maps, uint32_t n,
			 struct runtime_marks *marks)
{
	struct ruby *rb = priv;
	struct rb_proc bp;
	struct rb_file *f;
	uint64_t bias = 0;

	pthread_mutex_lock(&rb->rs.lock);
	f = find_ruby(rb, maps, n, &bias);
	if (!f)
		goto none;
	say_file(f, pid);
	if (f->err) {
		rb->st.unusable++;
		goto none;
	}
	fill(f, bias, &bp);
	if (!process_for(rb, pid, f, bias) ||
	    bpf_map_update_elem(rb->rs.map_fd, &pid, &bp, BPF_ANY)) {
		pr_debug("ruby: describing pid %u: %s", pid, strerror(errno));
		goto none;
	}
	claims(f, bias, maps, n, marks);
	pthread_mutex_unlock(&rb->rs.lock);
	return 0;
none:
	bpf_map_delete_elem(rb->rs.map_fd, &pid);
	runtime_state__set_proc(&rb->rs, pid, NULL);
	pthread_mutex_unlock(&rb->rs.lock);
	return -ENOENT;
}

static void ruby_forget(void *priv, uint32_t pid)
{
	struct ruby *rb = priv;

	runtime_state__forget(&rb->rs, pid);
}

/* ---- frames ---- */

/* Adds e to a cache keyed by addr (the cache is emptied first when full: entries of the
 * other cache a caller holds stay valid). False on ENOMEM. */
static bool iseq_put(struct rb_process *p, uint64_t addr, struct rb_iseq_entry *e)
{
	if (p->iseqs.len >= MAX_CACHED)
		clear_iseqs(&p->iseqs);
	return !hmap_insert(&p->iseqs, hash_u64(addr), e);
}

static bool method_put(struct rb_process *p, uint64_t addr, struct rb_me_entry *e)
{
	if (p->mes.len >= MAX_CACHED)
		hmap_free_entries(&p->mes);
	return !hmap_insert(&p->mes, hash_u64(addr), e);
}

static struct rb_iseq_entry *iseq_read(struct ruby *rb, struct rb_process *p, uint64_t addr)
{
	struct rb_iseq_entry *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	rb->st.iseq_reads++;
	e->addr = addr;
	if (rb_mem__iseq(&p->mem, addr, &e->i) || !iseq_put(p, addr, e)) {
		rb_iseq__release(&e->i);
		free(e);
		return NULL;
	}
	e->id = functab__intern(&rb->rs.names, e->i.label, e->i.path);
	return e;
}

/* The pc a frame ran, if it lies among i's instructions (rb_iseq__pc). */
static bool pc_of(const struct rb_iseq *i, const struct user_frame *uf, uint64_t *pc)
{
	return rb_iseq__pc(i, (uint32_t)(uf->addr >> RB_TAG_SHIFT), uf->pad & RB_PC_MASK, pc);
}

/* The iseq at addr that ran uf's pc, read again when the cached one did not. */
static struct rb_iseq_entry *iseq_at(struct ruby *rb, struct rb_process *p, uint64_t addr,
				     const struct user_frame *uf, uint64_t *pc)
{
	struct rb_iseq_entry *e = hmap_find(&p->iseqs, hash_u64(addr), &addr);

	if (e && pc_of(&e->i, uf, pc))
		return e;
	if (e) {
		hmap_remove(&p->iseqs, hash_u64(addr), &addr);
		rb_iseq__release(&e->i);
		free(e);
	}
	e = iseq_read(rb, p, addr);
	if (!e) {
		rb->st.unreadable++;
		return NULL;
	}
	if (!pc_of(&e->i, uf, pc)) {
		rb->st.replaced++;
		return NULL;
	}
	return e;
}

static void me_drop(struct rb_process *p, uint64_t addr)
{
	free(hmap_remove(&p->mes, hash_u64(addr), &addr));
}

/* The method entry at addr (an svar's, when addr is one), cached; NULL when unreadable. */
static struct rb_me_entry *me_at(struct ruby *rb, struct rb_process *p, uint64_t addr)
{
	struct rb_me_entry *e = hmap_find(&p->mes, hash_u64(addr), &addr);

	if (e)
		return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	rb->st.method_reads++;
	e->addr = addr;
	if (rb_mem__method(&p->mem, addr, &e->m) || !method_put(p, addr, e)) {
		free(e);
		return NULL;
	}
	return e;
}

/* A method's name as its owner qualifies it, interned with file. */
static uint32_t qualified(struct ruby *rb, struct rb_process *p, uint64_t owner, const char *name,
			  const char *file)
{
	char out[2 * RB_NAME_MAX];

	return functab__intern(&rb->rs.names,
			       rb_mem__qualify(&p->mem, owner, name, out, sizeof(out)), file);
}

/* A C method: its owner and name; the tag is its definition and called id. */
static uint32_t cfunc_name(struct ruby *rb, struct rb_process *p, const struct user_frame *uf)
{
	uint64_t addr = uf->addr & RB_PTR_MASK, tag = uf->addr >> RB_TAG_SHIFT;
	struct rb_me_entry *e = me_at(rb, p, addr);
	char name[RB_NAME_MAX];

	if (e && (((e->m.def >> 3) ^ e->m.called_id) & 0xffff) != tag) {
		me_drop(p, addr);
		e = me_at(rb, p, addr);
		if (e && (((e->m.def >> 3) ^ e->m.called_id) & 0xffff) != tag) {
			rb->st.replaced++;
			return 0;
		}
	}
	if (!e) {
		rb->st.unreadable++;
		return 0;
	}
	if (!e->id && !rb_mem__id_name(&p->mem, e->m.original_id, name, sizeof(name)))
		e->id = qualified(rb, p, e->m.owner, name, "");
	return e->id;
}

/* A method written in Ruby: its entry gives the iseq (checked against the pc) and owner. */
static uint32_t method_frame(struct ruby *rb, struct rb_process *p, const struct user_frame *uf,
			     int *line)
{
	uint64_t addr = uf->addr & RB_PTR_MASK, pc;
	struct rb_me_entry *e = me_at(rb, p, addr);
	struct rb_iseq_entry *ie = e && e->m.iseq ? iseq_at(rb, p, e->m.iseq, uf, &pc) : NULL;

	if (e && !ie) { /* the entry may be stale: once more from the process */
		me_drop(p, addr);
		e = me_at(rb, p, addr);
		ie = e && e->m.iseq ? iseq_at(rb, p, e->m.iseq, uf, &pc) : NULL;
	}
	if (!ie) {
		rb->st.unreadable += !e;
		return 0;
	}
	*line = rb_iseq__line(&ie->i, pc);
	if (!e->id)
		e->id = qualified(rb, p, e->m.owner, ie->i.label, ie->i.path);
	return e->id;
}

/* A block in a method: "block in Owner#method" (Ruby's label qualified by the method
 * entry RB_FRAME_CTX sent), remembered per iseq for that entry. */
static uint32_t block_name(struct ruby *rb, struct rb_process *p, struct rb_iseq_entry *ie,
			   uint64_t me_addr)
{
	const char *in = strstr(ie->i.label, " in ");
	char method[2 * RB_NAME_MAX], name[3 * RB_NAME_MAX];
	struct rb_me_entry *e;

	if (ie->ctx_me == me_addr && ie->ctx_id)
		return ie->ctx_id;
	e = me_at(rb, p, me_addr);
	if (e && e->m.iseq != ie->i.local_iseq) {
		me_drop(p, me_addr);
		e = me_at(rb, p, me_addr);
	}
	if (!in || !e || e->m.iseq != ie->i.local_iseq)
		return ie->id;
	rb_mem__qualify(&p->mem, e->m.owner, ie->i.base_label, method, sizeof(method));
	snprintf(name, sizeof(name), "%.*s%s", (int)(in - ie->i.label + 4), ie->i.label, method);
	ie->ctx_me = me_addr;
	ie->ctx_id = functab__intern(&rb->rs.names, name, ie->i.path);
	return ie->ctx_id;
}

/* A define_method method: the block runs as the method its entry names. */
static uint32_t bmethod_name(struct ruby *rb, struct rb_process *p, struct rb_iseq_entry *ie,
			     uint64_t me_addr)
{
	struct rb_me_entry *e = me_at(rb, p, me_addr);
	char name[RB_NAME_MAX];

	if (!e || rb_mem__id_name(&p->mem, e->m.original_id, name, sizeof(name)))
		return ie->id;
	return qualified(rb, p, e->m.owner, name, ie->i.path);
}

/* A frame running an iseq (a block, <main>, a class body, a define_method method). */
static uint32_t iseq_frame(struct ruby *rb, struct rb_process *p, const struct user_frame *uf,
			   uint32_t kind, uint64_t ctx, int *line)
{
	uint64_t addr = uf->addr & RB_PTR_MASK, pc;
	struct rb_iseq_entry *ie = iseq_at(rb, p, addr, uf, &pc);

	if (!ie)
		return 0;
	*line = rb_iseq__line(&ie->i, pc);
	if (ctx && kind == RB_FRAME_BMETHOD)
		return bmethod_name(rb, p, ie, ctx);
	if (ctx && ie->i.type == RB_ISEQ_TYPE_BLOCK)
		return block_name(rb, p, ie, ctx);
	return ie->id;
}

/* The method entry the RB_FRAME_CTX before uf sent for it, or 0. */
static uint64_t take_ctx(struct rb_process *p, const struct user_frame *uf)
{
	uint64_t me = p->ctx && p->ctx_tag == RB_CTX_TAG(uf->addr & RB_PTR_MASK) ? p->ctx_me : 0;

	p->ctx = false;
	return me;
}

static uint32_t frame_name(struct ruby *rb, struct rb_process *p, const struct user_frame *uf,
			   uint32_t kind, int *line)
{
	uint64_t ctx = take_ctx(p, uf);

	switch (kind) {
	case RB_FRAME_GC:
		return functab__intern(&rb->rs.names, GC_NAME, "");
	case RB_FRAME_CFUNC:
		return cfunc_name(rb, p, uf);
	case RB_FRAME_METHOD:
		return method_frame(rb, p, uf, line);
	case RB_FRAME_ISEQ:
	case RB_FRAME_BMETHOD:
		return iseq_frame(rb, p, uf, kind, ctx, line);
	}
	return 0;
}

static unsigned int ruby_ingest(void *priv, uint32_t pid, const struct user_frame *uf,
				struct frame *out, unsigned int max)
{
	uint32_t kind = (uf->pad & UF_DATA_MASK) >> RB_KIND_SHIFT;
	struct ruby *rb = priv;
	struct rb_process *p;
	int line = 0;

	/* The interpreter loop's and JIT code's frames: their Ruby frames stand for them. */
	if (kind == RB_FRAME_VM || !max)
		return 0;
	pthread_mutex_lock(&rb->rs.lock);
	p = runtime_state__proc(&rb->rs, pid);
	if (kind == RB_FRAME_CTX) {
		if (p) {
			p->ctx_me = uf->addr & RB_PTR_MASK;
			p->ctx_tag = (uint16_t)(uf->addr >> RB_TAG_SHIFT);
			p->ctx = true;
		}
		pthread_mutex_unlock(&rb->rs.lock);
		return 0;
	}
	*out = (struct frame){.kind = FRAME_RUBY};
	if (p)
		out->file_id = frame_name(rb, p, uf, kind, &line);
	else
		rb->st.unreadable++;
	out->addr = line > 0 ? (uint64_t)line : 0;
	pthread_mutex_unlock(&rb->rs.lock);
	return 1;
}

/* Ruby frames: "Owner#method", "block in Owner#method", "<main>", a C method; the file is
 * the iseq's path as Ruby keeps it, the line from the frame's pc (frame.addr). */
static bool ruby_symbol(void *priv, const struct frame *f, struct arena *a,
			struct frame_symbol *out)
{
	const struct ruby *rb = priv;
	/* Read at report time, under the tracker's lock: no function is being added. */
	const struct functab_entry *fn = functab__get(&rb->rs.names, f->file_id);

	if (!fn) {
		*out = (struct frame_symbol){.function = "[ruby: unreadable]", .file = ""};
		return true;
	}
	*out = (struct frame_symbol){
	    .function = fn->func, .file = fn->file, .line = (uint32_t)f->addr};
	return true;
}

static void ruby_print_stats(void *priv, FILE *out)
{
	struct ruby *rb = priv;
	uint64_t c[RB_CTR__COUNT];
	struct ruby_stats s;

	pthread_mutex_lock(&rb->rs.lock);
	s = rb->st;
	pthread_mutex_unlock(&rb->rs.lock);
	if (!s.processes && !s.unusable)
		return;
	counters__sum(rb->rs.counters_fd, c, RB_CTR__COUNT);
	fprintf(out,
		"  ruby unwinding: %llu samples without an execution context, %llu control "
		"frames unreadable, %llu activations past the last control frame (kept native); "
		"%llu JIT frames stepped over, %llu lost; %llu samples in GC\n",
		(unsigned long long)c[RB_CTR_NO_EC], (unsigned long long)c[RB_CTR_READ_FAULT],
		(unsigned long long)c[RB_CTR_OUT_OF_CFP], (unsigned long long)c[RB_CTR_JIT_FRAMES],
		(unsigned long long)(c[RB_CTR_JIT_LOST] + c[RB_CTR_NO_PROC]),
		(unsigned long long)c[RB_CTR_GC]);
	fprintf(out,
		"  ruby: %llu processes, %llu of a libruby it cannot unwind; %llu iseqs and %llu "
		"method entries read; frames left unnamed: %llu unreadable, %llu replaced at their "
		"address before they were read\n",
		(unsigned long long)s.processes, (unsigned long long)s.unusable,
		(unsigned long long)s.iseq_reads, (unsigned long long)s.method_reads,
		(unsigned long long)s.unreadable, (unsigned long long)s.replaced);
}

/* ---- the registry's entry ---- */

static int ruby_init(const struct runtime_env *env, struct bpf_object *obj, void **priv)
{
	return runtime_state__new(obj, &state, sizeof(struct ruby), priv);
}

static const void *ruby_elf(size_t *size)
{
	return ruby_bpf__elf_bytes(size);
}

const struct runtime_ops ruby_runtime = {
    .name = "ruby",
    .title = "Ruby",
    .walker = WALKER_RUBY,
    .frame_kind = FRAME_RUBY,
    .kind =
	{
	    .name = "ruby",
	    .otlp_type = "ruby",
	    .about = "Ruby frame",
	    .colour = {330, 18, 70, 55, 8}, /* crimson to magenta: apart from V8's violet */
	    .folded_suffix = "",
	},
    /* Its walker has an unrolled variant, tail-calling itself. */
    .floor = {.bpf_loop = false, .without = "Ruby frames stay native"},
    .bpf_elf = ruby_elf,
    .bpf_walker = "ruby_walk",
    .init = ruby_init,
    .free = runtime_state__delete,
    .detect = ruby_detect,
    .describe = ruby_describe,
    .forget = ruby_forget,
    .ingest = ruby_ingest,
    .frame_symbol = ruby_symbol,
    .print_stats = ruby_print_stats,
};
