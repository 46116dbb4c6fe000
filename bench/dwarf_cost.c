// SPDX-License-Identifier: Apache-2.0
/* What symbolizing a large binary costs: opening its DWARF, the first lookups of a set
 * of addresses (which index the units they fall in), the same lookups again (cached),
 * ELF symbol lookups of the same addresses for comparison (what --no-lines does), and
 * the lookups as record makes them (address order, units bounded to 4 MiB: its heap at
 * most). Prints CPU time per phase, the heap each holds and what opening adds to the
 * resident set (heap and mapped file pages), and record's way once more with the pages of
 * the file's mapping that are resident sampled as it goes: at most, by section.
 * Usage: dwarf_cost BINARY ADDRFILE */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cost.h"
#include "symbol/dwarfsym.h"
#include "symbol/elfsym.h"
#include "util/resident.h"

#define MAX_ADDRS 100000
#define MAX_SECTIONS 64	   /* sections the resident pages are told apart by */

static uint64_t addrs[MAX_ADDRS];
static size_t naddrs;
static volatile size_t sink;
static size_t mapped_bound = DWARF_MAPPED_KEEP; /* DWARF_MAPPED_BOUND=BYTES sets another */

/* Resident set in bytes: the heap and the file pages the DWARF reader keeps mapped. */
static size_t rss(void)
{
	unsigned long pages, resident;
	FILE *f = fopen("/proc/self/statm", "r");
	int n = f ? fscanf(f, "%lu %lu", &pages, &resident) : 0;

	if (f)
		fclose(f);
	return n == 2 ? resident * (size_t)sysconf(_SC_PAGESIZE) : 0;
}

static long minor_faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? 0 : ru.ru_minflt;
}

