// SPDX-License-Identifier: Apache-2.0
/* PHP support in userspace, one runtime of the registry. Detection: a mapped file named
 * php* or libphp* whose symbols hold execute_ex (the Zend VM's loop) and
 * executor_globals (an NTS build's globals): the CLI, FPM, CGI, phpdbg, or Apache's
 * module. Its version is the text of its X-Powered-By header; its layout comes from a
 * table per minor version (php_layout.c). Claims: execute_ex's activations, and the
 * executable view of opcache's shared memory, where its JIT puts code. Symbolization: a
 * zend_function's name and file are read once per process and address, and read again
 * when the tag BPF sends no longer matches (the function was freed and the address
 * reused). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "elf/elf_file.h"
#include "interp/php/php.h"
#include "interp/php/php_layout.h"
#include "interp/php/php_names.h"
#include "interp/runtime.h"
#include "interp/runtime_state.h"
#include "loader/counters.h"
#include "php.skel.h"
#include "sample.h"
#include "util/functab.h"
#include "util/hmap.h"
#include "util/log.h"

#define MAX_SEGS ELF_FILE_MAX_SEGMENTS
#define MAX_FUNCS (64 << 10)  /* functions cached per process; then it starts over */
#define MAX_NAMES (1 << 20)   /* distinct (name, file) kept; then frames go unnamed */
#define RODATA_MAX (64 << 20) /* bytes of .rodata searched for the version */
#define EXEC_HEAD 1024	      /* bytes of execute_ex searched for its dispatch jump */
#define NKINDS (PHP_CODE_EVAL + 1)

/* What a mapped file is, decided once per file id. */
struct php_file {
	uint32_t file_id; /* first: runtime_state.h */
	bool php;	  /* an NTS PHP build: the symbols were found */
	bool warned;	  /* its unknown version was reported */
	uint16_t version; /* 0x0802; 0 when its text was not found */
	char version_text[PHP_VERSION_TEXT];
	uint64_t exec[2][2]; /* ELF vaddr ranges of execute_ex and its .cold part (0: none) */
	uint64_t globals;    /* executor_globals */
	uint64_t dispatch;   /* execute_ex's dispatch jump; 0 when not found */
	uint32_t nsegs;
	struct elf_segment segs[MAX_SEGS];
};

/* A function as read, with the name ids of its frames (0 until first needed) and the
 * lines of its oplines (read when a frame first needs one). */
struct php_fn {
	uint64_t addr;
	struct php_func f;
	uint32_t ids[NKINDS][2]; /* by kind (top-level code) and JIT */
	uint32_t *lines, nlines;
	bool lines_read; /* tried: lines may be NULL still */
};

struct php_process {
	uint32_t pid; /* first: runtime_state.h */
	const struct php_layout *layout;
	struct hmap funcs; /* struct php_fn by addr */
};
_Static_assert(offsetof(struct php_file, file_id) == 0 && offsetof(struct php_process, pid) == 0,
	       "keyed as runtime_state.h says");

struct php {
	struct runtime_state rs; /* first: runtime_state__new makes the whole */
	struct proc_table *procs;
	struct php_stats st; /* under rs.lock */
};
_Static_assert(offsetof(struct php, rs) == 0, "runtime_state.h");

static int fn_eq(const void *e, const void *k)
{
	return ((const struct php_fn *)e)->addr == *(const uint64_t *)k;
}

static void free_fn(struct php_fn *fn)
{
	if (fn)
		free(fn->lines);
	free(fn);
}

static void free_funcs(struct hmap *funcs)
{
	hmap_for_each(funcs, i) free_fn(funcs->slots[i].entry);
	hmap_free(funcs);
}

static void free_process(struct runtime_state *rs, void *proc)
{
	struct php_process *p = proc;

	free_funcs(&p->funcs);
	free(p);
}

static const struct runtime_state_conf state = {
    .pid_map = "pid_to_php",
    .counters_map = "php_counters",
    .max_names = MAX_NAMES,
    .free_proc = free_process,
};

/* ---- detection ---- */

/* php7.4, php-fpm8.2, php-cgi, phpdbg, libphp8.2.so: the builds that embed the engine. */
static bool php_name(const char *base)
{
	return !strncmp(base, "php", 3) || !strncmp(base, "libphp", 6);
}

/* Sets range to the symbol's [start, end) when it has a size. */
static void symbol_range(const struct elf_file *e, const char *name, uint64_t range[2])
{
	uint64_t value, size;

	if (!elf_file__symbol(e, name, &value, &size) && size) {
		range[0] = value;
		range[1] = value + size;
	}
}

