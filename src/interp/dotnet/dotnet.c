// SPDX-License-Identifier: Apache-2.0
/* .NET (CoreCLR) support: the runtime registry's entry (src/interp/runtime.h). Detection:
 * libcoreclr.so (its version from its folder and the string it embeds, its DAC table's
 * address), the JIT's executable views (memfd:doublemapper) and the images (*.dll).
 * Description: the process's DAC table is read (the runtime has started), and every run
 * of managed mappings (the JIT's views, ready-to-run images) is claimed UNW_MARK_WALK
 * and sent to BPF (pid_to_dotnet). Ingest: a JIT frame is named by its method (the code
 * heaps and the module's metadata: dotnet_names.h), cached per code address and checked
 * again against the code's header (tiered compilation replaces code); a ready-to-run
 * frame by the image holding its code. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "elf/elf_file.h"
#include "interp/dotnet/dotnet_meta.h"
#include "interp/dotnet/dotnet_names.h"
#include "interp/dotnet/dotnet_pe.h"
#include "interp/runtime.h"
#include "interp/runtime_state.h"
#include "loader/counters.h"
#include "sample.h"
#include "util/functab.h"
#include "util/hmap.h"
#include "util/log.h"
#include "dotnet.skel.h"

#define MAX_NAMES (1 << 20)    /* distinct (method, module) names kept; then frames are unnamed */
#define MAX_PCS (1 << 16)      /* code addresses named per process; then the cache starts over */
#define MAX_IMAGES 64	       /* images remembered per process to name their frames */
#define MAX_DATA (1 << 20)     /* bytes of libcoreclr.so's .data searched for its version */
#define TESTED_MAJOR 8	       /* the only CoreCLR the tests run (README.md) */
#define MAX_IMAGE (512u << 20) /* an image larger than this is not opened for its names */

enum dn_file_kind {
	DN_FILE_CORECLR = 1, /* libcoreclr.so */
	DN_FILE_CODE,	     /* the JIT's double-mapped memory */
	DN_FILE_IMAGE,	     /* an assembly (*.dll), ready-to-run code in it or not */
};

/* A file detect() accepted, by file id (first: runtime_state.h). */
struct dn_file {
	uint32_t file_id;
	uint8_t kind; /* enum dn_file_kind */
	bool said;
	char *path;
	const char *base; /* path's last component */
	/* libcoreclr.so's: */
	struct dn_version version;
	uint64_t dac_table; /* g_dacTable's ELF address; 0: none */
	struct elf_segment segs[ELF_FILE_MAX_SEGMENTS];
	size_t nsegs;
	/* An image's: opened the first time one of its frames is named (tried), mapped,
	 * its metadata and ready-to-run methods (ok). */
	bool tried, ok;
	void *map;
	size_t size;
	struct dn_pe pe;
	struct dn_r2r r2r;
};

/* An image mapped executable in a process: its frames are named from its file. */
struct dn_image {
	uint64_t start, end, pgoff;
	struct dn_file *file;
	uint32_t name; /* functab id of its frames no method is found for */
};

/* A code address as first named: the code's start and header word (whose change says
 * the code was replaced), its name's id. */
struct dn_pc_entry {
	uint64_t pc;
	uint64_t start, header;
	uint32_t name;
	int8_t after_call; /* a scanned frame's: 1 a call precedes pc, -1 none, 0 not read */
};

struct dn_process {
	uint32_t pid; /* first: runtime_state.h */
	bool dac_ok;  /* the DAC table read (the runtime has started) */
	uint64_t dac[DN_DAC_ENTRIES];
	/* Where its DAC table is (0: libcoreclr.so has none), its library's load address and
	 * span, its runtime's major version: the table is read again until the runtime
	 * has filled it (a process described while it starts). */
	uint64_t dac_table, base, span;
	uint32_t major;
	const struct dn_layout *layout; /* NULL: its JIT frames are not named */
	struct dn_names *names;		/* made once the DAC table is read */
	struct hmap pcs;		/* struct dn_pc_entry by pc */
	uint32_t npcs;
	/* The name of the frame ingested last (a sample's frames come in order, innermost
	 * first). */
	uint32_t last;
	uint32_t nimages;
	struct dn_image images[MAX_IMAGES];
	struct dn_proc bp; /* its managed ranges, as the walker has them */
};
_Static_assert(offsetof(struct dn_file, file_id) == 0 && offsetof(struct dn_process, pid) == 0,
	       "keyed as runtime_state.h says");

