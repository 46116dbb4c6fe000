// SPDX-License-Identifier: Apache-2.0
/* CPython support in userspace. Detection: a mapped file whose name says "python" and
 * whose symbols hold _PyEval_EvalFrameDefault and _PyRuntime (python3.X linked
 * statically, or libpython3.X.so). Symbolization: a code object's name, file and line
 * table are read once per process and address, and read again when the tag BPF sends
 * (its co_firstlineno) no longer matches: the object was freed and the address reused. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "elf/elf_file.h"
#include "interp/python/python.h"
#include "interp/python/python_lines.h"
#include "interp/python/python_offsets.h"
#include "interp/runtime.h"
#include "interp/runtime_state.h"
#include "loader/counters.h"
#include "python.skel.h"
#include "sample.h"
#include "util/arena.h"
#include "util/functab.h"
#include "util/hmap.h"
#include "util/log.h"

#define MAX_SEGS 8
#define MAX_LINETABLE (64 << 10) /* bytes of a line table read */
#define MAX_CODES (64 << 10)	 /* code objects cached per process; then it starts over */
#define MAX_FUNCS (1 << 20)	 /* distinct (qualname, file) names kept; then "unreadable" */
#define CODE_HEAD 256		 /* bytes of a code object read: every field used lies there */

/* What a mapped file is, decided once per file id. */
struct py_file {
	uint32_t file_id;		  /* first: runtime_state.h */
	bool python;			  /* holds an interpreter (the symbols were found) */
	bool warned;			  /* its unknown version was reported */
	uint16_t version;		  /* 0x030b, from the file name; 0 when it has none */
	uint64_t eval[PY_EVAL_RANGES][2]; /* ELF vaddr ranges of the eval loop */
	uint64_t runtime;		  /* _PyRuntime */
	uint64_t py_version;		  /* Py_Version (3.11+), 0 when absent */
	uint32_t nsegs;
	struct {
		uint64_t offset, vaddr, filesz;
	} segs[MAX_SEGS];
};

struct py_code {
	uint64_t addr;
	uint16_t tag; /* low bits of co_firstlineno, as BPF read it */
	uint32_t func;
	int firstlineno;
	uint8_t *lines;
	uint32_t nlines;
};

struct py_process {
	uint32_t pid; /* first: runtime_state.h */
	struct py_version_info info;
	struct hmap codes; /* struct py_code by addr */
};
_Static_assert(offsetof(struct py_file, file_id) == 0 && offsetof(struct py_process, pid) == 0,
	       "keyed as runtime_state.h says");

/* Files: struct py_file (interpreters only); processes: struct py_process; names:
 * (qualname, file), 0 standing for unreadable code. */
struct python {
	struct runtime_state rs; /* first: runtime_state__new makes the whole */
	struct proc_table *procs;
	struct python_stats st; /* under rs.lock */
};
_Static_assert(offsetof(struct python, rs) == 0, "runtime_state.h");

static int code_eq(const void *e, const void *k)
{
	return ((const struct py_code *)e)->addr == *(const uint64_t *)k;
}

static void free_codes(struct hmap *codes)
{
	hmap_for_each(codes, i)
	{
		struct py_code *c = codes->slots[i].entry;

		free(c->lines);
		free(c);
	}
	hmap_free(codes);
}

static void free_process(struct runtime_state *rs, void *proc)
{
	struct py_process *p = proc;

	free_codes(&p->codes);
	free(p);
}

static const struct runtime_state_conf state = {
    .pid_map = "pid_to_python",
    .counters_map = "python_counters", /* what the walker could not do */
    .max_names = MAX_FUNCS,
    .free_proc = free_process,
};

/* ---- detection ---- */

/* 0x030b from "python3.11", "libpython3.11.so.1.0"; 0 when the name has no version. */
static uint16_t version_from_name(const char *name)
{
	const char *p = strstr(name, "python3.");
	char *end;
	unsigned long minor;

	if (!p)
		return 0;
	minor = strtoul(p + 8, &end, 10);
	if (end == p + 8 || minor > 255)
		return 0;
	return 0x0300 | (uint16_t)minor;
}

/* Sets *range to the symbol's [start, end) when it has a size. */
static void symbol_range(const struct elf_file *e, const char *name, uint64_t range[2])
{
	uint64_t value, size;

	if (!elf_file__symbol(e, name, &value, &size) && size) {
		range[0] = value;
		range[1] = value + size;
	}
}

