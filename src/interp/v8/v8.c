// SPDX-License-Identifier: Apache-2.0
/* V8 (Node.js) support: the runtime registry's entry (src/interp/runtime.h). Detection: a
 * mapped file (libnode.so, or a node executable) whose symbols hold V8's post-mortem
 * metadata (v8dbg_*), read once per file and said once with V8's version. Description:
 * the embedded builtins (the interpreter) and every anonymous executable mapping (JIT
 * code) are claimed UNW_MARK_WALK, the frame slots go to BPF (pid_to_v8). Ingest: each
 * JavaScript frame is named from the process's memory, "function (file:line:column)". */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "arch/arch.h"
#include "elf/elf_file.h"
#include "interp/runtime.h"
#include "interp/runtime_state.h"
#include "interp/v8/v8_heap.h"
#include "interp/v8/v8_meta.h"
#include "loader/counters.h"
#include "sample.h"
#include "util/arena.h"
#include "util/clock.h"
#include "util/functab.h"
#include "util/hmap.h"
#include "util/log.h"
#include "v8.skel.h"
#include "interp/v8/v8_proc.h"

#define MAX_FUNCS (1 << 20)  /* distinct (function, file) names kept; then frames are "?" */
#define MAX_CACHED (1 << 16) /* functions and scripts cached per process, then cleared */
#define LINE_SHIFT 20	     /* frame.addr = line << LINE_SHIFT | column */
#define COL_MASK ((1u << LINE_SHIFT) - 1)
/* A function read without its bytecode's positions or a script without its lines (V8
 * computes both lazily, and a scavenge can move a source mid-read) is read again at a
 * later frame, backing off from 100 ms, at most 8 times: cached as it was first read,
 * every frame of it would be named at its declaration, or without a line, for the
 * process's life. */
#define REREAD_NS 100000000ull
#define REREADS 8

/* A file detect() accepted, by file id (first: runtime_state.h): its metadata. */
struct v8_file {
	uint32_t file_id;
	struct v8_meta meta;
	struct v8_code_layout code;
	char *path;
	const char *missing; /* a required member it lacks (static), or NULL */
	bool said;
};

/* When to read an incomplete cache entry again. */
struct reread {
	uint64_t at_ns;
	uint32_t n;
};

struct v8_fn_entry {
	uint64_t sfi;
	struct v8_func f;
	struct reread again; /* no positions yet */
};

struct v8_script_entry {
	uint64_t script;
	struct v8_script s;
	struct reread again; /* no lines yet */
};

struct v8_process {
	uint32_t pid;		    /* first: runtime_state.h */
	const struct v8_meta *meta; /* its file's */
	const struct v8_code_layout *code;
	struct v8_mem mem;
	struct hmap fns, scripts, pcs, opts;
	uint32_t nfns, nscripts, npcs, nopts;
	bool skip_jit; /* the JIT frame next was named from its V8_FRAME_PC frame */
};
_Static_assert(offsetof(struct v8_file, file_id) == 0 && offsetof(struct v8_process, pid) == 0,
	       "keyed as runtime_state.h says");

/* Optimized code's frames at one pc, as first named: the deoptimization data and the
 * position table are read once per (code object, pc offset), not once per sample. A
 * code object is one version of its function's code: a new version is a new object. */
struct v8_opt_entry {
	uint64_t code;
	uint32_t off, n;
	bool lineless; /* a frame without its line: expanded again (reread_due) */
	struct reread again;
	struct frame f[];
};

/* A pc of code that was not its function's: the Code around it (0: none found). */
struct v8_pc_entry {
	uint64_t pc;
	uint64_t code, start;
};

struct v8_stats {
	uint64_t processes, unusable, fn_reads, code_reads, code_hits, pc_searches, unreadable,
	    stubs;
};

/* Files: struct v8_file; processes: struct v8_process; names: (function, file). */
struct v8 {
	struct runtime_state rs; /* first: runtime_state__new makes the whole */
	struct v8_stats st;	 /* under rs.lock */
};
_Static_assert(offsetof(struct v8, rs) == 0, "runtime_state.h");