/* CPU time in the kernel: where faulting pages in again goes. */
static double sys_s(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

/* A digest of the answers at va, each string and line: summed over the addresses, in any
 * order, the same sum says the same answers. */
static uint64_t answer_digest(uint64_t va, const struct dwarf_line *l, int n)
{
	uint64_t h = fnv(0xcbf29ce484222325ull, &va, sizeof(va));

	for (int j = 0; j < n; j++) {
		h = fnv(h, l[j].function, strlen(l[j].function) + 1);
		h = fnv(h, l[j].file, strlen(l[j].file) + 1);
		h = fnv(h, &l[j].line, sizeof(l[j].line));
	}
	return h;
}

/* Each phase is its own function, so callgrind can count its instructions. */
static __attribute__((noinline)) struct dwarf_syms *phase_open(int fd)
{
	return dwarf_syms__open(fd);
}

static inline __attribute__((always_inline)) size_t lookups(struct dwarf_syms *d)
{
	struct dwarf_line l[DWARF_LINES_MAX];
	size_t found = 0;

	for (size_t i = 0; i < naddrs; i++) {
		int n = dwarf_syms__lookup(d, addrs[i], true, l, DWARF_LINES_MAX);

		found += n > 0;
		for (int j = 0; j < n; j++)
			sink += strlen(l[j].function) + l[j].line;
	}
	return found;
}

static __attribute__((noinline)) size_t phase_first(struct dwarf_syms *d)
{
	return lookups(d);
}

static __attribute__((noinline)) size_t phase_again(struct dwarf_syms *d)
{
	return lookups(d);
}

static __attribute__((noinline)) size_t phase_elf(int fd)
{
	struct elf_syms *s = elf_syms__open(fd);
	size_t found = 0;
	uint64_t off;

	/* Addresses are virtual; in this PIE the text's offsets equal its addresses. */
	for (size_t i = 0; s && i < naddrs; i++)
		found += elf_syms__lookup(s, addrs[i], &off) != NULL;
	elf_syms__free(s);
	return found;
}

static int addr_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* What record's way of looking up gave. */
struct bounded_run {
	size_t found, heap_peak;
	uint32_t resets, map_drops;
	uint64_t digest;
	long faults;
	double cpu_s, sys_s;
};

/* record's way: sorted, units bounded, the mapped pages bounded to mapped (0: kept). */
static inline __attribute__((always_inline)) void bounded_lookups(int fd, size_t mapped,
								  struct bounded_run *r)
{
	struct dwarf_syms *d = dwarf_syms__open(fd);
	struct dwarf_line l[DWARF_LINES_MAX];
	size_t h0 = heap(), h;
	long f0 = minor_faults();
	double t0 = cpu_s(), s0 = sys_s();

	memset(r, 0, sizeof(*r));
	if (!d)
		return;
	dwarf_syms__bound_units(d, 4u << 20);
	dwarf_syms__bound_mapped(d, mapped);
	qsort(addrs, naddrs, sizeof(*addrs), addr_cmp);
	for (size_t i = 0; i < naddrs; i++) {
		int n = dwarf_syms__lookup(d, addrs[i], true, l, DWARF_LINES_MAX);

		r->found += n > 0;
		r->digest += answer_digest(addrs[i], l, n);
		h = heap() - h0;
		if (h > r->heap_peak)
			r->heap_peak = h;
	}
	r->resets = dwarf_syms__resets(d);
	r->map_drops = dwarf_syms__mapped_drops(d);
	dwarf_syms__free(d);
	r->cpu_s = cpu_s() - t0;
	r->sys_s = sys_s() - s0;
	r->faults = minor_faults() - f0;
}

static __attribute__((noinline)) void phase_bounded(int fd, struct bounded_run *r)
{
	bounded_lookups(fd, mapped_bound, r);
}

/* The same with every page of the mapping kept, as before the mapped bound. */
static __attribute__((noinline)) void phase_kept(int fd, struct bounded_run *r)
{
	bounded_lookups(fd, 0, r);
}

static void print_run(const char *what, const struct bounded_run *r)
{
	printf("%s: found %zu cpu_s %.4f sys_s %.4f heap_peak_mib %.2f units_dropped %u "
	       "minor_faults %ld pages_dropped %u answers %016llx\n",
	       what, r->found, r->cpu_s, r->sys_s, r->heap_peak / 1048576.0, r->resets,
	       r->faults, r->map_drops, (unsigned long long)r->digest);
}

/* The file's sections by offset, to tell its resident pages apart. */
struct sections {
	char name[MAX_SECTIONS][32];
	uint64_t lo[MAX_SECTIONS], hi[MAX_SECTIONS];
	long pages[MAX_SECTIONS + 1]; /* the last: pages in no section (headers, gaps) */
	int n;
};

static void read_sections(int fd, struct sections *s)
{
	Elf_Scn *scn = NULL;
	const char *name;
	size_t shstrndx;
	GElf_Shdr sh;
	Elf *elf;

	memset(s, 0, sizeof(*s));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL); /* read, not mapped: adds no mapped page */
	if (!elf || elf_getshdrstrndx(elf, &shstrndx)) {
		elf_end(elf);
		return;
	}
	while ((scn = elf_nextscn(elf, scn)) && s->n < MAX_SECTIONS) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		snprintf(s->name[s->n], sizeof(s->name[0]), "%s", name ? name : "?");
		s->lo[s->n] = sh.sh_offset;
		s->hi[s->n++] = sh.sh_offset + sh.sh_size;
	}
	elf_end(elf);
}

/* A resident page goes to the section its first byte is in. */
static void count_page(uint64_t off, void *arg)
{
	struct sections *s = arg;
	int i;

	for (i = 0; i < s->n && !(s->lo[i] <= off && off < s->hi[i]); i++)
		;
	s->pages[i]++;
}

/* Samples the resident pages of the file's mappings; keeps the largest sample in *best. */
static void sample_resident(const struct stat *st, struct sections *cur, struct sections *best,
			    long *peak)
{
	long n;

	memset(cur->pages, 0, sizeof(cur->pages));
	n = resident__file_pages(st->st_dev, st->st_ino, count_page, cur);
	if (n > *peak) {
		*peak = n;
		memcpy(best->pages, cur->pages, sizeof(best->pages));
	}
}

