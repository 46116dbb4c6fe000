// SPDX-License-Identifier: Apache-2.0
/* One view of an ELF file over libelf: header, PT_LOAD segments, build id, sections by
 * name with their (decompressed, bounded) data, and symbols by name through an index
 * built on first use. Anyone can put a file where we read it, so every bound is checked. */
#include "elf/elf_file.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/hmap.h"
#include "util/inflate_limit.h"

#define NOTES_MAX 16		 /* note segments/sections scanned for the build id */
#define NOTE_MAX_SIZE (1 << 20)	 /* larger note areas are not build-id notes */
#define SYM_TABLES 2		 /* .symtab, then .dynsym */
#define SYM_INDEX_MAX (1u << 30) /* symbols indexed per table: beyond it slot ids overflow */

/* A symbol table cut at its string table's last NUL, so every name below size ends. */
struct sym_table {
	Elf_Data *syms;
	const Elf64_Sym *syms64; /* syms' entries as they are, in a 64-bit file */
	const char *strs;
	size_t nstrs;
	size_t nsyms;
};

/* .dynsym read through its GNU hash table (DT_GNU_HASH, section .gnu.hash): a lookup
 * preads a few words and the candidates' entries and names, never the whole table. */
struct gnu_hash {
	uint64_t off;		      /* of the section: header, bloom words, buckets, chains */
	uint64_t syms, nsyms;	      /* .dynsym's offset and entries (at most SYM_INDEX_MAX) */
	uint64_t strs, nstrs;	      /* .dynstr's offset and size */
	uint32_t nbuckets, symoffset; /* symbols below symoffset are not hashed */
	uint32_t nbloom, shift;
};

/* Open addressing over (hash << 32 | table << 31 | index + 1); 0 is empty. */
struct sym_index {
	struct sym_table tabs[SYM_TABLES];
	uint64_t *slots;
	size_t mask;
	int err; /* 0 once built, or why it could not be */
	bool built;
	/* Before the index is built (elf_file__symbol): .symtab's string table, to rule a
	 * name out of .symtab, and .dynsym's hash table, to look the name up there. */
	bool quick_tried;
	const char *symstrs; /* NULL: .symtab has no usable names (it contributes none) */
	size_t nsymstrs;
	struct gnu_hash gh; /* nbuckets 0: .dynsym has no usable hash table */
	bool has_dynsym;
};

struct elf_file {
	int fd;
	Elf *elf;
	GElf_Ehdr eh;
	uint64_t file_bytes; /* the file's size at open, for the inflating bound */
	struct elf_segment segs[ELF_FILE_MAX_SEGMENTS];
	size_t nsegs;
	uint8_t build_id[ELF_BUILD_ID_MAX];
	size_t build_id_len;
	struct sym_index *index; /* allocated at open, filled by the first symbol lookup */
};

static void read_segments(struct elf_file *e)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(e->elf, &n))
		return;
	for (i = 0; i < n && e->nsegs < ELF_FILE_MAX_SEGMENTS; i++) {
		if (!gelf_getphdr(e->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		e->segs[e->nsegs++] = (struct elf_segment){ph.p_offset, ph.p_vaddr, ph.p_filesz,
							   ph.p_memsz, ph.p_flags};
	}
}

/* Copies the first GNU build-id note of d into e. */
static bool notes_build_id(struct elf_file *e, Elf_Data *d)
{
	size_t off = 0, next, name_off, desc_off;
	const unsigned char *buf;
	GElf_Nhdr nh;

	if (!d || !d->d_buf || (d->d_type != ELF_T_NHDR && d->d_type != ELF_T_NHDR8))
		return false;
	buf = d->d_buf;
	while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > off) {
		off = next;
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 || !nh.n_descsz ||
		    nh.n_descsz > ELF_BUILD_ID_MAX)
			continue;
		if (name_off > d->d_size - 4 || nh.n_descsz > d->d_size ||
		    desc_off > d->d_size - nh.n_descsz || memcmp(buf + name_off, "GNU", 4))
			continue;
		memcpy(e->build_id, buf + desc_off, nh.n_descsz);
		e->build_id_len = nh.n_descsz;
		return true;
	}
	return false;
}

