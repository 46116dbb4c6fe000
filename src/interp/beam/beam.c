// SPDX-License-Identifier: Apache-2.0
/* Erlang/BEAM support: the runtime registry's entry (src/interp/runtime.h). Detection: a
 * beam.smp (or any file) exporting etp_otp_release, said once with its release and
 * whether it has the JIT (__jit_debug_descriptor, beam_normal_exit). Description: the
 * JIT's code (its "/memfd:vmem" view, or anonymous executable memory) is claimed
 * UNW_MARK_WALK and beam_normal_exit's value goes to the walker (pid_to_beam). Ingest:
 * each code address is named from the VM's own GDB JIT records (beam_debug.h), read from
 * the process once and again whenever a module is loaded or purged, as
 * "module:function/arity (file.erl:LINE)". For the callers of C code called from Erlang
 * (BIFs, NIFs, the collector), the schedulers are described (map beam_scheds) and the
 * shared code that saves the process's stack pointer before calling C is named to the
 * walker. The interpreter (OTP 23 and older, or a build without the JIT) keeps its
 * native stacks, said once. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "elf/elf_file.h"
#include "interp/beam/beam_debug.h"
#include "interp/beam/beam_proc.h"
#include "interp/runtime.h"
#include "interp/runtime_state.h"
#include "loader/counters.h"
#include "proc/files.h"
#include "sample.h"
#include "util/clock.h"
#include "util/functab.h"
#include "util/log.h"
#include "beam.skel.h"

#define MAX_FUNCS (1 << 20)	    /* distinct (function, file) names kept */
#define MAX_MODULES 65536	    /* records followed in one process's list */
#define MAX_BYTES (256ULL << 20)    /* bytes of records kept per process */
#define MAX_SEGS 16		    /* beam.smp's loadable segments kept */
#define RELOAD_CHECK_NS 20000000ULL /* how often the list's head is read again */
#define JIT_PATH "/memfd:vmem"	    /* the JIT's dual-mapped code (a deleted memfd) */

/* The schedulers' array (beam_debug.h): at most SCHED_MAX described per VM, its element
 * size measured in its first SCHED_READ bytes. */
#define SCHED_MAX 1024
#define SCHED_READ (256u << 10)
/* Descriptions that may find a scheduler not started yet before its data is taken for
 * a layout ebprof does not know (the walker asks for one every 100 ms at most). */
#define SCHED_TRIES 20
#define NOT_STARTED "its schedulers are not started"
/* The JIT's shared code that saves c_p->stop before it calls C (its enter_runtime with
 * the stack updated: erts/emulator/beam/jit/x86/instr_bif.cpp and beam_asm_global.cpp),
 * as the VM's records name it; code that calls C without (guard BIFs, the arithmetic
 * and binary helpers) leaves a stale stop behind and is not in the list. */
static const char *const bif_code[BEAM_MAX_BIF] = {
    "global::call_light_bif_shared", /* BIFs called from Erlang */
    "global::call_nif_shared",	     /* NIFs */
    "global::garbage_collect",	     /* the collector, which reads the stack itself */
};

/* A file detect() accepted, by file id (first: runtime_state.h). */
struct beam_file {
	uint32_t file_id;
	char *path;
	char release[8];				/* etp_otp_release: "25" */
	bool jit;					/* the JIT's symbols are exported */
	uint64_t descriptor, normal_exit, frame_layout; /* ELF addresses */
	uint64_t sched_data, no_scheds;			/* ELF addresses; 0: absent */
	bool sched_layout; /* the release is one whose offsets above are known */
	struct elf_segment segs[MAX_SEGS];
	size_t nsegs;
};

struct beam_process {
	uint32_t pid;	    /* first: runtime_state.h */
	uint64_t head_addr; /* &__jit_debug_descriptor.first_entry in the process */
	uint64_t head;	    /* the list's head when the modules were read */
	bool read;	    /* the list was read (modules may still be none) */
	uint64_t bytes;	    /* of the records kept */
	uint64_t checked_ns;
	struct beam_module *mods; /* sorted by base */
	uint32_t nmods;
	uint64_t *regs; /* the schedulers' registers blocks, keys of beam_scheds */
	uint32_t nregs;
	uint32_t sched_tries; /* descriptions that found the schedulers' data wrong */
	bool said, bif_said;
};
_Static_assert(offsetof(struct beam_file, file_id) == 0 && offsetof(struct beam_process, pid) == 0,
	       "keyed as runtime_state.h says");