static void read_symbols(const struct elf_file *e, struct py_file *pf)
{
	symbol_range(e, "_PyEval_EvalFrameDefault", pf->eval[0]);
	symbol_range(e, "_PyEval_EvalFrameDefault.cold", pf->eval[1]);
	if (elf_file__symbol(e, "_PyRuntime", &pf->runtime, NULL))
		pf->runtime = 0;
	if (elf_file__symbol(e, "Py_Version", &pf->py_version, NULL))
		pf->py_version = 0;
}

static void read_segments(const struct elf_file *e, struct py_file *pf)
{
	const struct elf_segment *segs;
	size_t n;

	segs = elf_file__segments(e, &n);
	for (size_t i = 0; i < n && pf->nsegs < MAX_SEGS; i++) {
		pf->segs[pf->nsegs].offset = segs[i].offset;
		pf->segs[pf->nsegs].vaddr = segs[i].vaddr;
		pf->segs[pf->nsegs].filesz = segs[i].filesz;
		pf->nsegs++;
	}
}

/* Reads what makes e an interpreter. Leaves pf->python false when it is not one. */
static void inspect_file(struct py_file *pf, const struct elf_file *e)
{
	if (!e)
		return;
	read_symbols(e, pf);
	read_segments(e, pf);
	pf->python = pf->eval[0][1] && pf->runtime && pf->nsegs;
}

/* The registry's question, once per mapped file: is it an interpreter? What it is is
 * kept for the processes that map it. */
static bool python_detect(void *priv, const struct runtime_file *f)
{
	struct python *py = priv;
	struct py_file *pf;
	bool yes;

	if (!strstr(basename(f->path), "python"))
		return false;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return false;
	pf->file_id = f->file_id;
	pf->version = version_from_name(basename(f->path));
	inspect_file(pf, f->elf);
	yes = pf->python;
	if (yes)
		pr_debug("python: %s is an interpreter", f->path);
	if (!yes || !runtime_state__add_file(&py->rs, pf))
		free(pf);
	return yes;
}

/* ---- process memory ---- */

/* Reads len bytes at addr of pid. Returns 0, or -errno (ESRCH: the process is gone). */
static int read_mem(uint32_t pid, uint64_t addr, void *buf, size_t len)
{
	return runtime_mem__read(pid, addr, buf, len);
}

/* The load bias (process address - ELF vaddr) of the mapping m of file pf. */
static bool load_bias(const struct py_file *pf, const struct proc_mapping *m, uint64_t *bias)
{
	for (uint32_t i = 0; i < pf->nsegs; i++) {
		uint64_t off = pf->segs[i].offset;

		if (m->pgoff >= (off & ~4095ULL) && m->pgoff < off + pf->segs[i].filesz) {
			*bias = m->start - m->pgoff + off - pf->segs[i].vaddr;
			return true;
		}
	}
	return false;
}

/* The version the process runs: Py_Version when the interpreter has it (3.11+), else
 * the file name's. */
static uint16_t running_version(const struct py_file *pf, uint32_t pid, uint64_t bias)
{
	uint64_t hex = 0;

	if (pf->py_version && !read_mem(pid, pf->py_version + bias, &hex, sizeof(hex)))
		return (uint16_t)((hex >> 16) & 0xffff);
	return pf->version;
}

/* Fills info for the interpreter of pid. Returns 0, or -ENOTSUP for a version ebprof
 * has no layout for, or another negative errno from reading the process. */
static int version_info(const struct py_file *pf, uint32_t pid, uint64_t bias,
			struct py_version_info *info)
{
	uint16_t v = running_version(pf, pid, bias);
	const struct py_version_info *t = py_offsets__table(v);
	uint8_t dbg[PY_DEBUG_OFFSETS_313_SIZE];
	int err;

	if (t) {
		*info = *t;
		return 0;
	}
	if (v != 0x030d)
		return -ENOTSUP;
	err = read_mem(pid, pf->runtime + bias, dbg, sizeof(dbg));
	if (err)
		return err;
	return py_offsets__from_debug(dbg, sizeof(dbg), info) ? -ENOTSUP : 0;
}

