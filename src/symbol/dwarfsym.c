// SPDX-License-Identifier: Apache-2.0
/* DWARF lookup: address -> inline chain with files and lines. Opening reads only the unit
 * headers and their address ranges; a unit's function ranges are indexed on its first
 * lookup, and the inline chain is found by walking only the covering function's DIEs. */
#include "symbol/dwarfsym.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbol/elfsym.h"
#include "util/arena.h"
#include "util/hmap.h"
#include "util/inflate_limit.h"
#include "util/mapguard.h"

#define UNITS_MAX (1u << 22)	    /* units in one file; more is hostile */
#define RANGES_PER_DIE_MAX 4096	    /* address ranges kept per unit or function DIE */
#define DIE_VISITS_MAX (1u << 22)   /* DIEs visited to index one unit's functions */
#define CHAIN_VISITS_MAX (1u << 16) /* DIEs visited to find one address's inline chain */
#define NEST_MAX 64		    /* namespaces/classes or blocks nested: deeper is hostile */
#define WALK_BACK 16		    /* preceding ranges tried when ranges nest or overlap */
#define ROW_MERGE_MAX 32	    /* rows of one line merged into an answer's span, each way */
#define NAME_MAX_LEN 4096	    /* longer DWARF names are cut */
/* .debug_aranges read at most: the elfutils reader allocas 32 bytes per 16-byte entry. */
#define ARANGES_BYTES_MAX (256u << 10)
#define LINE_ROW_BYTES 80 /* libdw's heap per line-table row used, with its tables (bench) */
/* The kernel maps a read fault's neighbours too, the aligned window of fault_around_bytes
 * (64 KiB by default) around it: reading one byte of the mapping can make that resident,
 * so walks are charged by the windows they touch. */
#define FAULT_AROUND (64u << 10)

struct addr_range {
	uint64_t lo, hi; /* [lo, hi) */
	uint32_t idx;	 /* unit index (unit ranges) or function index (function ranges) */
};

struct unit {
	Dwarf_Die top;	 /* the unit DIE; for a skeleton unit, its split unit */
	Dwarf_Die lines; /* the DIE whose line table covers the addresses (the skeleton) */
	Dwarf_Die *funcs;
	struct addr_range *ranges; /* of funcs, sorted by lo */
	uint32_t nfuncs, nranges;
	bool indexed, failed;
};

struct name_ent {
	const void *die; /* Dwarf_Die.addr: where the DIE is in the mapped file */
	const char *name;
};

struct dwarf_syms {
	int fd;
	Elf *elf;
	Dwarf *dw;
	struct unit *units;
	size_t nunits;
	struct addr_range *ranges; /* of units, sorted by lo */
	size_t nranges;
	struct hmap names; /* struct name_ent by DIE */
	struct hmap files; /* struct name_ent by the file name libdw gave */
	struct arena arena;
	size_t index_bytes, line_rows;
	size_t section_bytes; /* compressed debug sections, which libdw inflates on open */
	size_t open_bytes;    /* what dwarf_syms__memory was right after opening */
	size_t units_bound;   /* dwarf_syms__bound_units; 0: none */
	uint32_t resets;      /* times the units' holdings were dropped to keep the bound */
	size_t aranges_bytes; /* .debug_aranges, inflated */
	/* The file span of the compressed sections' bytes, dropped once inflated, and the
	 * mapping it is in (NULL: libelf read the file instead, or dropped already). */
	uint64_t packed_lo, packed_hi;
	char *packed_map;
	/* The file span of the uncompressed debug sections libdw reads in the mapping at
	 * plain_map (NULL: none there), .debug_line's bytes there, and what the reader walked
	 * in that span since its pages were last dropped (dwarf_syms__bound_mapped). */
	uint64_t plain_lo, plain_hi;
	char *plain_map;
	const char *line_buf;
	size_t line_size;
	size_t walked, mapped_bound;
	uint32_t map_drops;
	uint64_t *windows; /* bitmap of the span's FAULT_AROUND windows charged since then */
	size_t nwindows;
	bool plain_noted;
	/* A guarded read met the file shrunk (mapguard.h): lookups answer nothing more. */
	bool torn;
};

/* Growable array of addr_range, for both kinds of index. */
struct range_vec {
	struct addr_range *v;
	size_t n, cap;
};

static int range_vec__push(struct range_vec *rv, uint64_t lo, uint64_t hi, uint32_t idx)
{
	struct addr_range *p;

	if (rv->n == rv->cap) {
		size_t cap = rv->cap ? rv->cap * 2 : 64;

		p = reallocarray(rv->v, cap, sizeof(*p));
		if (!p)
			return -ENOMEM;
		rv->v = p;
		rv->cap = cap;
	}
	rv->v[rv->n++] = (struct addr_range){lo, hi, idx};
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct addr_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	/* Wider first, so walking back from a match meets the inner range first. */
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1;
	return 0;
}

/* Appends die's address ranges (low/high pc or DW_AT_ranges) to rv, tagged idx. */
static int push_die_ranges(struct range_vec *rv, Dwarf_Die *die, uint32_t idx)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int n = 0, err;

	while (n < RANGES_PER_DIE_MAX && (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		err = range_vec__push(rv, lo, hi, idx);
		if (err)
			return err;
		n++;
	}
	return 0;
}

/* How many ranges of v (sorted by lo) start at or below va. */
static size_t ranges_upto(const struct addr_range *v, size_t n, uint64_t va)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid].lo <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The innermost range of v covering va, or NULL. */
static const struct addr_range *range_find(const struct addr_range *v, size_t n, uint64_t va)
{
	size_t lo = ranges_upto(v, n, va), k;

	for (k = 0; k < WALK_BACK && lo > 0; k++, lo--)
		if (va < v[lo - 1].hi)
			return &v[lo - 1];
	return NULL;
}

/* Drops the resident pages of the file span [lo, hi) of the mapping at map, whole pages
 * inside only (the edges may hold bytes of other sections). The mapping is private and
 * read-only (ELF_C_READ_MMAP), so this loses nothing: a later read faults the pages in
 * again from the file. Returns whether any page was dropped. */