/* The version from the X-Powered-By header text in the build's read-only data. */
static void read_version(const struct elf_file *e, struct php_file *pf)
{
	struct elf_section sec;
	const void *data;
	size_t size;

	if (elf_file__section(e, ".rodata", &sec) ||
	    elf_file__section_data(e, &sec, RODATA_MAX, &data, &size))
		return;
	pf->version = php_layout__version(data, size, pf->version_text, sizeof(pf->version_text));
}

/* execute_ex's dispatch jump, from its first bytes in the file. */
static void find_dispatch(const struct elf_file *e, int fd, struct php_file *pf)
{
	uint8_t code[EXEC_HEAD];
	uint64_t off, len = pf->exec[0][1] - pf->exec[0][0];
	ssize_t n;
	long at;

	if (!elf_file__vaddr_to_off(e, pf->exec[0][0], &off))
		return;
	n = pread(fd, code, len < sizeof(code) ? len : sizeof(code), (off_t)off);
	at = n > 0 ? php_layout__dispatch(code, (size_t)n) : -1;
	if (at >= 0)
		pf->dispatch = pf->exec[0][0] + (uint64_t)at;
}

static void read_segments(const struct elf_file *e, struct php_file *pf)
{
	size_t n = 0;
	const struct elf_segment *segs = elf_file__segments(e, &n);

	pf->nsegs = n < MAX_SEGS ? (uint32_t)n : MAX_SEGS;
	memcpy(pf->segs, segs, pf->nsegs * sizeof(*segs));
}

/* Says once per file why a PHP build is not unwound. */
static void warn_unusable(const struct elf_file *e, const char *path)
{
	if (elf_file__symbol(e, "zend_execute_scripts", NULL, NULL))
		return; /* not PHP at all */
	if (!elf_file__symbol(e, "executor_globals_offset", NULL, NULL))
		pr_warn("php: %s is a thread-safe (ZTS) build, whose globals are per thread; "
			"ebprof unwinds NTS builds: its processes get native stacks",
			path);
	else
		pr_warn("php: %s exports no execute_ex or executor_globals: its processes get "
			"native stacks",
			path);
}

/* Reads what makes f a PHP build. Returns false (said once when it looked like one)
 * when it is not one ebprof can unwind. */
static bool inspect_file(struct php_file *pf, const struct runtime_file *f)
{
	const struct elf_file *e = f->elf;

	if (!e)
		return false;
	symbol_range(e, "execute_ex", pf->exec[0]);
	symbol_range(e, "execute_ex.cold", pf->exec[1]);
	if (elf_file__symbol(e, "executor_globals", &pf->globals, NULL))
		pf->globals = 0;
	if (!pf->exec[0][1] || !pf->globals) {
		warn_unusable(e, f->path);
		return false;
	}
	read_segments(e, pf);
	read_version(e, pf);
	find_dispatch(e, f->fd, pf);
	if (!pf->dispatch)
		pr_warn("php: %s: no dispatch jump in execute_ex: the frames of opcache's JIT code "
			"are cut",
			f->path);
	return pf->nsegs > 0;
}

/* The registry's question, once per mapped file: is it a PHP build? What it is is kept
 * for the processes that map it. */
static bool php_detect(void *priv, const struct runtime_file *f)
{
	struct php *php = priv;
	struct php_file *pf;

	if (!php_name(basename(f->path)))
		return false;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return false;
	pf->file_id = f->file_id;
	pf->php = inspect_file(pf, f);
	if (!pf->php || !runtime_state__add_file(&php->rs, pf)) {
		free(pf);
		return false;
	}
	pr_debug("php: %s is PHP %s", f->path, pf->version_text[0] ? pf->version_text : "?");
	return true;
}

/* ---- processes ---- */

/* Says once per file that its version is one ebprof has no layout for. Under rs.lock,
 * which is taken before the process table's lock, never after. */
static void warn_unknown(struct php *php, struct php_file *pf, uint32_t pid)
{
	char path[4096] = "?";
	struct file_entry *f;

	if (pf->warned)
		return;
	pf->warned = true;
	pthread_mutex_lock(&php->procs->lock);
	f = file_table__get(php->procs->files, pf->file_id);
	if (f && f->path)
		snprintf(path, sizeof(path), "%s", f->path);
	pthread_mutex_unlock(&php->procs->lock);
	pr_warn("php: %s (pid %u) is PHP %s, which ebprof cannot unwind (it knows %s): its "
		"processes get native stacks",
		path, pid, pf->version_text[0] ? pf->version_text : "of an unknown version",
		php_layout__known());
}