/* Says once per file that its interpreter is one ebprof has no layout for. */
static void warn_unknown(struct python *py, struct py_file *pf, uint32_t pid, uint16_t v)
{
	char path[4096] = "?";
	struct file_entry *f;

	if (pf->warned)
		return;
	pf->warned = true;
	pthread_mutex_lock(&py->procs->lock);
	f = file_table__get(py->procs->files, pf->file_id);
	if (f && f->path)
		snprintf(path, sizeof(path), "%s", f->path);
	pthread_mutex_unlock(&py->procs->lock);
	pr_warn("python: %s (pid %u) is CPython %u.%u, which ebprof cannot unwind (it knows 3.9 "
		"to 3.13): its processes get native stacks",
		path, pid, v >> 8, v & 0xff);
}

/* Finds the interpreter among maps: its file and the mapping that gives the bias. */
static struct py_file *find_interpreter(struct python *py, uint32_t pid,
					const struct proc_mapping *maps, uint32_t n, uint64_t *bias)
{
	struct py_file *pf;

	for (uint32_t i = 0; (pf = runtime_state__mapped_file(&py->rs, maps, n, &i)); i++) {
		if (pf->python && load_bias(pf, &maps[i], bias))
			return pf;
	}
	return NULL;
}

static void fill_proc(struct py_proc *bp, const struct py_file *pf, uint64_t bias,
		      const struct py_version_info *info)
{
	memset(bp, 0, sizeof(*bp));
	bp->runtime = pf->runtime + bias;
	bp->layout = info->layout;
	/* Before 3.11 a thread state knows its thread only by pthread_self(). */
	bp->tid_is_fsbase = info->version < 0x030b;
	bp->off = info->bpf;
}

/* Every activation of the eval loop (and of its .cold part) is one the walker fills. */
static void claim_eval_loop(const struct py_file *pf, uint64_t bias, struct runtime_marks *marks)
{
	for (int r = 0; r < PY_EVAL_RANGES && marks->n < RUNTIME_MAX_MARKS; r++) {
		if (!pf->eval[r][1])
			continue;
		marks->m[marks->n].start = pf->eval[r][0] + bias;
		marks->m[marks->n].end = pf->eval[r][1] + bias;
		marks->m[marks->n].mark = UNW_MARK_ACTIVATION;
		marks->n++;
	}
}

static int python_describe(void *priv, uint32_t pid, const struct proc_mapping *maps, uint32_t n,
			   struct runtime_marks *marks)
{
	struct python *py = priv;
	struct py_process *p = NULL;
	struct py_version_info info;
	struct py_proc bp;
	struct py_file *pf;
	uint64_t bias = 0;
	int err;

	pthread_mutex_lock(&py->rs.lock);
	pf = find_interpreter(py, pid, maps, n, &bias);
	if (!pf)
		goto none;
	err = version_info(pf, pid, bias, &info);
	if (err == -ENOTSUP) {
		py->st.unknown_version++;
		warn_unknown(py, pf, pid, running_version(pf, pid, bias));
	}
	if (err)
		goto none;
	p = calloc(1, sizeof(*p));
	if (!p)
		goto none;
	p->pid = pid;
	p->info = info;
	hmap_init(&p->codes, code_eq);
	fill_proc(&bp, pf, bias, &info);
	if (bpf_map_update_elem(py->rs.map_fd, &pid, &bp, BPF_ANY)) {
		pr_debug("python: describing pid %u: %s", pid, strerror(errno));
		free_process(&py->rs, p);
		goto none;
	}
	/* The tracker describes a process again whenever its mappings change. */
	if (!runtime_state__proc(&py->rs, pid))
		py->st.processes++;
	/* Replaces its entry, and the code cache with it. */
	runtime_state__set_proc(&py->rs, pid, p);
	claim_eval_loop(pf, bias, marks);
	pthread_mutex_unlock(&py->rs.lock);
	return 0;
none:
	bpf_map_delete_elem(py->rs.map_fd, &pid);
	runtime_state__set_proc(&py->rs, pid, NULL);
	pthread_mutex_unlock(&py->rs.lock);
	return -ENOENT;
}

static void python_forget(void *priv, uint32_t pid)
{
	struct python *py = priv;

	runtime_state__forget(&py->rs, pid);
}

/* ---- code objects ---- */

static uint64_t field_ptr(const uint8_t *head, uint16_t off)
{
	uint64_t v = 0;

	if (off != PY_NO_OFFSET && off + 8 <= CODE_HEAD)
		memcpy(&v, head + off, 8);
	return v;
}

