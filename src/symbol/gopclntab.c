// SPDX-License-Identifier: Apache-2.0
/* Go pclntab reader: file offset -> (function, file, line) chain with inlined calls, for
 * Go binaries whether or not they keep an ELF symbol table. The layouts are the Go
 * runtime's (runtime/symtab.go, runtime2.go, symtabinl.go of each release); every
 * offset, count and index read from the file is checked before use. */
#include "symbol/gopclntab.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/arena.h"
#include "util/hmap.h"
#include "util/mapguard.h"

#define GO_MAGIC_116 0xfffffffau /* Go 1.16-1.17 */
#define GO_MAGIC_118 0xfffffff0u /* Go 1.18-1.19 */
#define GO_MAGIC_120 0xfffffff1u /* Go 1.20 and later */

#define GO_PTR 8		   /* only 64-bit little-endian binaries (x86-64, arm64) */
#define GO_HDR_WORDS 8		   /* pcHeader words after the 8-byte prefix (1.18+) */
#define GO_NFUNC_MAX (1u << 22)	   /* the largest Go binaries hold a few 100 k functions */
#define GO_NAME_MAX 1024	   /* longer names and paths are cut */
#define GO_PCVALUE_STEPS 65536	   /* (value, pc) pairs decoded for one lookup */
#define GO_INLTREE_MAX (1u << 20)  /* inline tree entries of one function */
#define GO_SCAN_MAX (512ull << 20) /* bytes searched for a header without sections */
#define GO_SCAN_CHUNK (1u << 20)
#define GO_SEGS_MAX 16
#define GO_MODULEDATA_WORDS 48

/* _func layout: field offsets, and where the pcdata array starts. */
#define FUNC_NAMEOFF_118 4
#define FUNC_NAMEOFF_116 8
#define PCDATA_INLTREEINDEX 2
#define FUNCDATA_INLTREE 3

/* moduledata words (uintptr each; a slice is three). */
#define MD_TEXT 22	   /* the same word in every release */
#define MD_GOFUNC_FIRST 36 /* gofunc moves: word 38 in 1.18, 40 in 1.20, 43 in 1.27 */
#define GOFUNC_TREES 8	   /* inline trees that must check out for a gofunc candidate */
#define GOFUNC_SAMPLES 512 /* functions looked at to find them */

enum go_ver { GO_116, GO_118, GO_120 };

struct go_seg {
	uint64_t off, filesz, vaddr;
	bool exec, write;
};

/* A byte range of the table, as file offsets [start, end). */
struct go_region {
	uint64_t start, end;
};

struct go_table {
	int fd;
	enum go_ver ver;
	uint8_t quantum; /* pc deltas are in units of the minimum instruction size */
	uint64_t hdr_off, hdr_vaddr, size;
	struct go_region funcnames, cutab, filetab, pctab, pcln;
	uint32_t nfunc;
	uint64_t entry_base; /* entry pc of the first function */
	uint32_t *entries;   /* nfunc + 1 entry pcs minus entry_base, ascending */
	uint32_t *funcoffs;  /* nfunc offsets of _func records in pcln */
	uint64_t text;	     /* 1.18+: what entry offsets are relative to */
	uint64_t gofunc;     /* 1.18+: what funcdata offsets are relative to; 0 = unknown */
	bool inline_ok;
	struct go_seg segs[GO_SEGS_MAX];
	unsigned int nsegs;
	struct hmap strings; /* struct go_string by file offset */
	struct arena arena;
};

struct go_string {
	uint64_t off;
	char s[];
};

/* The parts of one _func record a lookup needs. */
struct go_func {
	uint64_t entry, end;
	int32_t nameoff;
	uint32_t pcsp, pcfile, pcln, cuoff, pcdata_inl;
	uint64_t inltree; /* vaddr of the inline tree, 0 if none */
	uint8_t flag;	  /* abi.FuncFlag (1.17+; 0 before) */
};

static uint32_t le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* Reads exactly len bytes at off inside region r; false when out of it or short. */
static bool read_in(const struct go_table *t, struct go_region r, uint64_t off, void *buf,
		    size_t len)
{
	if (off < r.start || off > r.end || len > r.end - off)
		return false;
	return pread(t->fd, buf, len, (off_t)off) == (ssize_t)len;
}

static bool read_u32(const struct go_table *t, struct go_region r, uint64_t off, uint32_t *v)
{
	uint8_t b[4];

	if (!read_in(t, r, off, b, sizeof(b)))
		return false;
	*v = le32(b);
	return true;
}