struct dn_stats {
	uint64_t processes, no_dac, bad_dac, dropped_ranges, frames_image, lookups, replaced,
	    methods, stubs, unnamed, scanned, not_calls, repeats;
};

/* Files: struct dn_file; processes: struct dn_process; names: the frames' names. */
struct dotnet {
	struct runtime_state rs; /* first: runtime_state__new makes the whole */
	struct dn_stats st;	 /* under rs.lock */
	uint32_t unnamed;	 /* functab id of JIT frames not named */
};
_Static_assert(offsetof(struct dotnet, rs) == 0, "runtime_state.h");

static void free_file(void *file)
{
	struct dn_file *f = file;

	dn_r2r__free(&f->r2r);
	if (f->map)
		munmap(f->map, f->size);
	free(f->path);
	free(f);
}

static int u64_eq(const void *e, const void *k)
{
	return *(const uint64_t *)e == *(const uint64_t *)k;
}

static void free_process(struct runtime_state *rs, void *proc)
{
	struct dn_process *p = proc;

	hmap_free_entries(&p->pcs);
	dn_names__free(p->names);
	free(p);
}

static const struct runtime_state_conf state = {
    .pid_map = "pid_to_dotnet",
    .counters_map = "dotnet_counters",
    .max_names = MAX_NAMES,
    .free_file = free_file,
    .free_proc = free_process,
};

static int dotnet_init(const struct runtime_env *env, struct bpf_object *obj, void **priv)
{
	return runtime_state__new(obj, &state, sizeof(struct dotnet), priv);
}

/* ---- detection ---- */

static enum dn_file_kind file_kind(const struct runtime_file *rf, const char *base)
{
	size_t n = strlen(base);

	if (!strcmp(base, "libcoreclr.so") && rf->elf)
		return DN_FILE_CORECLR;
	/* CoreCLR's W^X double mapping: a memfd the kernel names "/memfd:NAME (deleted)". */
	if (!strncmp(rf->path, "/memfd:doublemapper", 19))
		return DN_FILE_CODE;
	if (n > 4 && !strcasecmp(base + n - 4, ".dll") && !rf->elf)
		return DN_FILE_IMAGE;
	return 0;
}

/* libcoreclr.so's version and DAC table address, and its segments for the load bias. */
static void read_coreclr(struct dn_file *f, const struct elf_file *e)
{
	struct elf_section sec;
	const struct elf_segment *segs;
	const void *data;
	size_t size;

	dn_version__from_path(f->path, &f->version);
	if (!elf_file__section(e, ".data", &sec) &&
	    !elf_file__section_data(e, &sec, MAX_DATA, &data, &size))
		dn_version__from_data(data, size, &f->version);
	if (elf_file__symbol(e, "g_dacTable", &f->dac_table, NULL))
		f->dac_table = 0;
	segs = elf_file__segments(e, &f->nsegs);
	if (f->nsegs > ELF_FILE_MAX_SEGMENTS)
		f->nsegs = ELF_FILE_MAX_SEGMENTS;
	memcpy(f->segs, segs, f->nsegs * sizeof(*segs));
}