/* Reads the str object at addr into out (UTF-8). Returns 0 or a negative errno. */
static int read_str(uint32_t pid, const struct py_code_offsets *o, uint64_t addr, char *out,
		    size_t cap)
{
	uint8_t head[PY_STR_HEAD], data[PY_TEXT_MAX * 4];
	unsigned int kind;
	uint64_t off;
	size_t len;
	int err;

	if (!addr)
		return -EINVAL;
	err = read_mem(pid, addr, head, sizeof(head));
	if (err)
		return err;
	if (py_str_layout(head, o, PY_TEXT_MAX, &off, &kind, &len))
		return -EINVAL;
	err = read_mem(pid, addr + off, data, len * kind);
	if (err)
		return err;
	return py_text_utf8(data, len, kind, out, cap) < 0 ? -EINVAL : 0;
}

/* Reads the bytes object at addr into a malloc'd buffer. Returns 0 or a negative errno. */
static int read_bytes(uint32_t pid, const struct py_code_offsets *o, uint64_t addr, uint8_t **out,
		      uint32_t *n)
{
	int64_t size;
	int err;

	*out = NULL;
	*n = 0;
	if (!addr)
		return -EINVAL;
	err = read_mem(pid, addr + 16, &size, sizeof(size)); /* PyVarObject.ob_size */
	if (err)
		return err;
	if (size <= 0)
		return 0;
	if (size > MAX_LINETABLE)
		size = MAX_LINETABLE;
	*out = malloc(size);
	if (!*out)
		return -ENOMEM;
	err = read_mem(pid, addr + o->bytes_data, *out, size);
	if (err) {
		free(*out);
		*out = NULL;
		return err;
	}
	*n = (uint32_t)size;
	return 0;
}

/* Reads the code object at addr of p into c (its function, first line and line table). */
static int read_code(struct python *py, const struct py_process *p, uint64_t addr,
		     struct py_code *c)
{
	const struct py_code_offsets *o = &p->info.code;
	char name[PY_TEXT_MAX * 4 + 1], file[PY_TEXT_MAX * 4 + 1];
	uint8_t head[CODE_HEAD];
	int32_t first;
	int err;

	/* 3.13's offsets come from the process itself: one past the head reads nothing. */
	if (o->firstlineno > CODE_HEAD - sizeof(first))
		return -EINVAL;
	err = read_mem(p->pid, addr, head, sizeof(head));
	if (err)
		return err;
	memcpy(&first, head + o->firstlineno, sizeof(first));
	err = read_str(p->pid, o,
		       field_ptr(head, o->qualname != PY_NO_OFFSET ? o->qualname : o->name), name,
		       sizeof(name));
	if (!err)
		err = read_str(p->pid, o, field_ptr(head, o->filename), file, sizeof(file));
	if (!err)
		err = read_bytes(p->pid, o, field_ptr(head, o->linetable), &c->lines, &c->nlines);
	if (err)
		return err;
	c->addr = addr;
	c->tag = (uint16_t)first;
	c->firstlineno = first;
	c->func = functab__intern(&py->rs.names, name, file);
	return 0;
}

/* Returns the cached code object at addr with tag, reading it on a miss; NULL when it
 * cannot be read. */
static struct py_code *code_at(struct python *py, struct py_process *p, uint64_t addr, uint16_t tag)
{
	struct py_code *c = hmap_find(&p->codes, hash_u64(addr), &addr);
	int err;

	if (c && c->tag == tag)
		return c;
	if (c) {
		/* Another code object lives where this one was. */
		py->st.code_reused++;
		hmap_remove(&p->codes, hash_u64(addr), &addr);
		free(c->lines);
		free(c);
	}
	if (p->codes.len >= MAX_CODES) {
		free_codes(&p->codes);
		hmap_init(&p->codes, code_eq);
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	py->st.code_reads++;
	err = read_code(py, p, addr, c);
	if (err || hmap_insert(&p->codes, hash_u64(addr), c)) {
		py->st.read_failures += err != 0;
		free(c->lines);
		free(c);
		return NULL;
	}
	/* Samples are read a moment after they were taken: a module's top-level code, for
	 * one, is freed as soon as its import ends. What lives at addr now is not the code
	 * the sample ran; kept for later samples, never named for this one. */
	if (c->tag != tag) {
		py->st.code_freed++;
		return NULL;
	}
	return c;
}

static unsigned int python_ingest(void *priv, uint32_t pid, const struct user_frame *uf,
				  struct frame *out, unsigned int max)
{
	struct python *py = priv;
	uint64_t addr = uf->addr & PY_ADDR_MASK;
	uint16_t tag = (uint16_t)(uf->addr >> PY_TAG_SHIFT);
	struct py_process *p;
	struct py_code *c = NULL;
	int line;