static bool drop_pages(char *map, uint64_t lo, uint64_t hi)
{
	long page = sysconf(_SC_PAGESIZE);

	if (!map || page <= 0 || ((uintptr_t)map & (page - 1)))
		return false;
	lo = (lo + page - 1) & ~(uint64_t)(page - 1);
	hi &= ~(uint64_t)(page - 1);
	return lo < hi && !madvise(map + lo, hi - lo, MADV_DONTNEED);
}

static size_t window_of(const void *p)
{
	return (uintptr_t)p / FAULT_AROUND;
}

/* Whether scn's data, as libdw reads it, is the file's bytes in the mapping at map: not a
 * section libdw inflated, nor one libelf copied into a buffer of its own. */
static bool plain_in_mapping(Elf_Scn *scn, const char *map, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);

	return data && data->d_buf == map + sh->sh_offset && data->d_size == sh->sh_size;
}

/* Notes, once libdw has first begun (what it inflates is inflated by then, and stays so
 * when it begins again on the same ELF), the span of the debug sections whose bytes libdw
 * reads straight from the mapping, whose pages make_room drops, and where .debug_line's
 * bytes are, to charge line programs. Once: the windows charged outlive a units reset. */
static void note_plain(struct dwarf_syms *d)
{
	char *map = elf_getident(d->elf, NULL);
	Elf_Scn *scn = NULL;
	const char *name;
	size_t shstrndx;
	GElf_Shdr sh;

	if (d->plain_noted)
		return;
	d->plain_noted = true;
	if (!map || elf_getshdrstrndx(d->elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(d->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !sh.sh_size ||
		    (sh.sh_flags & SHF_COMPRESSED) || sh.sh_offset + sh.sh_size < sh.sh_offset)
			continue;
		name = elf_strptr(d->elf, shstrndx, sh.sh_name);
		if (!name || strncmp(name, ".debug_", 7) || !plain_in_mapping(scn, map, &sh))
			continue;
		if (!d->plain_hi || sh.sh_offset < d->plain_lo)
			d->plain_lo = sh.sh_offset;
		if (sh.sh_offset + sh.sh_size > d->plain_hi)
			d->plain_hi = sh.sh_offset + sh.sh_size;
		if (!strcmp(name, ".debug_line")) {
			d->line_buf = map + sh.sh_offset;
			d->line_size = sh.sh_size;
		}
	}
	if (!d->plain_hi)
		return;
	d->nwindows = window_of(map + d->plain_hi - 1) - window_of(map + d->plain_lo) + 1;
	d->windows = calloc((d->nwindows + 63) / 64, sizeof(*d->windows));
	d->plain_map = d->windows ? map : NULL; /* without the bitmap, nothing is charged */
}

/* Charges a walk over the bytes [lo, hi] of the mapping (a unit's DIEs, a line program,
 * an inline chain, a name): each fault-around window it touched that no walk touched
 * since the last drop. Walks elsewhere (a .dwo file, sections inflated in the heap) cost
 * the mapping nothing. */
static void charge(struct dwarf_syms *d, const void *lo, const void *hi)
{
	uintptr_t a = (uintptr_t)lo, b = (uintptr_t)hi, map = (uintptr_t)d->plain_map;
	size_t first, last;

	if (!map || a < map + d->plain_lo || b >= map + d->plain_hi || b < a)
		return;
	first = window_of(lo) - window_of(d->plain_map + d->plain_lo);
	last = window_of(hi) - window_of(d->plain_map + d->plain_lo);
	for (size_t w = first; w <= last && w < d->nwindows; w++) {
		if (d->windows[w / 64] & (1ull << (w % 64)))
			continue;
		d->windows[w / 64] |= 1ull << (w % 64);
		d->walked += FAULT_AROUND;
	}
}

/* Charges the string s, when it is in the mapping (.debug_str, or inline in a DIE). */
static void charge_string(struct dwarf_syms *d, const char *s)
{
	if (s)
		charge(d, s, s + strnlen(s, NAME_MAX_LEN));
}

/* Drops the pages of the plain sections' span once the walks since the last drop were
 * charged past the bound: called before a walk, so the pages the last one read stay for
 * the lookups that follow it. A later read faults a page in again from the page cache
 * (bench/README.md, DWARF: what that costs). */
static void make_room(struct dwarf_syms *d)
{
	if (!d->mapped_bound || d->walked <= d->mapped_bound)
		return;
	d->walked = 0;
	memset(d->windows, 0, (d->nwindows + 63) / 64 * sizeof(*d->windows));
	if (drop_pages(d->plain_map, d->plain_lo, d->plain_hi))
		d->map_drops++;
}

/* One .debug_aranges entry: the address range a unit's DIE at off covers. */
struct arange_ent {
	uint64_t off, lo, hi;
};

struct arange_vec {
	struct arange_ent *v;
	size_t n;
};

static int arange_cmp(const void *a, const void *b)
{
	const struct arange_ent *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The units' address ranges as .debug_aranges lists them, sorted by unit: reading a
 * unit's DW_AT_ranges means parsing its abbreviations, which for libc's 2,063 units is
 * 30 M instructions at open. Empty when the file has none (clang writes none) or more
 * than ARANGES_BYTES_MAX; a unit they do not list is read from its DIE instead. */
static void read_aranges(struct dwarf_syms *d, struct arange_vec *av)
{
	Dwarf_Aranges *ar;
	Dwarf_Addr addr;
	Dwarf_Word len;
	Dwarf_Off off;
	size_t n, k = 0;

	av->v = NULL;
	av->n = 0;
	if (!d->aranges_bytes || d->aranges_bytes > ARANGES_BYTES_MAX ||
	    dwarf_getaranges(d->dw, &ar, &n) || !n)
		return;
	av->v = calloc(n, sizeof(*av->v));
	if (!av->v)
		return;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Arange *a = dwarf_onearange(ar, i);

		if (!a || dwarf_getarangeinfo(a, &addr, &len, &off) || !len || addr + len < addr)
			continue;
		av->v[k++] = (struct arange_ent){off, addr, addr + len};
	}
	av->n = k;
	qsort(av->v, k, sizeof(*av->v), arange_cmp);
}

/* Appends the unit at cudie's ranges from av when it lists any; 1 if it did. */
static int push_arange_ranges(struct range_vec *rv, const struct arange_vec *av, Dwarf_Die *cudie,
			      uint32_t idx)
{
	uint64_t off = dwarf_dieoffset(cudie);
	size_t lo = 0, hi = av->n, mid, n = 0;
	int err;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (av->v[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < av->n && av->v[lo].off == off && n < RANGES_PER_DIE_MAX; lo++, n++) {
		err = range_vec__push(rv, av->v[lo].lo, av->v[lo].hi, idx);
		if (err)
			return err;
	}
	return n ? 1 : 0;
}

static int add_unit(struct dwarf_syms *d, struct range_vec *rv, const struct arange_vec *av,
		    Dwarf_Die *cudie, Dwarf_Die *subdie, uint8_t unit_type)
{
	uint32_t idx;
	int r;

	struct unit *u;

	make_room(d);
	charge(d, cudie->addr, cudie->addr); /* its header and DIE were read */
	/* libdw reads a partial unit's type from its header (DWARF 5) or its DIE's tag. */
	if (unit_type == DW_UT_type || unit_type == DW_UT_split_type || unit_type == DW_UT_partial)
		return 0; /* no code of their own */
	if (unit_type == DW_UT_skeleton && (!subdie || !subdie->addr))
		return 0; /* the .dwo file is missing: nothing to name from */
	if (d->nunits >= UNITS_MAX)
		return -E2BIG;
	if ((d->nunits & (d->nunits - 1)) == 0) { /* grow at powers of two */
		u = reallocarray(d->units, d->nunits ? d->nunits * 2 : 16, sizeof(*u));
		if (!u)
			return -ENOMEM;
		d->units = u;
	}
	u = &d->units[d->nunits];
	memset(u, 0, sizeof(*u));
	u->lines = *cudie;
	u->top = unit_type == DW_UT_skeleton ? *subdie : *cudie;
	idx = d->nunits++;
	r = push_arange_ranges(rv, av, cudie, idx);
	if (r)
		return r < 0 ? r : 0;
	return push_die_ranges(rv, cudie, idx);
}

/* Reads every unit header and the unit's ranges: the whole file's index of units. */
static int index_units(struct dwarf_syms *d)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	struct range_vec rv = {};
	struct arange_vec av;
	Dwarf_Half version;
	uint8_t unit_type;
	int err = 0, r;

	read_aranges(d, &av);
	while (!err &&
	       (r = dwarf_get_units(d->dw, cu, &cu, &version, &unit_type, &cudie, &subdie)) == 0)
		err = add_unit(d, &rv, &av, &cudie, &subdie, unit_type);
	free(av.v);
	if (err) {
		free(rv.v);
		return err;
	}
	if (rv.n)
		qsort(rv.v, rv.n, sizeof(*rv.v), range_cmp);
	d->ranges = rv.v;
	d->nranges = rv.n;
	d->index_bytes += rv.cap * sizeof(*rv.v) + d->nunits * sizeof(*d->units);
	return d->nranges ? 0 : -ENODATA;
}

/* Debug sections neither lines nor inline chains read: location lists, call frames,
 * macros, name and address lookup tables (the units' own ranges index the addresses). */
static const char *const unused_sections[] = {
    "loc", "loclists", "frame", "macro", "macinfo", "pubnames", "pubtypes",
};

bool dwarf_syms__section_unused(const char *name)
{
	size_t len;

	if (!strncmp(name, ".debug_", 7))
		name += 7;
	else if (!strncmp(name, ".zdebug_", 8))
		name += 8;
	else
		return false;
	for (size_t i = 0; i < sizeof(unused_sections) / sizeof(*unused_sections); i++) {
		len = strlen(unused_sections[i]);
		if (!strncmp(name, unused_sections[i], len) &&
		    (!name[len] || !strcmp(name + len, ".dwo")))
			return true;
	}
	return false;
}

/* Hides the unused debug sections from libdw, which inflates every compressed section it
 * knows at dwarf_begin_elf, used or not, but skips SHT_NOBITS ones (elfutils 0.188): on
 * libc's debug file, its 1.4 MiB of location lists are not inflated. Only our handle's
 * copy of the section headers changes (libelf copies them for ELF_C_READ_MMAP). */
static void hide_unused(Elf *elf, size_t shstrndx)
{
	Elf_Scn *scn = NULL;
	const char *name;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || !dwarf_syms__section_unused(name))
			continue;
		sh.sh_type = SHT_NOBITS;
		gelf_update_shdr(scn, &sh);
	}
}