static bool dotnet_detect(void *priv, const struct runtime_file *rf)
{
	struct dotnet *d = priv;
	const char *slash = strrchr(rf->path, '/');
	const char *base = slash ? slash + 1 : rf->path;
	enum dn_file_kind kind = file_kind(rf, base);
	struct dn_file *f;
	bool yes = false;

	if (!kind)
		return false;
	f = calloc(1, sizeof(*f));
	if (!f)
		return false;
	f->file_id = rf->file_id;
	f->kind = kind;
	f->path = strdup(rf->path);
	if (f->path) {
		f->base = f->path + (base - rf->path);
		if (kind == DN_FILE_CORECLR)
			read_coreclr(f, rf->elf);
		yes = runtime_state__add_file(&d->rs, f);
	}
	if (!yes)
		free_file(f);
	return yes || runtime_state__file(&d->rs, rf->file_id);
}

/* ---- description ---- */

/* libcoreclr.so among pid's mappings, and its load address (the bias of an image
 * linked at 0) and span. */
static struct dn_file *find_coreclr(struct dotnet *d, const struct proc_mapping *maps, uint32_t n,
				    uint64_t *bias, uint64_t *span)
{
	struct dn_file *f;

	for (uint32_t i = 0; (f = runtime_state__mapped_file(&d->rs, maps, n, &i)); i++) {
		if (f->kind != DN_FILE_CORECLR ||
		    !elf_segments__vaddr_bias(f->segs, f->nsegs, maps[i].start, maps[i].pgoff,
					      bias))
			continue;
		*span = 0;
		for (size_t s = 0; s < f->nsegs; s++)
			if (f->segs[s].vaddr + f->segs[s].memsz > *span)
				*span = f->segs[s].vaddr + f->segs[s].memsz;
		return f;
	}
	return NULL;
}

/* Says once per libcoreclr.so which runtime it is; a major version the tests do not run
 * is walked all the same (frame pointers are every version's), and said to be untested. */
static void say_file(struct dn_file *f, uint32_t pid)
{
	const uint32_t *v = f->version.v;

	if (f->said)
		return;
	f->said = true;
	if (v[0] == TESTED_MAJOR)
		pr_info("dotnet: %s is .NET %u.%u.%u (CoreCLR %s, pid %u)", f->path, v[0], v[1],
			v[2], f->version.build[0] ? f->version.build : "?", pid);
	else
		pr_warn("dotnet: %s is .NET %u.%u.%u (CoreCLR %s, pid %u), a version ebprof is not "
			"tested on (it is on .NET %d): its frames are walked, their names may fail",
			f->path, v[0], v[1], v[2], f->version.build[0] ? f->version.build : "?",
			pid, TESTED_MAJOR);
}

static int read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return runtime_mem__read(*(const uint32_t *)ctx, addr, buf, len);
}

/* The process's DAC table, once the runtime has filled it, and then its namer. */
static void read_dac(struct dotnet *d, struct dn_process *p)
{
	int err;

	if (p->dac_ok || !p->dac_table)
		return;
	err = dn_dac__read(read_mem, &p->pid, p->dac_table, p->base, p->span, p->dac);
	p->dac_ok = !err;
	p->layout = dn_layout__for(p->major);
	if (!err && p->layout)
		p->names = dn_names__new(p->pid, p->layout, p->dac[p->layout->dac_jit_manager]);
	if (err == -EINVAL) {
		d->st.bad_dac++;
		p->dac_table = 0; /* not read again */
		pr_debug("dotnet: pid %u: its DAC table is not one ebprof understands", p->pid);
	}
}

