// SPDX-License-Identifier: Apache-2.0
/* ELF symbol reader: file offset -> function name for user-space frames, from .symtab and
 * .dynsym (plus separate debug files), with build id and .gnu_debuglink. Every offset, size
 * and index in the file is checked, because any user can put a file where we read it.
 * Only addresses are kept in memory: a name is read from the file when a lookup first
 * lands on its symbol (a profile names hundreds of a file's tens of thousands). The tables
 * are read with pread a window at a time, never whole, and a file that shrinks under the
 * reader is an error (EIO), never a SIGBUS. */
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
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "util/hmap.h"

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
/* Bytes of a symbol or string table read at a time while loading: what the load holds of
 * each, however large the table. */
#define WINDOW (64 << 10)

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
	size_t nr, cap;
	struct elf_segment segs[ELF_FILE_MAX_SEGMENTS]; /* to map file offsets to addresses */
	size_t nr_segs;
	int fds[2]; /* the file and its debug file (dups, ours), -1 when none */
	struct name_src srcs[MAX_SOURCES];
	uint8_t nr_srcs;
	struct arena names; /* names read so far */
	char *debuglink;
	char build_id[2 * ELF_BUILD_ID_MAX + 1];
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

/* A section of file fds[fd] read in windows with pread: loading holds a window of each
 * table it reads, never the whole table (the large libraries' .symtab and .strtab are
 * megabytes each). A read that comes back short means the file shrank: -EIO. */
struct window {
	int fd;
	uint64_t start, size; /* the section's bytes in the file */
	uint64_t at;	      /* section offset of buf[0] */
	size_t len;	      /* bytes in buf, 0 when none were read */
	Elf *xlate;	      /* symbol entries converted to memory order after a read, or NULL */
	size_t ent;	      /* a window of entries starts on an entry */
	char *buf;	      /* WINDOW bytes */
};

static int window_init(struct window *w, int fd, uint64_t start, uint64_t size)
{
	if (!w->buf)
		w->buf = malloc(WINDOW);
	if (!w->buf)
		return -ENOMEM;
	w->fd = fd;
	w->start = start;
	w->size = size;
	w->len = 0;
	return 0;
}

static void window_free(struct window *w)
{
	free(w->buf);
	w->buf = NULL;
}

/* Converts the entries just read from the file's byte order and class layout. */
static int window_xlate(struct window *w)
{
	Elf_Data d = {
	    .d_buf = w->buf, .d_type = ELF_T_SYM, .d_size = w->len, .d_version = EV_CURRENT};
	GElf_Ehdr eh;

	if (!gelf_getehdr(w->xlate, &eh) || !gelf_xlatetom(w->xlate, &d, &d, eh.e_ident[EI_DATA]))
		return -EINVAL;
	return 0;
}

/* Reads the window that starts at off (on the entry that holds it, for entries). */
static int window_fill(struct window *w, uint64_t off)
{
	ssize_t n;

	w->at = w->ent ? off - off % w->ent : off;
	w->len = w->size - w->at < WINDOW ? w->size - w->at : WINDOW;
	if (w->ent)
		w->len -= w->len % w->ent;
	n = pread(w->fd, w->buf, w->len, (off_t)(w->start + w->at));
	if (n != (ssize_t)w->len) {
		w->len = 0;
		return n < 0 ? -errno : -EIO;
	}
	if (w->xlate && window_xlate(w)) {
		w->len = 0;
		return -EINVAL;
	}
	return 0;
}

/* Points *p at section offset off with at least want bytes after it (want <= WINDOW),
 * fewer only where the section ends. Returns the bytes there, or a negative errno. Inline:
 * every symbol entry is read through it. */