/* Whether scn's bytes lie in the file's mapping at map: libelf falls back to reading a
 * file it could not map into buffers of its own, whose pages must not be dropped. */
static bool in_mapping(Elf_Scn *scn, const char *map, const GElf_Shdr *sh)
{
	Elf_Data *raw = elf_rawdata(scn, NULL);

	return map && raw && raw->d_buf == map + sh->sh_offset;
}

/* The inflated size of a compressed debug section libdw will inflate (SHF_COMPRESSED
 * .debug_X, or GNU .zdebug_X with its "ZLIB" header), from its header: 0 for others. */
static uint64_t packed_size(Elf_Scn *scn, const GElf_Shdr *sh, const char *name)
{
	const unsigned char *p;
	uint64_t size = 0;
	Elf_Data *raw;
	GElf_Chdr ch;

	if (sh->sh_flags & SHF_COMPRESSED)
		return !strncmp(name, ".debug_", 7) && gelf_getchdr(scn, &ch) ? ch.ch_size : 0;
	if (strncmp(name, ".zdebug_", 8))
		return 0;
	raw = elf_rawdata(scn, NULL);
	if (!raw || !raw->d_buf || raw->d_size < 12 || memcmp(raw->d_buf, "ZLIB", 4))
		return 0;
	p = (const unsigned char *)raw->d_buf + 4;
	for (int i = 0; i < 8; i++)
		size = size << 8 | p[i];
	return size;
}