static struct dn_process *get_process(struct dotnet *d, uint32_t pid)
{
	struct dn_process *p = runtime_state__proc(&d->rs, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	hmap_init(&p->pcs, u64_eq);
	if (runtime_state__set_proc(&d->rs, pid, p))
		return NULL;
	d->st.processes++;
	return p;
}

/* Whether mapping m holds managed code: the JIT's view, an image, or anonymous executable
 * memory (the JIT's code when W^X is off: DOTNET_EnableWriteXorExecute=0). Images are
 * remembered in p to name their frames. */
static bool managed(struct dotnet *d, struct dn_process *p, const struct proc_mapping *m)
{
	const struct dn_file *f = m->file_id ? runtime_state__file(&d->rs, m->file_id) : NULL;

	/* [vsyscall] is listed with the anonymous mappings, above user space. */
	if (!m->file_id)
		return m->end <= 1ULL << 47;
	if (!f || f->kind == DN_FILE_CORECLR)
		return false;
	if (f->kind == DN_FILE_IMAGE && p->nimages < MAX_IMAGES)
		p->images[p->nimages++] = (struct dn_image){
		    .start = m->start,
		    .end = m->end,
		    .pgoff = m->pgoff,
		    .file = (struct dn_file *)f,
		    .name = functab__intern(&d->rs.names, "[.NET ready-to-run code]", f->base)};
	return true;
}

/* The BPF description and the claims: the process's runs of managed mappings. */
static int fill(struct dotnet *d, struct dn_process *p, const struct proc_mapping *maps, uint32_t n,
		struct dn_proc *bp, struct runtime_marks *marks)
{
	struct dn_map *dm = calloc(n ? n : 1, sizeof(*dm));
	uint32_t dropped;

	if (!dm)
		return -ENOMEM;
	memset(bp, 0, sizeof(*bp));
	p->nimages = 0;
	for (uint32_t i = 0; i < n; i++)
		dm[i] = (struct dn_map){.start = maps[i].start,
					.end = maps[i].end,
					.kind = managed(d, p, &maps[i]) ? DN_MAP_MANAGED
									: DN_MAP_NATIVE};
	bp->nranges = dn_ranges__build(dm, n, bp->range, DN_MAX_RANGES, &dropped);
	d->st.dropped_ranges += dropped;
	if (bp->nranges)
		bp->hull = (struct dn_range){bp->range[0].low, bp->range[bp->nranges - 1].high};
	free(dm);
	for (uint32_t i = 0; i < bp->nranges; i++)
		pr_debug("dotnet: pid %u: managed code in %#llx-%#llx", p->pid,
			 (unsigned long long)bp->range[i].low,
			 (unsigned long long)bp->range[i].high);
	for (uint32_t i = 0; i < bp->nranges && marks->n < RUNTIME_MAX_MARKS; i++) {
		marks->m[marks->n].start = bp->range[i].low;
		marks->m[marks->n].end = bp->range[i].high;
		marks->m[marks->n++].mark = UNW_MARK_WALK;
	}
	return 0;
}

static int dotnet_describe(void *priv, uint32_t pid, const struct proc_mapping *maps, uint32_t n,
			   struct runtime_marks *marks)
{
	_Static_assert(DN_MAX_RANGES <= RUNTIME_MAX_MARKS, "every range is claimed");
	struct dotnet *d = priv;
	uint64_t bias = 0, span = 0;
	struct dn_process *p;
	struct dn_proc bp;
	struct dn_file *f;
	int err = -ENOENT;

	pthread_mutex_lock(&d->rs.lock);
	f = find_coreclr(d, maps, n, &bias, &span);
	if (!f)
		goto cleanup;
	say_file(f, pid);
	err = -ENOMEM;
	p = get_process(d, pid);
	if (!p)
		goto cleanup;
	p->dac_table = f->dac_table ? f->dac_table + bias : 0;
	p->base = bias;
	p->span = span;
	p->major = f->version.v[0];
	read_dac(d, p);
	if (!p->dac_ok)
		d->st.no_dac++;
	err = fill(d, p, maps, n, &bp, marks);
	if (!err)
		err = bpf_map_update_elem(d->rs.map_fd, &pid, &bp, BPF_ANY) ? -errno : 0;
	if (!err)
		p->bp = bp;
cleanup:
	if (err && err != -ENOENT)
		pr_debug("dotnet: describing pid %u: %s", pid, strerror(-err));
	pthread_mutex_unlock(&d->rs.lock);
	return err;
}

static void dotnet_forget(void *priv, uint32_t pid)
{
	struct dotnet *d = priv;

	runtime_state__forget(&d->rs, pid);
}

/* ---- names ---- */

/* The name of JIT code at pc, looked up (not cached). */
static uint32_t lookup(struct dotnet *d, struct dn_process *p, uint64_t pc, uint64_t *start,
		       uint64_t *header)
{
	char func[512];
	const char *file;
	int kind;

	d->st.lookups++;
	*start = *header = 0;
	if (!p->names)
		read_dac(d, p);
	kind = p->names ? dn_names__lookup(p->names, pc, func, sizeof(func), &file, start, header)
			: DN_NAME_NONE;
	if (kind == DN_NAME_METHOD)
		d->st.methods++;
	else if (kind == DN_NAME_STUB)
		d->st.stubs++;
	if (kind != DN_NAME_NONE)
		return functab__intern(&d->rs.names, func, file);
	d->st.unnamed++;
	if (!d->unnamed)
		d->unnamed = functab__intern(&d->rs.names, "[.NET JIT code]", "");
	return d->unnamed;
}

/* Whether the code a cached name was read from is still there: its header word, which
 * is new when the JIT put other code at its address. */
static bool still_there(struct dn_process *p, const struct dn_pc_entry *e)
{
	uint64_t header;

	if (!e->start)
		return true;
	return !dn_code__header(runtime_proc__read, p, e->start, &header) && header == e->header;
}

/* The cache's entry of pc, made when missing (NULL on ENOMEM). */
static struct dn_pc_entry *pc_entry(struct dn_process *p, uint64_t pc)
{
	struct dn_pc_entry *e = hmap_find(&p->pcs, hash_u64(pc), &pc);