static bool phdr_build_id(struct elf_file *e)
{
	size_t n, i, seen = 0;
	GElf_Phdr ph;
	Elf_Data *d;

	if (elf_getphdrnum(e->elf, &n))
		return false;
	for (i = 0; i < n && seen < NOTES_MAX; i++) {
		if (!gelf_getphdr(e->elf, (int)i, &ph) || ph.p_type != PT_NOTE || !ph.p_filesz ||
		    ph.p_filesz > NOTE_MAX_SIZE)
			continue;
		seen++;
		d = elf_getdata_rawchunk(e->elf, ph.p_offset, ph.p_filesz,
					 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (notes_build_id(e, d))
			return true;
	}
	return false;
}

static void shdr_build_id(struct elf_file *e)
{
	Elf_Scn *scn = NULL;
	size_t seen = 0;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e->elf, scn)) && seen < NOTES_MAX) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !sh.sh_size ||
		    sh.sh_size > NOTE_MAX_SIZE)
			continue;
		seen++;
		if (notes_build_id(e, elf_getdata(scn, NULL)))
			return;
	}
}

/* Program headers first (what the loader sees), then sections (debug files). */
static void read_build_id(struct elf_file *e)
{
	if (!phdr_build_id(e))
		shdr_build_id(e);
}

static int open_elf(struct elf_file *e, int fd)
{
	struct stat st;

	e->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (e->fd < 0)
		return -errno;
	if (fstat(e->fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size == 0)
		return -EINVAL;
	e->file_bytes = st.st_size;
	elf_version(EV_CURRENT);
	/* Not ELF_C_READ_MMAP: data is read with pread, so a file that shrinks while we
	 * read it is an error instead of a SIGBUS. */
	e->elf = elf_begin(e->fd, ELF_C_READ, NULL);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &e->eh))
		return -EINVAL;
	return 0;
}

struct elf_file *elf_file__open(int fd)
{
	struct elf_file *e = calloc(1, sizeof(*e));
	int err;

	if (!e) {
		errno = ENOMEM;
		return NULL;
	}
	e->fd = -1;
	e->index = calloc(1, sizeof(*e->index));
	err = e->index ? open_elf(e, fd) : -ENOMEM;
	if (err) {
		elf_file__free(e);
		errno = -err;
		return NULL;
	}
	read_segments(e);
	read_build_id(e);
	return e;
}

void elf_file__free(struct elf_file *e)
{
	if (!e)
		return;
	if (e->index)
		free(e->index->slots);
	free(e->index);
	if (e->elf)
		elf_end(e->elf);
	if (e->fd >= 0)
		close(e->fd);
	free(e);
}

uint16_t elf_file__machine(const struct elf_file *e)
{
	return e->eh.e_machine;
}

uint16_t elf_file__type(const struct elf_file *e)
{
	return e->eh.e_type;
}

bool elf_file__is_64le(const struct elf_file *e)
{
	return e->eh.e_ident[EI_CLASS] == ELFCLASS64 && e->eh.e_ident[EI_DATA] == ELFDATA2LSB;
}

const struct elf_segment *elf_file__segments(const struct elf_file *e, size_t *n)
{
	*n = e->nsegs;
	return e->segs;
}

/* Pass 0 takes the executable segments, pass 1 the others. */
static bool in_pass(const struct elf_segment *s, int pass)
{
	return pass == 0 ? (s->flags & PF_X) != 0 : !(s->flags & PF_X);
}

/* Does the mapping at file offset pgoff start in s's file range (rounded down to its
 * page, as the loader maps it)? */
static bool holds_page(const struct elf_segment *s, uint64_t pgoff)
{
	uint64_t page = s->offset & ~4095ULL, span;

	if (pgoff < page)
		return false;
	if (__builtin_add_overflow(s->filesz, s->offset - page, &span))
		span = UINT64_MAX;
	return pgoff - page < span;
}