/* Notes the compressed debug sections libdw will inflate: the bytes it will hold (9.6 MiB
 * for Debian 12's libc debug file, kept until dwarf_end; sizes from the compression
 * headers, so nothing is inflated here, and bounded before libdw begins) and, when the
 * file is mapped, the span of the mapping their compressed bytes lie in. */
static void note_packed(struct dwarf_syms *d, size_t shstrndx)
{
	char *map = elf_getident(d->elf, NULL); /* the mapping's start, when mapped */
	bool mapped = true;
	Elf_Scn *scn = NULL;
	const char *name;
	uint64_t size;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(d->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(d->elf, shstrndx, sh.sh_name);
		size = name ? packed_size(scn, &sh, name) : 0;
		if (!size)
			continue;
		if (__builtin_add_overflow(d->section_bytes, size, &d->section_bytes))
			d->section_bytes = SIZE_MAX;
		if (!(sh.sh_flags & SHF_COMPRESSED) || sh.sh_offset + sh.sh_size < sh.sh_offset)
			continue;
		mapped = mapped && in_mapping(scn, map, &sh);
		if (!d->packed_hi || sh.sh_offset < d->packed_lo)
			d->packed_lo = sh.sh_offset;
		if (sh.sh_offset + sh.sh_size > d->packed_hi)
			d->packed_hi = sh.sh_offset + sh.sh_size;
	}
	d->packed_map = mapped ? map : NULL;
}

/* Once libdw has inflated the sections, their compressed bytes are not read again (libelf
 * points the sections at the copies), yet their pages stay resident in the mapping: 4.2
 * MiB for libc's debug file. */
static void release_packed(struct dwarf_syms *d)
{
	drop_pages(d->packed_map, d->packed_lo, d->packed_hi);
	d->packed_map = NULL; /* inflated once: the span is not dropped again */
}

/* The size of .debug_aranges once inflated; 0 when absent or GNU-compressed (.zdebug). */
static size_t aranges_size(Elf *elf, size_t shstrndx)
{
	Elf_Scn *scn = NULL;
	const char *name;
	GElf_Chdr ch;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".debug_aranges"))
			continue;
		if (!(sh.sh_flags & SHF_COMPRESSED))
			return sh.sh_size;
		return gelf_getchdr(scn, &ch) ? ch.ch_size : 0;
	}
	return 0;
}

/* Prepares d's ELF for libdw: hides what it need not inflate, notes what it will. */
static void prepare_sections(struct dwarf_syms *d)
{
	size_t shstrndx;

	if (elf_getshdrstrndx(d->elf, &shstrndx))
		return;
	hide_unused(d->elf, shstrndx);
	note_packed(d, shstrndx);
	d->aranges_bytes = aranges_size(d->elf, shstrndx);
}

static int name_eq(const void *entry, const void *key)
{
	return ((const struct name_ent *)entry)->die == key;
}

/* Frees what libdw and the indexes hold; the ELF, its mapping and the sections libdw
 * inflated in it stay. */
static void drop_dwarf(struct dwarf_syms *d)
{
	for (size_t i = 0; i < d->nunits; i++) {
		free(d->units[i].funcs);
		free(d->units[i].ranges);
	}
	free(d->units);
	free(d->ranges);
	d->units = NULL;
	d->ranges = NULL;
	d->nunits = d->nranges = 0;
	d->index_bytes = d->line_rows = 0;
	hmap_free(&d->names);
	hmap_free(&d->files);
	arena_free(&d->arena);
	if (d->dw)
		dwarf_end(d->dw);
	d->dw = NULL;
}

/* Begins libdw on d's ELF and reads the unit headers: what opening holds. */
static int begin_dwarf(struct dwarf_syms *d)
{
	int err;

	d->dw = dwarf_begin_elf(d->elf, DWARF_C_READ, NULL);
	if (!d->dw)
		return -ENODATA;
	release_packed(d);
	note_plain(d);
	err = index_units(d);
	d->open_bytes = dwarf_syms__memory(d);
	return err;
}

/* Drops every unit's indexes, names and line tables, libdw's own included (it frees a
 * unit's line table only at dwarf_end), and begins again: a few ms, because the inflated
 * sections stay in the ELF. On failure d names nothing more. */
static void reset_units(struct dwarf_syms *d)
{
	drop_dwarf(d);
	d->resets++;
	if (begin_dwarf(d))
		drop_dwarf(d);
}

void dwarf_syms__bound_units(struct dwarf_syms *d, size_t bytes)
{
	if (d)
		d->units_bound = bytes;
}

uint32_t dwarf_syms__resets(const struct dwarf_syms *d)
{
	return d ? d->resets : 0;
}

void dwarf_syms__bound_mapped(struct dwarf_syms *d, size_t bytes)
{
	if (d)
		d->mapped_bound = bytes;
}

uint32_t dwarf_syms__mapped_drops(const struct dwarf_syms *d)
{
	return d ? d->map_drops : 0;
}

/* Maps the file on d->fd (st: its fstat) and begins libdw on it, unless libdw would
 * inflate its sections past INFLATE_RATIO_MAX times the file's size. */
static int map_and_begin(struct dwarf_syms *d, const struct stat *st)
{
	elf_version(EV_CURRENT);
	d->elf = elf_begin(d->fd, ELF_C_READ_MMAP, NULL);
	if (!d->elf || elf_kind(d->elf) != ELF_K_ELF)
		return -EINVAL;
	prepare_sections(d);
	if (!inflate_limit__allow(st->st_size, d->section_bytes))
		return -EFBIG;
	return begin_dwarf(d);
}

struct dwarf_syms *dwarf_syms__open(int fd)
{
	struct dwarf_syms *d = calloc(1, sizeof(*d));
	unsigned int guard;
	struct stat st;
	int err = -EINVAL;

	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	arena_init(&d->arena);
	hmap_init(&d->names, name_eq);
	hmap_init(&d->files, name_eq);
	d->mapped_bound = DWARF_MAPPED_KEEP;
	d->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (d->fd < 0 || fstat(d->fd, &st) || !S_ISREG(st.st_mode))
		goto fail;
	/* libelf reads the headers from the mapping, libdw the units': guarded too. */
	guard = mapguard__begin();
	err = map_and_begin(d, &st);
	if (mapguard__end(guard))
		err = -EIO;
	if (err)
		goto fail;
	return d;
fail:
	dwarf_syms__free(d);
	errno = -err;
	return NULL;
}