	if (e)
		return e;
	if (p->npcs >= MAX_PCS) {
		hmap_free_entries(&p->pcs);
		hmap_init(&p->pcs, u64_eq);
		p->npcs = 0;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->pc = pc;
	if (hmap_insert(&p->pcs, hash_u64(pc), e)) {
		free(e);
		return NULL;
	}
	p->npcs++;
	return e;
}

/* The name of JIT code at pc, from the cache when its code is still there; *start gets
 * where its code starts (0: not known). */
static uint32_t jit_name(struct dotnet *d, struct dn_process *p, uint64_t pc, uint64_t *start)
{
	struct dn_pc_entry *e = pc_entry(p, pc);

	if (!e)
		return lookup(d, p, pc, start, &(uint64_t){0});
	/* Unnamed while the runtime had not started: asked again. */
	if (!e->name || !still_there(p, e) || (e->name == d->unnamed && !p->names)) {
		if (e->name && e->name != d->unnamed)
			d->st.replaced++;
		e->name = lookup(d, p, pc, &e->start, &e->header);
	}
	*start = e->start;
	return e->name;
}

/* Whether a scanned word ret is a return address: a call instruction ends right before
 * it (read once per address). */
static bool is_return_address(struct dotnet *d, struct dn_process *p, uint64_t ret)
{
	struct dn_pc_entry *e = pc_entry(p, ret);
	uint8_t b[8];
	bool yes;

	if (e && e->after_call)
		return e->after_call > 0;
	yes = !runtime_proc__read(p, ret - 8, b, sizeof(b)) && dn_code__after_call(b);
	if (e)
		e->after_call = yes ? 1 : -1;
	return yes;
}

/* Maps image f's file (through pid's root) and reads its metadata and ready-to-run
 * methods, once. */
static void open_image(struct dn_file *f, uint32_t pid)
{
	char path[4096 + 64];

	f->tried = true;
	if (snprintf(path, sizeof(path), "/proc/%u/root%s", pid, f->path) >= (int)sizeof(path))
		return;
	f->map = dn_pe__map(path, MAX_IMAGE, &f->size);
	f->ok = f->map && !dn_pe__open(&f->pe, f->map, f->size) && !dn_r2r__open(&f->pe, &f->r2r);
}

/* The name of ready-to-run code at pc of image im: its method's, found from the image's
 * file, else the image's. */
static uint32_t image_name(struct dotnet *d, struct dn_process *p, const struct dn_image *im,
			   uint64_t pc)
{
	struct dn_pc_entry *e = pc_entry(p, pc);
	struct dn_file *f = im->file;
	char func[512];
	uint32_t rid;

	if (e && e->name)
		return e->name;
	d->st.frames_image++;
	if (!f->tried)
		open_image(f, p->pid);
	rid = f->ok ? dn_r2r__method(&f->pe, &f->r2r, pc - im->start + im->pgoff) : 0;
	if (rid && !dn_pe__method_name(&f->pe, rid, func, sizeof(func)))
		d->st.methods++;
	else
		d->st.unnamed++;
	if (e)
		e->name = rid && func[0] ? functab__intern(&d->rs.names, func, f->base) : im->name;
	return e ? e->name : im->name;
}

/* The name of a managed pc of process p: the method of the image whose ready-to-run
 * code holds it, else its JIT code's method (*start: where that code starts, 0 when not
 * known). A return address is named by its call, the byte before. */
static uint32_t name_of(struct dotnet *d, struct dn_process *p, const struct user_frame *uf,
			uint64_t *start)
{
	uint64_t pc = uf->addr - ((uf->pad & DN_FRAME_EXACT) ? 0 : 1);

	*start = 0;
	for (uint32_t i = 0; i < p->nimages; i++)
		if (pc >= p->images[i].start && pc < p->images[i].end)
			return image_name(d, p, &p->images[i], pc);
	return jit_name(d, p, pc, start);
}

/* Whether the call that return address ret follows goes out of managed code (a call
 * rel32, or through a pointer at rip plus a displacement, to the runtime's helpers). */
static bool calls_out(struct dn_process *p, uint64_t ret)
{
	uint8_t b[8];
	int32_t disp;
	uint64_t target;

	if (runtime_proc__read(p, ret - 8, b, sizeof(b)))
		return false;
	memcpy(&disp, b + 4, sizeof(disp));
	if (b[3] == 0xe8)
		target = ret + (uint64_t)(int64_t)disp;
	else if (b[2] != 0xff || b[3] != 0x15 ||
		 runtime_proc__read(p, ret + (uint64_t)(int64_t)disp, &target, sizeof(target)))
		return false;
	for (uint32_t i = 0; i < p->bp.nranges && i < DN_MAX_RANGES; i++)
		if (target >= p->bp.range[i].low && target < p->bp.range[i].high)
			return false;
	return true;
}

/* Whether frame uf of p, named name, repeats the frame before it (its callee): the same
 * method, returned to from a call into the runtime. On-stack replacement runs a loop's
 * optimized code in a frame above the frame of its tier-0 code, entered from the tier-0
 * code's call of the runtime's patchpoint helper, whose return address (on the rbp
 * chain, or found by the scan) is that method's again. A method calling itself, in the
 * same code or other code of it (a tier-1 body called from an older one), calls managed
 * code: kept. */
static bool repeats(struct dn_process *p, const struct user_frame *uf, uint32_t name)
{
	return name == p->last && !(uf->pad & DN_FRAME_EXACT) && calls_out(p, uf->addr);
}

static unsigned int dotnet_ingest(void *priv, uint32_t pid, const struct user_frame *uf,
				  struct frame *out, unsigned int max)
{
	struct dotnet *d = priv;
	struct dn_process *p;
	uint64_t start;

