// SPDX-License-Identifier: Apache-2.0
/* The Go runtime in the registry: Go frames are native (named from the pclntab by the
 * symbolizer); this file finds Go binaries and their release, tells the Go walker
 * (go.bpf.c) where the running goroutine's pprof labels are and where cgo calls
 * switch stacks (claiming runtime.asmcgocall), and reads the label strings the walker
 * pointed at while the process lives. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "interp/go/go_proc.h"
#include "interp/go/go_cgo.h"
#include "interp/runtime.h"
#include "interp/runtime_state.h"
#include "loader/counters.h"
#include "profile/labels.h"
#include "sample.h"
#include "symbol/gopclntab.h"
#include "util/arena.h"
#include "util/hmap.h"
#include "util/log.h"
#include "util/mapguard.h"

#include "go.skel.h"

#define BUILDINFO_MAGIC "\xff Go buildinf:"
#define BUILDINFO_SCAN (1u << 20) /* bytes of the data segment searched without sections */

/* Offsets of the runtime's g and m and where the labels are, per release, read from
 * each release's DWARF (llvm-dwarfdump --name=runtime.g / runtime.m on a plain build).
 * A release not here gets names and stacks, but no labels. */
static const struct go_layout {
	uint8_t minor; /* 1.MINOR */
	uint16_t m_curg, g_labels;
	uint8_t kind;
} layouts[] = {
    {19, 192, 360, GO_LABELS_MAP},   {21, 192, 344, GO_LABELS_MAP},
    {22, 192, 344, GO_LABELS_MAP},   {23, 192, 352, GO_LABELS_MAP},
    {24, 192, 352, GO_LABELS_SLICE}, {26, 184, 352, GO_LABELS_SLICE},
    {27, 184, 352, GO_LABELS_SLICE},
};
#define GO_G_M 48 /* offsetof(g, m): the same in every release above */

struct go_file {
	uint32_t file_id; /* first: runtime_state.h */
	uint8_t minor;	  /* 0: unknown release */
	int64_t tls_g;
	struct go_cgo_switch cgo; /* runtime.asmcgocall; cgo.len 0: none */
};

struct go_stats {
	uint64_t processes, unknown_release, label_reads, label_read_failures, label_from_cache;
	uint64_t cgo_claimed; /* processes whose cgo calls the walker crosses */
};

/* A label string read before, by (pid, address, length): what a sample ingested after
 * its process exited (the end of a recording) still gets. Go strings do not change;
 * a fresh read is tried first, so only a process that is gone is answered from here. */
struct go_str {
	uint32_t pid, len;
	uint64_t addr;
	char s[];
};
#define GO_STR_CACHE_MAX (1u << 16) /* entries; then the cache starts over */

_Static_assert(offsetof(struct go_file, file_id) == 0, "keyed as runtime_state.h says");

/* Files: struct go_file; no processes (a process is its BPF entry alone), no names. */
struct go {
	struct runtime_state rs; /* first: runtime_state__new makes the whole */
	struct go_stats st;
	char strings[LABELS_MAX * 2][LABEL_VALUE_MAX + 1]; /* what labels() returned last */
	struct hmap str_cache;				   /* struct go_str; ingest thread only */
	struct arena str_arena;
};
_Static_assert(offsetof(struct go, rs) == 0, "runtime_state.h");

static int str_eq(const void *e, const void *k)
{
	const struct go_str *a = e, *b = k;

	return a->pid == b->pid && a->addr == b->addr && a->len == b->len;
}

static uint64_t str_hash(const struct go_str *k)
{
	return hash_u64(k->addr ^ ((uint64_t)k->pid << 40) ^ k->len);
}

static void str_cache_clear(struct go *g)
{
	hmap_free(&g->str_cache);
	arena_free(&g->str_arena);
	hmap_init(&g->str_cache, str_eq);
	arena_init(&g->str_arena);
}