static int u64_eq(const void *e, const void *k)
{
	return *(const uint64_t *)e == *(const uint64_t *)k;
}

static int opt_eq(const void *e, const void *k)
{
	const struct v8_opt_entry *a = e, *b = k;

	return a->code == b->code && a->off == b->off;
}

static uint64_t opt_hash(uint64_t code, uint32_t off)
{
	return hash_u64(code ^ (uint64_t)off << 48 ^ off);
}

static void clear_caches(struct v8_process *p)
{
	hmap_for_each(&p->fns, i)
	{
		struct v8_fn_entry *e = p->fns.slots[i].entry;

		v8_func__release(&e->f);
		free(e);
	}
	hmap_free(&p->fns);
	hmap_for_each(&p->scripts, i)
	{
		struct v8_script_entry *e = p->scripts.slots[i].entry;

		v8_script__release(&e->s);
		free(e);
	}
	hmap_free(&p->scripts);
	hmap_for_each(&p->pcs, i) free(p->pcs.slots[i].entry);
	hmap_free(&p->pcs);
	hmap_for_each(&p->opts, i) free(p->opts.slots[i].entry);
	hmap_free(&p->opts);
	hmap_init(&p->fns, u64_eq);
	hmap_init(&p->scripts, u64_eq);
	hmap_init(&p->pcs, u64_eq);
	hmap_init(&p->opts, opt_eq);
	p->nfns = p->nscripts = p->npcs = p->nopts = 0;
}

static void free_process(struct runtime_state *rs, void *proc)
{
	struct v8_process *p = proc;

	clear_caches(p);
	hmap_free(&p->fns);
	hmap_free(&p->scripts);
	hmap_free(&p->pcs);
	hmap_free(&p->opts);
	free(p);
}

static void free_file(void *file)
{
	struct v8_file *f = file;

	free(f->path);
	free(f);
}

static const struct runtime_state_conf state = {
    .pid_map = "pid_to_v8",
    .counters_map = "v8_counters",
    .max_names = MAX_FUNCS,
    .free_file = free_file,
    .free_proc = free_process,
};

static int v8_init(const struct runtime_env *env, struct bpf_object *obj, void **priv)
{
	return runtime_state__new(obj, &state, sizeof(struct v8), priv);
}

/* Builds whose tagged words ebprof cannot read: 8-byte Smis (no pointer compression)
 * are the only kind Node ships on x86-64. */
static const char *check_meta(const struct v8_meta *m)
{
	if (m->v[V8_M_SMI_SHIFT] != 31)
		return "8-byte tagged words (a build with pointer compression)";
	for (int id = V8_M_FP_FUNCTION; id <= V8_M_FP_BYTECODE_OFFSET; id++)
		if (m->v[id] >= 16 || m->v[id] < -V8_FP_WINDOW_LOW || (m->v[id] & 7))
			return "frame slots within reach (v8dbg_off_fp_*)";
	return NULL;
}

static bool v8_detect(void *priv, const struct runtime_file *rf)
{
	struct v8 *v = priv;
	struct v8_file *f;
	bool yes = false;

	if (!v8_meta__present(rf->elf))
		return false;
	f = calloc(1, sizeof(*f));
	if (!f)
		return false;
	f->file_id = rf->file_id;
	f->path = strdup(rf->path);
	if (f->path) {
		if (v8_meta__read(rf->elf, rf->fd, &f->meta, &f->missing) == 0)
			f->missing = check_meta(&f->meta);
		v8_meta__code(&f->meta, &f->code);
		yes = runtime_state__add_file(&v->rs, f);
	}
	if (!yes)
		free_file(f);
	return yes || runtime_state__file(&v->rs, rf->file_id);
}

/* The V8 file among pid's mappings. */
static struct v8_file *find_v8(struct v8 *v, const struct proc_mapping *maps, uint32_t n)
{
	uint32_t i = 0;

	return runtime_state__mapped_file(&v->rs, maps, n, &i);
}

