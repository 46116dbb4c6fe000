// SPDX-License-Identifier: Apache-2.0
/* ELF symbol reader: file offset -> function name for user-space frames, from .symtab and
 * .dynsym (plus separate debug files), with build id and .gnu_debuglink. Every offset, size
 * and index in the file is checked, because any user can put a file where we read it.
 * Only addresses are kept in memory: a name is read from the file when a lookup first
 * lands on its symbol (a profile names hundreds of a file's tens of thousands). */
#include "symbol/elfsym.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <libiberty/demangle.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_file.h"

#define DEMANGLE_MAX_LEN 8192	    /* bounds libiberty's stack use (VLAs ~72 B per char) */
#define DEMANGLE_OUT_MAX (64 << 10) /* longer output is an expansion attack */
#define NAME_CMP_MAX 1024	    /* bytes compared when choosing between aliases */
#define DEBUGLINK_MAX 4096	    /* bytes of .gnu_debuglink read (name, padding, CRC) */
#define LOOKUP_WALK_BACK 8	    /* preceding symbols tried for nested symbols */
#define ARENA_MIN_BLOCK 4096
#define ARENA_MAX_BLOCK (64 << 20)
#define MAX_SOURCES 4 /* string tables: .symtab's and .dynsym's of a file and its debug file */
/* Bytes read for a name at first, then doubled up to the most at a time, until its NUL:
 * most names are short, and each read copies what it asks for. */
#define NAME_READ_FIRST 256
#define NAME_READ_CHUNK 4096

enum sym_flags {
	SYM_UNSIZED = 1, /* st_size was 0: covers up to the next symbol */
	SYM_NAMED = 2,	 /* name was read (and demangling tried): name is final */
};

struct sym {
	uint64_t addr;
	union {
		uint64_t off;	  /* without SYM_NAMED: index into string table `tab` */
		const char *name; /* with SYM_NAMED: the final name, "" when unreadable */
	};
	uint32_t size; /* bytes covered; for SYM_UNSIZED a cap from its section, 0 = none */
	uint8_t rank;  /* binding: global > weak > local */
	uint8_t flags;
	uint8_t tab; /* index in elf_syms.srcs */
};

/* A string table names are read from: section shndx of file fds[fd], size bytes from
 * file offset start, the last one a NUL. */
struct name_src {
	uint8_t fd;
	uint32_t shndx;
	uint64_t start;
	uint64_t size;
};

/* Names live in blocks that never move, so returned pointers stay valid until free. */
struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	char data[];
};

struct arena {
	struct arena_block *head;
	size_t next_cap;
};

struct elf_syms {
	struct sym *syms; /* sorted by addr, one per address */
	size_t nr;
	struct elf_segment segs[ELF_FILE_MAX_SEGMENTS]; /* to map file offsets to addresses */
	size_t nr_segs;
	int fds[2]; /* the file and its debug file (dups, ours), -1 when none */
	struct name_src srcs[MAX_SOURCES];
	uint8_t nr_srcs;
	struct arena names; /* names read so far */
	char *debuglink;
	char build_id[2 * ELF_BUILD_ID_MAX + 1];
};

/* A string table cut at its last NUL, so every index below size starts a terminated string. */
struct strtab {
	const char *data;
	size_t size;
	uint64_t start; /* file offset of data */
};

static char *arena_alloc(struct arena *a, size_t n)
{
	struct arena_block *b = a->head;
	size_t cap;

	if (b && b->cap - b->used >= n) {
		b->used += n;
		return b->data + b->used - n;
	}
	if (n > SIZE_MAX - sizeof(*b))
		return NULL;
	cap = n > a->next_cap ? n : a->next_cap;
	b = malloc(sizeof(*b) + cap);
	if (!b)
		return NULL;
	b->cap = cap;
	b->used = n;
	b->next = a->head;
	a->head = b;
	if (a->next_cap < ARENA_MAX_BLOCK)
		a->next_cap *= 2;
	return b->data;
}