struct beam_stats {
	uint64_t processes, reads, modules, bad_records, unnamed;
};

struct beam {
	struct runtime_state rs; /* first: runtime_state__new makes the whole */
	struct proc_table *procs;
	int scheds_fd;	      /* beam_scheds */
	struct beam_stats st; /* under rs.lock */
};
_Static_assert(offsetof(struct beam, rs) == 0, "runtime_state.h");

/* The schedulers' entries of beam_scheds, gone with the process. */
static void forget_scheds(struct beam *b, struct beam_process *p)
{
	for (uint32_t i = 0; i < p->nregs; i++) {
		struct beam_sched_key k = {.pid = p->pid, .regs = p->regs[i]};

		bpf_map_delete_elem(b->scheds_fd, &k);
	}
	free(p->regs);
	p->regs = NULL;
	p->nregs = 0;
}

static void drop_modules(struct beam_process *p)
{
	for (uint32_t i = 0; i < p->nmods; i++)
		beam_module__release(&p->mods[i]);
	free(p->mods);
	p->mods = NULL;
	p->nmods = 0;
	p->bytes = 0;
}

static void free_process(struct runtime_state *rs, void *proc)
{
	struct beam_process *p = proc;

	(void)rs;
	drop_modules(p);
	free(p->regs);
	free(p);
}

static void free_file(void *file)
{
	struct beam_file *f = file;

	free(f->path);
	free(f);
}

static const struct runtime_state_conf state = {
    .pid_map = "pid_to_beam",
    .counters_map = "beam_counters",
    .max_names = MAX_FUNCS,
    .free_file = free_file,
    .free_proc = free_process,
};

static int beam_init(const struct runtime_env *env, struct bpf_object *obj, void **priv)
{
	int err = runtime_state__new(obj, &state, sizeof(struct beam), priv);
	const struct bpf_map *scheds = bpf_object__find_map_by_name(obj, "beam_scheds");

	if (err)
		return err;
	((struct beam *)*priv)->procs = env->procs;
	((struct beam *)*priv)->scheds_fd = scheds ? bpf_map__fd(scheds) : -1;
	return 0;
}

/* ---- detection ---- */

static uint64_t address(const struct elf_file *e, const char *name)
{
	uint64_t v = 0;

	return elf_file__symbol(e, name, &v, NULL) ? 0 : v;
}

/* etp_otp_release's bytes, read from the file ("25"). */
static void read_release(const struct runtime_file *rf, uint64_t vaddr, char *out, size_t len)
{
	uint64_t off;
	ssize_t n;

	out[0] = '\0';
	if (!elf_file__vaddr_to_off(rf->elf, vaddr, &off))
		return;
	n = pread(rf->fd, out, len - 1, (off_t)off);
	out[n > 0 ? n : 0] = '\0';
	for (size_t i = 0; out[i]; i++)
		if (out[i] < '0' || out[i] > '9')
			out[i] = '\0';
}

static bool beam_detect(void *priv, const struct runtime_file *rf)
{
	struct beam *b = priv;
	const struct elf_segment *segs;
	struct beam_file *f;
	uint64_t release;
	bool yes = false;

	if (!rf->elf || !(release = address(rf->elf, "etp_otp_release")))
		return false;
	f = calloc(1, sizeof(*f));
	if (!f)
		return false;
	f->file_id = rf->file_id;
	f->path = strdup(rf->path);
	read_release(rf, release, f->release, sizeof(f->release));
	f->descriptor = address(rf->elf, "__jit_debug_descriptor");
	f->normal_exit = address(rf->elf, "beam_normal_exit");
	f->frame_layout = address(rf->elf, "erts_frame_layout");
	f->sched_data = address(rf->elf, "erts_aligned_scheduler_data");
	f->no_scheds = address(rf->elf, "erts_no_schedulers");
	/* The releases whose layouts beam_debug.h holds. */
	f->sched_layout =
	    !strcmp(f->release, "25") || !strcmp(f->release, "26") || !strcmp(f->release, "27");
	f->jit = f->descriptor && f->normal_exit;
	if (!f->jit) {
		/* The interpreter keeps its registers in process_main's locals: nothing to
		 * walk honestly, and no walker to verify. */
		pr_info("beam: %s is Erlang/OTP %s without the JIT (%s): its processes get "
			"native stacks",
			rf->path, f->release[0] ? f->release : "?",
			f->descriptor ? "no beam_normal_exit" : "no __jit_debug_descriptor");
		free_file(f);
		return false;
	}
	segs = elf_file__segments(rf->elf, &f->nsegs);
	if (f->nsegs > MAX_SEGS)
		f->nsegs = MAX_SEGS;
	memcpy(f->segs, segs, f->nsegs * sizeof(*segs));
	if (f->path)
		yes = runtime_state__add_file(&b->rs, f);
	if (yes)
		pr_info("beam: %s is Erlang/OTP %s with the JIT", rf->path, f->release);
	else
		free_file(f);
	return yes || runtime_state__file(&b->rs, rf->file_id);
}