bool elf_segments__vaddr_bias(const struct elf_segment *segs, size_t n, uint64_t start,
			      uint64_t pgoff, uint64_t *bias)
{
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			const struct elf_segment *s = &segs[i];

			if (!in_pass(s, pass) || !holds_page(s, pgoff))
				continue;
			/* Unsigned wrap-around is the arithmetic wanted here. */
			*bias = start - pgoff + s->offset - s->vaddr;
			return true;
		}
	}
	return false;
}

bool elf_file__vaddr_bias(const struct elf_file *e, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	return elf_segments__vaddr_bias(e->segs, e->nsegs, start, pgoff, bias);
}

bool elf_segments__off_to_vaddr(const struct elf_segment *segs, size_t n, uint64_t off,
				uint64_t *vaddr)
{
	int pass;

	/* Executable segments first, so they win where segments overlap. */
	for (pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			const struct elf_segment *s = &segs[i];

			if (!in_pass(s, pass))
				continue;
			if (off >= s->offset && off - s->offset < s->filesz) {
				*vaddr = off - s->offset + s->vaddr;
				return true;
			}
		}
	}
	return false;
}

bool elf_file__off_to_vaddr(const struct elf_file *e, uint64_t off, uint64_t *vaddr)
{
	return elf_segments__off_to_vaddr(e->segs, e->nsegs, off, vaddr);
}

bool elf_file__vaddr_to_off(const struct elf_file *e, uint64_t vaddr, uint64_t *off)
{
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < e->nsegs; i++) {
			const struct elf_segment *s = &e->segs[i];

			if (!in_pass(s, pass))
				continue;
			if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
				*off = vaddr - s->vaddr + s->offset;
				return true;
			}
		}
	}
	return false;
}

size_t elf_file__build_id(const struct elf_file *e, const uint8_t **id)
{
	*id = e->build_id;
	return e->build_id_len;
}

void elf_file__build_id_hex(const struct elf_file *e, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < e->build_id_len; i++) {
		out[2 * i] = digits[e->build_id[i] >> 4];
		out[2 * i + 1] = digits[e->build_id[i] & 0xf];
	}
	out[2 * e->build_id_len] = '\0';
}

static void section_fill(Elf_Scn *scn, const GElf_Shdr *sh, struct elf_section *out)
{
	*out = (struct elf_section){
	    .index = elf_ndxscn(scn),
	    .addr = sh->sh_addr,
	    .offset = sh->sh_offset,
	    .size = sh->sh_size,
	    .type = sh->sh_type,
	    .flags = sh->sh_flags,
	};
}

/* The name of section sh, NULL when its index is not in the section name table. */
static const char *section_name(const struct elf_file *e, const GElf_Shdr *sh)
{
	size_t strndx;

	if (elf_getshdrstrndx(e->elf, &strndx))
		return NULL;
	return elf_strptr(e->elf, strndx, sh->sh_name); /* bounds-checked by libelf */
}

int elf_file__section(const struct elf_file *e, const char *name, struct elf_section *out)
{
	Elf_Scn *scn = NULL;
	const char *s;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(s = section_name(e, &sh)) || strcmp(s, name))
			continue;
		section_fill(scn, &sh, out);
		return 0;
	}
	return -ENOENT;
}

int elf_file__section_by_type(const struct elf_file *e, uint32_t type, struct elf_section *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
			continue;
		section_fill(scn, &sh, out);
		return 0;
	}
	return -ENOENT;
}

/* Reads the size a GNU-compressed (.zdebug) section claims. Returns false when its data
 * has no "ZLIB" header: not compressed, or decompressed by an earlier call. */
static bool zdebug_size(Elf_Scn *scn, uint64_t *size)
{
	Elf_Data *d = elf_rawdata(scn, NULL);
	const uint8_t *p;
	int i;

	if (!d || !d->d_buf || d->d_size < 12 || memcmp(d->d_buf, "ZLIB", 4))
		return false;
	p = (const uint8_t *)d->d_buf + 4;
	*size = 0;
	for (i = 0; i < 8; i++)
		*size = *size << 8 | p[i];
	return true;
}