static void say_file(struct v8_file *f, uint32_t pid)
{
	const uint32_t *ver = f->meta.version;

	if (f->said)
		return;
	f->said = true;
	if (!f->missing)
		pr_info("v8: %s is V8 %u.%u.%u.%u (pid %u)", f->path, ver[0], ver[1], ver[2],
			ver[3], pid);
	else
		pr_warn("v8: %s (V8 %u.%u.%u, pid %u): its metadata lacks %s: its processes "
			"get native stacks",
			f->path, ver[0], ver[1], ver[2], pid, f->missing);
}

static int new_process(struct v8 *v, uint32_t pid, const struct v8_file *f, struct v8_process **out)
{
	struct v8_process *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->pid = pid;
	p->meta = &f->meta;
	p->code = &f->code;
	p->mem = (struct v8_mem){.read = runtime_proc__read, .ctx = p};
	hmap_init(&p->fns, u64_eq);
	hmap_init(&p->scripts, u64_eq);
	hmap_init(&p->pcs, u64_eq);
	hmap_init(&p->opts, opt_eq);
	if (runtime_state__set_proc(&v->rs, pid, p))
		return -ENOMEM;
	v->st.processes++;
	*out = p;
	return 0;
}

static uint8_t slot(int32_t off)
{
	return (uint8_t)((off + V8_FP_WINDOW_LOW) / 8);
}

static void add_range(struct v8_proc *bp, uint64_t low, uint64_t high)
{
	if (bp->nranges >= V8_MAX_RANGES)
		return;
	bp->range[bp->nranges].low = low;
	bp->range[bp->nranges++].high = high;
}

/* The BPF description and the claims: the builtins in every executable mapping of the
 * file that holds them (V8 may map a copy of their pages next to its code range), then
 * anonymous executable memory (JIT code). */
static void fill(const struct v8_file *f, const struct proc_mapping *maps, uint32_t n,
		 struct v8_proc *bp, struct runtime_marks *marks)
{
	const struct v8_meta *m = &f->meta;
	uint64_t at = m->blob_off;
	int reg_array, reg_offset;

	memset(bp, 0, sizeof(*bp));
	bp->slot_function = slot(m->v[V8_M_FP_FUNCTION]);
	bp->slot_context = slot(m->v[V8_M_FP_CONTEXT]);
	bp->slot_bytecode_array = slot(m->v[V8_M_FP_BYTECODE_ARRAY]);
	bp->slot_bytecode_offset = slot(m->v[V8_M_FP_BYTECODE_OFFSET]);
	bp->jsfunction_shared = (uint16_t)m->v[V8_M_FN_SHARED];
	bp->smi_shift = 32;
	/* V8 numbers registers as the instruction set does (x86-64: r12 and r9, arm64: x20
	 * and x19, as every V8 since 5 has them). */
	reg_array = m->has[V8_M_REG_BYTECODE_ARRAY]
			? arch__user_reg_offset(m->v[V8_M_REG_BYTECODE_ARRAY])
			: -1;
	reg_offset = m->has[V8_M_REG_BYTECODE_OFFSET]
			 ? arch__user_reg_offset(m->v[V8_M_REG_BYTECODE_OFFSET])
			 : -1;
	bp->interp_regs = reg_array >= 0 && reg_offset >= 0;
	bp->reg_bc_array = reg_array >= 0 ? (uint16_t)reg_array : 0;
	bp->reg_bc_offset = reg_offset >= 0 ? (uint16_t)reg_offset : 0;
	bp->jsfunction_code = f->code.fn_code;
	bp->code_start = f->code.start;
	bp->code_size = f->code.size;
	bp->code_start_is_field = f->code.start_is_field;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t off = maps[i].pgoff, len = maps[i].end - maps[i].start;

		if (maps[i].file_id == f->file_id && at >= off && at - off < len)
			add_range(bp, maps[i].start + (at - off),
				  maps[i].start + (at - off) + m->blob_size);
	}
	bp->nbuiltins = bp->nranges;
	for (uint32_t i = 0; i < n; i++)
		if (!maps[i].file_id)
			add_range(bp, maps[i].start, maps[i].end);
	for (uint32_t i = 0; i < bp->nranges && marks->n < RUNTIME_MAX_MARKS; i++) {
		marks->m[marks->n].start = bp->range[i].low;
		marks->m[marks->n].end = bp->range[i].high;
		marks->m[marks->n++].mark = UNW_MARK_WALK;
	}
}

