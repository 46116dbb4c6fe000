// SPDX-License-Identifier: Apache-2.0
/* Unit tests for the DWARF lookup: the inline_chain workload compiled here in every form
 * the reader must handle (DWARF 4 and 5, compressed sections, split DWARF, clang without
 * .debug_aranges, a separate debug file), its inline chain and lines checked at the call
 * into the leaf; location lists left compressed; the resident pages of the mapped debug
 * sections bounded; a file truncated under its mapping answered nothing more, not SIGBUS;
 * and files without DWARF or not ELF refused cleanly. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "shell.h"
#include "symbol/dwarfsym.h"
#include "util/resident.h"

#define SRC "tests/workloads/inline_chain.c"

static char tmpdir[] = "/tmp/test_dwarfsym.XXXXXX";
static char src_path[4096];
static uint32_t line_of[4]; /* call:leaf_hash, call:mix_word, call:mix_block, call:outer_work */

/* Reads the lines the source marks "call:NAME" (what the chain must report). */
static int read_markers(void)
{
	static const char *marks[] = {"call:leaf_hash", "call:mix_word", "call:mix_block",
				      "call:outer_work"};
	char buf[512];
	uint32_t n = 0;
	FILE *f = fopen(SRC, "r");

	if (!f)
		return -errno;
	while (fgets(buf, sizeof(buf), f)) {
		n++;
		for (int i = 0; i < 4; i++)
			if (strstr(buf, marks[i]))
				line_of[i] = n;
	}
	fclose(f);
	return line_of[0] && line_of[1] && line_of[2] && line_of[3] ? 0 : -ENOENT;
}

/* Address and size of a function symbol, from nm. */
static int nm_symbol(const char *bin, const char *name, uint64_t *addr, uint64_t *size)
{
	char cmd[8192], line[512], sym[256], type;
	unsigned long long a, s;
	int found = -ENOENT;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S %s", bin);
	p = popen(cmd, "r");
	if (!p)
		return -errno;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %llx %c %255s", &a, &s, &type, sym) == 4 &&
		    !strcmp(sym, name)) {
			*addr = a;
			*size = s;
			found = 0;
		}
	pclose(p);
	return found;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

/* Looks at every byte of outer_work for the call into leaf_hash: the chain there must be
 * mix_word (at the call:leaf_hash line) <- mix_block <- outer_work, each at its line. */
static void check_chain(struct dwarf_syms *d, const char *bin, const char *what)
{
	struct dwarf_line l[DWARF_LINES_MAX];
	uint64_t addr = 0, size = 0, va;
	bool seen = false;
	int n;

	CHECK(nm_symbol(bin, "outer_work", &addr, &size) == 0);
	for (va = addr; va < addr + size && !seen; va++) {
		n = dwarf_syms__lookup(d, va, true, l, DWARF_LINES_MAX);
		if (n != 3 || l[0].line != line_of[0])
			continue;
		seen = true;
		CHECK(!strcmp(l[0].function, "mix_word"));
		CHECK(!strcmp(l[1].function, "mix_block"));
		CHECK(!strcmp(l[2].function, "outer_work"));
		CHECK(l[1].line == line_of[1]);
		CHECK(l[2].line == line_of[2]);
		for (int i = 0; i < 3; i++)
			CHECK(ends_with(l[i].file, "inline_chain.c"));
		/* Without inlines: only outer_work, at the line it calls mix_block. */
		n = dwarf_syms__lookup(d, va, false, l, DWARF_LINES_MAX);
		CHECK(n == 1 && !strcmp(l[0].function, "outer_work") && l[0].line == line_of[2]);
	}
	if (!seen)
		fprintf(stderr, "  %s: no address in outer_work has the 3-deep chain\n", what);
	CHECK(seen);
	CHECK(nm_symbol(bin, "leaf_hash", &addr, &size) == 0);
	n = dwarf_syms__lookup(d, addr + 4, true, l, DWARF_LINES_MAX);
	CHECK(n == 1 && !strcmp(l[0].function, "leaf_hash"));
	CHECK(dwarf_syms__memory(d) > 0);
	CHECK(dwarf_syms__lookup(d, 0, true, l, DWARF_LINES_MAX) == 0);
}