/* Decompresses scn in place (libelf keeps the result) when it is compressed and its
 * decompressed size is at most max, and INFLATE_RATIO_MAX times the file's size: callers
 * take the first section of a name, so one file inflates a few sections at most. */
static int decompress(const struct elf_file *e, Elf_Scn *scn, const GElf_Shdr *sh, size_t max)
{
	const char *name = section_name(e, sh);
	uint64_t zsize;
	GElf_Chdr ch;

	if (sh->sh_flags & SHF_COMPRESSED) {
		if (!gelf_getchdr(scn, &ch) || ch.ch_size > max ||
		    !inflate_limit__allow(e->file_bytes, ch.ch_size))
			return -EFBIG;
		return elf_compress(scn, 0, 0) < 0 ? -EINVAL : 0;
	}
	if (name && !strncmp(name, ".zdebug", 7) && zdebug_size(scn, &zsize)) {
		if (zsize > max || !inflate_limit__allow(e->file_bytes, zsize))
			return -EFBIG;
		return elf_compress_gnu(scn, 0, 0) < 0 ? -EINVAL : 0;
	}
	return sh->sh_size > max ? -EFBIG : 0;
}

int elf_file__section_data(const struct elf_file *e, const struct elf_section *s, size_t max,
			   const void **data, size_t *size)
{
	Elf_Scn *scn = elf_getscn(e->elf, s->index);
	GElf_Shdr sh;
	Elf_Data *d;
	int err;

	if (!scn || !gelf_getshdr(scn, &sh))
		return -EINVAL;
	if (sh.sh_type == SHT_NOBITS || !sh.sh_size)
		return -ENOENT;
	/* A second call finds the section decompressed: SHF_COMPRESSED cleared, or no
	 * "ZLIB" header left; the size check below still applies. */
	err = decompress(e, scn, &sh, max);
	if (err)
		return err;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size || d->d_size > max)
		return -EINVAL;
	*data = d->d_buf;
	*size = d->d_size;
	return 0;
}

/* ---- symbols by name ---- */

/* The first symbol table of type and its string table's data, cut at its last NUL
 * (*nstrs bytes, libelf keeping them). NULL when there is none or it is malformed. */
static Elf_Scn *sym_strings(const struct elf_file *e, uint32_t type, Elf_Data **strs, size_t *nstrs)
{
	struct elf_section sec;
	Elf_Scn *scn, *str;
	GElf_Shdr sh, ssh;
	Elf_Data *sd;
	const char *end;

	if (elf_file__section_by_type(e, type, &sec))
		return NULL;
	scn = elf_getscn(e->elf, sec.index);
	if (!scn || !gelf_getshdr(scn, &sh) || !sh.sh_link)
		return NULL;
	str = elf_getscn(e->elf, sh.sh_link);
	if (!str || !gelf_getshdr(str, &ssh) || ssh.sh_type != SHT_STRTAB)
		return NULL;
	sd = elf_getdata(str, NULL);
	if (!sd || !sd->d_buf || !sd->d_size || !(end = memrchr(sd->d_buf, 0, sd->d_size)))
		return NULL;
	*strs = sd;
	*nstrs = end - (const char *)sd->d_buf + 1;
	return scn;
}

/* Loads the first section of type with its string table. Leaves t empty when there is
 * none or it is malformed: a missing table is no error. */
static void sym_table_load(const struct elf_file *e, uint32_t type, struct sym_table *t)
{
	size_t ent = gelf_fsize(e->elf, ELF_T_SYM, 1, EV_CURRENT), nstrs;
	Elf_Data *d, *sd;
	Elf_Scn *scn;

	if (!ent || !(scn = sym_strings(e, type, &sd, &nstrs)))
		return;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || d->d_type != ELF_T_SYM)
		return;
	t->syms = d;
	if (gelf_getclass(e->elf) == ELFCLASS64 && ent == sizeof(Elf64_Sym))
		t->syms64 = d->d_buf;
	t->strs = sd->d_buf;
	t->nstrs = nstrs;
	t->nsyms = d->d_size / ent;
	if (t->nsyms > SYM_INDEX_MAX)
		t->nsyms = SYM_INDEX_MAX;
}

