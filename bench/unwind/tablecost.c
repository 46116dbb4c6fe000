// SPDX-License-Identifier: Apache-2.0
/* Cost of compiling unwind tables, for bench/unwind.sh: for each ELF file, the time
 * unwind_table__build (src/unwind/cfi.c, linked in as it is) takes, median of REPEAT
 * builds, and the size of the table against the code it covers (.text and every
 * executable section) and against the .eh_frame it came from.
 * Build: cc -O2 -D_GNU_SOURCE -Isrc -Ibpf bench/unwind/tablecost.c src/unwind/cfi.c \
 *           src/elf/elf_file.c src/util/hmap.c \
 *           -lelf -ldw -lz -o tablecost
 * Usage: tablecost [-r REPEAT] FILE... */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "unwind/cfi.h"

#define MAX_REPEAT 101
#define MB 1e6 /* "per MB of .text": decimal megabytes */

struct sizes {
	uint64_t text;	   /* .text */
	uint64_t exec;	   /* every SHF_EXECINSTR section (.text, .plt, .init, ...) */
	uint64_t eh_frame; /* .eh_frame */
};

struct result {
	double ms[MAX_REPEAT];
	struct unwind_table_stats st;
	uint32_t rows;
	int err;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Section sizes from the section headers; returns 0 or -EINVAL. */
static int read_sizes(int fd, struct sizes *s)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t strndx;
	const char *name;
	int err = 0;

	memset(s, 0, sizeof(*s));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getshdrstrndx(elf, &strndx)) {
		err = -EINVAL;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, strndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".text"))
			s->text = sh.sh_size;
		else if (!strcmp(name, ".eh_frame"))
			s->eh_frame = sh.sh_size;
		if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_type != SHT_NOBITS)
			s->exec += sh.sh_size;
	}
out:
	elf_end(elf);
	return err;
}

/* Builds fd's table repeat times; fills r (times in build order). Returns 0 or the
 * build's negative errno. */
static int time_builds(int fd, int repeat, struct result *r)
{
	struct unwind_table t;

	for (int i = 0; i < repeat; i++) {
		double t0 = now_ms();
		int err = unwind_table__build(fd, -1, &t);

		r->ms[i] = now_ms() - t0;
		if (err)
			return err;
		r->rows = t.nrows;
		r->st = t.stats;
		unwind_table__free(&t);
	}
	return 0;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void print_one(const char *path, const struct sizes *s, struct result *r, int repeat)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	double first = r->ms[0], med = median(r->ms, repeat);
	double bytes = (double)r->rows * sizeof(struct unwind_row);

	printf("| %-22s | %9.1f | %9.1f | %7.1f | %9u | %8.2f | %8.2f | %8.2f | %9.0f | %7.3f | "
	       "%6u |\n",
	       base, med, first, s->text ? med / (s->text / MB) : 0, r->rows, bytes / MB,
	       s->text / MB, s->eh_frame / MB, s->text ? bytes / (s->text / MB) : 0,
	       s->eh_frame ? bytes / s->eh_frame : 0, r->st.fdes_used);
	if (r->st.truncated || r->st.fdes_truncated || r->st.sections_skipped || r->st.fdes_bad)
		printf("|   ^ limits: table truncated %u, FDEs truncated %u, bad %u, sections "
		       "skipped %u |\n",
		       r->st.truncated, r->st.fdes_truncated, r->st.fdes_bad,
		       r->st.sections_skipped);
}

static int run_file(const char *path, int repeat)
{
	struct result *r = calloc(1, sizeof(*r));
	struct sizes s;
	int fd, err;

	if (!r)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		fprintf(stderr, "tablecost: %s: %s\n", path, strerror(-err));
		goto out;
	}
	err = read_sizes(fd, &s);
	if (!err)
		err = time_builds(fd, repeat, r);
	if (err)
		fprintf(stderr, "tablecost: %s: %s\n", path, strerror(-err));
	else
		print_one(path, &s, r, repeat);
	close(fd);
out:
	free(r);
	return err;
}

int main(int argc, char **argv)
{
	int repeat = 5, i = 1, failed = 0;

	if (argc > 2 && !strcmp(argv[1], "-r")) {
		repeat = atoi(argv[2]);
		i = 3;
	}
	if (i >= argc || repeat < 1 || repeat > MAX_REPEAT) {
		fprintf(stderr,
			"usage: tablecost [-r REPEAT (1-%d, default 5)] FILE...\n"
			"  e.g. tablecost /lib/x86_64-linux-gnu/libc.so.6\n",
			MAX_REPEAT);
		return 2;
	}
	printf("| %-22s | %9s | %9s | %7s | %9s | %8s | %8s | %8s | %9s | %7s | %6s |\n", "file",
	       "build ms", "first ms", "ms/MB", "rows", "table MB", ".text MB", "eh_fr MB",
	       "B/MB text", "tbl/eh", "FDEs");
	printf("|------------------------|----------:|----------:|--------:|----------:|---------:|"
	       "---------:|---------:|----------:|--------:|-------:|\n");
	for (; i < argc; i++)
		failed += run_file(argv[i], repeat) != 0;
	return failed ? 1 : 0;
}