static bool same_lines(const struct dwarf_line *a, int na, const struct dwarf_line *b, int nb)
{
	if (na != nb)
		return false;
	for (int i = 0; i < na; i++)
		if (strcmp(a[i].function, b[i].function) || strcmp(a[i].file, b[i].file) ||
		    a[i].line != b[i].line)
			return false;
	return true;
}

/* Every address of function name and of the padding around it, with and without inlines:
 * the span a lookup gives holds the address, and every other address there inside it gets
 * the same answer from a lookup of its own. Returns how many spans were wider than one
 * address. */
static int check_spans_of(struct dwarf_syms *d, const char *bin, const char *name, bool inlines)
{
	struct dwarf_line l[DWARF_LINES_MAX], m[DWARF_LINES_MAX];
	uint64_t addr = 0, size = 0, va, va2;
	struct dwarf_span sp;
	int n, n2, wide = 0;
	bool held = true, same = true;

	CHECK(nm_symbol(bin, name, &addr, &size) == 0);
	addr = addr > 32 ? addr - 32 : 0;
	size += 64;
	for (va = addr; va < addr + size; va++) {
		n = dwarf_syms__lookup_span(d, va, inlines, l, DWARF_LINES_MAX, &sp);
		held &= sp.lo <= va && va < sp.hi;
		wide += sp.hi - sp.lo > 1;
		for (va2 = sp.lo > addr ? sp.lo : addr; va2 < sp.hi && va2 < addr + size; va2++) {
			n2 = dwarf_syms__lookup(d, va2, inlines, m, DWARF_LINES_MAX);
			if (!same_lines(l, n, m, n2)) {
				fprintf(stderr,
					"  %s: %#llx's span [%#llx, %#llx) misnames %#llx\n", name,
					(unsigned long long)va, (unsigned long long)sp.lo,
					(unsigned long long)sp.hi, (unsigned long long)va2);
				same = false;
			}
		}
	}
	CHECK(held);
	CHECK(same);
	return wide;
}

/* The spans of the workload's functions, which inline one another three deep. */
static void check_spans(struct dwarf_syms *d, const char *bin)
{
	static const char *const fns[] = {"outer_work", "leaf_hash", "main"};
	struct dwarf_line l[DWARF_LINES_MAX];
	struct dwarf_span sp;
	int wide = 0;

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		wide += check_spans_of(d, bin, fns[i], true);
		wide += check_spans_of(d, bin, fns[i], false);
	}
	CHECK(wide > 0);
	CHECK(dwarf_syms__lookup_span(d, 0, true, l, DWARF_LINES_MAX, &sp) == 0);
	CHECK(sp.lo == 0 && sp.hi >= 1); /* below every unit: none, up to the first */
	CHECK(dwarf_syms__lookup(d, sp.hi - 1, true, l, DWARF_LINES_MAX) == 0);
	CHECK(dwarf_syms__lookup_span(d, UINT64_MAX, true, l, DWARF_LINES_MAX, &sp) == 0);
	CHECK(sp.lo == UINT64_MAX && sp.hi == UINT64_MAX);
}

/* Compiles the workload with cc and flags in tmpdir, opens dwarf_file's DWARF, checks. */
static void check_build(const char *what, const char *cc, const char *flags, const char *post,
			const char *dwarf_file)
{
	char bin[4096], dbg[4096];
	struct dwarf_syms *d;
	int fd;

	snprintf(bin, sizeof(bin), "%s/%s", tmpdir, what);
	snprintf(dbg, sizeof(dbg), "%s/%s%s", tmpdir, what, dwarf_file);
	if (run("cd %s && %s %s %s -o %s", tmpdir, cc, flags, src_path, bin)) {
		fprintf(stderr, "  %s: cannot build\n", what);
		CHECK(0);
		return;
	}
	if (post && run(post, bin, bin)) {
		CHECK(0);
		return;
	}
	fd = open(dbg, O_RDONLY);
	CHECK(fd >= 0);
	d = dwarf_syms__open(fd);
	close(fd);
	if (!d) {
		fprintf(stderr, "  %s: no DWARF: %s\n", what, strerror(errno));
		CHECK(0);
		return;
	}
	check_chain(d, bin, what);
	check_spans(d, bin);
	dwarf_syms__free(d);
}