/* Finds the file offset of len bytes at vaddr inside one segment's file contents. */
static bool vaddr_to_off(const struct go_table *t, uint64_t va, uint64_t len, uint64_t *off)
{
	for (unsigned int i = 0; i < t->nsegs; i++) {
		const struct go_seg *s = &t->segs[i];

		if (va >= s->vaddr && va - s->vaddr < s->filesz &&
		    len <= s->filesz - (va - s->vaddr)) {
			*off = va - s->vaddr + s->off;
			return true;
		}
	}
	return false;
}

static bool off_to_text_vaddr(const struct go_table *t, uint64_t off, uint64_t *va)
{
	for (unsigned int i = 0; i < t->nsegs; i++) {
		const struct go_seg *s = &t->segs[i];

		if (s->exec && off >= s->off && off - s->off < s->filesz) {
			*va = off - s->off + s->vaddr;
			return true;
		}
	}
	return false;
}

static bool read_vaddr(const struct go_table *t, uint64_t va, void *buf, size_t len)
{
	struct go_region whole = {0, UINT64_MAX};
	uint64_t off;

	return vaddr_to_off(t, va, len, &off) && read_in(t, whole, off, buf, len);
}

static int read_segments(struct go_table *t, Elf *elf)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	for (i = 0; i < n && t->nsegs < GO_SEGS_MAX; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		t->segs[t->nsegs++] = (struct go_seg){
		    .off = ph.p_offset,
		    .filesz = ph.p_filesz,
		    .vaddr = ph.p_vaddr,
		    .exec = ph.p_flags & PF_X,
		    .write = ph.p_flags & PF_W,
		};
	}
	return t->nsegs ? 0 : -ENOENT;
}

/* Checks the header at file offset off (vaddr va, size bytes of table behind it) and
 * fills the version, quantum and regions. The regions follow the header in this order
 * in every release: names, cutab, filetab, pctab, then functab and _func records. */
static int parse_header(struct go_table *t, uint64_t off, uint64_t va, uint64_t size)
{
	struct go_region all = {off, off + size};
	uint8_t h[8 + 8 * GO_HDR_WORDS];
	uint64_t w[GO_HDR_WORDS], hdr_size;
	uint32_t magic;
	unsigned int k;

	if (off + size < off || !read_in(t, all, off, h, 8))
		return -ENOENT;
	magic = le32(h);
	if (magic == GO_MAGIC_116)
		t->ver = GO_116;
	else if (magic == GO_MAGIC_118)
		t->ver = GO_118;
	else if (magic == GO_MAGIC_120)
		t->ver = GO_120;
	else
		return -ENOENT;
	if (h[4] || h[5] || (h[6] != 1 && h[6] != 2 && h[6] != 4) || h[7] != GO_PTR)
		return -ENOENT;
	hdr_size = t->ver == GO_116 ? 8 + 8 * 7 : 8 + 8 * 8;
	if (!read_in(t, all, off, h, hdr_size))
		return -EINVAL;
	for (k = 0; k < (hdr_size - 8) / 8; k++)
		w[k] = le64(h + 8 + 8 * k);
	k = t->ver == GO_116 ? 2 : 3; /* 1.18+ has textStart (unused since 1.26) first */
	if (!w[0] || w[0] > GO_NFUNC_MAX || w[k] < hdr_size || w[k + 1] < w[k] ||
	    w[k + 2] < w[k + 1] || w[k + 3] < w[k + 2] || w[k + 4] < w[k + 3] || w[k + 4] >= size)
		return -EINVAL;
	t->quantum = h[6];
	t->nfunc = (uint32_t)w[0];
	t->hdr_off = off;
	t->hdr_vaddr = va;
	t->size = size;
	t->funcnames = (struct go_region){off + w[k], off + w[k + 1]};
	t->cutab = (struct go_region){off + w[k + 1], off + w[k + 2]};
	t->filetab = (struct go_region){off + w[k + 2], off + w[k + 3]};
	t->pctab = (struct go_region){off + w[k + 3], off + w[k + 4]};
	t->pcln = (struct go_region){off + w[k + 4], off + size};
	t->text = t->ver == GO_116 ? 0 : w[2];
	return 0;
}

/* Decodes functab fields [first, first + n) from buf into the entry and offset arrays.
 * The table is nfunc (entry, funcoff) pairs and a last entry: the end of the text. */