static int v8_describe(void *priv, uint32_t pid, const struct proc_mapping *maps, uint32_t n,
		       struct runtime_marks *marks)
{
	struct v8 *v = priv;
	struct v8_process *p;
	struct v8_proc bp;
	struct v8_file *f;
	int err = -ENOENT;

	pthread_mutex_lock(&v->rs.lock);
	f = find_v8(v, maps, n);
	if (!f)
		goto cleanup;
	say_file(f, pid);
	if (f->missing) {
		v->st.unusable++;
		err = -ENOTSUP;
		goto cleanup;
	}
	p = runtime_state__proc(&v->rs, pid);
	if (!p) {
		err = new_process(v, pid, f, &p);
		if (err)
			goto cleanup;
	}
	fill(f, maps, n, &bp, marks);
	err = bpf_map_update_elem(v->rs.map_fd, &pid, &bp, BPF_ANY) ? -errno : 0;
cleanup:
	if (err && err != -ENOENT && err != -ENOTSUP)
		pr_debug("v8: describing pid %u: %s", pid, strerror(-err));
	pthread_mutex_unlock(&v->rs.lock);
	return err;
}

static void v8_forget(void *priv, uint32_t pid)
{
	struct v8 *v = priv;

	runtime_state__forget(&v->rs, pid);
}

/* True when an incomplete entry is due to be read again (and counts the try). */
static bool reread_due(struct reread *r)
{
	uint64_t now;

	if (r->n >= REREADS)
		return false;
	now = now_ns();
	if (!r->at_ns) {
		r->at_ns = now + REREAD_NS;
		return false;
	}
	if (now < r->at_ns)
		return false;
	r->n++;
	r->at_ns = now + (REREAD_NS << r->n);
	return true;
}

static void reread_func(struct v8 *v, struct v8_process *p, struct v8_fn_entry *e)
{
	struct v8_func f;

	if (e->f.positions || !reread_due(&e->again))
		return;
	v->st.fn_reads++;
	if (v8_heap__func(&p->mem, p->meta, e->sfi, &f))
		return;
	if (!f.positions) {
		v8_func__release(&f);
		return;
	}
	v8_func__release(&e->f);
	e->f = f;
}

/* The function at sfi, read once and cached (cleared past MAX_CACHED), again while it
 * lacks its positions. */
static const struct v8_func *get_func(struct v8 *v, struct v8_process *p, uint64_t sfi)
{
	struct v8_fn_entry *e = hmap_find(&p->fns, hash_u64(sfi), &sfi);

	if (e) {
		reread_func(v, p, e);
		return &e->f;
	}
	if (p->nfns >= MAX_CACHED || p->nscripts >= MAX_CACHED || p->npcs >= MAX_CACHED ||
	    p->nopts >= MAX_CACHED)
		clear_caches(p);
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->sfi = sfi;
	v->st.fn_reads++;
	if (v8_heap__func(&p->mem, p->meta, sfi, &e->f) || hmap_insert(&p->fns, hash_u64(sfi), e)) {
		v8_func__release(&e->f);
		free(e);
		return NULL;
	}
	p->nfns++;
	return &e->f;
}

static void reread_script(struct v8_process *p, struct v8_script_entry *e)
{
	struct v8_script s;

	if (e->s.ends || !reread_due(&e->again))
		return;
	if (v8_heap__script(&p->mem, p->meta, e->script, &s))
		return;
	if (!s.ends) {
		v8_script__release(&s);
		return;
	}
	v8_script__release(&e->s);
	e->s = s;
}