static void test_dwarf4(void)
{
	check_build("dwarf4", "gcc", "-O2 -gdwarf-4", NULL, "");
}

static void test_dwarf5(void)
{
	check_build("dwarf5", "gcc", "-O2 -gdwarf-5", NULL, "");
}

static void test_compressed(void)
{
	check_build("zlib", "gcc", "-O2 -g -gz=zlib", NULL, "");
	CHECK(run("readelf -SW %s/zlib | grep debug_info | grep -q C", tmpdir) == 0);
}

/* The skeleton unit in the binary, the rest in the .dwo next to it. */
static void test_split(void)
{
	check_build("split", "gcc", "-O2 -g -gsplit-dwarf", NULL, "");
	CHECK(run("ls %s/*.dwo >/dev/null 2>&1", tmpdir) == 0);
}

/* clang writes no .debug_aranges: units are found by their own ranges. */
static void test_clang(void)
{
	check_build("clang", "clang", "-O2 -g -Wno-unknown-attributes", NULL, "");
}

/* One unit from gcc, listed in .debug_aranges, one from clang, not: both are found. */
static void test_mixed_aranges(void)
{
	struct dwarf_line l[DWARF_LINES_MAX];
	char bin[4096], other[4096];
	uint64_t addr = 0, size = 0;
	struct dwarf_syms *d;
	int fd;

	snprintf(other, sizeof(other), "%s/clang_unit.c", tmpdir);
	snprintf(bin, sizeof(bin), "%s/mixed", tmpdir);
	CHECK(run("printf 'int clang_unit(int x)\n{\n\treturn x * 5 + 2;\n}\n' >%s", other) == 0);
	CHECK(run("cd %s && clang -O2 -g -c %s -o clang_unit.o && gcc -O2 -g %s clang_unit.o -o %s",
		  tmpdir, other, src_path, bin) == 0);
	fd = open(bin, O_RDONLY);
	d = fd >= 0 ? dwarf_syms__open(fd) : NULL;
	if (fd >= 0)
		close(fd);
	CHECK(d != NULL);
	if (!d)
		return;
	check_chain(d, bin, "mixed");
	CHECK(nm_symbol(bin, "clang_unit", &addr, &size) == 0);
	CHECK(dwarf_syms__lookup(d, addr, true, l, DWARF_LINES_MAX) == 1 &&
	      !strcmp(l[0].function, "clang_unit") && ends_with(l[0].file, "clang_unit.c"));
	dwarf_syms__free(d);
}

/* Writes a unit of 200 functions whose locals move between registers: at -O2, location
 * lists as large as the line table. */
static int write_many_locals(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	for (int i = 0; i < 200; i++)
		fprintf(f,
			"__attribute__((noinline)) long f%d(long a, long b)\n{\n"
			"\tlong x = a * %d, y = b ^ x, z = 0;\n"
			"\tfor (long k = 0; k < a; k++) {\n\t\tz += x * k + y;\n"
			"\t\tx = z >> 3;\n\t\ty ^= k;\n\t}\n\treturn z + x + y;\n}\n",
			i, i + 3);
	fprintf(f, "int main(int c, char **v)\n{\n\treturn (int)f0(c, 0);\n}\n");
	return fclose(f) ? -errno : 0;
}