/* Keeps s as what (pid, uf) read; a full cache starts over. */
static void str_cache_put(struct go *g, uint32_t pid, const struct user_frame *uf, const char *s)
{
	size_t n = strlen(s);
	struct go_str key = {pid, uf->pad & UF_LABEL_LEN_MASK, uf->addr}, *e;

	if (hmap_find(&g->str_cache, str_hash(&key), &key))
		return;
	if (g->str_cache.len >= GO_STR_CACHE_MAX)
		str_cache_clear(g);
	e = arena_alloc(&g->str_arena, sizeof(*e) + n + 1);
	if (!e)
		return;
	*e = key;
	memcpy(e->s, s, n + 1);
	hmap_insert(&g->str_cache, str_hash(&key), e);
}

static bool str_cache_get(struct go *g, uint32_t pid, const struct user_frame *uf, char *buf,
			  size_t max)
{
	struct go_str key = {pid, uf->pad & UF_LABEL_LEN_MASK, uf->addr};
	const struct go_str *e = hmap_find(&g->str_cache, str_hash(&key), &key);

	if (!e)
		return false;
	snprintf(buf, max + 1, "%s", e->s);
	return true;
}

/* ---- detection ---- */

/* "go1.23.5" -> 23; 0 for anything else. */
static uint8_t minor_of(const char *v, size_t len)
{
	unsigned int m = 0;
	size_t i = 4;

	if (len < 5 || memcmp(v, "go1.", 4))
		return 0;
	for (; i < len && v[i] >= '0' && v[i] <= '9' && m < 1000; i++)
		m = m * 10 + (v[i] - '0');
	return m > 0 && m < 256 ? (uint8_t)m : 0;
}

/* The release in a .go.buildinfo blob (1.18+: the version string inline after the
 * 32-byte header, as a varint length and bytes). */
static uint8_t buildinfo_minor(const uint8_t *b, size_t n)
{
	size_t len;

	if (n < 34 || memcmp(b, BUILDINFO_MAGIC, 14) || !(b[15] & 2))
		return 0;
	len = b[32];
	if (len & 0x80 || len > n - 33)
		return 0;
	return minor_of((const char *)b + 33, len);
}

static uint8_t minor_from_sections(Elf *elf, int fd)
{
	Elf_Scn *scn = NULL;
	uint8_t b[64];
	size_t shstrndx;
	const char *name;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".go.buildinfo"))
			continue;
		if (pread(fd, b, sizeof(b), (off_t)sh.sh_offset) != (ssize_t)sizeof(b))
			return 0;
		return buildinfo_minor(b, sizeof(b));
	}
	return 0;
}

/* Without sections: .go.buildinfo opens the first writable segment, 16-byte aligned. */
static uint8_t minor_from_segments(Elf *elf, int fd, const GElf_Phdr *rw)
{
	size_t n = rw->p_filesz < BUILDINFO_SCAN ? rw->p_filesz : BUILDINFO_SCAN;
	uint8_t *b = malloc(n ? n : 1), minor = 0;

	if (b && pread(fd, b, n, (off_t)rw->p_offset) == (ssize_t)n)
		for (size_t i = 0; i + 64 <= n && !minor; i += 16)
			minor = buildinfo_minor(b + i, 64);
	free(b);
	return minor;
}

/* The thread pointer is past the executable's TLS block (x86-64 variant II); Go's g is
 * runtime.tlsg, its first word (-8 when Go links alone: one 8-byte TLS slot). */
static void inspect(Elf *elf, int fd, struct go_file *gf)
{
	GElf_Phdr ph, rw = {0};
	size_t n = 0;

	gf->tls_g = -8;
	if (elf_getphdrnum(elf, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph))
			continue;
		if (ph.p_type == PT_TLS && ph.p_memsz && ph.p_memsz < (1u << 20)) {
			uint64_t align = ph.p_align > 1 ? ph.p_align : 1;

			gf->tls_g = -(int64_t)((ph.p_memsz + align - 1) / align * align);
		}
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W) && !rw.p_filesz)
			rw = ph;
	}
	gf->minor = minor_from_sections(elf, fd);
	if (!gf->minor && rw.p_filesz)
		gf->minor = minor_from_segments(elf, fd, &rw);
}