/* ---- description ---- */

static struct beam_file *find_beam(struct beam *b, const struct proc_mapping *maps, uint32_t n,
				   uint64_t *bias)
{
	struct beam_file *f;

	for (uint32_t i = 0; (f = runtime_state__mapped_file(&b->rs, maps, n, &i)); i++)
		if (elf_segments__vaddr_bias(f->segs, f->nsegs, maps[i].start, maps[i].pgoff, bias))
			return f;
	return NULL;
}

/* Claims the JIT's code into bp and marks: the executable view of its dual-mapped
 * memfd, or, when perf support maps it once (+JPperf), anonymous executable memory,
 * which a BEAM process has for nothing else (NIFs are shared objects). */
static void claim_jit(struct beam *b, const struct proc_mapping *maps, uint32_t n,
		      struct beam_proc *bp, struct runtime_marks *marks)
{
	struct file_entry *fe;

	pthread_mutex_lock(&b->procs->lock);
	for (uint32_t i = 0; i < n && bp->nranges < BEAM_MAX_RANGES; i++) {
		fe = maps[i].file_id ? file_table__get(b->procs->files, maps[i].file_id) : NULL;
		if (maps[i].file_id &&
		    (!fe || !fe->path || strncmp(fe->path, JIT_PATH, strlen(JIT_PATH))))
			continue;
		bp->range[bp->nranges].low = maps[i].start;
		bp->range[bp->nranges++].high = maps[i].end;
		if (marks->n < RUNTIME_MAX_MARKS) {
			marks->m[marks->n].start = maps[i].start;
			marks->m[marks->n].end = maps[i].end;
			marks->m[marks->n++].mark = UNW_MARK_WALK;
		}
	}
	pthread_mutex_unlock(&b->procs->lock);
}

/* ---- the callers of C code ---- */

static void refresh(struct beam *b, struct beam_process *p, bool force);

/* The ranges of the shared code in bif_code, from the VM's records, into bp. */
static void find_bif_code(const struct beam_process *p, struct beam_proc *bp)
{
	for (uint32_t m = 0; m < p->nmods; m++) {
		const struct beam_module *mod = &p->mods[m];

		if (!mod->name || strcmp(mod->name, "global"))
			continue; /* the VM's shared code is its module "global" */
		for (uint32_t i = 0; i < mod->nfns && bp->nbif < BEAM_MAX_BIF; i++) {
			const char *name = (const char *)mod->rec + mod->fns[i].name;

			for (size_t k = 0; k < BEAM_MAX_BIF; k++) {
				if (strcmp(name, bif_code[k]))
					continue;
				bp->bif[bp->nbif].low = mod->base + mod->fns[i].start;
				bp->bif[bp->nbif++].high = mod->base + mod->fns[i].end;
			}
		}
	}
}

/* Why the schedulers' data did not pass the check: a scheduler not started yet fails it
 * too, so the first descriptions wait before the layout is taken for one not known. */
static const char *layout_failed(struct beam_process *p)
{
	return ++p->sched_tries < SCHED_TRIES
		   ? NOT_STARTED
		   : "its scheduler data is not laid out as OTP 25 to 27's";
}

/* The size of the n elements of the schedulers' array at arr (n > 1), measured in as
 * much of its first SCHED_READ bytes as can be read; 0 when none fits. */
static uint32_t sched_stride(uint32_t pid, uint64_t arr, uint32_t n)
{
	uint8_t *buf = malloc(SCHED_READ);
	uint32_t stride = 0;

	if (!buf)
		return 0;
	/* The array may end near the end of its mapping: less is read then. */
	for (size_t len = SCHED_READ; len >= 4096; len /= 2)
		if (!runtime_mem__read(pid, arr, buf, len)) {
			stride = beam_debug__sched_stride(buf, len, n);
			break;
		}
	free(buf);
	return stride;
}