/* Inflated size of the file's compressed .debug_loclists, 0 when there is none. */
static size_t loclists_size(const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx, size = 0;
	const char *name;
	GElf_Chdr ch;
	GElf_Shdr sh;

	while (elf && !elf_getshdrstrndx(elf, &shstrndx) && (scn = elf_nextscn(elf, scn))) {
		name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (name && !strcmp(name, ".debug_loclists") && (sh.sh_flags & SHF_COMPRESSED) &&
		    gelf_getchdr(scn, &ch))
			size = ch.ch_size;
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return size;
}

/* Heap that opening path's DWARF holds; SIZE_MAX when it cannot be opened. */
static size_t open_heap(const char *path)
{
	struct mallinfo2 m0 = mallinfo2(), m1;
	int fd = open(path, O_RDONLY);
	struct dwarf_syms *d = fd >= 0 ? dwarf_syms__open(fd) : NULL;
	size_t grown;

	m1 = mallinfo2();
	grown = m1.uordblks + m1.hblkhd - m0.uordblks - m0.hblkhd;
	if (fd >= 0)
		close(fd);
	if (!d)
		return SIZE_MAX;
	dwarf_syms__free(d);
	return grown;
}

/* libdw inflates every compressed section it knows when it begins; the reader hides the
 * location lists, which lines and inline chains never read. So opening a file holds no
 * more heap than opening it with its location lists removed: inflated, they would add
 * their whole size. */
static void test_loclists_not_inflated(void)
{
	char src[4096], bin[4096], noloc[4096];
	size_t loclists, with, without;

	snprintf(src, sizeof(src), "%s/many_locals.c", tmpdir);
	snprintf(bin, sizeof(bin), "%s/many_locals", tmpdir);
	snprintf(noloc, sizeof(noloc), "%s/many_locals.noloc", tmpdir);
	CHECK(write_many_locals(src) == 0);
	CHECK(run("cd %s && gcc -O2 -g -gdwarf-5 -gz=zlib %s -o %s && "
		  "objcopy --remove-section=.debug_loclists %s %s",
		  tmpdir, src, bin, bin, noloc) == 0);
	elf_version(EV_CURRENT);
	loclists = loclists_size(bin);
	CHECK(loclists > 8192 && loclists_size(noloc) == 0);
	open_heap(noloc); /* the first open's one-time allocations out of the way */
	without = open_heap(noloc);
	with = open_heap(bin);
	CHECK(with != SIZE_MAX && without != SIZE_MAX);
	if (with >= without + loclists / 2)
		fprintf(stderr, "  heap held on open: %zu, without location lists %zu (%zu)\n",
			with, without, loclists);
	CHECK(with < without + loclists / 2);
}

/* A stripped binary's DWARF lives in the debug file objcopy keeps. */
static void test_debug_file(void)
{
	check_build("stripped", "gcc", "-O2 -g", "objcopy --only-keep-debug %s %s.debug", ".debug");
}

/* With the units bounded, a lookup in a unit not indexed yet first drops what the others
 * hold (libdw's line tables too, by beginning again on the same ELF, whose inflated
 * sections stay): the answers stay the same. */
static void test_bounded(void)
{
	struct dwarf_line l[DWARF_LINES_MAX];
	char bin[4096], other[4096];
	uint64_t addr = 0, size = 0;
	struct dwarf_syms *d;
	int fd, n;

	snprintf(other, sizeof(other), "%s/other_unit.c", tmpdir);
	snprintf(bin, sizeof(bin), "%s/two_units", tmpdir);
	CHECK(run("printf 'int other_unit(int x)\\n{\\n\\treturn x * 3 + 1;\\n}\\n' >%s", other) ==
	      0);
	CHECK(run("cd %s && gcc -O2 -g -gz=zlib %s %s -o %s", tmpdir, src_path, other, bin) == 0);
	fd = open(bin, O_RDONLY);
	CHECK(fd >= 0);
	d = dwarf_syms__open(fd);
	close(fd);
	CHECK(d != NULL);
	if (!d)
		return;
	/* Opening holds the inflated sections and unit headers, no unit's own. */
	CHECK(dwarf_syms__units_memory(d) == 0);
	CHECK(dwarf_syms__memory(d) > 0);
	dwarf_syms__bound_units(d, 1);
	check_chain(d, bin, "bounded");
	CHECK(dwarf_syms__resets(d) == 0);
	CHECK(dwarf_syms__units_memory(d) > 0);
	CHECK(nm_symbol(bin, "other_unit", &addr, &size) == 0);
	n = dwarf_syms__lookup(d, addr, true, l, DWARF_LINES_MAX);
	CHECK(n == 1 && !strcmp(l[0].function, "other_unit") && l[0].line > 0 &&
	      ends_with(l[0].file, "other_unit.c"));
	CHECK(dwarf_syms__resets(d) == 1);
	check_chain(d, bin, "bounded, after a reset");
	CHECK(dwarf_syms__resets(d) == 2);
	dwarf_syms__free(d);
}

#define GEN_FUNCS 200	/* functions in the generated unit: 34 KiB of DIEs, 30 of lines */
#define GEN_COPIES 48	/* units linked: 3 MiB of mapped DWARF */
#define GEN_ADDRS 16384 /* function midpoints looked up at most */
#define MAPPED_BOUND (128u << 10)
/* Over the bound: the walk that crossed it (a unit: 34 KiB of DIEs and 30 of lines, in
 * 64 KiB windows), the windows of the ELF and section headers (128 KiB), and what no walk
 * is charged for (range lists, abbreviations: 220 KiB in all here). 660 KiB measured. */
#define MAPPED_SLACK (768u << 10)

/* Writes a unit of GEN_FUNCS functions, each with an inlined helper, called from one
 * entry, gen_entry, which objcopy renames in each copy. */
static int write_gen_unit(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "struct pair {\n\tlong a, b;\n};\n"
		   "static inline __attribute__((always_inline)) long mix(long x, long k)\n{\n"
		   "\tstruct pair p = {x ^ k, x + k};\n\treturn p.a * 31 + (p.b >> 3);\n}\n");
	for (int i = 0; i < GEN_FUNCS; i++)
		fprintf(f,
			"static __attribute__((noinline)) long g%d(long x)\n{\n\tlong s = %d;\n"
			"\tfor (long k = 0; k < (x & 7); k++)\n\t\ts += mix(x, k + %d);\n"
			"\treturn s;\n}\n",
			i, i, i);
	fprintf(f, "long gen_entry(long x)\n{\n\tlong s = 0;\n");
	for (int i = 0; i < GEN_FUNCS; i++)
		fprintf(f, "\ts += g%d(x);\n", i);
	fprintf(f, "\treturn s;\n}\n");
	return fclose(f) ? -errno : 0;
}