static int functab_fields(struct go_table *t, const uint8_t *buf, uint64_t first, size_t n)
{
	unsigned int fs = t->ver == GO_116 ? 8 : 4;

	for (size_t j = 0; j < n; j++) {
		uint64_t f = first + j, v = fs == 8 ? le64(buf + 8 * j) : le32(buf + 4 * j);

		if (f & 1) {
			if (v >= t->pcln.end - t->pcln.start)
				return -EINVAL;
			t->funcoffs[f / 2] = (uint32_t)v;
			continue;
		}
		if (f == 0 && fs == 8)
			t->entry_base = v;
		if (v < t->entry_base || v - t->entry_base > UINT32_MAX)
			return -EINVAL;
		t->entries[f / 2] = (uint32_t)(v - t->entry_base);
		if (f && t->entries[f / 2] < t->entries[f / 2 - 1])
			return -EINVAL; /* lookups binary-search it: it must be sorted */
	}
	return 0;
}

static int load_functab(struct go_table *t)
{
	unsigned int fs = t->ver == GO_116 ? 8 : 4;
	uint64_t nfields = 2 * (uint64_t)t->nfunc + 1, done = 0;
	uint8_t *buf;
	int err = 0;

	t->entries = malloc((t->nfunc + 1) * sizeof(*t->entries));
	t->funcoffs = malloc(t->nfunc * sizeof(*t->funcoffs));
	buf = malloc(GO_SCAN_CHUNK);
	if (!t->entries || !t->funcoffs || !buf) {
		err = -ENOMEM;
		goto cleanup;
	}
	while (!err && done < nfields) {
		size_t n =
		    nfields - done < GO_SCAN_CHUNK / fs ? nfields - done : GO_SCAN_CHUNK / fs;

		if (!read_in(t, t->pcln, t->pcln.start + done * fs, buf, n * fs))
			err = -EINVAL;
		else
			err = functab_fields(t, buf, done, n);
		done += n;
	}
cleanup:
	free(buf);
	return err;
}

/* Parses and loads a candidate table; on failure t is left ready for another one. */
static int try_table(struct go_table *t, uint64_t off, uint64_t va, uint64_t size)
{
	int err = parse_header(t, off, va, size);

	if (!err)
		err = load_functab(t);
	if (err) {
		free(t->entries);
		free(t->funcoffs);
		t->entries = NULL;
		t->funcoffs = NULL;
		t->entry_base = 0;
	}
	return err;
}

/* The table's section (.gopclntab, or .data.rel.ro.gopclntab in PIE binaries), and the
 * address of .text, which Go 1.18+ entry offsets count from when nothing better is
 * known. Returns 0, or -ENOENT when the file has no such section. */
static int table_from_sections(struct go_table *t, Elf *elf, uint64_t *text_sect)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *name;
	GElf_Shdr sh;
	int err = -ENOENT;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".text"))
			*text_sect = sh.sh_addr;
		else if (err &&
			 (!strcmp(name, ".gopclntab") || !strcmp(name, ".data.rel.ro.gopclntab")))
			err = try_table(t, sh.sh_offset, sh.sh_addr, sh.sh_size);
	}
	return err;
}

/* Whether 8 bytes look like the start of a pclntab header of a known version. */
static bool header_prefix(const uint8_t *p)
{
	uint32_t m = le32(p);

	return (m == GO_MAGIC_116 || m == GO_MAGIC_118 || m == GO_MAGIC_120) && !p[4] && !p[5] &&
	       (p[6] == 1 || p[6] == 2 || p[6] == 4) && p[7] == GO_PTR;
}

/* Searches segment s (8-byte aligned positions) for a header that checks out. */
static int scan_segment(struct go_table *t, const struct go_seg *s, uint8_t *buf, uint64_t *budget)
{
	struct go_region whole = {0, UINT64_MAX};
	uint64_t pos = (8 - (s->vaddr & 7)) & 7;

	while (pos + 8 <= s->filesz && *budget) {
		uint64_t n = s->filesz - pos < GO_SCAN_CHUNK ? s->filesz - pos : GO_SCAN_CHUNK;

		n = n < *budget ? n : *budget;
		if (n < 8 || !read_in(t, whole, s->off + pos, buf, n))
			return -ENOENT;
		*budget -= n;
		for (uint64_t i = 0; i + 8 <= n; i += 8)
			if (header_prefix(buf + i) &&
			    !try_table(t, s->off + pos + i, s->vaddr + pos + i,
				       s->filesz - pos - i))
				return 0;
		pos += n & ~7ull;
	}
	return -ENOENT;
}

/* Without section headers: read-only segments first, where the linker puts the table. */
static int table_from_segments(struct go_table *t)
{
	uint64_t budget = GO_SCAN_MAX;
	uint8_t *buf = malloc(GO_SCAN_CHUNK);
	int err = -ENOENT;

	if (!buf)
		return -ENOMEM;
	for (int pass = 0; pass < 2 && err; pass++)
		for (unsigned int i = 0; i < t->nsegs && err; i++)
			if (t->segs[i].exec == (pass == 1) && !t->segs[i].write)
				err = scan_segment(t, &t->segs[i], buf, &budget);
	free(buf);
	return err;
}