static const struct v8_script *get_script(struct v8_process *p, uint64_t script)
{
	struct v8_script_entry *e = hmap_find(&p->scripts, hash_u64(script), &script);

	if (e) {
		reread_script(p, e);
		return &e->s;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->script = script;
	if (v8_heap__script(&p->mem, p->meta, script, &e->s) ||
	    hmap_insert(&p->scripts, hash_u64(script), e)) {
		v8_script__release(&e->s);
		free(e);
		return NULL;
	}
	p->nscripts++;
	return &e->s;
}

/* A function at script offset pos (-1: its start) as a profile frame: its name id, its
 * line and column in frame.addr. */
static bool name_frame(struct v8 *v, struct v8_process *p, const struct v8_func *fn, int64_t pos,
		       struct frame *out)
{
	const struct v8_script *sc = fn->script ? get_script(p, fn->script) : NULL;
	uint32_t line = 0, col = 0;

	if (pos < 0)
		pos = fn->start;
	if (sc && sc->ends && pos >= 0 && pos <= UINT32_MAX)
		v8_lines__find(sc->ends, sc->nends, (uint32_t)pos, &line, &col);
	out->kind = FRAME_V8;
	out->file_id = functab__intern(&v->rs.names, fn->name[0] ? fn->name : "<anonymous>",
				       sc ? (sc->name[0] ? sc->name : "<unknown>") : "");
	out->addr = (uint64_t)line << LINE_SHIFT | (col & COL_MASK);
	return true;
}

/* An interpreted frame, or a JIT one named by its function. */
static bool sfi_frame(struct v8 *v, struct v8_process *p, const struct user_frame *uf,
		      struct frame *out)
{
	uint32_t type = (uf->pad & UF_DATA_MASK) >> V8_TYPE_SHIFT, val = uf->pad & V8_VALUE_MASK;
	const struct v8_func *fn = get_func(v, p, uf->addr);
	int64_t pos = -1;

	if (!fn)
		return false;
	/* The frame's bytecode offset counts from the tagged array, its header included. */
	if (type == V8_FRAME_INTERPRETED && fn->positions) {
		int64_t off = (int64_t)val - p->meta->v[V8_M_BYTECODE_DATA] + 1;

		if (off >= 0)
			pos = v8_position__offset(
			    v8_positions__find(fn->positions, fn->npositions, (uint32_t)off));
	}
	return name_frame(v, p, fn, pos, out);
}

/* The functions of optimized code at one pc as frames, innermost first. */
static unsigned int expand(struct v8 *v, struct v8_process *p, const struct v8_inlined *in, int n,
			   struct frame *out)
{
	unsigned int k = 0;

	v->st.code_reads++;
	for (int i = 0; i < n; i++) {
		const struct v8_func *fn = get_func(v, p, in[i].sfi);

		if (fn && name_frame(v, p, fn, in[i].pos, &out[k]))
			k++;
	}
	return k;
}

/* The frames named for (code, off) before, copied to out (at most max); 0 when none,
 * or when frames of them lacked their lines and it is time to expand them again. */
static unsigned int opt_cached(struct v8 *v, struct v8_process *p, uint64_t code, uint32_t off,
			       struct frame *out, unsigned int max)
{
	struct v8_opt_entry key = {.code = code, .off = off};
	struct v8_opt_entry *e = hmap_find(&p->opts, opt_hash(code, off), &key);

	if (!e || e->n > max || (e->lineless && reread_due(&e->again)))
		return 0;
	v->st.code_hits++;
	memcpy(out, e->f, e->n * sizeof(*out));
	return e->n;
}

static bool any_lineless(const struct frame *f, unsigned int k)
{
	for (unsigned int i = 0; i < k; i++) {
		if (!(f[i].addr >> LINE_SHIFT))
			return true;
	}
	return false;
}

/* Keeps the k frames just named for (code, off); an expansion again (an entry without
 * all its lines) replaces the entry only when it has them all. */
static void opt_keep(struct v8_process *p, uint64_t code, uint32_t off, const struct frame *f,
		     unsigned int k)
{
	struct v8_opt_entry key = {.code = code, .off = off}, *e;
	bool lineless = any_lineless(f, k);

	e = hmap_find(&p->opts, opt_hash(code, off), &key);
	if (e && lineless)
		return;
	if (e) {
		free(hmap_remove(&p->opts, opt_hash(code, off), &key));
		p->nopts--;
	}
	if (!k || p->nopts >= MAX_CACHED)
		return;
	e = malloc(sizeof(*e) + k * sizeof(*f));
	if (!e)
		return;
	*e = (struct v8_opt_entry){.code = code, .off = off, .n = k, .lineless = lineless};
	memcpy(e->f, f, k * sizeof(*f));
	if (hmap_insert(&p->opts, opt_hash(code, off), e)) {
		free(e);
		return;
	}
	p->nopts++;
}

/* The frames of optimized code at (code, off), innermost first: from the cache, else
 * read from its deoptimization data and position table, expanded and kept. Returns how
 * many (at most max), or -1 when code holds no such data at off (not optimized code). */
static int optimized_frames(struct v8 *v, struct v8_process *p, uint64_t code, uint32_t off,
			    struct frame *out, unsigned int max)
{
	struct v8_inlined in[V8_INLINE_MAX];
	unsigned int k = opt_cached(v, p, code, off, out, max);
	int n;

	if (k)
		return (int)k;
	n = v8_heap__code_frames_at(&p->mem, p->meta, p->code, code, off, in,
				    max < V8_INLINE_MAX ? (int)max : V8_INLINE_MAX);
	if (n <= 0)
		return -1;
	k = expand(v, p, in, n, out);
	opt_keep(p, code, off, out, k);
	return (int)k;
}

/* The Code object that ran in a JIT frame, at offset off: the functions inlined there
 * expand into frames of their own, innermost first (the V8_FRAME_JIT frame after it is
 * then left out); else nothing, and that frame names the function (baseline code, code
 * whose data could not be read). */
static unsigned int jit_frames(struct v8 *v, struct v8_process *p, uint64_t code, uint32_t off,
			       struct frame *out, unsigned int max)
{
	int k = optimized_frames(v, p, code, off, out, max);

	if (k <= 0)
		return 0;
	p->skip_jit = true;
	return (unsigned int)k;
}

/* A V8_FRAME_PC frame: the Code around its pc, found once per pc; its functions when it
 * is optimized code (the V8_FRAME_JIT frame after it is then left out), else nothing. */
static unsigned int pc_frames(struct v8 *v, struct v8_process *p, const struct user_frame *uf,
			      struct frame *out, unsigned int max)
{
	struct v8_pc_entry *e = hmap_find(&p->pcs, hash_u64(uf->addr), &uf->addr);
	uint64_t code;
	uint32_t off;

	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e)
			return 0;
		e->pc = uf->addr;
		v->st.pc_searches++;
		if (v8_heap__find_code(&p->mem, p->meta, p->code, e->pc, &e->code, &e->start))
			e->code = 0;
		if (hmap_insert(&p->pcs, hash_u64(e->pc), e)) {
			free(e);
			return 0;
		}
		p->npcs++;
	}
	if (!e->code)
		return 0;
	/* Copied: expand() may clear the caches, e with them. */
	code = e->code;
	off = (uint32_t)(e->pc - e->start);
	return jit_frames(v, p, code, off, out, max);
}