/* Builds GEN_COPIES copies of the generated unit into one binary at bin. */
static int build_gen_binary(const char *bin)
{
	char src[4096];

	snprintf(src, sizeof(src), "%s/gen.c", tmpdir);
	if (write_gen_unit(src))
		return -EIO;
	return run("cd %s && gcc -O2 -g -c gen.c -o gen.o && : >main.c && "
		   "for i in $(seq 1 %d); do objcopy --redefine-sym gen_entry=gen_entry_$i gen.o "
		   "gen$i.o && echo \"long gen_entry_$i(long);\" >>main.c; done && "
		   "echo 'int main(int c, char **v) { long s = 0;' >>main.c && "
		   "for i in $(seq 1 %d); do echo \"s += gen_entry_$i(c);\" >>main.c; done && "
		   "echo 'return (int)(s & 1); }' >>main.c && gcc -O2 -g main.c gen[0-9]*.o -o %s",
		   tmpdir, GEN_COPIES, GEN_COPIES, bin)
		   ? -EIO
		   : 0;
}

/* The midpoints of bin's sized functions, in address order (nm -n). */
static size_t function_midpoints(const char *bin, uint64_t *out, size_t max)
{
	char cmd[8192], line[512], type;
	unsigned long long a, sz;
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -n -S --defined-only %s", bin);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p))
		if (n < max && sscanf(line, "%llx %llx %c", &a, &sz, &type) == 3 &&
		    (type == 't' || type == 'T') && sz)
			out[n++] = a + sz / 2;
	pclose(p);
	return n;
}