void dwarf_syms__free(struct dwarf_syms *d)
{
	if (!d)
		return;
	drop_dwarf(d);
	free(d->windows);
	if (d->elf)
		elf_end(d->elf);
	if (d->fd >= 0)
		close(d->fd);
	free(d);
}

size_t dwarf_syms__memory(const struct dwarf_syms *d)
{
	if (!d)
		return 0;
	return sizeof(*d) + d->index_bytes + d->arena.total + d->section_bytes +
	       (d->names.cap + d->files.cap) * sizeof(struct hmap_slot) +
	       d->line_rows * LINE_ROW_BYTES;
}

size_t dwarf_syms__inflated(const struct dwarf_syms *d)
{
	return d ? d->section_bytes : 0;
}

size_t dwarf_syms__units_memory(const struct dwarf_syms *d)
{
	size_t m = dwarf_syms__memory(d);

	return d && m > d->open_bytes ? m - d->open_bytes : 0;
}

struct func_vec {
	struct range_vec rv;
	Dwarf_Die *v;
	size_t n, cap;
	uint32_t visits;
	const char *last; /* the DIE visited furthest into the mapping */
};

static int func_vec__add(struct func_vec *fv, Dwarf_Die *die)
{
	Dwarf_Die *p;

	if (fv->n >= UINT32_MAX)
		return -E2BIG;
	if (fv->n == fv->cap) {
		size_t cap = fv->cap ? fv->cap * 2 : 64;

		p = reallocarray(fv->v, cap, sizeof(*p));
		if (!p)
			return -ENOMEM;
		fv->v = p;
		fv->cap = cap;
	}
	fv->v[fv->n] = *die;
	return push_die_ranges(&fv->rv, die, fv->n++);
}

static bool holds_functions(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
	       tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_module ||
	       tag == DW_TAG_interface_type;
}

/* Collects the subprograms with code below parent: at unit level, and inside namespaces
 * and types (Rust and some C++ compilers put definitions there). Nested functions are
 * reached through their outer function's chain, not indexed. */
static int collect_funcs(struct func_vec *fv, Dwarf_Die *parent, int nest)
{
	Dwarf_Die child;
	int r, tag, err;

	if (nest > NEST_MAX)
		return 0;
	r = dwarf_child(parent, &child);
	while (r == 0) {
		if (++fv->visits > DIE_VISITS_MAX)
			return -E2BIG;
		if ((uintptr_t)child.addr > (uintptr_t)fv->last)
			fv->last = child.addr;
		tag = dwarf_tag(&child);
		err = 0;
		if (tag == DW_TAG_subprogram &&
		    dwarf_hasattr(&child, DW_AT_low_pc) + dwarf_hasattr(&child, DW_AT_ranges))
			err = func_vec__add(fv, &child);
		else if (holds_functions(tag) && dwarf_haschildren(&child))
			err = collect_funcs(fv, &child, nest + 1);
		if (err)
			return err;
		r = dwarf_siblingof(&child, &child);
	}
	return r < 0 ? -EINVAL : 0;
}

/* Charges u's line program, which dwarf_getsrclines reads whole: its length is in its
 * first 4 bytes (12 in 64-bit DWARF), cut at the section's end (so a file of the other
 * byte order is only charged too much). */
static void charge_lines(struct dwarf_syms *d, struct unit *u)
{
	Dwarf_Attribute a;
	Dwarf_Word off;
	uint32_t len32;
	uint64_t len;

	if (!d->line_buf || dwarf_formudata(dwarf_attr(&u->lines, DW_AT_stmt_list, &a), &off) ||
	    off >= d->line_size || d->line_size - off < 4)
		return;
	memcpy(&len32, d->line_buf + off, sizeof(len32));
	len = (uint64_t)len32 + 4;
	if (len32 == 0xffffffff) {
		if (d->line_size - off < 12)
			return;
		memcpy(&len, d->line_buf + off + 4, sizeof(len));
		len = len > UINT64_MAX - 12 ? UINT64_MAX : len + 12;
	}
	if (len > d->line_size - off)
		len = d->line_size - off;
	charge(d, d->line_buf + off, d->line_buf + off + len - 1);
}

static void count_line_rows(struct dwarf_syms *d, struct unit *u)
{
	Dwarf_Lines *lines;
	size_t n;

	if (dwarf_getsrclines(&u->lines, &lines, &n) == 0)
		d->line_rows += n;
	charge_lines(d, u);
}

/* Indexes unit u's functions on its first lookup. A unit that fails stays unindexed. */
static int index_unit(struct dwarf_syms *d, struct unit *u)
{
	struct func_vec fv = {};
	int err;

	if (u->indexed || u->failed)
		return u->failed ? -EINVAL : 0;
	err = collect_funcs(&fv, &u->top, 0);
	if (err || fv.rv.n > UINT32_MAX) {
		free(fv.v);
		free(fv.rv.v);
		u->failed = true;
		return err ? err : -E2BIG;
	}
	if (fv.rv.n)
		qsort(fv.rv.v, fv.rv.n, sizeof(*fv.rv.v), range_cmp);
	u->funcs = fv.v;
	u->nfuncs = fv.n;
	u->ranges = fv.rv.v;
	u->nranges = fv.rv.n;
	u->indexed = true;
	d->index_bytes += fv.cap * sizeof(*fv.v) + fv.rv.cap * sizeof(*fv.rv.v);
	/* The walk read the unit's DIEs from its first to the last it visited. */
	charge(d, u->top.addr, fv.last ? fv.last : u->top.addr);
	count_line_rows(d, u);
	return 0;
}

static bool is_block(int tag)
{
	return tag == DW_TAG_lexical_block || tag == DW_TAG_try_block || tag == DW_TAG_catch_block;
}

