// SPDX-License-Identifier: Apache-2.0
/* ECMA-335 metadata from an assembly's file (dotnet_pe.h): the tables' row sizes follow
 * partition II, 22 (each table's columns) and 24.2.6 (index sizes by row counts). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interp/dotnet/dotnet_pe.h"

#define MAX_NESTING 8 /* enclosing types followed at most */

enum {
	T_FIELD = 0x04,
	T_METHOD = 0x06,
	T_PARAM = 0x08,
	T_TYPEDEF = 0x02,
	T_NESTED = 0x29,
	T_LAST_NEEDED = 0x2c,
};

/* Column kinds: 'h' u16, 'w' u32, 's' string, 'g' guid, 'b' blob, 'T' + a table's id (an
 * index into it: no column points at table 0), 'C' + 'a' + enum coded (a coded index). */
enum coded {
	C_TYPEDEFORREF,
	C_HASCONSTANT,
	C_HASCUSTOMATTR,
	C_HASFIELDMARSHAL,
	C_HASDECLSECURITY,
	C_MEMBERREFPARENT,
	C_HASSEMANTICS,
	C_METHODDEFORREF,
	C_MEMBERFORWARDED,
	C_IMPLEMENTATION,
	C_CUSTOMATTRTYPE,
	C_RESOLUTIONSCOPE,
	C_TYPEORMETHODDEF,
	C__COUNT,
};

/* Each coded index: its tag bits, and the tables it may point at (0xff: unused tags). */
static const struct {
	uint8_t bits;
	uint8_t tables[24];
	uint8_t n;
} coded[C__COUNT] = {
    [C_TYPEDEFORREF] = {2, {0x02, 0x01, 0x1b}, 3},
    [C_HASCONSTANT] = {2, {0x04, 0x08, 0x17}, 3},
    [C_HASCUSTOMATTR] = {5,
			 {0x06, 0x04, 0x01, 0x02, 0x08, 0x09, 0x0a, 0x00, 0x0e, 0x17, 0x14,
			  0x11, 0x1a, 0x1b, 0x20, 0x23, 0x26, 0x27, 0x28, 0x2a, 0x2c, 0x2b},
			 22},
    [C_HASFIELDMARSHAL] = {1, {0x04, 0x08}, 2},
    [C_HASDECLSECURITY] = {2, {0x02, 0x06, 0x20}, 3},
    [C_MEMBERREFPARENT] = {3, {0x02, 0x01, 0x1a, 0x06, 0x1b}, 5},
    [C_HASSEMANTICS] = {1, {0x14, 0x17}, 2},
    [C_METHODDEFORREF] = {1, {0x06, 0x0a}, 2},
    [C_MEMBERFORWARDED] = {1, {0x04, 0x06}, 2},
    [C_IMPLEMENTATION] = {2, {0x26, 0x23, 0x27}, 3},
    [C_CUSTOMATTRTYPE] = {3, {0xff, 0xff, 0x06, 0x0a, 0xff}, 5},
    [C_RESOLUTIONSCOPE] = {2, {0x00, 0x1a, 0x23, 0x01}, 4},
    [C_TYPEORMETHODDEF] = {1, {0x02, 0x06}, 2},
};

/* The columns of tables 0x00 to 0x2c (partition II, 22.2 to 22.39). */
static const char *const columns[T_LAST_NEEDED + 1] = {
    [0x00] = "hsggg",
    [0x01] = "Clss",
    [0x02] = "wssCaT\x04"
	     "T\x06",
    [0x03] = "T\x04",
    [0x04] = "hsb",
    [0x05] = "T\x06",
    [0x06] = "whhsbT\x08",
    [0x07] = "T\x08",
    [0x08] = "hhs",
    [0x09] = "T\x02"
	     "Ca",
    [0x0a] = "Cfsb",
    [0x0b] = "hCbb",
    [0x0c] = "CcCkb",
    [0x0d] = "Cdb",
    [0x0e] = "hCeb",
    [0x0f] = "hwT\x02",
    [0x10] = "wT\x04",
    [0x11] = "b",
    [0x12] = "T\x02"
	     "T\x14",
    [0x13] = "T\x14",
    [0x14] = "hsCa",
    [0x15] = "T\x02"
	     "T\x17",
    [0x16] = "T\x17",
    [0x17] = "hsb",
    [0x18] = "hT\x06"
	     "Cg",
    [0x19] = "T\x02"
	     "ChCh",
    [0x1a] = "s",
    [0x1b] = "b",
    [0x1c] = "hCisT\x1a",
    [0x1d] = "wT\x04",
    [0x1e] = "ww",
    [0x1f] = "w",
    [0x20] = "whhhhwbss",
    [0x21] = "w",
    [0x22] = "www",
    [0x23] = "hhhhwbssb",
    [0x24] = "wT\x23",
    [0x25] = "wwwT\x23",
    [0x26] = "wsb",
    [0x27] = "wwssCj",
    [0x28] = "wwsCj",
    [0x29] = "T\x02"
	     "T\x02",
    [0x2a] = "hhCms",
    [0x2b] = "Chb",
    [0x2c] = "T\x2a"
	     "Ca",
};