/* Bytes of the pages of the file st resident in this process's mappings. */
static size_t resident_bytes(const struct stat *st)
{
	long n = resident__file_pages(st->st_dev, st->st_ino, NULL, NULL);

	return n > 0 ? (size_t)n * (size_t)sysconf(_SC_PAGESIZE) : 0;
}

/* Looks up every address in d as record does (in address order), writing the answers to
 * out; returns the most pages of st's file resident after any lookup, in bytes. */
static size_t lookup_all(struct dwarf_syms *d, const uint64_t *va, size_t n, FILE *out,
			 const struct stat *st)
{
	struct dwarf_line l[DWARF_LINES_MAX];
	size_t peak = 0, r;
	int k;

	for (size_t i = 0; i < n; i++) {
		k = dwarf_syms__lookup(d, va[i], true, l, DWARF_LINES_MAX);
		fprintf(out, "%llx", (unsigned long long)va[i]);
		for (int j = 0; j < k; j++)
			fprintf(out, "|%s|%s|%u", l[j].function, l[j].file, l[j].line);
		fputc('\n', out);
		r = resident_bytes(st);
		if (r > peak)
			peak = r;
	}
	return peak;
}

/* libdw reads uncompressed debug sections from the file's mapping, so every page a walk
 * touched stayed resident: with the bound, looking up every function of 48 units keeps at
 * most the bound and one walk's pages (measured by pagemap after every lookup), without
 * it nearly all of them; the answers are the same, byte for byte. */
static void test_mapped_bound(void)
{
	static uint64_t va[GEN_ADDRS];
	char bin[4096], *with = NULL, *without = NULL;
	size_t n, with_len = 0, without_len = 0, peak_with, peak_without;
	struct dwarf_syms *d;
	FILE *out;
	struct stat st;
	int fd;

	snprintf(bin, sizeof(bin), "%s/gen_units", tmpdir);
	CHECK(build_gen_binary(bin) == 0);
	n = function_midpoints(bin, va, GEN_ADDRS);
	CHECK(n > GEN_FUNCS * GEN_COPIES / 2);
	fd = open(bin, O_RDONLY);
	CHECK(fd >= 0 && fstat(fd, &st) == 0);
	if (fd < 0)
		return;
	d = dwarf_syms__open(fd);
	CHECK(d != NULL);
	out = open_memstream(&with, &with_len);
	dwarf_syms__bound_mapped(d, MAPPED_BOUND);
	peak_with = lookup_all(d, va, n, out, &st);
	CHECK(dwarf_syms__mapped_drops(d) > 0);
	fclose(out);
	dwarf_syms__free(d);
	d = dwarf_syms__open(fd);
	CHECK(d != NULL);
	out = open_memstream(&without, &without_len);
	dwarf_syms__bound_mapped(d, 0);
	peak_without = lookup_all(d, va, n, out, &st);
	fclose(out);
	dwarf_syms__free(d);
	close(fd);
	fprintf(stderr,
		"  %zu lookups, mapped pages resident at most: %zu KiB bounded to %u KiB, "
		"%zu KiB kept\n",
		n, peak_with >> 10, MAPPED_BOUND >> 10, peak_without >> 10);
	CHECK(peak_with <= MAPPED_BOUND + MAPPED_SLACK);
	CHECK(peak_without > 2 * (MAPPED_BOUND + MAPPED_SLACK)); /* large enough to tell */
	CHECK(with && without && with_len == without_len && !memcmp(with, without, with_len));
	CHECK(with && strstr(with, "|g17|") && strstr(with, "|mix|"));
	free(with);
	free(without);
}

/* In a child, which dies of SIGBUS when a read of the mapping is not guarded: a
 * lookup, the file truncated under the mapping (a user's ": > lib.so", or "cp new.so
 * old.so" midway), the strings the lookup returned read again, lookups that now answer
 * nothing and say the DWARF is torn, and a free. Exits 0 when all that holds. */