	*out = (struct frame){.kind = FRAME_PYTHON};
	pthread_mutex_lock(&py->rs.lock);
	p = runtime_state__proc(&py->rs, pid);
	if (p)
		c = code_at(py, p, addr, tag);
	else
		py->st.read_failures++;
	if (c) {
		line = py_line_of(p->info.lines, c->lines, c->nlines, c->firstlineno,
				  uf->pad & UF_DATA_MASK);
		out->file_id = c->func;
		out->addr = line > 0 ? (uint64_t)line : 0;
	}
	pthread_mutex_unlock(&py->rs.lock);
	return 1;
}

/* Python frames read "qualname (file.py:LINE)": the file without its directory, which
 * is how tracebacks are read at a glance; line 0 when the instruction has none. */
/* Python frames: the qualified name, the code object's file and the line (frame.addr). */
static bool python_symbol(void *priv, const struct frame *f, struct arena *a,
			  struct frame_symbol *out)
{
	const struct python *py = priv;
	/* Read at report time, under the tracker's lock: no function is being added. */
	const struct functab_entry *fn = functab__get(&py->rs.names, f->file_id);

	if (!fn) {
		*out = (struct frame_symbol){.function = "[python: unreadable code]", .file = ""};
		return true;
	}
	*out = (struct frame_symbol){
	    .function = fn->func, .file = fn->file, .line = (uint32_t)f->addr};
	return true;
}

void python__stats(struct python *py, struct python_stats *out)
{
	pthread_mutex_lock(&py->rs.lock);
	*out = py->st;
	pthread_mutex_unlock(&py->rs.lock);
}

void python__print_stats(struct python *py, FILE *out)
{
	uint64_t c[PY_CTR__COUNT];
	struct python_stats s;

	python__stats(py, &s);
	if (!s.processes && !s.unknown_version)
		return;
	counters__sum(py->rs.counters_fd, c, PY_CTR__COUNT);
	if (c[PY_CTR_NO_THREAD] || c[PY_CTR_READ_FAULT])
		fprintf(out,
			"  python unwinding: %llu eval loops without a thread state (kept native), "
			"%llu Python frames unreadable (Python stack cut there)\n",
			(unsigned long long)c[PY_CTR_NO_THREAD],
			(unsigned long long)c[PY_CTR_READ_FAULT]);
	fprintf(out,
		"  python: %llu processes, %llu of an unknown version; %llu code objects read "
		"(%llu replaced at a reused address); frames left unnamed: %llu unreadable (code "
		"freed or process gone), %llu whose code was replaced before it was read\n",
		(unsigned long long)s.processes, (unsigned long long)s.unknown_version,
		(unsigned long long)s.code_reads, (unsigned long long)s.code_reused,
		(unsigned long long)s.read_failures, (unsigned long long)s.code_freed);
}

/* ---- the registry's entry ---- */

static int python_init(const struct runtime_env *env, struct bpf_object *obj, void **priv)
{
	int err = runtime_state__new(obj, &state, sizeof(struct python), priv);

	if (!err)
		((struct python *)*priv)->procs = env->procs;
	return err;
}

static void python_print_stats(void *priv, FILE *out)
{
	python__print_stats(priv, out);
}

static const void *python_elf(size_t *size)
{
	return python_bpf__elf_bytes(size);
}

const struct runtime_ops python_runtime = {
    .name = "python",
    .title = "Python",
    .walker = WALKER_PYTHON,
    .frame_kind = FRAME_PYTHON,
    .kind =
	{
	    .name = "python",
	    .otlp_type = "cpython",
	    .about = "Python frame",
	    .colour = {48, 12, 80, 60, 8}, /* yellow */
	    .folded_suffix = "",
	},
    /* Its walker has an unrolled variant, tail-calling itself. */
    .floor = {.bpf_loop = false, .without = "Python frames stay native"},
    .arm64_proven = true,
    .bpf_elf = python_elf,
    .bpf_walker = "python_walk",
    .init = python_init,
    .free = runtime_state__delete,
    .detect = python_detect,
    .describe = python_describe,
    .forget = python_forget,
    .ingest = python_ingest,
    .frame_symbol = python_symbol,
    .print_stats = python_print_stats,
};