/* Sizes the next block for about n bytes: one block for a whole load phase. */
static void arena_hint(struct arena *a, size_t n)
{
	if (n < ARENA_MIN_BLOCK)
		n = ARENA_MIN_BLOCK;
	a->next_cap = n < ARENA_MAX_BLOCK ? n : ARENA_MAX_BLOCK;
}

static void arena_free(struct arena *a)
{
	struct arena_block *b, *next;

	for (b = a->head; b; b = next) {
		next = b->next;
		free(b);
	}
	a->head = NULL;
}

static int strtab_load(Elf *elf, size_t idx, struct strtab *t)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	Elf_Data *d;
	const char *end;

	/* Names are read back from the file at sh_offset: the bytes must be the section's. */
	if (idx == 0 || !(scn = elf_getscn(elf, idx)) || !gelf_getshdr(scn, &sh) ||
	    sh.sh_type != SHT_STRTAB || (sh.sh_flags & SHF_COMPRESSED))
		return -EINVAL;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size || d->d_type != ELF_T_BYTE)
		return -EINVAL;
	end = memrchr(d->d_buf, 0, d->d_size);
	if (!end)
		return -EINVAL;
	t->data = d->d_buf;
	t->size = end - t->data + 1;
	t->start = sh.sh_offset;
	return 0;
}

static Elf_Scn *find_section(Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	return NULL;
}

/* Copies the file name that starts .gnu_debuglink; ignores names that could leave the
 * debug directory the caller joins them to. */
static int read_debuglink(const struct elf_file *e, char **out)
{
	struct elf_section sec;
	const char *name, *nul;
	const void *data;
	size_t size, len;

	if (elf_file__section(e, ".gnu_debuglink", &sec) || sec.type != SHT_PROGBITS ||
	    elf_file__section_data(e, &sec, DEBUGLINK_MAX, &data, &size))
		return 0;
	name = data;
	nul = memchr(name, 0, size);
	if (!nul)
		return 0;
	len = nul - name;
	if (!len || len > 255 || memchr(name, '/', len) || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return 0;
	*out = strdup(name);
	return *out ? 0 : -ENOMEM;
}

static uint32_t clip32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : v;
}

static uint8_t bind_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
	case STB_GNU_UNIQUE:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

/* How far a size-less symbol may reach: to the end of its section, 0 if unknown. */
static uint32_t unsized_cap(Elf *elf, const GElf_Sym *st)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (st->st_shndx >= SHN_LORESERVE || !(scn = elf_getscn(elf, st->st_shndx)) ||
	    !gelf_getshdr(scn, &sh))
		return 0;
	if (st->st_value < sh.sh_addr || st->st_value - sh.sh_addr >= sh.sh_size)
		return 0;
	return clip32(sh.sh_size - (st->st_value - sh.sh_addr));
}

/* Names of the symbols while a file loads: each source's string table, read. */
struct load_ctx {
	const char *data[MAX_SOURCES];
	Elf *other; /* the first file, opened again to compare names when a debug file merges */
};

/* A symbol already looked up (before a debug file merged) has its final name. */
static const char *load_name(const struct load_ctx *c, const struct sym *sym)
{
	return sym->flags & SYM_NAMED ? sym->name : c->data[sym->tab] + sym->off;
}

static void sym_add(struct elf_syms *s, Elf *elf, const GElf_Sym *st, const struct strtab *t,
		    uint8_t tab)
{
	unsigned char type = GELF_ST_TYPE(st->st_info);
	struct sym *sym;

	if ((type != STT_FUNC && type != STT_GNU_IFUNC) || st->st_shndx == SHN_UNDEF)
		return;
	/* Only the index is checked here: touching every name now costs a cache miss each. */
	if (!st->st_name || st->st_name >= t->size)
		return;
	sym = &s->syms[s->nr++];
	sym->addr = st->st_value;
	sym->off = st->st_name;
	sym->rank = bind_rank(GELF_ST_BIND(st->st_info));
	sym->tab = tab;
	sym->flags = st->st_size ? 0 : SYM_UNSIZED;
	sym->size = st->st_size ? clip32(st->st_size) : unsized_cap(elf, st);
}