static void truncated_child(const char *bin, struct dwarf_syms *d)
{
	struct dwarf_line l[DWARF_LINES_MAX], keep[DWARF_LINES_MAX];
	uint64_t addr = 0, size = 0;
	size_t sink = 0;
	int n, kept;

	if (nm_symbol(bin, "outer_work", &addr, &size))
		_exit(3);
	kept = dwarf_syms__lookup(d, addr, true, keep, DWARF_LINES_MAX);
	if (kept < 1 || truncate(bin, 0))
		_exit(4);
	for (int i = 0; i < kept; i++) /* the caller's copy of the answer, after */
		sink += strlen(keep[i].function) + strlen(keep[i].file);
	for (uint64_t va = addr; va < addr + size; va++) {
		n = dwarf_syms__lookup(d, va, true, l, DWARF_LINES_MAX);
		if (n && dwarf_syms__torn(d))
			_exit(5);
	}
	if (!dwarf_syms__torn(d) || dwarf_syms__lookup(d, addr, true, l, DWARF_LINES_MAX))
		_exit(6);
	dwarf_syms__free(d);
	_exit(sink ? 0 : 7);
}

static void test_truncated(void)
{
	char bin[4096];
	struct dwarf_syms *d;
	int fd, status = 0;
	pid_t pid;

	snprintf(bin, sizeof(bin), "%s/truncated", tmpdir);
	CHECK(run("gcc -O2 -gdwarf-5 %s -o %s", src_path, bin) == 0);
	fd = open(bin, O_RDONLY);
	d = fd >= 0 ? dwarf_syms__open(fd) : NULL;
	CHECK(d != NULL);
	if (fd >= 0)
		close(fd);
	if (!d)
		return;
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		truncated_child(bin, d);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	if (WIFSIGNALED(status))
		fprintf(stderr, "  killed by signal %d reading a truncated file\n",
			WTERMSIG(status));
	else if (WEXITSTATUS(status))
		fprintf(stderr, "  child check %d failed\n", WEXITSTATUS(status));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	dwarf_syms__free(d);
	fd = open(bin, O_RDONLY);
	errno = 0;
	CHECK(dwarf_syms__open(fd) == NULL && errno == EINVAL); /* empty now */
	close(fd);
}

static void test_no_dwarf(void)
{
	char bin[4096];
	int fd;

	snprintf(bin, sizeof(bin), "%s/nodebug", tmpdir);
	CHECK(run("gcc -O2 -g0 %s -o %s", src_path, bin) == 0);
	fd = open(bin, O_RDONLY);
	errno = 0;
	CHECK(dwarf_syms__open(fd) == NULL && errno == ENODATA);
	close(fd);
	fd = open(SRC, O_RDONLY);
	errno = 0;
	CHECK(dwarf_syms__open(fd) == NULL && errno == EINVAL);
	close(fd);
	CHECK(dwarf_syms__open(-1) == NULL);
	CHECK(dwarf_syms__lookup(NULL, 0, true, NULL, 0) == 0);
	dwarf_syms__free(NULL);
}

int main(void)
{
	if (!mkdtemp(tmpdir) || !realpath(SRC, src_path) || read_markers()) {
		printf("FAIL test_dwarfsym: setup (run from the source tree)\n");
		return 1;
	}
	RUN_TEST(test_dwarf4);
	RUN_TEST(test_dwarf5);
	RUN_TEST(test_compressed);
	RUN_TEST(test_split);
	if (has_tool("clang"))
		RUN_TEST(test_clang);
	else
		SKIP_TEST(test_clang, "no clang");
	if (has_tool("clang"))
		RUN_TEST(test_mixed_aranges);
	else
		SKIP_TEST(test_mixed_aranges, "no clang");
	RUN_TEST(test_loclists_not_inflated);
	RUN_TEST(test_debug_file);
	RUN_TEST(test_bounded);
	RUN_TEST(test_mapped_bound);
	RUN_TEST(test_truncated);
	RUN_TEST(test_no_dwarf);
	run("rm -rf %s", tmpdir);
	HARNESS_EXIT();
}