static inline ssize_t window_at(struct window *w, uint64_t off, size_t want, const char **p)
{
	int err;

	if (off >= w->size)
		return -EINVAL;
	if (want > w->size - off)
		want = w->size - off;
	if (off < w->at || off + want > w->at + w->len) {
		err = window_fill(w, off);
		if (err)
			return err;
	}
	*p = w->buf + (off - w->at);
	return (ssize_t)(w->at + w->len - off);
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

/* A symbol table being loaded: its entries read through a window, its string table's
 * size (cut after the last NUL). */
struct table {
	struct window syms;
	GElf_Shdr sh; /* the symbol table's header; sh_link its string table */
	size_t ent, n;
	bool is64;
	uint64_t strs_start, strs_size;
};

/* What a load holds: one table at a time, and a window on names (for aliases). */
struct load_ctx {
	struct table tab;
	struct window names;
	int fd;		      /* the file being loaded */
	uint64_t opened_size; /* its size when its ELF view was opened */
};

/* The file's size now, 0 when it cannot be had. */
static uint64_t file_size(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : (uint64_t)st.st_size;
}

/* Whether section sh's bytes, as stored, lie inside a file of size bytes. */
static bool section_in(const GElf_Shdr *sh, uint64_t size)
{
	return sh->sh_type != SHT_NOBITS && !(sh->sh_flags & SHF_COMPRESSED) &&
	       sh->sh_offset <= size && sh->sh_size <= size - sh->sh_offset;
}

/* 1 when section sh lies inside the file, 0 when the file says it lies past its end as
 * it was opened (malformed: the table is left out), -EIO when the file shrank since. */
static int section_in_file(const GElf_Shdr *sh, const struct load_ctx *c)
{
	if (!section_in(sh, c->opened_size))
		return 0;
	return section_in(sh, file_size(c->fd)) ? 1 : -EIO;
}

/* The size of string table w cut after its last NUL, so every index below it starts a
 * terminated string; 0 when it has none. Read backwards a window at a time (every real
 * table ends with its NUL). Negative errno when the file shrank. */
static int64_t strtab_cut(struct window *w)
{
	uint64_t end = w->size, lo;
	const char *p = NULL, *nul;
	ssize_t n;

	while (end) {
		lo = end > WINDOW ? end - WINDOW : 0;
		n = window_at(w, lo, end - lo, &p);
		if (n < 0)
			return n;
		nul = memrchr(p, 0, end - lo);
		if (nul)
			return (int64_t)(lo + (uint64_t)(nul - p) + 1);
		end = lo;
	}
	return 0;
}

static void load_ctx_free(struct load_ctx *c)
{
	window_free(&c->tab.syms);
	window_free(&c->names);
}

/* Opens the string table of c's table (its sh_link) and cuts it. Returns 1 when usable,
 * 0 when not (no error: the table adds nothing), or a negative errno. */
static int table_strings(struct load_ctx *c, Elf *elf)
{
	struct table *t = &c->tab;
	Elf_Scn *scn = t->sh.sh_link ? elf_getscn(elf, t->sh.sh_link) : NULL;
	GElf_Shdr sh;
	int64_t cut;
	int r;

	/* Names are read back from the file at sh_offset: the bytes must be the section's. */
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB || !sh.sh_size)
		return 0;
	r = section_in_file(&sh, c);
	if (r <= 0)
		return r;
	r = window_init(&c->names, c->fd, sh.sh_offset, sh.sh_size);
	if (r)
		return r;
	cut = strtab_cut(&c->names);
	if (cut <= 0)
		return (int)cut;
	t->strs_start = sh.sh_offset;
	t->strs_size = (uint64_t)cut;
	return 1;
}

/* Opens the first section of type (only the first: copies of one table under many
 * headers must not multiply the work) of c's file, elf its libelf view. Returns 1, 0
 * when it has none usable, or a negative errno (-EIO: the file shrank). */
static int table_open(struct load_ctx *c, Elf *elf, Elf64_Word type)
{
	struct table *t = &c->tab;
	Elf_Scn *scn = find_section(elf, type);
	int r;

	t->ent = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	t->is64 = gelf_getclass(elf) == ELFCLASS64;
	if (!scn || !gelf_getshdr(scn, &t->sh) ||
	    t->ent != (t->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym)))
		return 0;
	r = section_in_file(&t->sh, c);
	if (r > 0)
		r = table_strings(c, elf);
	if (r <= 0)
		return r;
	r = window_init(&t->syms, c->fd, t->sh.sh_offset, t->sh.sh_size);
	if (r)
		return r;
	t->syms.xlate = elf;
	t->syms.ent = t->ent;
	t->n = t->sh.sh_size / t->ent;
	return 1;
}

/* Reads entry i (< t->n) of t into *st. Returns 0 or a negative errno. */
static inline int table_sym(struct table *t, size_t i, GElf_Sym *st)
{
	const char *p = NULL;
	ssize_t n = window_at(&t->syms, (uint64_t)i * t->ent, t->ent, &p);
	Elf32_Sym s32;

	if (n < 0)
		return (int)n;
	if (t->is64) {
		memcpy(st, p, sizeof(*st)); /* GElf_Sym is Elf64_Sym */
		return 0;
	}
	memcpy(&s32, p, sizeof(s32));
	*st = (GElf_Sym){s32.st_name,  s32.st_info,  s32.st_other,
			 s32.st_shndx, s32.st_value, s32.st_size};
	return 0;
}

/* A function symbol with a name: the only ones kept. Only the name's index is checked
 * here: touching every name now costs a read each. */