/* The name of symbol i of t, NULL when it is undefined or unnamed. */
static const char *sym_name(const struct sym_table *t, size_t i, GElf_Sym *st)
{
	if (t->syms64)
		*st = t->syms64[i]; /* i < nsyms: inside the data; GElf_Sym is Elf64_Sym */
	else if (!gelf_getsym(t->syms, (int)i, st))
		return NULL;
	if (st->st_shndx == SHN_UNDEF || !st->st_name || st->st_name >= t->nstrs)
		return NULL;
	return t->strs + st->st_name;
}

static uint32_t name_hash(const char *name)
{
	return (uint32_t)(hash_bytes(name, strlen(name), 0) >> 32);
}

/* The slot holding name, or the empty slot where it would go. */
static uint64_t *index_slot(const struct sym_index *x, const char *name, uint32_t h)
{
	size_t i = h & x->mask;
	GElf_Sym st;

	for (;; i = (i + 1) & x->mask) {
		uint64_t v = x->slots[i];
		const char *other;

		if (!v)
			return &x->slots[i];
		if ((uint32_t)(v >> 32) != h)
			continue;
		other = sym_name(&x->tabs[(v >> 31) & 1], (uint32_t)(v & 0x7fffffff) - 1, &st);
		if (other && !strcmp(other, name))
			return &x->slots[i];
	}
}

/* Indexes every defined, named symbol; the first of a name (symtab before dynsym) wins.
 * .dynsym is left out when its hash table answers (gh.nbuckets): looked up after. */
static int index_build(const struct elf_file *e, struct sym_index *x)
{
	size_t total, cap = 16, t, i;
	GElf_Sym st;

	sym_table_load(e, SHT_SYMTAB, &x->tabs[0]);
	if (!x->gh.nbuckets)
		sym_table_load(e, SHT_DYNSYM, &x->tabs[1]);
	total = x->tabs[0].nsyms + x->tabs[1].nsyms;
	while (cap < 2 * total) /* load factor at most 1/2; total < 2^31 */
		cap *= 2;
	x->slots = calloc(cap, sizeof(*x->slots));
	if (!x->slots)
		return -ENOMEM;
	x->mask = cap - 1;
	for (t = 0; t < SYM_TABLES; t++) {
		for (i = 0; i < x->tabs[t].nsyms; i++) {
			const char *name = sym_name(&x->tabs[t], i, &st);
			uint32_t h;
			uint64_t *slot;

			if (!name)
				continue;
			h = name_hash(name);
			slot = index_slot(x, name, h);
			if (!*slot)
				*slot = (uint64_t)h << 32 | (uint64_t)t << 31 | (i + 1);
		}
	}
	return 0;
}

/* ---- symbols by name, before the index: most files are asked for names they lack ---- */

/* Reads len bytes at off of e's file. */
static bool read_at(const struct elf_file *e, uint64_t off, void *buf, size_t len)
{
	return off <= e->file_bytes && len <= e->file_bytes - off &&
	       pread(e->fd, buf, len, (off_t)off) == (ssize_t)len;
}

/* Whether a file range of a section lies inside the file. */
static bool in_file(const struct elf_file *e, const GElf_Shdr *sh)
{
	return sh->sh_type != SHT_NOBITS && !(sh->sh_flags & SHF_COMPRESSED) &&
	       sh->sh_offset <= e->file_bytes && sh->sh_size <= e->file_bytes - sh->sh_offset;
}

/* .symtab's names as sym_table_load reads them (cut at the last NUL), or none when it
 * would leave the table empty for want of them. */
static void quick_symtab_names(const struct elf_file *e, struct sym_index *x)
{
	size_t nstrs;
	Elf_Data *sd;

	if (!sym_strings(e, SHT_SYMTAB, &sd, &nstrs)) /* libelf keeps them: the index reuses */
		return;
	x->symstrs = sd->d_buf;
	x->nsymstrs = nstrs;
}