static int syms_reserve(struct elf_syms *s, size_t n)
{
	struct sym *p;

	if (n > SIZE_MAX / sizeof(*p) - s->nr)
		return -ENOMEM;
	p = realloc(s->syms, (s->nr + n) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	s->syms = p;
	return 0;
}

/* Appends the function symbols of the first section of this type (only the first: copies
 * of one table under many headers must not multiply the work); its string table becomes
 * a name source of file fds[fd]. */
static int add_table(struct elf_syms *s, Elf *elf, Elf64_Word type, struct load_ctx *c, uint8_t fd)
{
	Elf_Scn *scn = find_section(elf, type);
	size_t n, i, ent = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	struct strtab t;
	uint8_t tab = s->nr_srcs;
	GElf_Shdr sh;
	Elf_Data *d;
	GElf_Sym st;
	int err;

	if (tab == MAX_SOURCES || !scn || !ent || !gelf_getshdr(scn, &sh) ||
	    strtab_load(elf, sh.sh_link, &t))
		return 0;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || d->d_type != ELF_T_SYM)
		return 0;
	n = d->d_size / ent;
	err = syms_reserve(s, n);
	if (err)
		return err;
	s->srcs[tab] = (struct name_src){fd, sh.sh_link, t.start, t.size};
	s->nr_srcs++;
	c->data[tab] = t.data;
	for (i = 0; i < n && gelf_getsym(d, i, &st); i++)
		sym_add(s, elf, &st, &t, tab);
	return 0;
}

static size_t leading_underscores(const char *p)
{
	size_t n = 0;

	while (p[n] == '_' && n < 64)
		n++;
	return n;
}

/* Among aliases of one address: a name before none, global before weak before local, then
 * the plainer name (fewer leading underscores: malloc over __libc_malloc), then the shorter.
 * Reads at most NAME_CMP_MAX bytes, so many aliases of one long name stay cheap. */
static int sym_better_cmp(const struct load_ctx *c, const struct sym *a, const struct sym *b)
{
	const char *na = load_name(c, a), *nb = load_name(c, b);
	size_t ua, ub, la, lb;

	if (!na[0] != !nb[0])
		return na[0] ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank > b->rank ? -1 : 1;
	ua = leading_underscores(na);
	ub = leading_underscores(nb);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strnlen(na, NAME_CMP_MAX);
	lb = strnlen(nb, NAME_CMP_MAX);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strncmp(na, nb, NAME_CMP_MAX);
}

/* LSD radix sort by address, a byte a pass, skipping bytes that all addresses share; about
 * three times faster than qsort on the 190k symbols of a large Rust library. */
static int syms_sort(struct elf_syms *s)
{
	struct sym *tmp, *src = s->syms, *dst, *swap;
	size_t count[8][256] = {}, pos[256], i, b, n = s->nr;

	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	dst = tmp;
	for (i = 0; i < n; i++)
		for (b = 0; b < 8; b++)
			count[b][(src[i].addr >> (8 * b)) & 0xff]++;
	for (b = 0; b < 8; b++) {
		if (count[b][(src[0].addr >> (8 * b)) & 0xff] == n)
			continue;
		pos[0] = 0;
		for (i = 1; i < 256; i++)
			pos[i] = pos[i - 1] + count[b][i - 1];
		for (i = 0; i < n; i++)
			dst[pos[(src[i].addr >> (8 * b)) & 0xff]++] = src[i];
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != s->syms)
		memcpy(s->syms, src, n * sizeof(*src));
	free(tmp);
	return 0;
}

/* Picks the best of the symbols at syms[i]'s address into *best, which inherits a size from
 * a sized alias. Returns the index past the group. */
