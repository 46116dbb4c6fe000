// SPDX-License-Identifier: Apache-2.0
/* What symbolizing a large binary costs: opening its DWARF, the first lookups of a set
 * of addresses (which index the units they fall in), the same lookups again (cached),
 * ELF symbol lookups of the same addresses for comparison (what --no-lines does), and
 * the lookups as record makes them (address order, units bounded to 4 MiB: its heap at
 * most). Prints CPU time per phase, the heap each holds and what opening adds to the
 * resident set (heap and mapped file pages).
 * Usage: dwarf_cost BINARY ADDRFILE */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symbol/dwarfsym.h"
#include "symbol/elfsym.h"

#define MAX_ADDRS 100000

static uint64_t addrs[MAX_ADDRS];
static size_t naddrs;
static volatile size_t sink;

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t heap(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd; /* large blocks are mmap()ed */
}

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

/* record's way: sorted, bounded; returns the heap's peak above h0 in *peak. */
static __attribute__((noinline)) size_t phase_bounded(int fd, size_t h0, size_t *peak,
						      uint32_t *resets)
{
	struct dwarf_syms *d = dwarf_syms__open(fd);
	struct dwarf_line l[DWARF_LINES_MAX];
	size_t found = 0, h;

	*peak = 0;
	if (!d)
		return 0;
	dwarf_syms__bound_units(d, 4u << 20);
	qsort(addrs, naddrs, sizeof(*addrs), addr_cmp);
	for (size_t i = 0; i < naddrs; i++) {
		int n = dwarf_syms__lookup(d, addrs[i], true, l, DWARF_LINES_MAX);

		found += n > 0;
		for (int j = 0; j < n; j++)
			sink += strlen(l[j].function) + l[j].line;
		h = heap() - h0;
		if (h > *peak)
			*peak = h;
	}
	*resets = dwarf_syms__resets(d);
	dwarf_syms__free(d);
	return found;
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
	double t0, t1, t2, t3, t4, t5;
	size_t h0, h1, h2, r0, r1, f1, f2, f3, f4, peak;
	uint32_t resets;
	int fd;

	if (argc != 3 || read_addrs(argv[2]) || (fd = open(argv[1], O_RDONLY)) < 0) {
		fprintf(stderr, "usage: dwarf_cost BINARY ADDRFILE\n");
		return 2;
	}
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
	h0 = heap();
	t4 = cpu_s();
	f4 = phase_bounded(fd, h0, &peak, &resets);
	t5 = cpu_s();
	printf("bounded: found %zu cpu_s %.4f heap_peak_mib %.2f units_dropped %u\n", f4, t5 - t4,
	       peak / 1048576.0, resets);
	close(fd);
	return 0;
}