/* Finds the PHP build among maps: its file and the load bias of its mapping. */
static struct php_file *find_php(struct php *php, const struct proc_mapping *maps, uint32_t n,
				 uint64_t *bias)
{
	struct php_file *pf;

	for (uint32_t i = 0; (pf = runtime_state__mapped_file(&php->rs, maps, n, &i)); i++) {
		if (pf->php && elf_segments__vaddr_bias(pf->segs, pf->nsegs, maps[i].start,
							maps[i].pgoff, bias))
			return pf;
	}
	return NULL;
}

/* Whether a mapped file is opcache's shared memory (its executable view holds the JIT's
 * code): anonymous shared memory shows as "/dev/zero (deleted)", System V's as
 * "/SYSV<key> (deleted)". */
static bool shared_memory(const char *path)
{
	return !strncmp(path, "/dev/zero", 9) || !strncmp(path, "/SYSV", 5);
}

/* Claims the executable mappings of opcache's shared memory: its JIT's code. */
static void claim_jit(struct php *php, const struct proc_mapping *maps, uint32_t n,
		      struct runtime_marks *marks)
{
	struct file_entry *f;

	pthread_mutex_lock(&php->procs->lock);
	for (uint32_t i = 0; i < n && marks->n < RUNTIME_MAX_MARKS; i++) {
		f = maps[i].file_id ? file_table__get(php->procs->files, maps[i].file_id) : NULL;
		if (!f || !f->path || !shared_memory(f->path))
			continue;
		marks->m[marks->n].start = maps[i].start;
		marks->m[marks->n].end = maps[i].end;
		marks->m[marks->n].mark = UNW_MARK_WALK;
		marks->n++;
	}
	pthread_mutex_unlock(&php->procs->lock);
}

/* Every activation of execute_ex (and of its .cold part, named only in .symtab). */
static void claim_vm(const struct php_file *pf, uint64_t bias, struct runtime_marks *marks)
{
	for (int r = 0; r < 2 && marks->n < RUNTIME_MAX_MARKS; r++) {
		if (!pf->exec[r][1])
			continue;
		marks->m[marks->n].start = pf->exec[r][0] + bias;
		marks->m[marks->n].end = pf->exec[r][1] + bias;
		marks->m[marks->n].mark = UNW_MARK_ACTIVATION;
		marks->n++;
	}
}

static void fill_proc(struct php_proc *bp, const struct php_file *pf, uint64_t bias,
		      const struct php_layout *l)
{
	memset(bp, 0, sizeof(*bp));
	bp->current_ex = pf->globals + bias + l->current_ex;
	bp->dispatch = pf->dispatch ? pf->dispatch + bias : 0;
	bp->off = l->bpf;
}

/* Keeps pid as described (its BPF state written): a new process entry, its cache empty. */
static int keep_process(struct php *php, uint32_t pid, const struct php_layout *l,
			const struct php_proc *bp)
{
	struct php_process *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->pid = pid;
	p->layout = l;
	hmap_init(&p->funcs, fn_eq);
	if (bpf_map_update_elem(php->rs.map_fd, &pid, bp, BPF_ANY)) {
		pr_debug("php: describing pid %u: %s", pid, strerror(errno));
		free_process(&php->rs, p);
		return -EIO;
	}
	/* The tracker describes a process again whenever its mappings change. */
	if (!runtime_state__proc(&php->rs, pid))
		php->st.processes++;
	return runtime_state__set_proc(&php->rs, pid, p);
}

static int php_describe(void *priv, uint32_t pid, const struct proc_mapping *maps, uint32_t n,
			struct runtime_marks *marks)
{
	struct php *php = priv;
	const struct php_layout *l = NULL;
	struct php_file *pf;
	struct php_proc bp;
	uint64_t bias = 0;

	pthread_mutex_lock(&php->rs.lock);
	pf = find_php(php, maps, n, &bias);
	if (pf)
		l = php_layout__table(pf->version);
	if (pf && !l) {
		php->st.unknown_version++;
		warn_unknown(php, pf, pid);
	}
	if (!l)
		goto none;
	fill_proc(&bp, pf, bias, l);
	if (keep_process(php, pid, l, &bp))
		goto none;
	claim_vm(pf, bias, marks);
	if (bp.dispatch)
		claim_jit(php, maps, n, marks);
	pthread_mutex_unlock(&php->rs.lock);
	return 0;
none:
	bpf_map_delete_elem(php->rs.map_fd, &pid);
	runtime_state__set_proc(&php->rs, pid, NULL);
	pthread_mutex_unlock(&php->rs.lock);
	return -ENOENT;
}