/* The normal schedulers' registers blocks into p->regs and beam_scheds, each with where
 * its current process is; once, when they are all known. Returns why not, or NULL. */
static const char *describe_scheds(struct beam *b, const struct beam_file *f,
				   struct beam_process *p, uint64_t bias)
{
	uint64_t arr = 0, n = 0, esd[BEAM_ESD_DIRTY_NO / 8 + 1];
	const char *why = NULL;
	uint32_t stride = 0;

	if (p->nregs)
		return NULL;
	if (runtime_mem__read(p->pid, f->sched_data + bias, &arr, sizeof(arr)) ||
	    runtime_mem__read(p->pid, f->no_scheds + bias, &n, sizeof(n)) || !arr || !n)
		return NOT_STARTED;
	if (n > SCHED_MAX)
		return "it has too many schedulers";
	if (n > 1 && !(stride = sched_stride(p->pid, arr, (uint32_t)n)))
		return layout_failed(p);
	p->regs = calloc(n, sizeof(*p->regs));
	if (!p->regs)
		return "out of memory";
	for (uint64_t i = 0; i < n && !why; i++) {
		if (runtime_mem__read(p->pid, arr + i * stride, esd, sizeof(esd)))
			why = NOT_STARTED;
		else if (!beam_debug__sched_ok((const uint8_t *)esd, sizeof(esd), i + 1))
			why = layout_failed(p);
		else
			p->regs[p->nregs++] = esd[BEAM_ESD_REGISTERS / 8];
	}
	for (uint32_t i = 0; i < p->nregs && !why; i++) {
		struct beam_sched_key k = {.pid = p->pid, .regs = p->regs[i]};
		uint64_t cur = arr + i * stride + BEAM_ESD_CURRENT;

		if (bpf_map_update_elem(b->scheds_fd, &k, &cur, BPF_ANY))
			why = "the scheduler map is full";
	}
	if (why)
		forget_scheds(b, p);
	return why;
}

/* What the walker needs for the callers of C code called from Erlang (BIFs, NIFs, the
 * collector): the schedulers, the shared code that calls C, the Process's stop. Said
 * once per process when known, or known not to be. */
static void describe_bifs(struct beam *b, const struct beam_file *f, struct beam_process *p,
			  uint64_t bias, struct beam_proc *bp)
{
	const char *why = "ebprof knows the scheduler layout of OTP 25 to 27 only";

	if (p->bif_said && !p->nregs)
		return; /* said why not */
	if (f->sched_layout && f->sched_data && f->no_scheds && b->scheds_fd >= 0) {
		why = describe_scheds(b, f, p, bias);
		refresh(b, p, false);
		find_bif_code(p, bp);
		if (!why && !bp->nbif)
			why = "its records name none of the shared code that calls C";
	}
	/* Not yet: the shared code stays named, so that the walker's notice asks for the
	 * next description when it meets it. */
	if (why && !strcmp(why, NOT_STARTED))
		return;
	if (!why)
		bp->stop_off = BEAM_PROC_STOP;
	else
		bp->nbif = 0;
	if (p->bif_said)
		return;
	p->bif_said = true;
	if (why)
		pr_info("beam: pid %u: the Erlang callers of BIFs and NIFs are not walked: %s",
			p->pid, why);
	else
		pr_info("beam: pid %u: the Erlang callers of BIFs and NIFs walked, from the "
			"stacks its %u scheduler%s save%s",
			p->pid, p->nregs, p->nregs == 1 ? "" : "s", p->nregs == 1 ? "s" : "");
}

static int beam_describe(void *priv, uint32_t pid, const struct proc_mapping *maps, uint32_t n,
			 struct runtime_marks *marks)
{
	struct beam *b = priv;
	struct beam_proc bp = {};
	struct beam_process *p;
	struct beam_file *f;
	uint64_t bias = 0;
	uint32_t layout = 0;
	int err = -ENOENT;