static unsigned int v8_ingest(void *priv, uint32_t pid, const struct user_frame *uf,
			      struct frame *out, unsigned int max)
{
	uint32_t type = (uf->pad & UF_DATA_MASK) >> V8_TYPE_SHIFT;
	struct v8 *v = priv;
	struct v8_process *p;
	char stub[48];
	bool ok = false;

	if (!max)
		return 0;
	out[0] = (struct frame){.kind = FRAME_V8};
	pthread_mutex_lock(&v->rs.lock);
	p = runtime_state__proc(&v->rs, pid);
	/* Frames of one sample arrive in order: a JIT frame named from the pc frame
	 * before it adds nothing. */
	if (p && p->skip_jit) {
		p->skip_jit = false;
		if (type == V8_FRAME_JIT) {
			pthread_mutex_unlock(&v->rs.lock);
			return 0;
		}
	}
	if (p && type == V8_FRAME_PC) {
		unsigned int k = pc_frames(v, p, uf, out, max);

		pthread_mutex_unlock(&v->rs.lock);
		return k;
	}
	if (p && type == V8_FRAME_STUB) {
		uint32_t t = uf->pad & V8_VALUE_MASK;
		const char *name = t < V8_MAX_FRAME_TYPES ? p->meta->frame_type[t] : "";

		snprintf(stub, sizeof(stub), "V8:%s", name[0] ? name : "UnknownFrame");
		v->st.stubs++;
		out[0].file_id = functab__intern(&v->rs.names, stub, "");
		ok = true;
	} else if (p && type == V8_FRAME_CODE) {
		unsigned int k = jit_frames(v, p, uf->addr, uf->pad & V8_VALUE_MASK, out, max);

		pthread_mutex_unlock(&v->rs.lock);
		return k;
	} else if (p) {
		ok = sfi_frame(v, p, uf, &out[0]);
	}
	if (!ok) {
		out[0] = (struct frame){.kind = FRAME_V8};
		v->st.unreadable++;
	}
	pthread_mutex_unlock(&v->rs.lock);
	return 1;
}