/* An inline chain's walk: the DIEs visited, and the one furthest into the mapping. */
struct chain_walk {
	uint32_t visits;
	const char *last;
};

/* Finds the child of *scope whose code covers va among inlined calls and blocks (blocks
 * without addresses are entered too: their children may have some). 1 found, 0 none. */
static int covering_child(Dwarf_Die *scope, uint64_t va, Dwarf_Die *out, struct chain_walk *w,
			  int nest)
{
	Dwarf_Die child;
	int r, tag;

	r = dwarf_child(scope, &child);
	for (; r == 0; r = dwarf_siblingof(&child, &child)) {
		if (++w->visits > CHAIN_VISITS_MAX)
			return 0;
		if ((uintptr_t)child.addr > (uintptr_t)w->last)
			w->last = child.addr;
		tag = dwarf_tag(&child);
		if (tag != DW_TAG_inlined_subroutine && !is_block(tag))
			continue;
		if (dwarf_haspc(&child, va) == 1) {
			*out = child;
			return 1;
		}
		if (is_block(tag) && nest < NEST_MAX && !dwarf_hasattr(&child, DW_AT_low_pc) &&
		    !dwarf_hasattr(&child, DW_AT_ranges) &&
		    covering_child(&child, va, out, w, nest + 1))
			return 1;
	}
	return 0;
}

/* Where an inline chain's walk ended: the deepest scope covering va (fn, an inlined call
 * or a block), and whether the walk looked at all of its children (not cut by a bound). */
struct chain_end {
	Dwarf_Die scope;
	bool whole;
};

/* Fills chain[] with the inlined calls covering va inside fn, outermost first. */
static int inline_chain(struct dwarf_syms *d, Dwarf_Die *fn, uint64_t va, Dwarf_Die *chain, int max,
			struct chain_end *end)
{
	struct chain_walk w = {};
	Dwarf_Die scope = *fn, next;
	int n = 0, nest;

	end->whole = false;
	for (nest = 0; nest < NEST_MAX && n < max; nest++) {
		if (!covering_child(&scope, va, &next, &w, 0)) {
			end->whole = w.visits <= CHAIN_VISITS_MAX;
			break;
		}
		if (dwarf_tag(&next) == DW_TAG_inlined_subroutine)
			chain[n++] = next;
		scope = next;
	}
	end->scope = scope;
	charge(d, fn->addr, w.last && (uintptr_t)w.last > (uintptr_t)fn->addr ? w.last : fn->addr);
	return n;
}

static const char *die_string(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(die, name, &a));
}

/* The demangled linkage name (qualified, as the ELF symbols name it), else DW_AT_name. */
static const char *function_name(struct dwarf_syms *d, Dwarf_Die *die)
{
	uint64_t h = hash_u64((uintptr_t)die->addr);
	struct name_ent *e = hmap_find(&d->names, h, die->addr);
	const char *ln, *name;
	char *dem = NULL, *copy;
	size_t len;

	if (e)
		return e->name;
	ln = die_string(die, DW_AT_linkage_name);
	if (!ln)
		ln = die_string(die, DW_AT_MIPS_linkage_name);
	if (ln)
		dem = ebprof_demangle(ln);
	name = dem ? dem : die_string(die, DW_AT_name);
	charge_string(d, ln);
	charge_string(d, name);
	if (!name)
		name = ln ? ln : "[unknown]";
	len = strnlen(name, NAME_MAX_LEN);
	copy = arena_alloc(&d->arena, len + 1);
	e = arena_alloc(&d->arena, sizeof(*e));
	if (copy) {
		memcpy(copy, name, len);
		copy[len] = '\0';
	}
	free(dem);
	if (!copy || !e)
		return "[unknown]";
	*e = (struct name_ent){die->addr, copy};
	if (hmap_insert(&d->names, h, e))
		return copy; /* named, just not cached */
	return copy;
}

/* A copy of a file name libdw gave, kept until the DWARF is dropped: libdw's may point
 * into the mapping, which a caller reading it after the lookup, outside the guard, could
 * find truncated. "" for none. */
static const char *file_name(struct dwarf_syms *d, const char *src)
{
	uint64_t h = hash_u64((uintptr_t)src);
	struct name_ent *e;
	size_t len;
	char *copy;

	if (!src || !*src)
		return "";
	e = hmap_find(&d->files, h, src);
	if (e)
		return e->name;
	len = strnlen(src, NAME_MAX_LEN);
	copy = arena_alloc(&d->arena, len + 1);
	e = arena_alloc(&d->arena, sizeof(*e));
	if (!copy || !e)
		return "";
	memcpy(copy, src, len);
	copy[len] = '\0';
	*e = (struct name_ent){src, copy};
	hmap_insert(&d->files, h, e); /* on failure named, just not cached */
	return copy;
}

/* File and line of the call that inlined die, from its unit's file table. */
static void call_site(struct dwarf_syms *d, Dwarf_Die *die, struct dwarf_line *out)
{
	Dwarf_Attribute a;
	Dwarf_Word file = 0, line = 0;
	Dwarf_Files *files;
	Dwarf_Die cu;
	size_t nfiles;
	const char *src;

	out->file = "";
	out->line = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &line) == 0)
		out->line = line > UINT32_MAX ? 0 : (uint32_t)line;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &file) ||
	    !dwarf_diecu(die, &cu, NULL, NULL) || dwarf_getsrcfiles(&cu, &files, &nfiles) ||
	    file >= nfiles)
		return;
	src = dwarf_filesrc(files, file, NULL, NULL);
	out->file = file_name(d, src);
}

/* File and line of va itself, from the unit's line table. */
static void pc_line(struct dwarf_syms *d, struct unit *u, uint64_t va, struct dwarf_line *out)
{
	Dwarf_Line *l = dwarf_getsrc_die(&u->lines, va);
	const char *src = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
	int line = 0;

	out->file = file_name(d, src);
	out->line = l && dwarf_lineno(l, &line) == 0 && line > 0 ? (uint32_t)line : 0;
}