/* Finds the module data (runtime.firstmoduledata) in the writable segments: its first
 * word points at the header and its second at the function names. Reads its words into
 * md; false when it is not there (position-independent binaries hold 0 there until the
 * dynamic loader relocates them). */
static bool find_moduledata(const struct go_table *t, uint64_t *md)
{
	struct go_region whole = {0, UINT64_MAX};
	uint64_t names = t->hdr_vaddr + (t->funcnames.start - t->hdr_off), budget = GO_SCAN_MAX;
	uint8_t *buf = malloc(GO_SCAN_CHUNK), raw[8 * GO_MODULEDATA_WORDS];
	bool found = false;

	for (unsigned int i = 0; buf && i < t->nsegs && !found; i++) {
		const struct go_seg *s = &t->segs[i];
		uint64_t pos = (8 - (s->vaddr & 7)) & 7;

		while (!found && s->write && pos + 16 <= s->filesz && budget) {
			uint64_t n =
			    s->filesz - pos < GO_SCAN_CHUNK ? s->filesz - pos : GO_SCAN_CHUNK;

			n = n < budget ? n : budget;
			if (n < 16 || !read_in(t, whole, s->off + pos, buf, n))
				break;
			budget -= n;
			for (uint64_t j = 0; j + 16 <= n && !found; j += 8)
				found = le64(buf + j) == t->hdr_vaddr &&
					le64(buf + j + 8) == names &&
					read_vaddr(t, s->vaddr + pos + j, raw, sizeof(raw));
			pos += (n - 8) & ~7ull; /* overlap: a match may straddle chunks */
		}
	}
	free(buf);
	for (unsigned int k = 0; found && k < GO_MODULEDATA_WORDS; k++)
		md[k] = le64(raw + 8 * k);
	return found;
}

static bool in_text(const struct go_table *t, uint64_t va, uint64_t len)
{
	for (unsigned int i = 0; i < t->nsegs; i++) {
		const struct go_seg *s = &t->segs[i];

		if (s->exec && va >= s->vaddr && va - s->vaddr <= s->filesz &&
		    len <= s->filesz - (va - s->vaddr))
			return true;
	}
	return false;
}

static int string_eq(const void *entry, const void *key)
{
	return ((const struct go_string *)entry)->off == *(const uint64_t *)key;
}

/* The NUL-terminated string at file offset off inside r, read once and kept; "?" when it
 * cannot be read. Longer than GO_NAME_MAX, it is cut. */
static const char *string_at(struct go_table *t, struct go_region r, uint64_t off)
{
	uint64_t h = hash_u64(off);
	struct go_string *s = hmap_find(&t->strings, h, &off);
	char buf[GO_NAME_MAX];
	size_t n, len;
	ssize_t got;
	char *nul;

	if (s)
		return s->s;
	if (off < r.start || off >= r.end)
		return "?";
	n = r.end - off < sizeof(buf) ? r.end - off : sizeof(buf);
	got = pread(t->fd, buf, n, (off_t)off);
	if (got <= 0)
		return "?";
	nul = memchr(buf, 0, got);
	len = nul ? (size_t)(nul - buf) : (size_t)got;
	if (!len)
		return "?";
	s = arena_alloc(&t->arena, sizeof(*s) + len + 1);
	if (!s)
		return "?";
	s->off = off;
	memcpy(s->s, buf, len);
	s->s[len] = '\0';
	if (hmap_insert(&t->strings, h, s))
		return "?"; /* the arena keeps it until free; the next call reads it again */
	return s->s;
}

/* A forward reader of one pc-value table through a small buffer. */
struct pc_reader {
	const struct go_table *t;
	uint64_t pos, end;
	size_t len, at;
	uint8_t buf[128];
};

static bool next_byte(struct pc_reader *r, uint8_t *b)
{
	if (r->at == r->len) {
		size_t n = r->end - r->pos < sizeof(r->buf) ? r->end - r->pos : sizeof(r->buf);

		if (!n || pread(r->t->fd, r->buf, n, (off_t)r->pos) != (ssize_t)n)
			return false;
		r->pos += n;
		r->len = n;
		r->at = 0;
	}
	*b = r->buf[r->at++];
	return true;
}