	if (!max)
		return 0;
	out[0] = (struct frame){.kind = FRAME_DOTNET};
	pthread_mutex_lock(&d->rs.lock);
	p = runtime_state__proc(&d->rs, pid);
	/* A word the walker found on the stack that no call precedes is no frame. */
	if (p && (uf->pad & DN_FRAME_SCANNED)) {
		d->st.scanned++;
		if (!is_return_address(d, p, uf->addr)) {
			d->st.not_calls++;
			pthread_mutex_unlock(&d->rs.lock);
			return 0;
		}
	}
	if (p)
		out[0].file_id = name_of(d, p, uf, &start);
	/* A scanned word in no image and no method's code (between the ranges, in a
	 * stub) is no frame either. */
	if (p && (uf->pad & DN_FRAME_SCANNED) && out[0].file_id == d->unnamed) {
		d->st.not_calls++;
		pthread_mutex_unlock(&d->rs.lock);
		return 0;
	}
	if (p && repeats(p, uf, out[0].file_id)) {
		d->st.repeats++;
		pthread_mutex_unlock(&d->rs.lock);
		return 0;
	}
	if (p)
		p->last = out[0].file_id;
	pthread_mutex_unlock(&d->rs.lock);
	return 1;
}

/* Managed frames: the method (or where its code lies), its module's file, no line. */
static bool dotnet_symbol(void *priv, const struct frame *f, struct arena *a,
			  struct frame_symbol *out)
{
	const struct dotnet *d = priv;
	/* Read at report time: no name is being added. */
	const struct functab_entry *fn = functab__get(&d->rs.names, f->file_id);