/* The words of a GNU hash table's header: nbuckets, symoffset, bloom words, shift. */
static bool gnu_hash_header(const struct elf_file *e, const GElf_Shdr *sh, struct gnu_hash *g)
{
	uint32_t w[4];
	uint64_t need;

	if (!in_file(e, sh) || !read_at(e, sh->sh_offset, w, sizeof(w)) || !w[0] || !w[2] ||
	    w[1] > g->nsyms)
		return false;
	need = sizeof(w) + 8ull * w[2] + 4ull * w[0] + 4ull * (g->nsyms - w[1]);
	if (need > sh->sh_size)
		return false;
	g->off = sh->sh_offset;
	g->nbuckets = w[0];
	g->symoffset = w[1];
	g->nbloom = w[2];
	g->shift = w[3];
	return true;
}

/* Whether no symbol below symoffset (not hashed) is one the index would hold: defined
 * and named. Such a file (no linker makes one) is looked up through the index. */
static bool unhashed_undefined(const struct elf_file *e, const struct gnu_hash *g)
{
	Elf64_Sym s[64];

	for (uint64_t i = 0; i < g->symoffset; i += 64) {
		size_t n = g->symoffset - i < 64 ? g->symoffset - i : 64;

		if (!read_at(e, g->syms + i * sizeof(s[0]), s, n * sizeof(s[0])))
			return false;
		for (size_t k = 0; k < n; k++)
			if (s[k].st_shndx != SHN_UNDEF && s[k].st_name)
				return false;
	}
	return true;
}

/* .dynsym's GNU hash table, when the file is 64-bit little-endian (read as is) and the
 * table covers every symbol the index would hold of .dynsym. */
static void quick_dynsym(const struct elf_file *e, struct sym_index *x)
{
	struct elf_section dyn, hash;
	GElf_Shdr sh, dsh, ssh;
	Elf_Scn *scn, *str;

	if (elf_file__section_by_type(e, SHT_DYNSYM, &dyn))
		return;
	x->has_dynsym = true;
	if (!elf_file__is_64le(e) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ ||
	    elf_file__section_by_type(e, SHT_GNU_HASH, &hash))
		return;
	scn = elf_getscn(e->elf, dyn.index);
	if (!scn || !gelf_getshdr(scn, &dsh) || !in_file(e, &dsh) || !dsh.sh_link)
		return;
	str = elf_getscn(e->elf, dsh.sh_link);
	if (!str || !gelf_getshdr(str, &ssh) || ssh.sh_type != SHT_STRTAB || !in_file(e, &ssh))
		return;
	scn = elf_getscn(e->elf, hash.index);
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_link != dyn.index)
		return;
	x->gh.syms = dsh.sh_offset;
	x->gh.nsyms = dsh.sh_size / sizeof(Elf64_Sym);
	if (x->gh.nsyms > SYM_INDEX_MAX)
		x->gh.nsyms = SYM_INDEX_MAX;
	x->gh.strs = ssh.sh_offset;
	x->gh.nstrs = ssh.sh_size;
	if (!gnu_hash_header(e, &sh, &x->gh) || !unhashed_undefined(e, &x->gh))
		x->gh.nbuckets = 0;
}

static uint32_t gnu_hash_of(const char *name)
{
	uint32_t h = 5381;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = h * 33 + *p;
	return h;
}

/* Whether .dynsym's symbol i is defined and called name; its entry into *s. */
static bool gnu_hash_is(const struct elf_file *e, const struct gnu_hash *g, uint64_t i,
			const char *name, size_t len, Elf64_Sym *s)
{
	char buf[256];

	if (!read_at(e, g->syms + i * sizeof(*s), s, sizeof(*s)) || s->st_shndx == SHN_UNDEF ||
	    !s->st_name || s->st_name >= g->nstrs || g->nstrs - s->st_name < len + 1)
		return false;
	/* The name and its NUL, a buffer at a time. */
	for (size_t at = 0, n; at < len + 1; at += n) {
		n = len + 1 - at < sizeof(buf) ? len + 1 - at : sizeof(buf);
		if (!read_at(e, g->strs + s->st_name + at, buf, n) || memcmp(buf, name + at, n))
			return false;
	}
	return true;
}