/* Innermost first: out[0] is the deepest inlined function at va's own line; each next
 * entry is the function that inlined the previous one, at that call's line. */
static int fill_lines(struct dwarf_syms *d, struct unit *u, Dwarf_Die *fn, uint64_t va,
		      bool inlines, struct dwarf_line *out, int max, struct chain_end *end)
{
	Dwarf_Die chain[DWARF_LINES_MAX];
	int n = inline_chain(d, fn, va, chain,
			     max - 1 < DWARF_LINES_MAX ? max - 1 : DWARF_LINES_MAX, end);
	int k;

	if (!inlines) {
		out[0].function = function_name(d, fn);
		if (n)
			call_site(d, &chain[0], &out[0]);
		else
			pc_line(d, u, va, &out[0]);
		return 1;
	}
	pc_line(d, u, va, &out[0]);
	for (k = 0; k < n; k++) {
		Dwarf_Die *inner = &chain[n - 1 - k];

		out[k].function = function_name(d, inner);
		call_site(d, inner, &out[k + 1]);
	}
	out[n].function = function_name(d, fn);
	return n + 1;
}

/* The span of va alone; empty for the last address, which no span can hold. */
static struct dwarf_span span_one(uint64_t va)
{
	return (struct dwarf_span){va, va == UINT64_MAX ? va : va + 1};
}

/* Narrows sp to the addresses around va for which range_find(v, n, .) answers r, as it
 * does for va: no range starts between va and them, and none that range_find would try
 * before r covers them. */
static void range_span(const struct addr_range *v, size_t n, const struct addr_range *r,
		       uint64_t va, struct dwarf_span *sp)
{
	size_t lo = ranges_upto(v, n, va), k;

	/* lo ranges start at or below va; the next one starts above it. */
	if (lo < n && v[lo].lo < sp->hi)
		sp->hi = v[lo].lo;
	if (r->hi < sp->hi)
		sp->hi = r->hi;
	if (r->lo > sp->lo)
		sp->lo = r->lo;
	if (lo && v[lo - 1].lo > sp->lo)
		sp->lo = v[lo - 1].lo;
	for (k = lo; k > 0 && &v[k - 1] != r; k--)
		if (v[k - 1].hi > sp->lo)
			sp->lo = v[k - 1].hi; /* tried before r: it must still end below */
}

/* Narrows sp to keep die's ranges out, none of which holds va. False when one does, or
 * they cannot all be read. */
static bool clip_die(Dwarf_Die *die, uint64_t va, struct dwarf_span *sp)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int n = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (++n > RANGES_PER_DIE_MAX)
			return false;
		if (hi <= lo)
			continue;
		if (lo <= va && va < hi)
			return false;
		if (hi <= va && hi > sp->lo)
			sp->lo = hi;
		if (lo > va && lo < sp->hi)
			sp->hi = lo;
	}
	return off == 0;
}

/* Narrows sp by the code of scope's inlined calls and blocks (entering blocks without
 * addresses, as covering_child does): an address there would find a deeper chain. False
 * when the walk was cut by its bounds. */
static bool clip_children(Dwarf_Die *scope, uint64_t va, struct dwarf_span *sp, uint32_t *visits,
			  int nest)
{
	Dwarf_Die child;
	int r, tag;

	for (r = dwarf_child(scope, &child); r == 0; r = dwarf_siblingof(&child, &child)) {
		if (++*visits > CHAIN_VISITS_MAX)
			return false;
		tag = dwarf_tag(&child);
		if (tag != DW_TAG_inlined_subroutine && !is_block(tag))
			continue;
		if (is_block(tag) && !dwarf_hasattr(&child, DW_AT_low_pc) &&
		    !dwarf_hasattr(&child, DW_AT_ranges)) {
			if (nest >= NEST_MAX || !clip_children(&child, va, sp, visits, nest + 1))
				return false;
			continue;
		}
		if (!clip_die(&child, va, sp))
			return false;
	}
	return r >= 0;
}

/* Narrows sp to the piece of scope's code that holds va, less its children's code. */
static bool scope_span(Dwarf_Die *scope, uint64_t va, struct dwarf_span *sp)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	uint32_t visits = 0;
	bool found = false;

	while (!found && (off = dwarf_ranges(scope, off, &base, &lo, &hi)) > 0) {
		if (lo <= va && va < hi) {
			found = true;
			if (lo > sp->lo)
				sp->lo = lo;
			if (hi < sp->hi)
				sp->hi = hi;
		}
	}
	return found && clip_children(scope, va, sp, &visits, 0);
}

/* A row's answer: its file and line, or none for an end of sequence (what pc_line
 * gives for an address the row holds). */
struct row_answer {
	const char *file;
	int line;
	bool none;
};

/* The address of row i of lines; false when unreadable. */
static bool row_addr(Dwarf_Lines *lines, size_t i, Dwarf_Addr *a)
{
	return dwarf_lineaddr(dwarf_onesrcline(lines, i), a) == 0;
}

static void row_answer(Dwarf_Lines *lines, size_t i, struct row_answer *r)
{
	Dwarf_Line *l = dwarf_onesrcline(lines, i);
	bool end = false;

	r->line = 0;
	r->none = !l || dwarf_lineendsequence(l, &end) || end;
	r->file = r->none ? NULL : dwarf_linesrc(l, NULL, NULL);
	if (!r->none && dwarf_lineno(l, &r->line))
		r->line = 0;
}

static bool same_answer(const struct row_answer *a, const struct row_answer *b)
{
	return !a->none && !b->none && a->line == b->line &&
	       (a->file == b->file || (a->file && b->file && !strcmp(a->file, b->file)));
}

/* The first row above va (libdw sorts a unit's rows by address): rows[..i) start at or
 * below va. SIZE_MAX when a row is unreadable. */