	if (!fn) {
		*out = (struct frame_symbol){.function = "[.NET: unknown process]", .file = ""};
		return true;
	}
	*out = (struct frame_symbol){.function = fn->func, .file = fn->file};
	return true;
}

static void dotnet_print_stats(void *priv, FILE *out)
{
	struct dotnet *d = priv;
	uint64_t c[DN_CTR__COUNT] = {0};
	struct dn_stats s;

	pthread_mutex_lock(&d->rs.lock);
	s = d->st;
	pthread_mutex_unlock(&d->rs.lock);
	if (!s.processes)
		return;
	counters__sum(d->rs.counters_fd, c, DN_CTR__COUNT);
	fprintf(out,
		"  dotnet: %llu processes (%llu descriptions before the DAC table was filled, %llu "
		"not understood, "
		"%llu managed mappings past the ranges); %llu walks into managed code, cut: %llu "
		"without a description, %llu unreadable, %llu impossible caller, %llu not its "
		"pc, %llu full; %llu ready-to-run frames; %llu code addresses looked up (%llu "
		"replaced since): %llu methods, %llu stubs, %llu unnamed; %llu stack words "
		"scanned as frameless callers, %llu of them no method's return address, %llu "
		"repeating the frame before (on-stack replacement)\n",
		(unsigned long long)s.processes, (unsigned long long)s.no_dac,
		(unsigned long long)s.bad_dac, (unsigned long long)s.dropped_ranges,
		(unsigned long long)c[DN_CTR_WALKS], (unsigned long long)c[DN_CTR_NO_PROC],
		(unsigned long long)c[DN_CTR_FAULT], (unsigned long long)c[DN_CTR_BAD],
		(unsigned long long)c[DN_CTR_NO_PROGRESS], (unsigned long long)c[DN_CTR_FULL],
		(unsigned long long)s.frames_image, (unsigned long long)s.lookups,
		(unsigned long long)s.replaced, (unsigned long long)s.methods,
		(unsigned long long)s.stubs, (unsigned long long)s.unnamed,
		(unsigned long long)s.scanned, (unsigned long long)s.not_calls,
		(unsigned long long)s.repeats);
}

static const void *dotnet_elf(size_t *size)
{
	return dotnet_bpf__elf_bytes(size);
}

const struct runtime_ops dotnet_runtime = {
    .name = "dotnet",
    .title = ".NET",
    .walker = WALKER_DOTNET,
    .frame_kind = FRAME_DOTNET,
    .kind =
	{
	    .name = "dotnet",
	    .otlp_type = "dotnet",
	    .about = ".NET frame (CoreCLR)",
	    .colour = {130, 18, 45, 50, 8}, /* sea green: the hue no other kind uses */
	    .folded_suffix = "",
	},
    /* Its walker has an unrolled variant, tail-calling itself. */
    .floor = {.bpf_loop = false, .without = ".NET frames stay native"},
    .bpf_elf = dotnet_elf,
    .bpf_walker = "dotnet_walk",
    .init = dotnet_init,
    .free = runtime_state__delete,
    .detect = dotnet_detect,
    .describe = dotnet_describe,
    .forget = dotnet_forget,
    .ingest = dotnet_ingest,
    .frame_symbol = dotnet_symbol,
    .print_stats = dotnet_print_stats,
};