static void php_forget(void *priv, uint32_t pid)
{
	struct php *php = priv;

	runtime_state__forget(&php->rs, pid);
}

/* ---- functions ---- */

/* Reads what a frame was sent as: a function, or top-level code's file name (code). */
static int read_fn(const struct php_process *p, uint64_t addr, bool code, struct php_func *out)
{
	struct php_mem mem = {.read = runtime_proc__read, .ctx = (void *)p};

	if (code)
		return php_code__read(&mem, p->layout, addr, out);
	return php_func__read(&mem, p->layout, addr, out);
}

/* Returns the cached function (or top-level code's file, code) at addr with tag, reading
 * it on a miss; NULL when it cannot be read or is not what the sample ran. Under
 * rs.lock. A function and a file name never share an address. */
static struct php_fn *fn_at(struct php *php, struct php_process *p, uint64_t addr, uint16_t tag,
			    bool code)
{
	struct php_fn *fn = hmap_find(&p->funcs, hash_u64(addr), &addr);
	int err;

	if (fn && fn->f.tag == tag && fn->f.code == code)
		return fn;
	if (fn) {
		/* Another function lives where this one was. */
		php->st.fn_reused++;
		free_fn(hmap_remove(&p->funcs, hash_u64(addr), &addr));
	}
	if (p->funcs.len >= MAX_FUNCS) {
		free_funcs(&p->funcs);
		hmap_init(&p->funcs, fn_eq);
	}
	fn = calloc(1, sizeof(*fn));
	if (!fn)
		return NULL;
	php->st.fn_reads++;
	fn->addr = addr;
	err = read_fn(p, addr, code, &fn->f);
	if (err || hmap_insert(&p->funcs, hash_u64(addr), fn)) {
		php->st.read_failures += err != 0;
		free(fn);
		return NULL;
	}
	/* Samples are read a moment after they were taken: a request's functions are freed
	 * when it ends (without opcache), a closure when it is dropped. What lives at addr
	 * now is not what the sample ran: kept for later samples, never named for this one. */
	if (fn->f.tag != tag) {
		php->st.fn_freed++;
		return NULL;
	}
	return fn;
}

/* The line of opline idx of fn (PHP_POS_NONE: unknown), its lines read on first need. */
static uint32_t fn_line(struct php *php, const struct php_process *p, struct php_fn *fn,
			uint32_t idx)
{
	struct php_mem mem = {.read = runtime_proc__read, .ctx = (void *)p};

	if (!fn->lines_read) {
		fn->lines_read = true;
		if (php_func__lines(&mem, p->layout, &fn->f, &fn->lines, &fn->nlines) &&
		    fn->f.opcodes)
			php->st.lines_unread++;
	}
	return idx < fn->nlines ? fn->lines[idx] : 0;
}

/* The name id of a frame of f: its name, or for top-level code what ran it, marked when
 * the frame ran JIT code. */
static uint32_t frame_id(struct php *php, const struct php_func *f, unsigned int kind, bool jit)
{
	char name[PHP_NAME_MAX + 8];

	snprintf(name, sizeof(name), "%s%s", php_func__frame_name(f, kind % NKINDS),
		 jit ? " [jit]" : "");
	return functab__intern(&php->rs.names, name, f->file);
}

/* frame_id of a frame of fn, kept in fn. */
static uint32_t fn_id(struct php *php, struct php_fn *fn, unsigned int kind, bool jit)
{
	uint32_t *id = &fn->ids[fn->f.code ? kind % NKINDS : 0][jit];

	if (!*id)
		*id = frame_id(php, &fn->f, kind, jit);
	return *id;
}

static unsigned int php_ingest(void *priv, uint32_t pid, const struct user_frame *uf,
			       struct frame *out, unsigned int max)
{
	struct php *php = priv;
	uint32_t data = uf->pad & UF_DATA_MASK;
	static const struct php_func unnamed_code = {.type = PHP_FN_USER, .code = true};
	unsigned int kind = (data >> PHP_KIND_SHIFT) & PHP_KIND_MASK;
	uint32_t pos = data & PHP_POS_MASK;
	struct php_process *p;
	struct php_fn *fn = NULL;