	pthread_mutex_lock(&b->rs.lock);
	f = find_beam(b, maps, n, &bias);
	if (!f)
		goto cleanup;
	claim_jit(b, maps, n, &bp, marks);
	err = bp.nranges ? runtime_mem__read(pid, f->normal_exit + bias, &bp.normal_exit, 8)
			 : -EAGAIN;
	if (err)
		goto cleanup;
	/* Zero until the JIT has emitted its shared code: the VM is starting. Its code is
	 * claimed but not described, so the walker's notice asks for another look. */
	if (!bp.normal_exit) {
		bpf_map_delete_elem(b->rs.map_fd, &pid);
		goto cleanup;
	}
	if (f->frame_layout)
		runtime_mem__read(pid, f->frame_layout + bias, &layout, sizeof(layout));
	p = runtime_state__proc(&b->rs, pid);
	if (!p) {
		p = calloc(1, sizeof(*p));
		err = -ENOMEM;
		if (!p || (p->pid = pid, runtime_state__set_proc(&b->rs, pid, p)))
			goto cleanup;
		b->st.processes++;
	}
	p->head_addr = f->descriptor + bias + 16; /* first_entry: after version, action,
						     relevant_entry */
	if (!p->said) {
		p->said = true;
		pr_info("beam: pid %u runs Erlang/OTP %s, JIT frames %s frame pointers", pid,
			f->release, layout ? "with" : "without");
	}
	describe_bifs(b, f, p, bias, &bp);
	err = bpf_map_update_elem(b->rs.map_fd, &pid, &bp, BPF_ANY) ? -errno : 0;
cleanup:
	if (err && err != -ENOENT)
		pr_debug("beam: describing pid %u: %s", pid, strerror(-err));
	pthread_mutex_unlock(&b->rs.lock);
	return err;
}

static void beam_forget(void *priv, uint32_t pid)
{
	struct beam *b = priv;
	struct beam_process *p;

	pthread_mutex_lock(&b->rs.lock);
	p = runtime_state__proc(&b->rs, pid);
	if (p)
		forget_scheds(b, p);
	pthread_mutex_unlock(&b->rs.lock);
	runtime_state__forget(&b->rs, pid);
}

/* ---- names ---- */