/* JavaScript frames: the function, its script and line and column (frame.addr); stubs
 * and builtins have no script. */
static bool v8_symbol(void *priv, const struct frame *f, struct arena *a, struct frame_symbol *out)
{
	const struct v8 *v = priv;
	uint64_t line = f->addr >> LINE_SHIFT, col = f->addr & COL_MASK;
	/* Read at report time: no function is being added. */
	const struct functab_entry *fn = functab__get(&v->rs.names, f->file_id);

	if (!fn) {
		*out = (struct frame_symbol){.function = "[v8: unreadable frame]", .file = ""};
		return true;
	}
	*out = (struct frame_symbol){.function = fn->func, .file = fn->file};
	if (fn->file[0] && line) {
		out->line = (uint32_t)line;
		out->column = (uint32_t)col;
	}
	return true;
}

static void v8_print_stats(void *priv, FILE *out)
{
	struct v8 *v = priv;
	uint64_t c[V8_CTR__COUNT] = {0};
	struct v8_stats s;

	pthread_mutex_lock(&v->rs.lock);
	s = v->st;
	pthread_mutex_unlock(&v->rs.lock);
	if (!s.processes && !s.unusable)
		return;
	counters__sum(v->rs.counters_fd, c, V8_CTR__COUNT);
	fprintf(
	    out,
	    "  v8: %llu processes (%llu unusable); %llu walks into V8's code, cut: %llu "
	    "without a description, %llu unreadable, %llu impossible caller, %llu not its pc, "
	    "%llu full; %llu functions read, %llu optimized frames expanded (%llu more from the "
	    "cache), %llu code searches, "
	    "%llu stub frames, %llu frames unnamed\n",
	    (unsigned long long)s.processes, (unsigned long long)s.unusable,
	    (unsigned long long)c[V8_CTR_WALKS], (unsigned long long)c[V8_CTR_NO_PROC],
	    (unsigned long long)c[V8_CTR_FAULT], (unsigned long long)c[V8_CTR_BAD],
	    (unsigned long long)c[V8_CTR_NO_PROGRESS], (unsigned long long)c[V8_CTR_FULL],
	    (unsigned long long)s.fn_reads, (unsigned long long)s.code_reads,
	    (unsigned long long)s.code_hits, (unsigned long long)s.pc_searches,
	    (unsigned long long)s.stubs, (unsigned long long)s.unreadable);
}

static const void *v8_elf(size_t *size)
{
	return v8_bpf__elf_bytes(size);
}

const struct runtime_ops v8_runtime = {
    .name = "v8",
    .title = "Node.js",
    .walker = WALKER_V8,
    .frame_kind = FRAME_V8,
    .kind =
	{
	    .name = "v8js",
	    .otlp_type = "v8js",
	    .about = "JavaScript frame (V8)",
	    .colour = {275, 25, 55, 60, 8}, /* violet: apart from every other kind's hue */
	    .folded_suffix = "",
	    .label_path = true, /* a script's path tells apart the index.js of each package */
	},
    /* Its walker has an unrolled variant, tail-calling itself. */
    .floor = {.bpf_loop = false, .without = "Node.js frames stay native"},
    .bpf_elf = v8_elf,
    .bpf_walker = "v8_walk",
    .init = v8_init,
    .free = runtime_state__delete,
    .detect = v8_detect,
    .describe = v8_describe,
    .forget = v8_forget,
    .ingest = v8_ingest,
    .frame_symbol = v8_symbol,
    .print_stats = v8_print_stats,
};