/* An unsigned LEB128 of at most 5 bytes: a longer one does not fit the runtime's 32 bits. */
static bool uvarint(struct pc_reader *r, uint32_t *v)
{
	uint8_t b;

	*v = 0;
	for (unsigned int i = 0; i < 5; i++) {
		if (!next_byte(r, &b))
			return false;
		*v |= (uint32_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* The value of pc-value table `table` (an offset into pctab; 0 = none) at pc: pairs of
 * (zig-zag value delta, pc delta in quanta) from (entry, -1); a zero value delta after
 * the first pair ends the table. Returns -1 when pc is not covered or the table is bad. */
static int32_t pcvalue(const struct go_table *t, const struct go_func *f, uint32_t table,
		       uint64_t pc)
{
	struct pc_reader r = {.t = t};
	uint64_t at = f->entry;
	uint32_t val = UINT32_MAX, uv, pcd; /* -1, in unsigned arithmetic: it wraps */

	if (!table || table >= t->pctab.end - t->pctab.start)
		return -1;
	r.pos = t->pctab.start + table;
	r.end = t->pctab.end;
	for (unsigned int i = 0; i < GO_PCVALUE_STEPS; i++) {
		if (!uvarint(&r, &uv) || (uv == 0 && at != f->entry) || !uvarint(&r, &pcd))
			return -1;
		val += (uint32_t)(-(int32_t)(uv & 1)) ^ (uv >> 1);
		at += (uint64_t)pcd * t->quantum;
		if (pc < at)
			return (int32_t)val;
	}
	return -1;
}

/* Size of a _func record before its pcdata array. */
static unsigned int func_size(enum go_ver v)
{
	return v == GO_118 ? 40 : 44;
}

/* The inline tree's address from funcdata[FUNCDATA_InlTree]: an address before 1.18 (the
 * array then starts 8-aligned), an offset from go:func.* after; 0 when there is none. */
static uint64_t inline_tree(const struct go_table *t, uint64_t at, uint32_t nfuncdata)
{
	uint8_t b[8];

	if (nfuncdata <= FUNCDATA_INLTREE || !t->inline_ok || (t->ver != GO_116 && !t->gofunc))
		return 0;
	if (t->ver == GO_116) {
		if ((at - t->hdr_off + t->hdr_vaddr) & 4)
			at += 4;
		if (!read_in(t, t->pcln, at + 8 * FUNCDATA_INLTREE, b, 8))
			return 0;
		return le64(b);
	}
	if (!read_in(t, t->pcln, at + 4 * FUNCDATA_INLTREE, b, 4) || le32(b) == UINT32_MAX)
		return 0;
	return t->gofunc + le32(b);
}

/* Reads the _func record of function i; false when it does not match the functab. */
static bool read_func(const struct go_table *t, uint32_t i, struct go_func *f)
{
	uint64_t at = t->pcln.start + t->funcoffs[i];
	unsigned int size = func_size(t->ver), d = t->ver == GO_116 ? 4 : 0;
	uint32_t npcdata, nfuncdata;
	uint8_t b[44];

	if (!read_in(t, t->pcln, at, b, size))
		return false;
	f->entry = t->ver == GO_116 ? le64(b) : t->text + le32(b);
	f->end = t->entry_base + t->entries[i + 1];
	if (f->entry != t->entry_base + t->entries[i])
		return false;
	f->nameoff = (int32_t)le32(b + 4 + d);
	f->pcsp = le32(b + 16 + d);
	f->pcfile = le32(b + 20 + d);
	f->flag = b[t->ver == GO_118 ? 37 : 41];
	f->pcln = le32(b + 24 + d);
	npcdata = le32(b + 28 + d);
	f->cuoff = le32(b + 32 + d);
	nfuncdata = b[size - 1];
	if (npcdata > (t->pcln.end - at) / 4)
		return false;
	f->pcdata_inl = 0;
	if (npcdata > PCDATA_INLTREEINDEX &&
	    !read_u32(t, t->pcln, at + size + 4 * PCDATA_INLTREEINDEX, &f->pcdata_inl))
		return false;
	f->inltree = inline_tree(t, at + size + 4 * (uint64_t)npcdata, nfuncdata);
	return true;
}

static const char *file_name(struct go_table *t, const struct go_func *f, uint64_t pc)
{
	int32_t fileno = pcvalue(t, f, f->pcfile, pc);
	uint32_t fileoff;

	if (fileno < 0 ||
	    !read_u32(t, t->cutab, t->cutab.start + 4 * ((uint64_t)f->cuoff + fileno), &fileoff) ||
	    fileoff == UINT32_MAX)
		return "?";
	return string_at(t, t->filetab, t->filetab.start + fileoff);
}

static void position(struct go_table *t, const struct go_func *f, uint64_t pc, int32_t nameoff,
		     struct go_line *out)
{
	int32_t line = pcvalue(t, f, f->pcln, pc);

	out->function =
	    nameoff < 0 ? "?" : string_at(t, t->funcnames, t->funcnames.start + nameoff);
	out->file = file_name(t, f, pc);
	out->line = line > 0 ? (uint32_t)line : 0;
}

/* Reads inlined call ix: the callee's name and the offset of its call site in f. */
static bool inlined_call(const struct go_table *t, const struct go_func *f, int32_t ix,
			 int32_t *nameoff, uint64_t *site)
{
	unsigned int size = t->ver == GO_120 ? 16 : 20;
	int32_t parent_pc;
	uint8_t b[20];

	if (!f->inltree || ix < 0 || (uint32_t)ix >= GO_INLTREE_MAX ||
	    !read_vaddr(t, f->inltree + (uint64_t)ix * size, b, size))
		return false;
	*nameoff = (int32_t)le32(b + (t->ver == GO_120 ? 4 : 12));
	parent_pc = (int32_t)le32(b + (t->ver == GO_120 ? 8 : 16));
	if (parent_pc < 0 || (uint64_t)parent_pc >= f->end - f->entry)
		return false;
	*site = f->entry + parent_pc;
	return true;
}

/* Whether the inline trees of a sample of functions read as such when funcdata offsets
 * count from candidate: callee names that start a name, call sites inside the caller. */
static bool gofunc_checks_out(struct go_table *t, uint64_t candidate)
{
	uint32_t stride = t->nfunc / GOFUNC_SAMPLES + 1, trees = 0;
	struct go_func f;
	int32_t nameoff;
	uint64_t site;
	uint8_t prev;

	t->gofunc = candidate;
	for (uint32_t i = 0; i < t->nfunc && trees < GOFUNC_TREES; i += stride) {
		if (!read_func(t, i, &f) || !f.inltree)
			continue;
		if (!inlined_call(t, &f, 0, &nameoff, &site) || nameoff < 0)
			break;
		if (nameoff &&
		    (!read_in(t, t->funcnames, t->funcnames.start + nameoff - 1, &prev, 1) || prev))
			break;
		trees++;
	}
	t->gofunc = 0;
	return trees == GOFUNC_TREES;
}

/* Go 1.18+ counts entries from runtime.text and funcdata from go:func.*, both only in
 * the module data (1.26 stopped writing textStart into the header). Failing the module
 * data, the header's textStart or the .text section stand in for runtime.text. gofunc
 * has moved between releases without a new table version, so it is recognised: the word
 * of the module data that makes inline trees read right. */
static int resolve_bases(struct go_table *t, uint64_t text_sect)
{
	uint64_t md[GO_MODULEDATA_WORDS] = {0}, span = t->entries[t->nfunc];
	bool have_md = find_moduledata(t, md);

	if (t->ver == GO_116) {
		t->inline_ok = true; /* funcdata are absolute addresses */
		return 0;
	}
	if (have_md && in_text(t, md[MD_TEXT], span))
		t->text = md[MD_TEXT];
	else if (!t->text || !in_text(t, t->text, span))
		t->text = text_sect;
	if (!t->text || !in_text(t, t->text, span))
		return -EINVAL;
	t->entry_base = t->text;
	if (!have_md || md[MD_TEXT] != t->text)
		return 0;
	t->inline_ok = true; /* read_func reads the tree's offset only when this is set */
	for (unsigned int k = MD_GOFUNC_FIRST; k < GO_MODULEDATA_WORDS; k++) {
		if (md[k] && gofunc_checks_out(t, md[k])) {
			t->gofunc = md[k];
			return 0;
		}
	}
	t->inline_ok = false;
	return 0;
}

/* Index of the function covering pc, or -1. */
static int64_t find_func(const struct go_table *t, uint64_t pc)
{
	uint32_t lo = 0, hi = t->nfunc, mid;
	uint64_t rel;

	if (pc < t->entry_base || pc - t->entry_base >= t->entries[t->nfunc])
		return -1;
	rel = pc - t->entry_base;
	while (hi - lo > 1) { /* entries[lo] <= rel < entries[hi] */
		mid = lo + (hi - lo) / 2;
		if (t->entries[mid] <= rel)
			lo = mid;
		else
			hi = mid;
	}
	return rel >= t->entries[lo] ? (int64_t)lo : -1;
}

unsigned int go_table__lookup(struct go_table *t, uint64_t off, struct go_line *out,
			      unsigned int max)
{
	struct go_func f;
	unsigned int n = 0;
	int32_t ix, nameoff;
	uint64_t pc, site;
	int64_t i;

	if (!t || !max || !off_to_text_vaddr(t, off, &pc) || (i = find_func(t, pc)) < 0 ||
	    !read_func(t, (uint32_t)i, &f))
		return 0;
	/* Innermost first: each inlined call's position is at pc, and its caller continues
	 * at the call site, whose own inline index says who that caller was. */
	ix = pcvalue(t, &f, f.pcdata_inl, pc);
	while (ix >= 0 && n + 1 < max && n + 1 < GO_INLINE_MAX &&
	       inlined_call(t, &f, ix, &nameoff, &site)) {
		position(t, &f, pc, nameoff, &out[n++]);
		pc = site;
		ix = pcvalue(t, &f, f.pcdata_inl, pc);
	}
	position(t, &f, pc, f.nameoff, &out[n]);
	if (ix >= 0) { /* inlined code whose callee is unknown: the line is not the function's */
		out[n].file = "?";
		out[n].line = 0;
	}
	return n + 1;
}

/* Whether function f is the signal restorer, runtime.sigreturn(__sigaction): assembly,
 * so only asm functions (or all before 1.17, which has no flags) are read. */
static bool is_sigreturn(const struct go_table *t, const struct go_func *f)
{
	static const char name[] = "runtime.sigreturn";
	char buf[sizeof(name) + 11]; /* "__sigaction" */

	if ((t->ver != GO_116 && !(f->flag & GO_FUNC_ASM)) || f->nameoff < 0 ||
	    !read_in(t, t->funcnames, t->funcnames.start + f->nameoff, buf, sizeof(name)))
		return false;
	if (memcmp(buf, name, sizeof(name) - 1))
		return false;
	if (!buf[sizeof(name) - 1])
		return true;
	return read_in(t, t->funcnames, t->funcnames.start + f->nameoff, buf, sizeof(buf)) &&
	       !memcmp(buf + sizeof(name) - 1, "__sigaction", sizeof(buf) - sizeof(name) + 1);
}

/* Reports f's SP ranges: decodes its pcsp table from the entry on. */
static int func_sp(const struct go_table *t, const struct go_func *f, go_sp_fn fn, void *ctx)
{
	struct go_sp_range r = {.pc = f->entry, .end = f->end, .sp = -1, .flags = f->flag};
	struct pc_reader rd = {.t = t};
	uint32_t val = UINT32_MAX, uv, pcd;
	uint64_t at = f->entry;
	int err;

	if (is_sigreturn(t, f))
		r.flags |= GO_FUNC_SIGRETURN;
	if ((r.flags & (GO_FUNC_TOPFRAME | GO_FUNC_SPWRITE | GO_FUNC_SIGRETURN)) || !f->pcsp ||
	    f->pcsp >= t->pctab.end - t->pctab.start)
		return fn(ctx, &r);
	rd.pos = t->pctab.start + f->pcsp;
	rd.end = t->pctab.end;
	for (unsigned int i = 0; i < GO_PCVALUE_STEPS && at < f->end; i++) {
		if (!uvarint(&rd, &uv) || (uv == 0 && at != f->entry) || !uvarint(&rd, &pcd))
			break;
		val += (uint32_t)(-(int32_t)(uv & 1)) ^ (uv >> 1);
		r.pc = at;
		at += (uint64_t)pcd * t->quantum;
		r.end = at < f->end ? at : f->end;
		r.sp = (int32_t)val;
		err = fn(ctx, &r);
		if (err)
			return err;
	}
	if (at >= f->end)
		return 0;
	r = (struct go_sp_range){.pc = at, .end = f->end, .sp = -1, .flags = f->flag};
	return fn(ctx, &r); /* the table stopped short: unknown from there */
}

int go_table__each_sp(struct go_table *t, go_sp_fn fn, void *ctx)
{
	struct go_func f;
	int err;

	for (uint32_t i = 0; t && i < t->nfunc; i++) {
		if (t->entries[i] == t->entries[i + 1])
			continue;
		if (!read_func(t, i, &f)) {
			struct go_sp_range r = {
			    .pc = t->entry_base + t->entries[i],
			    .end = t->entry_base + t->entries[i + 1],
			    .sp = -1,
			};

			err = fn(ctx, &r);
		} else {
			err = func_sp(t, &f, fn, ctx);
		}
		if (err)
			return err;
	}
	return 0;
}

/* Reads the name of function f into buf (NUL-terminated, cut at GO_FUNC_NAME_MAX): only
 * for assembly functions (all before 1.17, which has no flags), the callers' only use
 * being the runtime's stack switches. False when f is not one or its name is unreadable. */
static bool asm_func_name(const struct go_table *t, const struct go_func *f,
			  char buf[GO_FUNC_NAME_MAX + 2])
{
	uint64_t at = t->funcnames.start + (uint64_t)f->nameoff;
	size_t n;

	if ((t->ver != GO_116 && !(f->flag & GO_FUNC_ASM)) || f->nameoff < 0 ||
	    at >= t->funcnames.end)
		return false;
	n = t->funcnames.end - at < GO_FUNC_NAME_MAX + 1 ? t->funcnames.end - at
							 : GO_FUNC_NAME_MAX + 1;
	if (!read_in(t, t->funcnames, at, buf, n))
		return false;
	buf[n] = '\0';
	return true;
}

int go_table__asm_funcs(const struct go_table *t, const char *const *names, size_t n,
			struct go_func_range *out)
{
	char buf[GO_FUNC_NAME_MAX + 2];
	size_t found = 0;
	struct go_func f;

	memset(out, 0, n * sizeof(*out));
	for (uint32_t i = 0; t && i < t->nfunc && found < n; i++) {
		if (t->entries[i] == t->entries[i + 1] || !read_func(t, i, &f) ||
		    !asm_func_name(t, &f, buf))
			continue;
		for (size_t k = 0; k < n; k++) {
			if (out[k].end || strlen(names[k]) > GO_FUNC_NAME_MAX ||
			    strcmp(buf, names[k]))
				continue;
			out[k] = (struct go_func_range){f.entry, f.end};
			found++;
		}
	}
	return found ? 0 : -ENOENT;
}

int go_table__asm_func(const struct go_table *t, const char *name, uint64_t *entry, uint64_t *end)
{
	struct go_func_range r;

	if (go_table__asm_funcs(t, &name, 1, &r))
		return -ENOENT;
	*entry = r.entry;
	*end = r.end;
	return 0;
}

const char *go_table__version(const struct go_table *t)
{
	static const char *const names[] = {
	    [GO_116] = "1.16", [GO_118] = "1.18", [GO_120] = "1.20"};

	return t ? names[t->ver] : "";
}

bool go_table__has_inline(const struct go_table *t)
{
	return t && t->inline_ok;
}

/* Go's linker writes its build id (owner "Go", type 4) into every ELF binary: searching
 * the segments for a table is only worth it then. */
bool go_elf__has_note(Elf *elf)
{
	size_t n, off, next, name_off, desc_off;
	GElf_Nhdr nh;
	GElf_Phdr ph;
	Elf_Data *d;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (size_t i = 0; i < n && i < 64; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_NOTE || ph.p_filesz > (1 << 20))
			continue;
		d = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
					 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		for (off = 0; d && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > off;
		     off = next)
			if (nh.n_type == 4 && (nh.n_namesz == 3 || nh.n_namesz == 4) &&
			    d->d_size >= 3 && name_off <= d->d_size - 3 &&
			    !memcmp((const char *)d->d_buf + name_off, "Go", 3))
				return true;
	}
	return false;
}

static int open_elf(struct go_table *t)
{
	uint64_t text_sect = 0;
	size_t nsect;
	struct stat st;
	GElf_Ehdr eh;
	Elf *elf;
	int err;

	if (fstat(t->fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	elf_version(EV_CURRENT);
	elf = elf_begin(t->fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -EINVAL;
	err = -ENOENT;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		goto cleanup;
	err = read_segments(t, elf);
	if (err)
		goto cleanup;
	err = table_from_sections(t, elf, &text_sect);
	if (err == -ENOENT && !elf_getshdrnum(elf, &nsect) && nsect == 0 && go_elf__has_note(elf))
		err = table_from_segments(t);
	if (!err)
		err = resolve_bases(t, text_sect);
cleanup:
	elf_end(elf);
	return err;
}

struct go_table *go_table__open(int fd)
{
	struct go_table *t = calloc(1, sizeof(*t));
	unsigned int guard;
	int err;

	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	arena_init(&t->arena);
	hmap_init(&t->strings, string_eq);
	t->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	/* libelf maps the file: one truncated meanwhile is unreadable, not SIGBUS. */
	guard = mapguard__begin();
	err = t->fd < 0 ? -errno : open_elf(t);
	if (mapguard__end(guard))
		err = -EIO;
	if (err) {
		go_table__free(t);
		errno = -err;
		return NULL;
	}
	return t;
}

void go_table__free(struct go_table *t)
{
	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	hmap_free(&t->strings);
	arena_free(&t->arena);
	free(t->entries);
	free(t->funcoffs);
	free(t);
}