static int mod_cmp(const void *a, const void *b)
{
	const struct beam_module *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

/* One entry of the list (next, prev, record, record size): its module, added to p.
 * Returns the next entry's address, or 0 at the end or on a bad entry. */
static uint64_t read_entry(struct beam *b, struct beam_process *p, uint64_t at, uint32_t *cap)
{
	uint64_t e[4];
	uint8_t *rec;
	struct beam_module m;

	if (runtime_mem__read(p->pid, at, e, sizeof(e)))
		return 0;
	if (e[3] < 8 || e[3] > BEAM_DEBUG_MAX_RECORD)
		return e[0];
	if (p->bytes + e[3] > MAX_BYTES)
		return 0; /* the rest stays unnamed */
	rec = malloc(e[3]);
	if (!rec)
		return 0;
	b->st.reads++;
	if (runtime_mem__read(p->pid, e[2], rec, e[3]) ||
	    beam_debug__kind(rec, e[3]) != BEAM_DEBUG_MODULE) {
		free(rec);
		return e[0];
	}
	if (beam_debug__module(rec, e[3], &m)) {
		b->st.bad_records++;
		beam_module__release(&m);
		return e[0];
	}
	if (p->nmods == *cap) {
		struct beam_module *grown = realloc(p->mods, (*cap ? *cap * 2 : 128) * sizeof(m));

		if (!grown) {
			beam_module__release(&m);
			return 0;
		}
		p->mods = grown;
		*cap = *cap ? *cap * 2 : 128;
	}
	p->mods[p->nmods++] = m;
	p->bytes += e[3];
	b->st.modules++;
	return e[0];
}

/* Reads the modules again when the list's head moved since they were read: a module
 * loaded (entries are added at the head) or purged (when it was the head). Checked at
 * most every RELOAD_CHECK_NS, and at once when force (an address no module holds). */
static void refresh(struct beam *b, struct beam_process *p, bool force)
{
	uint64_t now = now_ns(), head = 0, at;
	uint32_t cap = 0;

	if (!force && p->read && now - p->checked_ns < RELOAD_CHECK_NS)
		return;
	p->checked_ns = now;
	if (runtime_mem__read(p->pid, p->head_addr, &head, sizeof(head)) ||
	    (p->read && head == p->head))
		return;
	drop_modules(p);
	p->head = head;
	p->read = true;
	at = head;
	for (uint32_t i = 0; at && i < MAX_MODULES; i++)
		at = read_entry(b, p, at, &cap);
	qsort(p->mods, p->nmods, sizeof(*p->mods), mod_cmp);
}

/* The function holding addr among p's modules, and its line and file. */
static const char *find(const struct beam_process *p, uint64_t addr, uint32_t *line,
			const char **file)
{
	uint32_t lo = 0, hi = p->nmods;

	while (lo < hi) { /* the first module based past addr */
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->mods[mid].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? beam_module__find(&p->mods[lo - 1], addr, line, file) : NULL;
}

static unsigned int beam_ingest(void *priv, uint32_t pid, const struct user_frame *uf,
				struct frame *out, unsigned int max)
{
	struct beam *b = priv;
	struct beam_process *p;
	const char *fn = NULL, *file = "";
	uint64_t addr = uf->addr;
	uint32_t line = 0;

	if (!max)
		return 0;
	/* A return address names the call before it, not what follows it. */
	if ((uf->pad & UF_DATA_MASK) == BEAM_FRAME_RETURN)
		addr--;
	out[0] = (struct frame){.kind = FRAME_BEAM};
	pthread_mutex_lock(&b->rs.lock);
	p = runtime_state__proc(&b->rs, pid);
	if (p) {
		refresh(b, p, false);
		fn = find(p, addr, &line, &file);
		if (!fn) {
			refresh(b, p, true);
			fn = find(p, addr, &line, &file);
		}
	}
	if (fn) {
		out[0].file_id = functab__intern(&b->rs.names, fn, file);
		out[0].addr = line;
	} else {
		b->st.unnamed++;
	}
	pthread_mutex_unlock(&b->rs.lock);
	return 1;
}

static bool beam_symbol(void *priv, const struct frame *f, struct arena *a,
			struct frame_symbol *out)
{
	const struct beam *b = priv;
	const struct functab_entry *fn = functab__get(&b->rs.names, f->file_id);

	(void)a;
	if (!fn) {
		*out = (struct frame_symbol){.function = "[beam: unknown code]", .file = ""};
		return true;
	}
	*out = (struct frame_symbol){.function = fn->func, .file = fn->file};
	if (fn->file[0])
		out->line = (uint32_t)f->addr;
	return true;
}

static void beam_print_stats(void *priv, FILE *out)
{
	struct beam *b = priv;
	uint64_t c[BEAM_CTR__COUNT] = {0};
	struct beam_stats s;

	pthread_mutex_lock(&b->rs.lock);
	s = b->st;
	pthread_mutex_unlock(&b->rs.lock);
	if (!s.processes)
		return;
	counters__sum(b->rs.counters_fd, c, BEAM_CTR__COUNT);
	fprintf(out,
		"  beam: %llu processes; %llu walks into JIT code, %llu from C code's caller "
		"by the saved stack; cut: %llu without a description, %llu from native code, "
		"%llu from C code without its scheduler, %llu short of the bottom frame, "
		"%llu full, %llu not its pc; %llu module records read (%llu modules, %llu "
		"malformed), %llu frames unnamed\n",
		(unsigned long long)s.processes, (unsigned long long)c[BEAM_CTR_WALKS],
		(unsigned long long)c[BEAM_CTR_FROM_BIF], (unsigned long long)c[BEAM_CTR_NO_PROC],
		(unsigned long long)c[BEAM_CTR_FROM_NATIVE],
		(unsigned long long)c[BEAM_CTR_NO_SCHED], (unsigned long long)c[BEAM_CTR_NO_BOTTOM],
		(unsigned long long)c[BEAM_CTR_FULL], (unsigned long long)c[BEAM_CTR_NO_PROGRESS],
		(unsigned long long)s.reads, (unsigned long long)s.modules,
		(unsigned long long)s.bad_records, (unsigned long long)s.unnamed);
}

static const void *beam_elf(size_t *size)
{
	return beam_bpf__elf_bytes(size);
}

const struct runtime_ops beam_runtime = {
    .name = "beam",
    .title = "Erlang",
    .walker = WALKER_BEAM,
    .frame_kind = FRAME_BEAM,
    .kind =
	{
	    .name = "beam",
	    .otlp_type = "beam",
	    .about = "Erlang frame (BEAM JIT)",
	    .colour = {250, 18, 50, 62, 8}, /* blue-violet: between PHP's indigo and V8's */
	    .folded_suffix = "",
	},
    /* Its walker has an unrolled variant, tail-calling itself. */
    .floor = {.bpf_loop = false, .without = "Erlang frames stay native"},
    .bpf_elf = beam_elf,
    .bpf_walker = "beam_walk",
    .init = beam_init,
    .free = runtime_state__delete,
    .detect = beam_detect,
    .describe = beam_describe,
    .forget = beam_forget,
    .ingest = beam_ingest,
    .frame_symbol = beam_symbol,
    .print_stats = beam_print_stats,
};