	*out = (struct frame){.kind = FRAME_PHP};
	pthread_mutex_lock(&php->rs.lock);
	p = runtime_state__proc(&php->rs, pid);
	if (p)
		fn = fn_at(php, p, uf->addr & PHP_ADDR_MASK, (uint16_t)(uf->addr >> PHP_TAG_SHIFT),
			   data & PHP_F_CODE);
	else
		php->st.read_failures++;
	if (fn) {
		out->file_id = fn_id(php, fn, kind, data & PHP_F_JIT);
		/* Top-level code's frames carry their line, others their opline's index. */
		out->addr = (data & PHP_F_CODE) ? pos % PHP_POS_NONE : fn_line(php, p, fn, pos);
	} else if (data & PHP_F_CODE) {
		/* Top-level code whose file name went with it: what ran it, with no file. */
		out->file_id = frame_id(php, &unnamed_code, kind, data & PHP_F_JIT);
	}
	pthread_mutex_unlock(&php->rs.lock);
	return 1;
}

/* PHP frames: the function (or what ran a file's code), its file and line (frame.addr). */
static bool php_symbol(void *priv, const struct frame *f, struct arena *a, struct frame_symbol *out)
{
	const struct php *php = priv;
	/* Read at report time, under the tracker's lock: no function is being added. */
	const struct functab_entry *fn = functab__get(&php->rs.names, f->file_id);

	if (!fn) {
		*out = (struct frame_symbol){.function = "[php: unreadable function]", .file = ""};
		return true;
	}
	*out = (struct frame_symbol){
	    .function = fn->func, .file = fn->file, .line = (uint32_t)f->addr};
	return true;
}

void php__stats(struct php *php, struct php_stats *out)
{
	pthread_mutex_lock(&php->rs.lock);
	*out = php->st;
	pthread_mutex_unlock(&php->rs.lock);
}

static void php_print_stats(void *priv, FILE *out)
{
	struct php *php = priv;
	uint64_t c[PHP_CTR__COUNT];
	struct php_stats s;

	php__stats(php, &s);
	if (!s.processes && !s.unknown_version)
		return;
	counters__sum(php->rs.counters_fd, c, PHP_CTR__COUNT);
	fprintf(out,
		"  php unwinding: %llu JIT frames unwound as execute_ex's, %llu leaf lines from "
		"the VM's registers; %llu activations without a current frame (kept native), "
		"%llu frames unreadable (PHP stack cut there), %llu JIT pcs of an undescribed "
		"process (stack cut)\n",
		(unsigned long long)c[PHP_CTR_JIT_FRAMES],
		(unsigned long long)c[PHP_CTR_LINE_FROM_VM],
		(unsigned long long)c[PHP_CTR_NO_FRAME], (unsigned long long)c[PHP_CTR_READ_FAULT],
		(unsigned long long)c[PHP_CTR_JIT_UNOWNED]);
	fprintf(out,
		"  php: %llu processes, %llu of an unknown version; %llu functions read (%llu "
		"replaced at a reused address, %llu whose lines were unreadable); frames left "
		"unnamed: %llu unreadable (freed or process gone), %llu whose function was "
		"replaced before it was read\n",
		(unsigned long long)s.processes, (unsigned long long)s.unknown_version,
		(unsigned long long)s.fn_reads, (unsigned long long)s.fn_reused,
		(unsigned long long)s.lines_unread, (unsigned long long)s.read_failures,
		(unsigned long long)s.fn_freed);
}

/* ---- the registry's entry ---- */

static int php_init(const struct runtime_env *env, struct bpf_object *obj, void **priv)
{
	int err = runtime_state__new(obj, &state, sizeof(struct php), priv);

	if (!err)
		((struct php *)*priv)->procs = env->procs;
	return err;
}

static const void *php_elf(size_t *size)
{
	return php_bpf__elf_bytes(size);
}

const struct runtime_ops php_runtime = {
    .name = "php",
    .title = "PHP",
    .walker = WALKER_PHP,
    .frame_kind = FRAME_PHP,
    .kind =
	{
	    .name = "php",
	    .otlp_type = "php",
	    .about = "PHP frame",
	    .colour = {230, 15, 45, 62, 8}, /* indigo: PHP's own, between kernel and V8 */
	    .folded_suffix = "",
	},
    /* Its walker has an unrolled variant, tail-calling itself. */
    .floor = {.bpf_loop = false, .without = "PHP frames stay native"},
    .bpf_elf = php_elf,
    .bpf_walker = "php_walk",
    .init = php_init,
    .free = runtime_state__delete,
    .detect = php_detect,
    .describe = php_describe,
    .forget = php_forget,
    .ingest = php_ingest,
    .frame_symbol = php_symbol,
    .print_stats = php_print_stats,
};