static size_t group_best(const struct elf_syms *s, const struct load_ctx *c, size_t i,
			 struct sym *best)
{
	uint32_t size = 0;
	bool sized = false;
	size_t j;

	*best = s->syms[i];
	for (j = i; j < s->nr && s->syms[j].addr == best->addr; j++) {
		if (j > i && sym_better_cmp(c, &s->syms[j], best) < 0)
			*best = s->syms[j];
		if (!sized && !(s->syms[j].flags & SYM_UNSIZED)) {
			sized = true;
			size = s->syms[j].size;
		}
	}
	if ((best->flags & SYM_UNSIZED) && sized) {
		best->flags &= ~SYM_UNSIZED;
		best->size = size;
	}
	return j;
}

/* Keeps one symbol per address. */
static void syms_dedup(struct elf_syms *s, const struct load_ctx *c)
{
	size_t i, j, out = 0;
	struct sym best;

	for (i = 0; i < s->nr; i = j) {
		j = group_best(s, c, i, &best);
		s->syms[out++] = best;
	}
	s->nr = out;
}

static void syms_shrink(struct elf_syms *s)
{
	struct sym *p;

	if (!s->nr) {
		free(s->syms);
		s->syms = NULL;
		return;
	}
	p = realloc(s->syms, s->nr * sizeof(*p));
	if (p)
		s->syms = p;
}

/* Reads again the string tables of sources in other files than fd, for comparing the
 * names of symbols already loaded with the new ones. */
static int read_other_sources(struct elf_syms *s, struct load_ctx *c, uint8_t fd)
{
	for (uint8_t i = 0; i < s->nr_srcs; i++) {
		const struct name_src *src = &s->srcs[i];
		struct strtab t;

		if (src->fd == fd)
			continue;
		/* ELF_C_READ as the ELF view: a file that shrank is an error, not SIGBUS. */
		if (!c->other)
			c->other = elf_begin(s->fds[src->fd], ELF_C_READ, NULL);
		if (!c->other || strtab_load(c->other, src->shndx, &t) || t.start != src->start ||
		    t.size != src->size)
			return -EIO; /* the file changed under us: keep what we have */
		c->data[i] = t.data;
	}
	return 0;
}

/* Adds elf's .symtab and .dynsym (elf is file fds[fd]) to s: sort, one symbol per
 * address. On failure s keeps a consistent (possibly smaller) set. */
static int load_symbols(struct elf_syms *s, Elf *elf, uint8_t fd)
{
	struct load_ctx c = {0};
	size_t old_nr = s->nr;
	uint8_t old_srcs = s->nr_srcs;
	int err;

	err = read_other_sources(s, &c, fd);
	if (!err)
		err = add_table(s, elf, SHT_SYMTAB, &c, fd);
	if (!err)
		err = add_table(s, elf, SHT_DYNSYM, &c, fd);
	if (!err && s->nr != old_nr)
		err = syms_sort(s);
	if (err) {
		s->nr = old_nr;
		s->nr_srcs = old_srcs;
	} else if (s->nr != old_nr) {
		syms_dedup(s, &c);
		syms_shrink(s);
	}
	if (c.other)
		elf_end(c.other);
	return err;
}

struct elf_syms *elf_syms__open_elf(const struct elf_file *e)
{
	struct elf_syms *s = calloc(1, sizeof(*s));
	const struct elf_segment *segs;
	int err;

	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	s->fds[1] = -1;
	arena_hint(&s->names, 0);
	segs = elf_file__segments(e, &s->nr_segs);
	memcpy(s->segs, segs, s->nr_segs * sizeof(*segs));
	elf_file__build_id_hex(e, s->build_id);
	err = read_debuglink(e, &s->debuglink);
	/* Names are read from a descriptor of our own when looked up. */
	s->fds[0] = fcntl(elf_file__fd(e), F_DUPFD_CLOEXEC, 0);
	if (!err && s->fds[0] < 0)
		err = -errno;
	if (!err)
		err = load_symbols(s, elf_file__elf(e), 0);
	if (err) {
		elf_syms__free(s);
		errno = -err;
		return NULL;
	}
	return s;
}