static bool go_detect(void *priv, const struct runtime_file *f)
{
	struct go *g = priv;
	struct go_file *gf;
	unsigned int guard;
	Elf *elf;
	bool yes;

	elf_version(EV_CURRENT);
	/* libelf maps the file: one truncated meanwhile is not Go to us, and not SIGBUS. */
	guard = mapguard__begin();
	elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		mapguard__end(guard);
		return false;
	}
	yes = elf_kind(elf) == ELF_K_ELF && go_elf__has_note(elf);
	gf = yes ? calloc(1, sizeof(*gf)) : NULL;
	if (gf) {
		gf->file_id = f->file_id;
		inspect(elf, f->fd, gf);
		if (f->elf)
			go_cgo__find(f->fd, f->elf, &gf->cgo);
		pr_debug("go: %s is Go 1.%u, g at fs%+lld; asmcgocall: %llu bytes, frame %u, g "
			 "at sp+%u and depth at sp+%u%s; systemstack: %llu bytes, frame %u; "
			 "morestack: %llu bytes, g.sched.bp at %u",
			 f->path, gf->minor, (long long)gf->tls_g, (unsigned long long)gf->cgo.len,
			 gf->cgo.frame, gf->cgo.g, gf->cgo.depth,
			 gf->cgo.slots_from_code ? "" : " (not found in its code)",
			 (unsigned long long)gf->cgo.ss_len, gf->cgo.ss_frame,
			 (unsigned long long)gf->cgo.ms_len, gf->cgo.sched_bp);
	}
	elf_end(elf);
	if (mapguard__end(guard)) {
		free(gf);
		return false;
	}
	if (!gf)
		return false;
	if (!runtime_state__add_file(&g->rs, gf))
		free(gf);
	return true;
}

/* ---- processes ---- */

static const struct go_layout *layout_of(uint8_t minor)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].minor == minor)
			return &layouts[i];
	return NULL;
}

/* Claims [off, off + len) of gf's file in the mapping that holds it (UNW_MARK_WALK): the
 * native walker hands the Go walker the registers there. Returns its process address,
 * 0 when no mapping holds it or marks is full; gp gets the mapping's bias. */
static uint64_t claim_code(const struct go_file *gf, const struct proc_mapping *maps, uint32_t n,
			   uint64_t off, uint64_t len, struct go_proc *gp,
			   struct runtime_marks *marks)
{
	for (uint32_t i = 0; i < n && len && marks->n < RUNTIME_MAX_MARKS; i++) {
		const struct proc_mapping *m = &maps[i];

		if (m->file_id != gf->file_id || off < m->pgoff ||
		    off + len > m->pgoff + (m->end - m->start))
			continue;
		gp->sw_off_bias = m->start - m->pgoff;
		gp->sw_file_id = gf->file_id;
		marks->m[marks->n].start = off + gp->sw_off_bias;
		marks->m[marks->n].end = off + len + gp->sw_off_bias;
		marks->m[marks->n++].mark = UNW_MARK_WALK;
		return off + gp->sw_off_bias;
	}
	return 0;
}

/* Claims the stack switches the Go walker crosses: asmcgocall when its saved words are
 * known for the release, systemstack, morestack. Returns whether asmcgocall was claimed. */
static bool claim_switches(const struct go_file *gf, const struct proc_mapping *maps, uint32_t n,
			   struct go_proc *gp, struct runtime_marks *marks)
{
	const struct go_cgo_switch *sw = &gf->cgo;
	uint8_t slot_g, slot_depth;