/* Looks name up in .dynsym through g: 0 (*s filled), or -ENOENT (also when the file
 * cannot be read there, as the index's table would be empty). The chain of name's
 * bucket runs up .dynsym, so its first match is the table's first, as in the index. */
static int gnu_hash_lookup(const struct elf_file *e, const struct gnu_hash *g, const char *name,
			   Elf64_Sym *s)
{
	uint32_t h = gnu_hash_of(name), bucket, ch;
	uint64_t word, mask, at = g->off + 16, len = strlen(name);

	mask = 1ull << (h % 64) | 1ull << ((h >> (g->shift % 32)) % 64);
	if (!read_at(e, at + 8ull * ((h / 64) % g->nbloom), &word, 8) || (word & mask) != mask)
		return -ENOENT;
	at += 8ull * g->nbloom;
	/* 0 is an empty bucket; the others start at symoffset at least. */
	if (!read_at(e, at + 4ull * (h % g->nbuckets), &bucket, 4) || bucket < g->symoffset)
		return -ENOENT;
	at += 4ull * g->nbuckets;
	for (uint64_t i = bucket; i < g->nsyms; i++) {
		if (!read_at(e, at + 4 * (i - g->symoffset), &ch, 4))
			return -ENOENT;
		if ((ch | 1) == (h | 1) && gnu_hash_is(e, g, i, name, len, s))
			return 0;
		if (ch & 1)
			break;
	}
	return -ENOENT;
}

/* Looks name up in .dynsym through its hash table: 0, or -ENOENT. */
static int dynsym_symbol(const struct elf_file *e, const char *name, uint64_t *value,
			 uint64_t *size)
{
	Elf64_Sym s;
	int err = gnu_hash_lookup(e, &e->index->gh, name, &s);

	if (err)
		return err;
	if (value)
		*value = s.st_value;
	if (size)
		*size = s.st_size;
	return 0;
}

/* Answers a lookup without the index when it can: the name is not in .symtab's strings
 * (so not in .symtab, which comes first), and .dynsym is absent or has a hash table.
 * Returns 0, -ENOENT, or -EAGAIN when only the index can answer. */
static int quick_symbol(const struct elf_file *e, const char *name, uint64_t *value, uint64_t *size)
{
	struct sym_index *x = e->index;
	size_t len = strlen(name);

	if (!x->quick_tried) {
		x->quick_tried = true;
		quick_symtab_names(e, x);
		quick_dynsym(e, x);
	}
	if (x->symstrs && memmem(x->symstrs, x->nsymstrs, name, len + 1))
		return -EAGAIN;
	if (!x->has_dynsym)
		return -ENOENT;
	if (!x->gh.nbuckets)
		return -EAGAIN;
	return dynsym_symbol(e, name, value, size);
}

int elf_file__symbol(const struct elf_file *e, const char *name, uint64_t *value, uint64_t *size)
{
	struct sym_index *x = e->index;
	uint64_t v;
	GElf_Sym st;
	uint32_t h;
	int err;

	if (!x->built) {
		err = quick_symbol(e, name, value, size);
		if (err != -EAGAIN)
			return err;
		x->built = true;
		x->err = index_build(e, x);
	}
	if (x->err)
		return x->err;
	h = name_hash(name);
	v = *index_slot(x, name, h);
	/* Not in .symtab, and .dynsym left out of the index: its hash table answers. */
	if (!v && x->gh.nbuckets)
		return dynsym_symbol(e, name, value, size);
	if (!v || !sym_name(&x->tabs[(v >> 31) & 1], (uint32_t)(v & 0x7fffffff) - 1, &st))
		return -ENOENT;
	if (value)
		*value = st.st_value;
	if (size)
		*size = st.st_size;
	return 0;
}

Elf *elf_file__elf(const struct elf_file *e)
{
	return e->elf;
}

uint64_t elf_file__size(const struct elf_file *e)
{
	return e->file_bytes;
}

int elf_file__fd(const struct elf_file *e)
{
	return e->fd;
}