struct elf_syms *elf_syms__open(int fd)
{
	struct elf_file *e = elf_file__open(fd);
	struct elf_syms *s;
	int err;

	if (!e)
		return NULL;
	s = elf_syms__open_elf(e);
	err = errno;
	elf_file__free(e);
	errno = err;
	return s;
}

void elf_syms__free(struct elf_syms *s)
{
	if (!s)
		return;
	for (int i = 0; i < 2; i++) {
		if (s->fds[i] >= 0)
			close(s->fds[i]);
	}
	arena_free(&s->names);
	free(s->syms);
	free(s->debuglink);
	free(s);
}

int elf_syms__add_debug_elf(struct elf_syms *s, const struct elf_file *e)
{
	char build_id[sizeof(s->build_id)];
	int err;

	if (!s || s->fds[1] >= 0)
		return -EINVAL;
	elf_file__build_id_hex(e, build_id);
	if (s->build_id[0] && strcmp(s->build_id, build_id))
		return -EINVAL;
	s->fds[1] = fcntl(elf_file__fd(e), F_DUPFD_CLOEXEC, 0);
	if (s->fds[1] < 0)
		return -errno;
	err = load_symbols(s, elf_file__elf(e), 1);
	if (err) {
		close(s->fds[1]);
		s->fds[1] = -1;
	}
	return err;
}

int elf_syms__add_debug_file(struct elf_syms *s, int fd)
{
	struct elf_file *e;
	int err;

	if (!s)
		return -EINVAL;
	e = elf_file__open(fd);
	if (!e)
		return -errno;
	err = elf_syms__add_debug_elf(s, e);
	elf_file__free(e);
	return err;
}

const char *elf_syms__build_id(const struct elf_syms *s)
{
	return s ? s->build_id : "";
}

const char *elf_syms__debuglink(const struct elf_syms *s)
{
	return s ? s->debuglink : NULL;
}

bool elf_syms__vaddr(const struct elf_syms *s, uint64_t off, uint64_t *va)
{
	return s && elf_segments__off_to_vaddr(s->segs, s->nr_segs, off, va);
}

static bool sym_covers(const struct elf_syms *s, size_t i, uint64_t va)
{
	const struct sym *sym = &s->syms[i];
	uint64_t d = va - sym->addr;

	if (!(sym->flags & SYM_UNSIZED))
		return d < sym->size;
	if (sym->size && d >= sym->size)
		return false;
	if (i + 1 < s->nr)
		return va < s->syms[i + 1].addr;
	return sym->size || d == 0;
}

static struct sym *find_sym(struct elf_syms *s, uint64_t va)
{
	size_t lo = 0, hi = s->nr, mid, k;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->syms[mid].addr <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo symbols start at or below va; a nested symbol may hide the one covering va. */
	for (k = 0; k < LOOKUP_WALK_BACK && lo > 0; k++, lo--)
		if (sym_covers(s, lo - 1, va))
			return &s->syms[lo - 1];
	return NULL;
}

/* Reads the name at src + off: up to its NUL, which the table's last byte is. Returns a
 * malloc'd string or NULL (unreadable: the file shrank). */
static char *read_name(const struct elf_syms *s, const struct name_src *src, uint64_t off)
{
	uint64_t left = src->size - off, len = 0;
	size_t chunk = NAME_READ_FIRST;
	char *buf = NULL, *p;

	while (left) {
		size_t want = left < chunk ? left : chunk;
		ssize_t n;

		if (chunk < NAME_READ_CHUNK)
			chunk *= 2;
		p = realloc(buf, len + want + 1);
		if (!p)
			break;
		buf = p;
		n = pread(s->fds[src->fd], buf + len, want, (off_t)(src->start + off + len));
		if (n <= 0)
			break;
		p = memchr(buf + len, 0, n);
		len += n;
		left -= n;
		if (p)
			return buf;
	}
	if (buf && len && !left) { /* the table ended without its NUL: it changed */
		buf[len] = '\0';
		return buf;
	}
	free(buf);
	return NULL;
}