	gp->ss_lo = claim_code(gf, maps, n, sw->ss_off, sw->ss_len, gp, marks);
	gp->ss_hi = gp->ss_lo ? gp->ss_lo + sw->ss_len : 0;
	gp->ss_frame = sw->ss_frame;
	gp->sched_bp = go_cgo__sched_bp_of(gf->minor, sw);
	gp->ms_lo = claim_code(gf, maps, n, sw->ms_off, sw->ms_len, gp, marks);
	gp->ms_hi = gp->ms_lo ? gp->ms_lo + sw->ms_len : 0;
	if (go_cgo__layout(gf->minor, sw, &slot_g, &slot_depth))
		return false;
	gp->cgo_lo = claim_code(gf, maps, n, sw->off, sw->len, gp, marks);
	if (!gp->cgo_lo)
		return false;
	gp->cgo_hi = gp->cgo_lo + sw->len;
	gp->cgo_g = slot_g;
	gp->cgo_depth = slot_depth;
	gp->cgo_frame = sw->frame;
	return true;
}

static int go_describe(void *priv, uint32_t pid, const struct proc_mapping *maps, uint32_t n,
		       struct runtime_marks *marks)
{
	struct go *g = priv;
	const struct go_layout *l = NULL;
	struct go_file gf = {0};
	struct go_proc gp = {0}, old;
	const struct go_file *f;
	bool known, cgo;
	uint32_t i = 0;

	pthread_mutex_lock(&g->rs.lock);
	f = runtime_state__mapped_file(&g->rs, maps, n, &i);
	if (f)
		gf = *f;
	pthread_mutex_unlock(&g->rs.lock);
	if (!gf.file_id)
		return -ENOENT;
	l = layout_of(gf.minor);
	if (!l) {
		__atomic_add_fetch(&g->st.unknown_release, 1, __ATOMIC_RELAXED);
		pr_debug("go: pid %u runs Go 1.%u, whose labels ebprof cannot read", pid, gf.minor);
		return -ENOTSUP;
	}
	gp = (struct go_proc){.tls_g = gf.tls_g,
			      .g_m = GO_G_M,
			      .m_curg = l->m_curg,
			      .g_labels = l->g_labels,
			      .labels_kind = l->kind};
	cgo = claim_switches(&gf, maps, n, &gp, marks);
	known = !bpf_map_lookup_elem(g->rs.map_fd, &pid, &old); /* described again: same process */
	if (bpf_map_update_elem(g->rs.map_fd, &pid, &gp, BPF_ANY))
		return -errno;
	if (!known)
		__atomic_add_fetch(&g->st.processes, 1, __ATOMIC_RELAXED);
	if (!known && cgo)
		__atomic_add_fetch(&g->st.cgo_claimed, 1, __ATOMIC_RELAXED);
	marks->always = true; /* labels are read on every sample of the process */
	return 0;
}

static void go_forget(void *priv, uint32_t pid)
{
	struct go *g = priv;

	runtime_state__forget(&g->rs, pid);
}

/* Go frames are native: the walker sends none but labels. */
static unsigned int go_ingest(void *priv, uint32_t pid, const struct user_frame *uf,
			      struct frame *out, unsigned int max)
{
	return 0;
}

/* Reads one string of the process into buf (cut to max bytes). */
static int read_string(uint32_t pid, const struct user_frame *uf, char *buf, size_t max)
{
	size_t len = uf->pad & UF_LABEL_LEN_MASK;

	len = len < max ? len : max;
	if (len && runtime_mem__read(pid, uf->addr, buf, len))
		return -EFAULT;
	buf[len] = '\0';
	return 0;
}

static unsigned int go_labels(void *priv, uint32_t pid, const struct user_frame *uf, unsigned int n,
			      struct label *out, unsigned int max)
{
	struct go *g = priv;
	unsigned int got = 0;