static size_t rows_upto(Dwarf_Lines *lines, size_t n, uint64_t va)
{
	size_t lo = 0, hi = n, mid;
	Dwarf_Addr a;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (!row_addr(lines, mid, &a))
			return SIZE_MAX;
		if (a <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Narrows sp to the rows around va that give va's answer: dwarf_getsrc_die finds the last
 * row at or below an address, so [the row's address, the next row's) gets its answer, and
 * so do neighbouring rows of the same file and line (a statement is often several rows:
 * views, is_stmt changes), up to ROW_MERGE_MAX distinct addresses each way. */
static bool line_span(struct unit *u, uint64_t va, struct dwarf_span *sp)
{
	struct row_answer want, other;
	Dwarf_Lines *lines;
	size_t n, up, i, k;
	Dwarf_Addr a, b;
	int steps;

	if (dwarf_getsrclines(&u->lines, &lines, &n))
		return true; /* no line table: no address has a line */
	up = rows_upto(lines, n, va);
	if (up == SIZE_MAX)
		return false;
	if (up == 0) { /* below every row: no answer up to the first */
		if (n && row_addr(lines, 0, &a) && a < sp->hi)
			sp->hi = a;
		return true;
	}
	row_answer(lines, up - 1, &want);
	/* Forward: up is the first row of the next address; its last row answers there. */
	for (i = up, steps = 0; i < n; i = k + 1, steps++) {
		if (!row_addr(lines, i, &a))
			return false;
		for (k = i; k + 1 < n && row_addr(lines, k + 1, &b) && b == a; k++)
			;
		row_answer(lines, k, &other);
		if (steps == ROW_MERGE_MAX || !same_answer(&want, &other)) {
			if (a < sp->hi)
				sp->hi = a;
			break;
		}
	}
	/* Backward: the rows of va's address start at the first row with it. */
	if (!row_addr(lines, up - 1, &a))
		return false;
	for (i = up - 1, steps = 0;; steps++) {
		while (i > 0 && row_addr(lines, i - 1, &b) && b == a)
			i--;
		if (!i || steps == ROW_MERGE_MAX)
			break;
		row_answer(lines, i - 1, &other);
		if (!same_answer(&want, &other) || !row_addr(lines, i - 1, &b))
			break;
		a = b;
		i--;
	}
	if (a > sp->lo)
		sp->lo = a;
	return true;
}

/* Narrows sp, for an address va that no range of v covers as range_find sees it, to the
 * addresses around it that none covers either. */
static void gap_span(const struct addr_range *v, size_t n, uint64_t va, struct dwarf_span *sp)
{
	size_t lo = ranges_upto(v, n, va), k;

	if (lo < n && v[lo].lo < sp->hi)
		sp->hi = v[lo].lo;
	if (lo && v[lo - 1].lo > sp->lo)
		sp->lo = v[lo - 1].lo;
	for (k = 0; k < WALK_BACK && lo > k; k++)
		if (v[lo - 1 - k].hi > sp->lo)
			sp->lo = v[lo - 1 - k].hi; /* tried: it must still end below */
}

/* The lookup; with sp, narrows *sp (all addresses at first) to the span of the answer, or
 * sets it to va alone when it cannot tell. */
static int lookup(struct dwarf_syms *d, uint64_t va, bool inlines, struct dwarf_line *out, int max,
		  struct dwarf_span *sp)
{
	const struct addr_range *ur, *fr;
	struct dwarf_span none = span_one(va);
	struct chain_end end;
	struct unit *u;
	int n;

	ur = range_find(d->ranges, d->nranges, va);
	if (!ur && sp)
		gap_span(d->ranges, d->nranges, va, sp); /* no unit: none, up to the next one */
	else if (ur && ur->idx >= d->nunits && sp)
		*sp = none;
	if (!ur || ur->idx >= d->nunits)
		return 0;
	u = &d->units[ur->idx];
	if (!u->indexed && !u->failed && d->units_bound &&
	    dwarf_syms__units_memory(d) > d->units_bound) {
		reset_units(d);
		ur = range_find(d->ranges, d->nranges, va);
		if (!ur || ur->idx >= d->nunits)
			return sp ? (*sp = none, 0) : 0;
		u = &d->units[ur->idx];
	}
	make_room(d);
	if (index_unit(d, u))
		return sp ? (*sp = none, 0) : 0;
	if (sp)
		range_span(d->ranges, d->nranges, ur, va, sp);
	fr = range_find(u->ranges, u->nranges, va);
	if (!fr && sp)
		gap_span(u->ranges, u->nranges, va, sp); /* in the unit, in no function */
	else if (fr && fr->idx >= u->nfuncs && sp)
		*sp = none;
	if (!fr || fr->idx >= u->nfuncs)
		return 0;
	n = fill_lines(d, u, &u->funcs[fr->idx], va, inlines, out, max, &end);
	if (!sp)
		return n;
	range_span(u->ranges, u->nranges, fr, va, sp);
	if (!end.whole || !scope_span(&end.scope, va, sp) || !line_span(u, va, sp))
		*sp = none;
	return n;
}

int dwarf_syms__lookup_span(struct dwarf_syms *d, uint64_t va, bool inlines, struct dwarf_line *out,
			    int max, struct dwarf_span *sp)
{
	struct dwarf_span wide = {0, UINT64_MAX};
	unsigned int guard;
	int n;

	if (sp)
		*sp = span_one(va);
	if (!d || !d->dw || d->torn || max < 1)
		return 0;
	/* Everything libdw reads from the mapping, and every string copied out of it, is
	 * read in here. */
	guard = mapguard__begin();
	n = lookup(d, va, inlines, out, max, sp ? &wide : NULL);
	if (sp && wide.lo <= va && va < wide.hi)
		*sp = wide;
	if (!mapguard__end(guard))
		return n;
	/* What was read past the file's new end was zeros: the answer is not the file's.
	 * The DWARF stays as it is (strings returned earlier stay valid) until freed. */
	d->torn = true;
	if (sp)
		*sp = span_one(va);
	return 0;
}

int dwarf_syms__lookup(struct dwarf_syms *d, uint64_t va, bool inlines, struct dwarf_line *out,
		       int max)
{
	return dwarf_syms__lookup_span(d, va, inlines, out, max, NULL);
}

bool dwarf_syms__torn(const struct dwarf_syms *d)
{
	return d && d->torn;
}