static uint16_t u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Whether [off, off + len) lies inside a buffer of size bytes. */
static bool inside(size_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

static uint8_t table_idx(const struct dn_pe *pe, uint8_t t)
{
	return pe->rows[t & (DN_PE_TABLES - 1)] < 0x10000 ? 2 : 4;
}

static uint8_t coded_idx(const struct dn_pe *pe, uint8_t c)
{
	uint32_t max = 0;

	for (int i = 0; i < coded[c].n; i++)
		if (coded[c].tables[i] != 0xff && pe->rows[coded[c].tables[i]] > max)
			max = pe->rows[coded[c].tables[i]];
	return max < (1u << (16 - coded[c].bits)) ? 2 : 4;
}

/* The size of the column whose kind starts k, and how many bytes of the schema it took. */
static uint8_t column_size(const struct dn_pe *pe, uint8_t guid_idx, const char *k, int *used)
{
	*used = 1;
	switch (k[0]) {
	case 'h':
		return 2;
	case 'w':
		return 4;
	case 's':
		return pe->str_idx;
	case 'g':
		return guid_idx;
	case 'b':
		return pe->blob_idx;
	case 'T':
		*used = 2;
		return table_idx(pe, (uint8_t)k[1]);
	default: /* 'C' */
		*used = 2;
		return coded_idx(pe, (uint8_t)(k[1] - 'a'));
	}
}

static void row_sizes(struct dn_pe *pe, uint8_t guid_idx)
{
	for (int t = 0; t <= T_LAST_NEEDED; t++) {
		const char *k = columns[t];
		unsigned int size = 0;
		int used;

		for (; k && *k; k += used)
			size += column_size(pe, guid_idx, k, &used);
		pe->row_size[t] = (uint8_t)size;
	}
}

/* The file offset of relative virtual address rva, from the section holding it. */
static int rva_to_off(const struct dn_pe *pe, uint32_t rva, uint32_t *off)
{
	uint32_t pe_off = u32(pe->data + 0x3c), nsec, opt, sec;

	nsec = u16(pe->data + pe_off + 6);
	opt = pe_off + 24;
	sec = opt + u16(pe->data + pe_off + 20);
	for (uint32_t i = 0; i < nsec && i < 96; i++, sec += 40) {
		uint32_t va, vsize, raw, rawsize;

		if (!inside(pe->size, sec, 40))
			return -EINVAL;
		vsize = u32(pe->data + sec + 8);
		va = u32(pe->data + sec + 12);
		rawsize = u32(pe->data + sec + 16);
		raw = u32(pe->data + sec + 20);
		if (rva >= va && rva - va < (vsize > rawsize ? vsize : rawsize)) {
			*off = raw + (rva - va);
			return *off < pe->size ? 0 : -EINVAL;
		}
	}
	return -EINVAL;
}

/* The metadata root's offset and size, from the CLI header (data directory 14). */
static int metadata_root(const struct dn_pe *pe, uint32_t *root, uint32_t *len)
{
	uint32_t pe_off, opt, dirs, cli;

	if (!inside(pe->size, 0, 0x40) || pe->data[0] != 'M' || pe->data[1] != 'Z')
		return -EINVAL;
	pe_off = u32(pe->data + 0x3c);
	if (!inside(pe->size, pe_off, 24 + 240) || memcmp(pe->data + pe_off, "PE\0\0", 4))
		return -EINVAL;
	opt = pe_off + 24;
	dirs = opt + (u16(pe->data + opt) == 0x20b ? 112 : 96);
	if (!inside(pe->size, dirs + 14 * 8, 8) || !u32(pe->data + dirs + 14 * 8) ||
	    rva_to_off(pe, u32(pe->data + dirs + 14 * 8), &cli) || !inside(pe->size, cli, 16) ||
	    rva_to_off(pe, u32(pe->data + cli + 8), root))
		return -EINVAL;
	*len = u32(pe->data + cli + 12);
	return inside(pe->size, *root, *len) && *len >= 32 ? 0 : -EINVAL;
}

/* The tables stream at tabs (len bytes): row counts, index sizes, each table's place. */
static int read_tables(struct dn_pe *pe, const uint8_t *tabs, uint32_t len)
{
	uint64_t valid;
	uint32_t at = 24;
	uint8_t heaps;

	if (len < 24)
		return -EINVAL;
	heaps = tabs[6];
	valid = (uint64_t)u32(tabs + 8) | (uint64_t)u32(tabs + 12) << 32;
	pe->str_idx = heaps & 1 ? 4 : 2;
	pe->blob_idx = heaps & 4 ? 4 : 2;
	for (int t = 0; t < DN_PE_TABLES; t++) {
		if (!(valid >> t & 1))
			continue;
		if (at + 4 > len)
			return -EINVAL;
		pe->rows[t] = u32(tabs + at);
		at += 4;
	}
	if (heaps & 0x40) /* extra data after the row counts */
		at += 4;
	row_sizes(pe, heaps & 2 ? 4 : 2);
	for (int t = 0; t < DN_PE_TABLES; t++) {
		if (!pe->rows[t])
			continue;
		/* A table past the ones whose columns are known cannot be stepped over. */
		if (t > T_LAST_NEEDED)
			break;
		if ((uint64_t)pe->rows[t] * pe->row_size[t] > len - at)
			return -EINVAL;
		pe->table[t] = tabs + at;
		at += pe->rows[t] * pe->row_size[t];
	}
	return pe->table[T_METHOD] && pe->table[T_TYPEDEF] ? 0 : -EINVAL;
}

/* Finds the streams the names need in the metadata root at root (len bytes). */
static int read_streams(struct dn_pe *pe, const uint8_t *root, uint32_t len)
{
	const uint8_t *tabs = NULL;
	uint32_t vlen, at, n, tabs_len = 0;

	if (u32(root) != 0x424a5342)
		return -EINVAL;
	vlen = u32(root + 12);
	if (vlen > 255 || 16 + vlen + 4 > len)
		return -EINVAL;
	at = 16 + vlen;
	n = u16(root + at + 2);
	at += 4;
	for (uint32_t i = 0; i < n && i < 16; i++) {
		uint32_t off, size, name_len;

		if (at + 8 >= len)
			return -EINVAL;
		off = u32(root + at);
		size = u32(root + at + 4);
		name_len = (uint32_t)strnlen((const char *)root + at + 8, len - at - 8);
		if (!inside(len, off, size) || at + 8 + name_len >= len)
			return -EINVAL;
		if (!strcmp((const char *)root + at + 8, "#~") ||
		    !strcmp((const char *)root + at + 8, "#-")) {
			tabs = root + off;
			tabs_len = size;
		} else if (!strcmp((const char *)root + at + 8, "#Strings")) {
			pe->strings = root + off;
			pe->nstrings = size;
		} else if (!strcmp((const char *)root + at + 8, "#Blob")) {
			pe->blobs = root + off;
			pe->nblobs = size;
		}
		at += 8 + ((name_len + 4) & ~3u);
	}
	if (!tabs || !pe->strings)
		return -EINVAL;
	return read_tables(pe, tabs, tabs_len);
}

void *dn_pe__map(const char *path, size_t max, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *map = NULL;
	struct stat st;

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && st.st_size > 0 && (uint64_t)st.st_size <= max) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED)
			map = NULL;
		else
			*size = (size_t)st.st_size;
	}
	close(fd);
	return map;
}