/* record's way again (addresses sorted by the bounded phase), sampling the resident pages
 * of the file's mapping after every lookup; prints their peak by section. */
static void resident_peak(int fd, const struct stat *st, size_t mapped, const char *what)
{
	static struct sections cur, best;
	struct dwarf_line l[DWARF_LINES_MAX];
	struct dwarf_syms *d = dwarf_syms__open(fd);
	long page = sysconf(_SC_PAGESIZE), peak = 0;

	if (!d)
		return;
	read_sections(fd, &cur);
	best = cur;
	sample_resident(st, &cur, &best, &peak); /* what opening left */
	dwarf_syms__bound_units(d, 4u << 20);
	dwarf_syms__bound_mapped(d, mapped);
	for (size_t i = 0; i < naddrs; i++) {
		int n = dwarf_syms__lookup(d, addrs[i], true, l, DWARF_LINES_MAX);

		for (int j = 0; j < n; j++)
			sink += strlen(l[j].function) + l[j].line;
		sample_resident(st, &cur, &best, &peak);
	}
	printf("%s: resident_peak_mib %.2f", what, peak * page / 1048576.0);
	for (int i = 0; i <= best.n; i++)
		if (best.pages[i])
			printf(" %s %.2f", i < best.n ? best.name[i] : "other",
			       best.pages[i] * page / 1048576.0);
	printf("\n");
	dwarf_syms__free(d);
}

static int read_addrs(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned long long a;

	if (!f)
		return -errno;
	while (naddrs < MAX_ADDRS && fscanf(f, "%llx", &a) == 1)
		addrs[naddrs++] = a;
	fclose(f);
	return naddrs ? 0 : -EINVAL;
}

int main(int argc, char **argv)
{
	struct dwarf_syms *d;
	size_t h0, h1, h2, r0, r1, f1, f2, f3;
	const char *bound = getenv("DWARF_MAPPED_BOUND");
	struct bounded_run br;
	double t0, t1, t2, t3, t4;
	struct stat st;
	int fd;

	if (argc != 3 || read_addrs(argv[2]) || (fd = open(argv[1], O_RDONLY)) < 0 ||
	    fstat(fd, &st)) {
		fprintf(stderr, "usage: [DWARF_MAPPED_BOUND=BYTES] dwarf_cost BINARY ADDRFILE\n");
		return 2;
	}
	if (bound)
		mapped_bound = strtoull(bound, NULL, 0);
	h0 = heap();
	r0 = rss();
	t0 = cpu_s();
	d = phase_open(fd);
	t1 = cpu_s();
	h1 = heap();
	r1 = rss();
	if (!d) {
		fprintf(stderr, "dwarf_cost: no DWARF in %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	f1 = phase_first(d);
	t2 = cpu_s();
	h2 = heap();
	f2 = phase_again(d);
	t3 = cpu_s();
	f3 = phase_elf(fd);
	t4 = cpu_s();
	printf("addresses %zu found_first %zu found_again %zu found_elf %zu\n", naddrs, f1, f2, f3);
	printf("cpu_open_s %.4f cpu_first_s %.4f cpu_again_s %.4f cpu_elf_s %.4f\n", t1 - t0,
	       t2 - t1, t3 - t2, t4 - t3);
	printf("heap_open_mib %.2f heap_indexed_mib %.2f counted_mib %.2f rss_open_mib %.2f\n",
	       (h1 - h0) / 1048576.0, (h2 - h0) / 1048576.0, dwarf_syms__memory(d) / 1048576.0,
	       ((double)r1 - (double)r0) / 1048576.0);
	dwarf_syms__free(d);
	phase_bounded(fd, &br);
	print_run("bounded", &br);
	phase_kept(fd, &br);
	print_run("kept", &br);
	resident_peak(fd, &st, mapped_bound, "mapped");
	resident_peak(fd, &st, 0, "mapped_kept");
	close(fd);
	return 0;
}