	for (unsigned int i = 0; i + 1 < n && got < max && got < LABELS_MAX; i += 2) {
		char *k = g->strings[2 * got], *v = g->strings[2 * got + 1];

		if ((uf[i].pad & UF_LABEL_VALUE) || !(uf[i + 1].pad & UF_LABEL_VALUE))
			break; /* not a key and its value: the walker's order is broken */
		if (!read_string(pid, &uf[i], k, LABEL_KEY_MAX) &&
		    !read_string(pid, &uf[i + 1], v, LABEL_VALUE_MAX)) {
			str_cache_put(g, pid, &uf[i], k);
			str_cache_put(g, pid, &uf[i + 1], v);
		} else if (str_cache_get(g, pid, &uf[i], k, LABEL_KEY_MAX) &&
			   str_cache_get(g, pid, &uf[i + 1], v, LABEL_VALUE_MAX)) {
			g->st.label_from_cache++;
		} else {
			g->st.label_read_failures++;
			continue;
		}
		out[got++] = (struct label){k, v};
	}
	g->st.label_reads += got;
	return got;
}

/* ---- the registry's entry ---- */

static void go_print_stats(void *priv, FILE *out)
{
	struct go *g = priv;
	uint64_t c[GO_CTR__COUNT];

	if (!g->st.processes && !g->st.unknown_release)
		return;
	counters__sum(g->rs.counters_fd, c, GO_CTR__COUNT);
	fprintf(out,
		"  go: %llu processes (%llu of a release whose labels are not known); %llu samples "
		"with labels, %llu labels read (%llu of an exited process, as read before), "
		"%llu unreadable; walker: %llu threads without a g, %llu reads failed, %llu "
		"labels without room, %llu label maps too big; stack switches: %llu processes "
		"with the switches claimed, %llu cgo, %llu systemstack and %llu morestack calls "
		"crossed, "
		"stacks cut at a "
		"switch: %llu sampled in it, %llu saved words did not check out, %llu "
		"unreadable\n",
		(unsigned long long)g->st.processes, (unsigned long long)g->st.unknown_release,
		(unsigned long long)c[GO_CTR_LABELS], (unsigned long long)g->st.label_reads,
		(unsigned long long)g->st.label_from_cache,
		(unsigned long long)g->st.label_read_failures, (unsigned long long)c[GO_CTR_NO_G],
		(unsigned long long)c[GO_CTR_READ_FAULT], (unsigned long long)c[GO_CTR_NO_ROOM],
		(unsigned long long)c[GO_CTR_BIG_MAP], (unsigned long long)g->st.cgo_claimed,
		(unsigned long long)c[GO_CTR_CGO], (unsigned long long)c[GO_CTR_SYSTEMSTACK],
		(unsigned long long)c[GO_CTR_MORESTACK], (unsigned long long)c[GO_CTR_CGO_LEAF],
		(unsigned long long)c[GO_CTR_CGO_BAD], (unsigned long long)c[GO_CTR_CGO_FAULT]);
}

static const struct runtime_state_conf state = {
    .pid_map = "pid_to_go",
    .counters_map = "go_counters",
};

static int go_init(const struct runtime_env *env, struct bpf_object *obj, void **priv)
{
	struct go *g;
	int err = runtime_state__new(obj, &state, sizeof(*g), priv);

	if (err)
		return err;
	g = *priv;
	hmap_init(&g->str_cache, str_eq);
	arena_init(&g->str_arena);
	return 0;
}

static void go_free(void *priv)
{
	struct go *g = priv;

	if (!g)
		return;
	hmap_free(&g->str_cache);
	arena_free(&g->str_arena);
	runtime_state__delete(g);
}

static const void *go_elf(size_t *size)
{
	return go_bpf__elf_bytes(size);
}

const struct runtime_ops go_runtime = {
    .name = "go",
    .title = "Go",
    .walker = WALKER_GO,
    .frame_kind = FRAME_NATIVE, /* no frames of its own (no kind row): Go code is native */
    /* Its walker unrolls its label loops where bpf_loop is missing. */
    .floor = {.bpf_loop = false, .without = "no Go labels"},
    .bpf_elf = go_elf,
    .bpf_walker = "go_walk",
    .init = go_init,
    .free = go_free,
    .detect = go_detect,
    .describe = go_describe,
    .forget = go_forget,
    .ingest = go_ingest,
    .labels = go_labels,
    .print_stats = go_print_stats,
};