int dn_pe__open(struct dn_pe *pe, const uint8_t *data, size_t size)
{
	uint32_t root, len;

	memset(pe, 0, sizeof(*pe));
	pe->data = data;
	pe->size = size;
	if (metadata_root(pe, &root, &len))
		return -EINVAL;
	return read_streams(pe, data + root, len);
}

/* Column col (0-based) of row rid (1-based) of table t, as a number. */
static uint32_t column(const struct dn_pe *pe, int t, uint32_t rid, int col)
{
	const char *k = columns[t];
	const uint8_t *row = pe->table[t] + (size_t)(rid - 1) * pe->row_size[t];
	uint8_t size = 0;
	int used;

	for (int i = 0; *k; k += used, i++) {
		size = column_size(pe, 0, k, &used);
		if (i == col)
			return size == 4 ? u32(row) : u16(row);
		row += size;
	}
	return 0;
}

/* A string of the #Strings heap, or NULL when it does not end inside the heap. */
static const char *string_at(const struct dn_pe *pe, uint32_t idx)
{
	if (idx >= pe->nstrings || !memchr(pe->strings + idx, 0, pe->nstrings - idx))
		return NULL;
	return (const char *)pe->strings + idx;
}

/* The TypeDef whose method list holds method rid: the last whose list starts at or
 * before it (the lists are in row order). 0 when none. */