/* Reads and demangles sym's name once; it is final then. */
static void sym_resolve(struct elf_syms *s, struct sym *sym)
{
	char *raw = read_name(s, &s->srcs[sym->tab], sym->off), *d, *p = NULL;
	const char *name;
	size_t len;

	sym->flags |= SYM_NAMED;
	sym->name = "";
	if (!raw)
		return;
	d = ebprof_demangle(raw);
	name = d ? d : raw;
	len = strlen(name) + 1;
	p = arena_alloc(&s->names, len);
	if (p) {
		memcpy(p, name, len);
		sym->name = p;
	}
	free(d);
	free(raw);
}

const char *elf_syms__lookup(struct elf_syms *s, uint64_t off, uint64_t *sym_off)
{
	struct sym *sym;
	uint64_t va;

	if (!s || !elf_segments__off_to_vaddr(s->segs, s->nr_segs, off, &va))
		return NULL;
	sym = find_sym(s, va);
	if (!sym)
		return NULL;
	if (!(sym->flags & SYM_NAMED))
		sym_resolve(s, sym);
	if (!sym->name[0])
		return NULL;
	if (sym_off)
		*sym_off = va - sym->addr;
	return sym->name;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Cuts a trailing "::h" + 16 hex digits, the hash of Rust's legacy mangling. */
static void strip_rust_hash(char *name)
{
	size_t len = strlen(name), i;

	if (len < 19 || memcmp(name + len - 19, "::h", 3))
		return;
	for (i = len - 16; i < len; i++)
		if (!is_hex(name[i]))
			return;
	name[len - 19] = '\0';
}

struct demangle_buf {
	char *buf;
	size_t len;
	jmp_buf overflow;
};

/* Appends demangler output. Back-references let a short name expand exponentially (20
 * nested templates of 230 bytes print 27 MB), so past DEMANGLE_OUT_MAX it leaves the
 * demangler by longjmp; the callback entry points keep their state on the stack, none on
 * the heap, so nothing leaks. */
static void demangle_sink(const char *p, size_t n, void *opaque)
{
	struct demangle_buf *d = opaque;

	if (n > DEMANGLE_OUT_MAX - d->len)
		longjmp(d->overflow, 1);
	memcpy(d->buf + d->len, p, n);
	d->len += n;
}

/* What cplus_demangle(DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO) does: Rust first (its legacy
 * names look like C++), then the C++ ABI demangler. */
static bool demangle_into(const char *mangled, struct demangle_buf *d)
{
	if (setjmp(d->overflow))
		return false;
	if (rust_demangle_callback(mangled, DMGL_PARAMS | DMGL_ANSI, demangle_sink, d))
		return true;
	d->len = 0;
	return cplus_demangle_v3_callback(mangled, DMGL_PARAMS | DMGL_ANSI, demangle_sink, d);
}

char *ebprof_demangle(const char *mangled)
{
	struct demangle_buf d = {};
	char *out;

	if (!mangled || mangled[0] != '_' || (mangled[1] != 'Z' && mangled[1] != 'R'))
		return NULL;
	if (strnlen(mangled, DEMANGLE_MAX_LEN + 1) > DEMANGLE_MAX_LEN)
		return NULL;
	d.buf = malloc(DEMANGLE_OUT_MAX + 1);
	if (!d.buf)
		return NULL;
	if (!demangle_into(mangled, &d) || !d.len) {
		free(d.buf);
		return NULL;
	}
	d.buf[d.len] = '\0';
	strip_rust_hash(d.buf);
	out = realloc(d.buf, strlen(d.buf) + 1);
	return out ? out : d.buf;
}