static bool sym_wanted(const GElf_Sym *st, uint64_t strs_size)
{
	unsigned char type = GELF_ST_TYPE(st->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && st->st_shndx != SHN_UNDEF &&
	       st->st_name && st->st_name < strs_size;
}

static void sym_add(struct elf_syms *s, Elf *elf, const GElf_Sym *st, uint8_t tab)
{
	struct sym *sym = &s->syms[s->nr++];

	sym->addr = st->st_value;
	sym->off = st->st_name;
	sym->rank = bind_rank(GELF_ST_BIND(st->st_info));
	sym->tab = tab;
	sym->flags = st->st_size ? 0 : SYM_UNSIZED;
	sym->size = st->st_size ? clip32(st->st_size) : unsized_cap(elf, st);
}

/* Room for one more symbol: the index doubles, so it holds the function symbols (a
 * minority of most tables) and at most as many again until loading ends and shrinks it. */
static int syms_grow(struct elf_syms *s)
{
	size_t cap = s->cap ? 2 * s->cap : 1024;
	struct sym *p;

	if (s->nr < s->cap)
		return 0;
	if (cap > SIZE_MAX / sizeof(*p))
		return -ENOMEM;
	p = realloc(s->syms, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	s->syms = p;
	s->cap = cap;
	return 0;
}

/* Appends the function symbols of the first section of this type, reading its entries a
 * window at a time; its string table becomes a name source of file fds[fd]. */
static int add_table(struct elf_syms *s, Elf *elf, Elf64_Word type, struct load_ctx *c, uint8_t fd)
{
	struct table *t = &c->tab;
	uint8_t tab = s->nr_srcs;
	GElf_Sym st;
	size_t i;
	int err;

	if (tab == MAX_SOURCES)
		return 0;
	err = table_open(c, elf, type);
	if (err <= 0)
		return err;
	for (i = 0, err = 0; i < t->n && !err; i++) {
		err = table_sym(t, i, &st);
		if (err || !sym_wanted(&st, t->strs_size))
			continue;
		err = syms_grow(s);
		if (!err)
			sym_add(s, elf, &st, tab);
	}
	if (err)
		return err;
	s->srcs[tab] = (struct name_src){fd, t->sh.sh_link, t->strs_start, t->strs_size};
	s->nr_srcs++;
	return 0;
}

static size_t leading_underscores(const char *p)
{
	size_t n = 0;

	while (p[n] == '_' && n < 64)
		n++;
	return n;
}

/* LSD radix sort of the n records at v by a 64-bit key, a byte a pass, skipping bytes
 * that all keys share; about three times faster than qsort on the 190k symbols of a large
 * Rust library. The records end at v, sorted, or at tmp (n records): returns which. One
 * body for the two kinds of records sorted here (symbols by address, names by place). */
#define DEFINE_RADIX_SORT(name, type, field)                                           \
	static type *name(type *v, type *tmp, size_t n)                                \
	{                                                                              \
		size_t count[8][256] = {}, pos[256], i, b;                             \
		type *src = v, *dst = tmp, *swap;                                      \
                                                                                       \
		for (i = 0; i < n; i++)                                                \
			for (b = 0; b < 8; b++)                                        \
				count[b][(src[i].field >> (8 * b)) & 0xff]++;          \
		for (b = 0; b < 8 && n; b++) {                                         \
			if (count[b][(src[0].field >> (8 * b)) & 0xff] == n)           \
				continue;                                              \
			pos[0] = 0;                                                    \
			for (i = 1; i < 256; i++)                                      \
				pos[i] = pos[i - 1] + count[b][i - 1];                 \
			for (i = 0; i < n; i++)                                        \
				dst[pos[(src[i].field >> (8 * b)) & 0xff]++] = src[i]; \
			swap = src;                                                    \
			src = dst;                                                     \
			dst = swap;                                                    \
		}                                                                      \
		return src;                                                            \
	}

/* What choosing among aliases compares of a symbol's name, read once for every symbol
 * that shares its address with another. */
struct alias_key {
	uint64_t pos;  /* where the name is read: tab << 56 | off, to read in file order */
	uint32_t hash; /* of the first len bytes: names of one length are compared if they differ */
	uint32_t sym;  /* index in elf_syms.syms */
	uint32_t slot; /* index in the keys in the symbols' order */
	uint16_t len;  /* strnlen, at most NAME_CMP_MAX */
	uint8_t under; /* leading underscores */
};

DEFINE_RADIX_SORT(keys_radix, struct alias_key, pos)

/* Puts every key at its slot: each swap places one for good. */
static void keys_unsort(struct alias_key *k, size_t n)
{
	struct alias_key tmp;

	for (size_t i = 0; i < n; i++)
		while (k[i].slot != i) {
			tmp = k[k[i].slot];
			k[k[i].slot] = k[i];
			k[i] = tmp;
		}
}

/* Copies the first NAME_CMP_MAX bytes of sym's name into buf (NAME_CMP_MAX + 1 bytes),
 * "" when unreadable. Only for the rare aliases that tie on everything but their text. */
static const char *alias_name(const struct elf_syms *s, const struct sym *sym, char *buf)
{
	const struct name_src *src = &s->srcs[sym->tab];
	uint64_t left = src->size - sym->off;
	size_t want = left < NAME_CMP_MAX ? left : NAME_CMP_MAX;
	ssize_t n;

	if (sym->flags & SYM_NAMED)
		return sym->name;
	n = pread(s->fds[src->fd], buf, want, (off_t)(src->start + sym->off));
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* Among aliases of one address: a name before none, global before weak before local, then
 * the plainer name (fewer leading underscores: malloc over __libc_malloc), then the
 * shorter, then the first in byte order. Names count for at most NAME_CMP_MAX bytes, so
 * many aliases of one long name stay cheap; their keys were read in file order, and only
 * two different names of one length are read again, to compare their bytes. */
static int sym_better_cmp(const struct elf_syms *s, const struct sym *a, const struct alias_key *ka,
			  const struct sym *b, const struct alias_key *kb)
{
	char ba[NAME_CMP_MAX + 1], bb[NAME_CMP_MAX + 1];

	if (!ka->len != !kb->len)
		return ka->len ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank > b->rank ? -1 : 1;
	if (ka->under != kb->under)
		return ka->under < kb->under ? -1 : 1;
	if (ka->len != kb->len)
		return ka->len < kb->len ? -1 : 1;
	if (ka->hash == kb->hash)
		return 0; /* the same name, in all likelihood: either will do */
	return strncmp(alias_name(s, a, ba), alias_name(s, b, bb), NAME_CMP_MAX);
}

/* The symbols that share an address with another (s sorted by address): *n keys with
 * sym and pos set, NULL when none (or ENOMEM: *n is then SIZE_MAX). */
static struct alias_key *alias_keys_new(const struct elf_syms *s, size_t *n)
{
	struct alias_key *k;
	size_t i, j, m = 0;

	for (i = 0; i < s->nr; i = j) {
		for (j = i + 1; j < s->nr && s->syms[j].addr == s->syms[i].addr; j++)
			;
		m += j - i > 1 ? j - i : 0;
	}
	*n = 0;
	if (!m)
		return NULL;
	k = calloc(m, sizeof(*k));
	if (!k) {
		*n = SIZE_MAX;
		return NULL;
	}
	for (i = 0; i < s->nr; i = j) {
		for (j = i + 1; j < s->nr && s->syms[j].addr == s->syms[i].addr; j++)
			;
		for (size_t g = i; j - i > 1 && g < j; g++) {
			const struct sym *sym = &s->syms[g];

			k[*n].sym = (uint32_t)g;
			k[*n].slot = (uint32_t)*n;
			k[*n].pos =
			    sym->flags & SYM_NAMED ? 0 : (uint64_t)sym->tab << 56 | sym->off;
			(*n)++;
		}
	}
	return k;
}

static void key_fill(struct alias_key *k, const char *name, size_t avail)
{
	size_t len = strnlen(name, avail < NAME_CMP_MAX ? avail : NAME_CMP_MAX);

	k->len = (uint16_t)len;
	k->under = (uint8_t)leading_underscores(name);
	k->hash = (uint32_t)(hash_bytes(name, len, 0) >> 32);
}

/* Reads the names of the n keys, in file order through one window, then puts the keys
 * back in the symbols' order. A symbol looked up before (a debug file merging) has its
 * final name in memory. */
static int alias_keys_read(const struct elf_syms *s, struct load_ctx *c, struct alias_key *k,
			   size_t n)
{
	struct alias_key *tmp = malloc(n * sizeof(*tmp)), *sorted;
	int cur = -1, err = 0;
	const char *name = NULL;
	ssize_t avail;

	if (!tmp)
		return -ENOMEM;
	sorted = keys_radix(k, tmp, n);
	if (sorted != k)
		memcpy(k, sorted, n * sizeof(*k));
	free(tmp);
	for (size_t i = 0; i < n; i++) {
		const struct sym *sym = &s->syms[k[i].sym];
		const struct name_src *src = &s->srcs[sym->tab];

		if (sym->flags & SYM_NAMED) {
			key_fill(&k[i], sym->name, NAME_CMP_MAX);
			continue;
		}
		if (sym->tab != cur) {
			err = window_init(&c->names, s->fds[src->fd], src->start, src->size);
			if (err)
				return err;
			cur = sym->tab;
		}
		avail = window_at(&c->names, sym->off, NAME_CMP_MAX, &name);
		if (avail < 0)
			return (int)avail;
		key_fill(&k[i], name, (size_t)avail);
	}
	keys_unsort(k, n);
	return 0;
}

DEFINE_RADIX_SORT(syms_radix, struct sym, addr)

static int syms_sort(struct elf_syms *s)
{
	struct sym *tmp = malloc(s->nr * sizeof(*tmp)), *out;

	if (!tmp)
		return -ENOMEM;
	out = syms_radix(s->syms, tmp, s->nr);
	if (out != s->syms)
		memcpy(s->syms, out, s->nr * sizeof(*out));
	free(tmp);
	return 0;
}

/* Picks the best of the symbols syms[i..j) at one address into *best, which inherits a
 * size from a sized alias; k holds their keys, in order. */
static void group_best(const struct elf_syms *s, size_t i, size_t j, const struct alias_key *k,
		       struct sym *best)
{
	const struct alias_key *kb = &k[0];
	uint32_t size = 0;
	bool sized = false;

	*best = s->syms[i];
	for (size_t g = i; g < j; g++) {
		if (g > i && sym_better_cmp(s, &s->syms[g], &k[g - i], best, kb) < 0) {
			*best = s->syms[g];
			kb = &k[g - i];
		}
		if (!sized && !(s->syms[g].flags & SYM_UNSIZED)) {
			sized = true;
			size = s->syms[g].size;
		}
	}
	if ((best->flags & SYM_UNSIZED) && sized) {
		best->flags &= ~SYM_UNSIZED;
		best->size = size;
	}
}

/* Keeps one symbol per address (s sorted by address). Reads the names of aliases only. */
static int syms_dedup(struct elf_syms *s, struct load_ctx *c)
{
	size_t i, j, nk, out = 0;
	struct alias_key *k = alias_keys_new(s, &nk), *next = k;
	struct sym best;
	int err = 0;

	if (nk == SIZE_MAX)
		return -ENOMEM;
	if (nk)
		err = alias_keys_read(s, c, k, nk);
	for (i = 0; i < s->nr && !err; i = j) {
		for (j = i + 1; j < s->nr && s->syms[j].addr == s->syms[i].addr; j++)
			;
		best = s->syms[i];
		if (j - i > 1) {
			group_best(s, i, j, next, &best);
			next += j - i;
		}
		s->syms[out++] = best;
	}
	if (!err)
		s->nr = out;
	free(k);
	return err;
}

static void syms_shrink(struct elf_syms *s)
{
	struct sym *p;

	if (!s->nr) {
		free(s->syms);
		s->syms = NULL;
		s->cap = 0;
		return;
	}
	p = realloc(s->syms, s->nr * sizeof(*p));
	if (p) {
		s->syms = p;
		s->cap = s->nr;
	}
}

/* Takes out the symbols of sources from nr_srcs on (a load that failed), keeping the
 * others' order. */
static void syms_drop_sources(struct elf_syms *s, uint8_t nr_srcs)
{
	size_t i, out = 0;

	for (i = 0; i < s->nr; i++)
		if (s->syms[i].tab < nr_srcs)
			s->syms[out++] = s->syms[i];
	s->nr = out;
	s->nr_srcs = nr_srcs;
}

/* Adds the .symtab and .dynsym of e (file fds[fd]) to s: sort, one symbol per address.
 * On failure s keeps what it had. */
static int load_symbols(struct elf_syms *s, const struct elf_file *e, uint8_t fd)
{
	struct load_ctx c = {.fd = s->fds[fd], .opened_size = elf_file__size(e)};
	Elf *elf = elf_file__elf(e);
	size_t old_nr = s->nr;
	uint8_t old_srcs = s->nr_srcs;
	int err;

	err = add_table(s, elf, SHT_SYMTAB, &c, fd);
	if (!err)
		err = add_table(s, elf, SHT_DYNSYM, &c, fd);
	if (!err && s->nr != old_nr)
		err = syms_sort(s);
	if (!err && s->nr != old_nr)
		err = syms_dedup(s, &c);
	if (err)
		syms_drop_sources(s, old_srcs);
	else if (s->nr != old_nr)
		syms_shrink(s);
	load_ctx_free(&c);
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
		err = load_symbols(s, e, 0);
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
	err = load_symbols(s, e, 1);
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