static uint32_t owner_of(const struct dn_pe *pe, uint32_t rid)
{
	uint32_t lo = 1, hi = pe->rows[T_TYPEDEF], found = 0;

	while (lo <= hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (column(pe, T_TYPEDEF, mid, 5) <= rid) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

/* The type enclosing TypeDef type (NestedClass table, sorted by nested type), or 0. */
static uint32_t enclosing(const struct dn_pe *pe, uint32_t type)
{
	uint32_t lo = 1, hi = pe->table[T_NESTED] ? pe->rows[T_NESTED] : 0;

	while (lo <= hi) {
		uint32_t mid = lo + (hi - lo) / 2, nested = column(pe, T_NESTED, mid, 0);

		if (nested == type)
			return column(pe, T_NESTED, mid, 1);
		if (nested < type)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return 0;
}

/* Appends s to out at *at (cap bytes, always terminated, cut when full). */
static void append(char *out, size_t cap, size_t *at, const char *s)
{
	size_t n = strlen(s);

	if (*at + 1 >= cap)
		return;
	if (n > cap - 1 - *at)
		n = cap - 1 - *at;
	memcpy(out + *at, s, n);
	*at += n;
	out[*at] = '\0';
}

/* "Namespace.Outer+Inner" of TypeDef type into out. */
static int type_name(const struct dn_pe *pe, uint32_t type, char *out, size_t cap, size_t *at)
{
	uint32_t chain[MAX_NESTING], n = 0;
	const char *ns, *name;

	for (uint32_t t = type; t && n < MAX_NESTING; t = enclosing(pe, t)) {
		if (t > pe->rows[T_TYPEDEF])
			return -ENOENT;
		chain[n++] = t;
	}
	ns = string_at(pe, column(pe, T_TYPEDEF, chain[n - 1], 2));
	if (!ns)
		return -ENOENT;
	if (ns[0]) {
		append(out, cap, at, ns);
		append(out, cap, at, ".");
	}
	while (n--) {
		name = string_at(pe, column(pe, T_TYPEDEF, chain[n], 1));
		if (!name)
			return -ENOENT;
		append(out, cap, at, name);
		if (n)
			append(out, cap, at, "+");
	}
	return 0;
}

/* The parameter count of a method signature blob (II.23.2.1), or -1. */
static int arity(const struct dn_pe *pe, uint32_t blob)
{
	const uint8_t *p;
	uint32_t left;

	if (!pe->blobs || blob >= pe->nblobs)
		return -1;
	p = pe->blobs + blob;
	left = pe->nblobs - blob;
	/* The blob's length (a compressed integer, 1 byte when under 0x80), then the
	 * calling convention, a generic method's type parameter count, the parameter count:
	 * small counts are one byte. */
	if (left < 4 || p[0] >= 0x80 || p[0] < 2)
		return -1;
	if (p[1] & 0x10)
		return left >= 5 && p[2] < 0x80 && p[3] < 0x80 ? p[3] : -1;
	return p[2] < 0x80 ? p[2] : -1;
}

int dn_pe__method_name(const struct dn_pe *pe, uint32_t rid, char *out, size_t cap)
{
	uint32_t type;
	const char *name;
	size_t at = 0;
	char n[16];
	int args;

	if (!cap)
		return -ENOENT;
	out[0] = '\0';
	if (!rid || rid > pe->rows[T_METHOD])
		return -ENOENT;
	name = string_at(pe, column(pe, T_METHOD, rid, 3));
	type = owner_of(pe, rid);
	if (!name || !type || type_name(pe, type, out, cap, &at))
		return -ENOENT;
	append(out, cap, &at, ".");
	append(out, cap, &at, name);
	args = arity(pe, column(pe, T_METHOD, rid, 4));
	if (args >= 0) {
		snprintf(n, sizeof(n), "/%d", args);
		append(out, cap, &at, n);
	}
	return 0;
}

/* ---- ready-to-run ---- */

#define R2R_SIGNATURE 0x00525452 /* "RTR" */
#define R2R_RUNTIME_FUNCTIONS 102
#define R2R_METHODDEF_ENTRYPOINTS 103
#define R2R_INSTANCE_ENTRYPOINTS 109
#define R2R_SIG_DEPTH 8		   /* nesting of a type signature followed */
#define R2R_SIG_MAX 256		   /* bytes of one entry's signature read */
#define R2R_MAX_ENTRIES (1u << 20) /* instantiations read per image */
#define R2R_BLOCK 16		   /* NativeArray's block of elements */
#define R2R_FUNCLETS_MAX 64 /* runtime functions searched back from a funclet to its method */

/* The bytes at rva, len of them inside one section of the file, or NULL. */
static const uint8_t *rva_ptr(const struct dn_pe *pe, uint32_t rva, uint32_t len)
{
	uint32_t off;

	if (rva_to_off(pe, rva, &off) || !inside(pe->size, off, len))
		return NULL;
	return pe->data + off;
}

/* The relative virtual address of file offset off, from the section whose raw data
 * holds it. */
static int off_to_rva(const struct dn_pe *pe, uint64_t off, uint32_t *rva)
{
	uint32_t pe_off = u32(pe->data + 0x3c), nsec = u16(pe->data + pe_off + 6);
	uint32_t sec = pe_off + 24 + u16(pe->data + pe_off + 20);

	for (uint32_t i = 0; i < nsec && i < 96; i++, sec += 40) {
		uint32_t raw, rawsize;

		if (!inside(pe->size, sec, 40))
			return -EINVAL;
		rawsize = u32(pe->data + sec + 16);
		raw = u32(pe->data + sec + 20);
		if (off >= raw && off - raw < rawsize) {
			*rva = u32(pe->data + sec + 12) + (uint32_t)(off - raw);
			return 0;
		}
	}
	return -EINVAL;
}

/* NativeFormat's unsigned integer at rva: 1 to 5 bytes, the low bits of the first
 * saying how many. Returns the rva past it, or 0 when it is unreadable. */
static uint32_t native_unsigned(const struct dn_pe *pe, uint32_t rva, uint32_t *v)
{
	const uint8_t *p = rva_ptr(pe, rva, 1);
	uint32_t n;

	if (!p)
		return 0;
	n = (p[0] & 1) == 0   ? 1
	    : (p[0] & 2) == 0 ? 2
	    : (p[0] & 4) == 0 ? 3
	    : (p[0] & 8) == 0 ? 4
			      : 5;
	if ((p[0] & 0x1f) == 0x1f || !(p = rva_ptr(pe, rva, n)))
		return 0;
	switch (n) {
	case 1:
		*v = p[0] >> 1;
		break;
	case 2:
		*v = (uint32_t)(p[0] >> 2) | (uint32_t)p[1] << 6;
		break;
	case 3:
		*v = (uint32_t)(p[0] >> 3) | (uint32_t)p[1] << 5 | (uint32_t)p[2] << 13;
		break;
	case 4:
		*v = (uint32_t)(p[0] >> 4) | (uint32_t)p[1] << 4 | (uint32_t)p[2] << 12 |
		     (uint32_t)p[3] << 20;
		break;
	default:
		*v = u32(p + 1);
	}
	return rva + n;
}

struct native_array {
	uint32_t base; /* rva of the block index */
	uint32_t n;
	uint8_t index_size; /* 1, 2 or 4 */
};

static int native_array(const struct dn_pe *pe, uint32_t rva, struct native_array *a)
{
	uint32_t v, at = native_unsigned(pe, rva, &v);

	if (!at || (v & 3) == 3)
		return -EINVAL;
	a->base = at;
	a->n = v >> 2;
	a->index_size = (uint8_t)(1u << (v & 3));
	return 0;
}

/* Element i of a NativeArray: the rva of its value, or 0 when it has none. The array is
 * a tree per block of R2R_BLOCK elements: each node says whether a subtree is on its
 * left (bit 0) or its right (bit 1, and how far), or is a leaf of one element. */
static uint32_t native_array_at(const struct dn_pe *pe, const struct native_array *a, uint32_t i)
{
	const uint8_t *p = rva_ptr(pe, a->base + (i / R2R_BLOCK) * a->index_size, a->index_size);
	uint32_t at, v, next;

	if (i >= a->n || !p)
		return 0;
	at = a->index_size == 1 ? p[0] : a->index_size == 2 ? u16(p) : u32(p);
	at += a->base;
	for (uint32_t bit = R2R_BLOCK >> 1; bit; bit >>= 1) {
		next = native_unsigned(pe, at, &v);
		if (!next)
			return 0;
		if ((i & bit) && (v & 2)) {
			at += v >> 2;
			continue;
		}
		if (!(i & bit) && (v & 1)) {
			at = next;
			continue;
		}
		if ((v & 3) == 0 && (v >> 2) == (i & (R2R_BLOCK - 1)))
			return next;
		return 0;
	}
	return at;
}

/* The runtime function index of method rid's entry point, or -1. */
static int64_t entry_of(const struct dn_pe *pe, const struct native_array *a, uint32_t rid)
{
	uint32_t at = native_array_at(pe, a, rid - 1), id;

	if (!at || !native_unsigned(pe, at, &id))
		return -1;
	/* The low bit says fixups follow; with them the index is two bits up. */
	return id & 1 ? id >> 2 : id >> 1;
}

/* A signature being read: bytes [at, end) of the file. */
struct sig {
	const uint8_t *at, *end;
};

/* ECMA-335's compressed unsigned integer (II.23.2): 1, 2 or 4 bytes. */
static int sig_uint(struct sig *s, uint32_t *v)
{
	if (s->at >= s->end)
		return -1;
	if (!(s->at[0] & 0x80)) {
		*v = *s->at++;
	} else if ((s->at[0] & 0xc0) == 0x80 && s->end - s->at >= 2) {
		*v = (uint32_t)(s->at[0] & 0x3f) << 8 | s->at[1];
		s->at += 2;
	} else if ((s->at[0] & 0xe0) == 0xc0 && s->end - s->at >= 4) {
		*v = (uint32_t)(s->at[0] & 0x1f) << 24 | (uint32_t)s->at[1] << 16 |
		     (uint32_t)s->at[2] << 8 | s->at[3];
		s->at += 4;
	} else {
		return -1;
	}
	return 0;
}

/* Steps over one type in a signature (II.23.2.12, and ready-to-run's canonical type);
 * -1 for a form it does not know (a function pointer, another module's type). */
static int sig_skip_type(struct sig *s, int depth)
{
	uint32_t e, n, v;

	if (depth > R2R_SIG_DEPTH || sig_uint(s, &e))
		return -1;
	if ((e >= 0x01 && e <= 0x0e) || e == 0x16 || e == 0x18 || e == 0x19 || e == 0x1c ||
	    e == 0x3e) /* primitives, object, __Canon */
		return 0;
	switch (e) {
	case 0x0f: /* pointer */
	case 0x10: /* by reference */
	case 0x1d: /* vector */
	case 0x45: /* pinned */
		return sig_skip_type(s, depth + 1);
	case 0x11: /* value type */
	case 0x12: /* class */
	case 0x13: /* a type's generic parameter */
	case 0x1e: /* a method's */
		return sig_uint(s, &v);
	case 0x15: /* generic instantiation: its kind, type, arguments */
		if (sig_uint(s, &v) || sig_uint(s, &v) || sig_uint(s, &n) || n > 64)
			return -1;
		for (uint32_t i = 0; i < n; i++)
			if (sig_skip_type(s, depth + 1))
				return -1;
		return 0;
	case 0x1f: /* custom modifiers */
	case 0x20:
		return sig_uint(s, &v) ? -1 : sig_skip_type(s, depth + 1);
	case 0x14: /* array: type, rank, sizes, lower bounds */
		if (sig_skip_type(s, depth + 1) || sig_uint(s, &v) || sig_uint(s, &n) || n > 32)
			return -1;
		for (uint32_t i = 0; i < n; i++)
			if (sig_uint(s, &v))
				return -1;
		if (sig_uint(s, &n) || n > 32)
			return -1;
		for (uint32_t i = 0; i < n; i++)
			if (sig_uint(s, &v))
				return -1;
		return 0;
	default:
		return -1;
	}
}

/* The MethodDef rid an instantiation's signature names, in this image: 0 when it names
 * a MemberRef, another module's method or a form not read. Leaves s past the method's
 * token and instantiation (the entry point follows). */
static uint32_t sig_method(struct sig *s)
{
	uint32_t flags, rid, n;

	/* Flags: 0x10 a MemberRef token, 0x08 a slot, 0x80 another module's context,
	 * 0x40 the owner type first, 0x04 the method's instantiation after the token,
	 * 0x20 a constraint type after that. */
	if (sig_uint(s, &flags) || (flags & 0x98))
		return 0;
	if ((flags & 0x40) && sig_skip_type(s, 0))
		return 0;
	if (sig_uint(s, &rid))
		return 0;
	if (flags & 0x04) {
		if (sig_uint(s, &n) || n > 64)
			return 0;
		for (uint32_t i = 0; i < n; i++)
			if (sig_skip_type(s, 0))
				return 0;
	}
	if ((flags & 0x20) && sig_skip_type(s, 0))
		return 0;
	return rid;
}

/* The entry at rva of the instantiations' hashtable: its method's rid and the runtime
 * function of its entry point into r (the first code seen for a function keeps it). */
static void instance_entry(const struct dn_pe *pe, struct dn_r2r *r, uint32_t rva)
{
	const uint8_t *p = rva_ptr(pe, rva, 1);
	uint32_t off, rid, id;
	struct sig s;

	if (!p || rva_to_off(pe, rva, &off))
		return;
	s = (struct sig){p,
			 pe->data + (pe->size - off < R2R_SIG_MAX ? pe->size : off + R2R_SIG_MAX)};
	rid = sig_method(&s);
	if (!rid || rid > pe->rows[T_METHOD] ||
	    !native_unsigned(pe, rva + (uint32_t)(s.at - p), &id))
		return;
	id = id & 1 ? id >> 2 : id >> 1;
	if (id < r->nfuncs && !r->rid_of[id])
		r->rid_of[id] = rid;
}

/* NativeFormat's signed integer at rva (the same encoding, sign-extended). Returns the
 * rva past it, or 0. */
static uint32_t native_signed(const struct dn_pe *pe, uint32_t rva, int32_t *v)
{
	const uint8_t *p = rva_ptr(pe, rva, 1);
	uint32_t u, bits, next = native_unsigned(pe, rva, &u);

	if (!next || !p)
		return 0;
	bits = (next - rva) * 7;
	if (bits >= 32)
		*v = (int32_t)u;
	else
		*v = (int32_t)(u << (32 - bits)) >> (32 - bits);
	return next;
}

/* Every entry of the instantiations' NativeHashtable at rva: a header byte (bucket count
 * shift, index size), the buckets' offsets, then per bucket (low hash byte, relative
 * offset of the entry) pairs. */
static void instance_entries(const struct dn_pe *pe, struct dn_r2r *r, uint32_t rva)
{
	const uint8_t *h = rva_ptr(pe, rva, 1), *b;
	uint32_t base = rva + 1, shift, size, nb, seen = 0;

	if (!h || (h[0] & 3) == 3 || (shift = h[0] >> 2) > 24)
		return;
	size = 1u << (h[0] & 3);
	nb = 1u << shift;
	for (uint32_t i = 0; i < nb && seen < R2R_MAX_ENTRIES; i++) {
		uint32_t start, end;

		b = rva_ptr(pe, base + i * size, 2 * size);
		if (!b)
			return;
		start = size == 1 ? b[0] : size == 2 ? u16(b) : u32(b);
		end = size == 1 ? b[1] : size == 2 ? u16(b + 2) : u32(b + 4);
		for (uint32_t at = base + start; at < base + end && seen < R2R_MAX_ENTRIES;
		     seen++) {
			int32_t delta;
			uint32_t next = native_signed(pe, at + 1, &delta);

			if (!next)
				break;
			instance_entry(pe, r, at + 1 + (uint32_t)delta);
			at = next;
		}
	}
}

/* The rva and size of ready-to-run section type, or -ENOENT. */
static int r2r_section(const struct dn_pe *pe, uint32_t type, uint32_t *rva, uint32_t *size)
{
	uint32_t pe_off = u32(pe->data + 0x3c), opt = pe_off + 24, dirs, cli, n;
	const uint8_t *h, *c;

	dirs = opt + (u16(pe->data + opt) == 0x20b ? 112 : 96);
	if (rva_to_off(pe, u32(pe->data + dirs + 14 * 8), &cli) || !inside(pe->size, cli, 72))
		return -ENOENT;
	c = pe->data + cli;
	h = u32(c + 64) ? rva_ptr(pe, u32(c + 64), 16) : NULL;
	if (!h || u32(h) != R2R_SIGNATURE)
		return -ENOENT;
	n = u32(h + 12);
	h = rva_ptr(pe, u32(c + 64), 16 + 12 * (n < 256 ? n : 256));
	for (uint32_t i = 0; h && i < n && i < 256; i++) {
		if (u32(h + 16 + 12 * i) == type) {
			*rva = u32(h + 20 + 12 * i);
			*size = u32(h + 24 + 12 * i);
			return 0;
		}
	}
	return -ENOENT;
}

int dn_r2r__open(const struct dn_pe *pe, struct dn_r2r *r)
{
	uint32_t rva, size, eps, eps_size;
	struct native_array a;

	memset(r, 0, sizeof(*r));
	if (r2r_section(pe, R2R_RUNTIME_FUNCTIONS, &rva, &size) ||
	    r2r_section(pe, R2R_METHODDEF_ENTRYPOINTS, &eps, &eps_size))
		return -ENOENT;
	r->funcs = rva_ptr(pe, rva, size);
	r->nfuncs = size / 12;
	if (!r->funcs || !r->nfuncs || native_array(pe, eps, &a))
		return -EINVAL;
	r->rid_of = calloc(r->nfuncs, sizeof(*r->rid_of));
	if (!r->rid_of)
		return -ENOMEM;
	for (uint32_t rid = 1; rid <= a.n && rid <= pe->rows[T_METHOD]; rid++) {
		int64_t f = entry_of(pe, &a, rid);

		if (f >= 0 && f < r->nfuncs)
			r->rid_of[f] = rid;
	}
	/* Generic methods' instantiations compiled in the image, named by their method. */
	if (!r2r_section(pe, R2R_INSTANCE_ENTRYPOINTS, &eps, &eps_size))
		instance_entries(pe, r, eps);
	return 0;
}

void dn_r2r__free(struct dn_r2r *r)
{
	free(r->rid_of);
	memset(r, 0, sizeof(*r));
}

uint32_t dn_r2r__method(const struct dn_pe *pe, const struct dn_r2r *r, uint64_t off)
{
	uint32_t rva, lo = 0, hi = r->nfuncs;

	if (!r->rid_of || off_to_rva(pe, off, &rva))
		return 0;
	/* The last runtime function starting at or before rva. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (u32(r->funcs + 12 * (size_t)mid) <= rva)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || rva >= u32(r->funcs + 12 * (size_t)(lo - 1) + 4))
		return 0;
	/* A funclet's runtime function follows its method's. */
	for (uint32_t k = lo, n = 0; k-- > 0 && n < R2R_FUNCLETS_MAX; n++)
		if (r->rid_of[k])
			return r->rid_of[k];
	return 0;
}
