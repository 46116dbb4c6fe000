// SPDX-License-Identifier: Apache-2.0
/* Unit tests for the unwind table compiler: real libraries checked row by row against
 * readelf's interpretation of their CFI, PLT, signal and outermost frames, stripped and
 * separate debug files, hand-made CFI for the rarer rules, and hostile input. */
#include <dwarf.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "elf/elf_file.h"
#include "shell.h"
#include "unwind/cfi.h"
#include "util/cancel.h"

#define LIBSTDCXX "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"
#define LIBLLVM "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1"
#define LIBLLVM_OLD "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1"
#define MIN_CHECKED 20	    /* readelf rows compared per library, at least */
#define MAX_MISMATCH_LOG 10 /* mismatches printed per library */
#define FLIP_ROUNDS 400
#define TRUNCATIONS 40

static char tmpdir[] = "/tmp/test_cfi.XXXXXX";
static char exe_path[4096];
extern char _start[];

/* ---- Helpers ---- */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

/* Sorted, merged, closed by NONE, valid kinds; special rows carry no offsets. */
static bool table_ok(const struct unwind_table *t)
{
	const struct unwind_row *r;
	uint32_t i;

	if (t->nrows > UNWIND_TABLE_MAX_ROWS || (t->nrows && !t->rows))
		return false;
	if (t->nrows && t->rows[t->nrows - 1].cfa_kind != UNW_CFA_NONE) {
		fprintf(stderr, "  last row is not NONE\n");
		return false;
	}
	for (i = 0; i < t->nrows; i++) {
		r = &t->rows[i];
		if (r->cfa_kind > UNW_CFA_NONE || r->fp_rule > UNW_FP_UNDEF ||
		    (r->cfa_kind >= UNW_CFA_SIGNAL &&
		     (r->cfa_off || r->fp_off || r->ra_off || r->fp_rule))) {
			fprintf(stderr, "  row %u (%#x): bad kind or fields\n", i, r->pc);
			return false;
		}
		if (i && (r->pc <= r[-1].pc || unwind_row__same_rule(r, &r[-1]))) {
			fprintf(stderr, "  row %u (%#x): unsorted or unmerged\n", i, r->pc);
			return false;
		}
	}
	return true;
}

/* Builds the table of path, with debug_path (NULL: none) as the separate debug file. */
static int build_path(const char *path, const char *debug_path, struct unwind_table *t, double *ms)
{
	int fd, dfd = -1, err;
	double t0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (debug_path && (dfd = open(debug_path, O_RDONLY | O_CLOEXEC)) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	t0 = now_ms();
	err = unwind_table__build(fd, dfd, t);
	if (ms)
		*ms = now_ms() - t0;
	if (dfd >= 0)
		close(dfd);
	close(fd);
	return err;
}

static void print_figures(const char *name, const struct unwind_table *t, double ms)
{
	const struct unwind_table_stats *s = &t->stats;

	fprintf(stderr,
		"  %s: %u rows (%u before merge) from %u/%u FDEs in %.1f ms (%.1f M rows/s); "
		"plt %u end %u signal FDEs %u, unsupported cfa %u ra %u\n",
		name, t->nrows, s->rows_before_merge, s->fdes_used, s->fdes, ms,
		ms > 0 ? t->nrows / ms / 1e3 : 0.0, s->rows_plt, s->rows_end, s->fdes_signal,
		s->rows_cfa_unsupported, s->rows_ra_unsupported);
}

/* The row as unwind_table__dump prints it, without the address. */
static void row_text(const struct unwind_row *r, char *buf, size_t len)
{
	struct unwind_table one = {.rows = (struct unwind_row *)r, .nrows = 1};
	FILE *f = fmemopen(buf, len, "w");
	char *sp;

	buf[0] = '\0';
	if (!f)
		return;
	unwind_table__dump(&one, f);
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	sp = strchr(buf, ' ');
	if (sp)
		memmove(buf, sp + 1, strlen(sp + 1) + 1);
}

/* ---- Comparison with readelf --debug-dump=frames-interp ---- */

struct frames_check {
	const struct unwind_table *t;
	uint64_t begin, end; /* the current FDE, 0..0 between FDEs */
	bool in_eh, signal;
	int ncols, cfa_col, rbp_col, ra_col;
	uint64_t sig_cies[16];
	unsigned nsig, checked, mismatches;
};

/* Splits on blanks; "r9 (r9)" (a register rule) stays one column. */
static int tokenize(char *line, char **tok, int max)
{
	int n = 0;
	char *p;

	for (p = strtok(line, " \t\n"); p && n < max; p = strtok(NULL, " \t\n")) {
		if (p[0] == '(' && n)
			continue;
		tok[n++] = p;
	}
	return n;
}

static void frames_columns(struct frames_check *fc, char **tok, int n)
{
	int i;

	fc->ncols = n;
	fc->cfa_col = fc->rbp_col = fc->ra_col = -1;
	for (i = 0; i < n; i++) {
		if (!strcmp(tok[i], "CFA"))
			fc->cfa_col = i;
		else if (!strcmp(tok[i], "rbp"))
			fc->rbp_col = i;
		else if (!strcmp(tok[i], "ra"))
			fc->ra_col = i;
	}
}

/* What our row must say, given readelf's CFA, ra and rbp columns ("" when any of PLT or
 * NONE is right: readelf prints every CFA expression as "exp"). */
static void expected_text(const struct frames_check *fc, const char *cfa, const char *ra,
			  const char *rbp, char *buf, size_t len)
{
	const char *fp = rbp[0] == 'c' ? rbp : "s"; /* readelf prints "u" for "no rule" too */

	if (fc->signal)
		snprintf(buf, len, "signal");
	else if (!strcmp(ra, "u"))
		snprintf(buf, len, "end");
	else if (!strcmp(cfa, "exp"))
		buf[0] = '\0';
	else if ((strncmp(cfa, "rsp", 3) && strncmp(cfa, "rbp", 3)) || ra[0] != 'c')
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%s%+d ra=%s fp=%s", cfa[1] == 's' ? "sp" : "fp", atoi(cfa + 3),
			 ra, fp);
}

static void frames_row(struct frames_check *fc, char **tok, int n)
{
	uint64_t pc = strtoull(tok[0], NULL, 16);
	const struct unwind_row *got;
	char want[96], have[96];

	/* readelf also prints a row at the FDE's end when the last advance reaches it */
	if (n != fc->ncols || fc->cfa_col < 0 || pc < fc->begin || pc >= fc->end)
		return;
	expected_text(fc, tok[fc->cfa_col], fc->ra_col >= 0 ? tok[fc->ra_col] : "u",
		      fc->rbp_col >= 0 ? tok[fc->rbp_col] : "s", want, sizeof(want));
	got = unwind_table__find(fc->t, pc);
	have[0] = '\0';
	if (got)
		row_text(got, have, sizeof(have));
	fc->checked++;
	if (want[0] ? !strcmp(want, have) : !strncmp(have, "plt ", 4) || !strcmp(have, "none"))
		return;
	if (fc->mismatches++ < MAX_MISMATCH_LOG)
		fprintf(stderr, "  %#llx: readelf says \"%s\", we have \"%s\"\n",
			(unsigned long long)pc, want[0] ? want : "plt or none", have);
}

static void frames_entry(struct frames_check *fc, char **tok, int n)
{
	unsigned long long cie, a, b;
	unsigned i;

	fc->begin = fc->end = 0;
	if (!strcmp(tok[3], "CIE")) {
		if (n > 4 && strchr(tok[4], 'S') && fc->nsig < 16)
			fc->sig_cies[fc->nsig++] = strtoull(tok[0], NULL, 16);
		return;
	}
	if (n < 6 || sscanf(tok[4], "cie=%llx", &cie) != 1 ||
	    sscanf(tok[5], "pc=%llx..%llx", &a, &b) != 2)
		return;
	fc->begin = a;
	fc->end = b;
	fc->signal = false;
	for (i = 0; i < fc->nsig; i++)
		fc->signal |= fc->sig_cies[i] == cie;
}

static void frames_line(struct frames_check *fc, char *line)
{
	char *tok[128];
	int n;

	if (!strncmp(line, "Contents of the ", 16)) {
		fc->in_eh = strstr(line, " .eh_frame section") != NULL;
		fc->begin = fc->end = 0;
		return;
	}
	n = tokenize(line, tok, 128);
	if (!fc->in_eh || n < 2)
		return;
	if (n >= 4 && (!strcmp(tok[3], "CIE") || !strcmp(tok[3], "FDE")))
		frames_entry(fc, tok, n);
	else if (!strcmp(tok[0], "LOC"))
		frames_columns(fc, tok, n);
	else if (strlen(tok[0]) == 16 && strspn(tok[0], "0123456789abcdef") == 16)
		frames_row(fc, tok, n);
}

/* Compares every row readelf interprets in path's .eh_frame with our table. */
static void compare_with_readelf(const char *path, const struct unwind_table *t)
{
	struct frames_check fc = {.t = t};
	char cmd[4400], *line = NULL;
	size_t cap = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames-interp '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	CHECK(p != NULL);
	if (!p)
		return;
	while (getline(&line, &cap, p) > 0)
		frames_line(&fc, line);
	free(line);
	pclose(p); /* readelf exits 1 on some files it reads fine (libc) */
	fprintf(stderr, "  %s: %u readelf rows compared, %u mismatches\n", path, fc.checked,
		fc.mismatches);
	CHECK(fc.checked >= MIN_CHECKED);
	CHECK(fc.mismatches == 0);
}

/* ---- Addresses in this process ---- */

struct obj_query {
	uintptr_t addr;
	uintptr_t bias;
	const char *name;
};

static int obj_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct obj_query *q = arg;
	uintptr_t lo;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type != PT_LOAD)
			continue;
		lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
		if (q->addr >= lo && q->addr < lo + info->dlpi_phdr[i].p_memsz) {
			q->bias = info->dlpi_addr;
			q->name = info->dlpi_name[0] ? info->dlpi_name : exe_path;
			return 1;
		}
	}
	return 0;
}

/* The file holding addr and addr's ELF virtual address in it. */
static int object_of(const void *addr, uint64_t *vaddr, char *path, size_t len)
{
	struct obj_query q = {.addr = (uintptr_t)addr};

	if (!dl_iterate_phdr(obj_cb, &q))
		return -ENOENT;
	*vaddr = q.addr - q.bias;
	snprintf(path, len, "%s", q.name);
	return 0;
}

static void ignore_signal(int sig)
{
	(void)sig;
}

/* glibc's __restore_rt: what sigaction installs as sa_restorer. */
static void *signal_restorer(void)
{
	struct sigaction sa = {.sa_handler = ignore_signal}, old = {0}, got = {0};

	if (sigaction(SIGUSR2, &sa, &old) || sigaction(SIGUSR2, NULL, &got))
		return NULL;
	sigaction(SIGUSR2, &old, NULL);
	return (void *)got.sa_restorer;
}

/* The address, size and file offset (off may be NULL) of section name in path. */
static int section_of(const char *path, const char *name, uint64_t *addr, uint64_t *size,
		      uint64_t *off)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = -ENOENT;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t strndx;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && !elf_getshdrstrndx(elf, &strndx) && (scn = elf_nextscn(elf, scn))) {
		const char *s = gelf_getshdr(scn, &sh) ? elf_strptr(elf, strndx, sh.sh_name) : 0;

		if (s && !strcmp(s, name)) {
			*addr = sh.sh_addr;
			*size = sh.sh_size;
			if (off)
				*off = sh.sh_offset;
			err = 0;
			break;
		}
	}
	elf_end(elf);
	close(fd);
	return err;
}

static int entry_of(const char *path, uint64_t *entry)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = -EINVAL;
	GElf_Ehdr eh;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && gelf_getehdr(elf, &eh)) {
		*entry = eh.e_entry;
		err = 0;
	}
	elf_end(elf);
	close(fd);
	return err;
}

static bool row_is(const struct unwind_table *t, uint64_t pc, const char *want)
{
	const struct unwind_row *r = unwind_table__find(t, pc);
	char have[96] = "(null)";

	if (r)
		row_text(r, have, sizeof(have));
	if (!strcmp(have, want))
		return true;
	fprintf(stderr, "  row at %#llx: want \"%s\", have \"%s\"\n", (unsigned long long)pc, want,
		have);
	return false;
}

static uint8_t row_kind(const struct unwind_table *t, uint64_t pc)
{
	const struct unwind_row *r = unwind_table__find(t, pc);

	return r ? r->cfa_kind : 0xff;
}

/* ---- Real files ---- */

static void test_libc(void)
{
	uint64_t restorer, plt, plt_size, i;
	struct unwind_table t = {0};
	const struct unwind_row *r;
	void *rt = signal_restorer();
	char path[4096];
	double ms = 0;

	CHECK(rt != NULL);
	if (!rt || object_of(rt, &restorer, path, sizeof(path))) {
		CHECK(!"libc not found");
		return;
	}
	CHECK(build_path(path, NULL, &t, &ms) == 0);
	print_figures(path, &t, ms);
	CHECK(t.nrows > 5000 && t.nrows < 500000);
	CHECK(t.stats.sources == UNWIND_SRC_EH_FRAME);
	CHECK(table_ok(&t));
	/* __restore_rt: its FDE has the 'S' augmentation */
	CHECK(row_kind(&t, restorer) == UNW_CFA_SIGNAL);
	CHECK(t.stats.fdes_signal >= 1);
	CHECK(section_of(path, ".plt", &plt, &plt_size, NULL) == 0);
	CHECK(row_is(&t, plt, "sp+16 ra=c-8 fp=s")); /* PLT0 after its push */
	for (i = 1; i < plt_size / 16; i++) {
		r = unwind_table__find(&t, plt + 16 * i + i % 16);
		CHECK(r && r->cfa_kind == UNW_CFA_PLT && r->cfa_off == 8 && r->ra_off == -8);
		CHECK(r && r->fp_off >= 9 && r->fp_off <= 11); /* push ends at 11 (9 with IBT) */
	}
	compare_with_readelf(path, &t);
	unwind_table__free(&t);
}

static void test_libstdcxx(void)
{
	struct unwind_table t = {0};
	double ms = 0;

	CHECK(build_path(LIBSTDCXX, NULL, &t, &ms) == 0);
	print_figures(LIBSTDCXX, &t, ms);
	CHECK(t.nrows > 5000 && t.nrows < 500000);
	CHECK(t.stats.rows_plt > 0);
	CHECK(table_ok(&t));
	compare_with_readelf(LIBSTDCXX, &t);
	unwind_table__free(&t);
}

static void test_self(void)
{
	uint64_t start, fn;
	struct unwind_table t = {0};
	char path[4096];
	double ms = 0;

	CHECK(object_of(_start, &start, path, sizeof(path)) == 0);
	CHECK(object_of((void *)table_ok, &fn, path, sizeof(path)) == 0);
	CHECK(build_path(exe_path, NULL, &t, &ms) == 0);
	print_figures(exe_path, &t, ms);
	CHECK(t.nrows > 50 && t.nrows < 100000);
	CHECK(table_ok(&t));
	CHECK(row_kind(&t, start) == UNW_CFA_END); /* _start: return address undefined */
	CHECK(row_kind(&t, fn) == UNW_CFA_SP || row_kind(&t, fn) == UNW_CFA_FP);
	CHECK(unwind_table__find(&t, 0) == NULL);
	compare_with_readelf(exe_path, &t);
	unwind_table__free(&t);
}

static void test_bin_true(void)
{
	struct unwind_table t = {0};
	uint64_t entry = 0;

	CHECK(entry_of("/bin/true", &entry) == 0);
	CHECK(build_path("/bin/true", NULL, &t, NULL) == 0);
	CHECK(t.nrows > 10);
	CHECK(table_ok(&t));
	CHECK(row_kind(&t, entry) == UNW_CFA_END);
	compare_with_readelf("/bin/true", &t);
	unwind_table__free(&t);
}

static bool same_table(const struct unwind_table *a, const struct unwind_table *b)
{
	return a->nrows == b->nrows &&
	       (!a->nrows || !memcmp(a->rows, b->rows, a->nrows * sizeof(*a->rows)));
}

/* A stripped copy keeps .eh_frame: the same rows. */
static void test_stripped(void)
{
	struct unwind_table a = {0}, b = {0};
	char copy[4200], path[4096];
	uint64_t vaddr;

	CHECK(object_of(signal_restorer(), &vaddr, path, sizeof(path)) == 0);
	tmp_path(copy, sizeof(copy), "libc.stripped");
	CHECK(run("objcopy --strip-all '%s' '%s'", path, copy) == 0);
	CHECK(build_path(path, NULL, &a, NULL) == 0);
	CHECK(build_path(copy, NULL, &b, NULL) == 0);
	CHECK(b.nrows > 5000);
	CHECK(same_table(&a, &b));
	unwind_table__free(&a);
	unwind_table__free(&b);
}

/* No CFI at all: success and an empty table (not an error). */
static void test_no_cfi(void)
{
	struct unwind_table t = {0};
	char copy[4200];

	tmp_path(copy, sizeof(copy), "true.nocfi");
	CHECK(run("objcopy --remove-section=.eh_frame --remove-section=.eh_frame_hdr "
		  "--remove-section=.debug_frame /bin/true '%s'",
		  copy) == 0);
	CHECK(build_path(copy, NULL, &t, NULL) == 0);
	CHECK(t.nrows == 0 && t.rows == NULL && t.stats.sources == 0);
	CHECK(unwind_table__find(&t, 0x1000) == NULL);
	unwind_table__free(&t);
}

static const char debug_prog[] =
    "int cfi_debug_fn(int x) { volatile int a[8]; a[x & 7] = x; return a[(x + 1) & 7]; }\n"
    "int main(int argc, char **argv) { (void)argv; return cfi_debug_fn(argc); }\n";

/* The address of symbol in path, from nm. */
static int symbol_of(const char *path, const char *symbol, uint64_t *addr)
{
	char cmd[4400], line[512], name[256], type;
	unsigned long long a;
	int err = -ENOENT;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return -errno;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && !strcmp(name, symbol)) {
			*addr = a;
			err = 0;
		}
	pclose(p);
	return err;
}

/* Builds the debug test program (tmpdir/dbg) without unwind tables, its stripped copy
 * (dbg.stripped) and separate debug file (dbg.debug, zlib-compressed). */
static bool make_debug_prog(char *bin, char *dbg, char *stripped, size_t len)
{
	char src[4200];
	FILE *f;

	tmp_path(src, sizeof(src), "dbg.c");
	tmp_path(bin, len, "dbg");
	tmp_path(dbg, len, "dbg.debug");
	tmp_path(stripped, len, "dbg.stripped");
	f = fopen(src, "w");
	if (!f || fputs(debug_prog, f) < 0 || fclose(f))
		return false;
	return !run("cc -O1 -g -fno-asynchronous-unwind-tables -fno-unwind-tables "
		    "-Wl,--build-id '%s' -o '%s'",
		    src, bin) &&
	       !run("objcopy --only-keep-debug --compress-debug-sections=zlib '%s' '%s'", bin,
		    dbg) &&
	       !run("objcopy --strip-all '%s' '%s'", bin, stripped);
}

/* The GNU-style compressed (.zdebug_frame) debug file gives the same table as full. */
static void check_zdebug(const char *bin, const char *stripped, const struct unwind_table *full)
{
	struct unwind_table t = {0};
	char gnu[4200];

	tmp_path(gnu, sizeof(gnu), "dbg.gnu.debug");
	if (run("objcopy --only-keep-debug --compress-debug-sections=zlib-gnu '%s' '%s' "
		"2>/dev/null",
		bin, gnu))
		return; /* newer binutils dropped zlib-gnu */
	CHECK(build_path(stripped, gnu, &t, NULL) == 0);
	CHECK(t.stats.debug_file_err == 0 && same_table(full, &t));
	unwind_table__free(&t);
}

/* Functions built without unwind tables have only .debug_frame: in the binary, gone once
 * stripped, back with the separate debug file, refused from a wrong one. */
static void test_debug_file(void)
{
	char bin[4200], dbg[4200], stripped[4200], path[4096];
	struct unwind_table full = {0}, bare = {0}, merged = {0}, wrong = {0};
	uint64_t fn = 0, vaddr;

	CHECK(make_debug_prog(bin, dbg, stripped, sizeof(bin)));
	CHECK(symbol_of(bin, "cfi_debug_fn", &fn) == 0);
	CHECK(build_path(bin, NULL, &full, NULL) == 0);
	CHECK(full.stats.sources == (UNWIND_SRC_EH_FRAME | UNWIND_SRC_DEBUG_FRAME));
	CHECK(row_kind(&full, fn) == UNW_CFA_SP);
	CHECK(build_path(stripped, NULL, &bare, NULL) == 0);
	CHECK(row_kind(&bare, fn) == UNW_CFA_NONE || row_kind(&bare, fn) == 0xff);
	CHECK(build_path(stripped, dbg, &merged, NULL) == 0);
	CHECK(merged.stats.debug_file_err == 0);
	CHECK(merged.stats.sources == (UNWIND_SRC_EH_FRAME | UNWIND_SRC_DEBUG_FILE));
	CHECK(same_table(&full, &merged));
	check_zdebug(bin, stripped, &full);
	CHECK(object_of(signal_restorer(), &vaddr, path, sizeof(path)) == 0);
	CHECK(build_path(stripped, path, &wrong, NULL) == 0); /* libc: another build id */
	CHECK(wrong.stats.debug_file_err == -EINVAL && same_table(&bare, &wrong));
	unwind_table__free(&full);
	unwind_table__free(&bare);
	unwind_table__free(&merged);
	unwind_table__free(&wrong);
}

/* With -z ibtplt the linker writes .plt (lazy, endbr64 first) and .plt.sec. */
static void test_plt_sec(void)
{
	char src[4200], bin[4200];
	struct unwind_table t = {0};
	uint64_t plt, plt_size, sec, sec_size;
	FILE *f;

	tmp_path(src, sizeof(src), "ibt.c");
	tmp_path(bin, sizeof(bin), "ibt");
	f = fopen(src, "w");
	CHECK(f &&
	      fputs("#include <stdio.h>\n#include <stdlib.h>\nint main(int c, char **v)"
		    "{ printf(\"%d\", atoi(v[0])); puts(\"\"); return c; }\n",
		    f) >= 0 &&
	      fclose(f) == 0);
	if (run("cc -O1 -fcf-protection=full -Wl,-z,ibtplt '%s' -o '%s' 2>/dev/null", src, bin))
		SKIP("the linker cannot make .plt.sec (-z ibtplt)");
	CHECK(section_of(bin, ".plt", &plt, &plt_size, NULL) == 0);
	CHECK(section_of(bin, ".plt.sec", &sec, &sec_size, NULL) == 0);
	CHECK(build_path(bin, NULL, &t, NULL) == 0);
	CHECK(table_ok(&t));
	CHECK(row_is(&t, plt + 16, "plt sp+8 >=9 ra=c-8 fp=s")); /* endbr64 + push = 9 */
	CHECK(row_is(&t, plt + plt_size - 1, "plt sp+8 >=9 ra=c-8 fp=s"));
	CHECK(row_is(&t, sec, "sp+8 ra=c-8 fp=s"));
	CHECK(row_is(&t, sec + sec_size - 1, "sp+8 ra=c-8 fp=s"));
	unwind_table__free(&t);
}

/* The vDSO, copied from our memory into a memfd: the way files without a path are read. */
static void test_vdso(void)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	struct unwind_table t = {0};
	size_t len;
	int fd;

	CHECK(eh != NULL);
	if (!eh)
		return;
	len = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	fd = memfd_create("vdso", MFD_CLOEXEC);
	CHECK(fd >= 0 && write(fd, eh, len) == (ssize_t)len);
	CHECK(unwind_table__build(fd, -1, &t) == 0);
	fprintf(stderr, "  vdso: %u rows from %u FDEs\n", t.nrows, t.stats.fdes_used);
	CHECK(t.nrows >= 2 && t.stats.fdes_used >= 1);
	CHECK(table_ok(&t));
	unwind_table__free(&t);
	close(fd);
}

static uint64_t text_size(const char *path)
{
	uint64_t addr, size;

	return section_of(path, ".text", &addr, &size, NULL) ? 0 : size;
}

/* The largest library around: time, memory, and the caps left untouched. */
static void test_large(void)
{
	const char *path = access(LIBLLVM, R_OK) ? LIBLLVM_OLD : LIBLLVM;
	struct unwind_table t = {0};
	uint64_t text = text_size(path);
	double ms = 0;

	CHECK(build_path(path, NULL, &t, &ms) == 0);
	print_figures(path, &t, ms);
	fprintf(stderr, "  %s: %.1f MB of .text, %.0f KB of rows per MB of .text\n", path,
		text / 1048576.0,
		text ? t.nrows * sizeof(*t.rows) / 1024.0 / (text / 1048576.0) : 0);
	CHECK(t.nrows > 100000 && !t.stats.truncated && !t.stats.fdes_truncated);
	CHECK(table_ok(&t));
	CHECK(ms < 5000);
	unwind_table__free(&t);
}

/* ---- Hand-made CFI in a minimal ELF file ---- */

#define SYN_TEXT 0x1000 /* the executable segment: [SYN_TEXT, SYN_TEXT_END) */
#define SYN_TEXT_END 0x10000000
#define SYN_CFI_ADDR 0x20000000 /* where the CFI sections claim to be loaded */
#define SYN_MAX_SECTIONS 2

struct bytes {
	uint8_t *d;
	size_t n, cap;
};

static void put(struct bytes *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2;
		b->d = realloc(b->d, b->cap);
		if (!b->d)
			abort();
	}
	memcpy(b->d + b->n, p, n);
	b->n += n;
}

static void put8(struct bytes *b, uint8_t v)
{
	put(b, &v, 1);
}

static void put32(struct bytes *b, uint32_t v)
{
	put(b, &v, 4);
}

static void put64(struct bytes *b, uint64_t v)
{
	put(b, &v, 8);
}

static void uleb(struct bytes *b, uint64_t v)
{
	do {
		put8(b, (v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void sleb(struct bytes *b, int64_t v)
{
	bool more;

	do {
		uint8_t byte = v & 0x7f;

		v >>= 7;
		more = !((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40)));
		put8(b, byte | (more ? 0x80 : 0));
	} while (more);
}

/* Writes the instructions given as bytes (a list ending with -1). */
static void ops(struct bytes *b, ...)
{
	va_list ap;
	int v;

	va_start(ap, b);
	while ((v = va_arg(ap, int)) >= 0)
		put8(b, v);
	va_end(ap);
}

static size_t entry_start(struct bytes *b)
{
	size_t at = b->n;

	put32(b, 0);
	return at;
}

static void entry_end(struct bytes *b, size_t at)
{
	uint32_t len = b->n - at - 4;

	memcpy(b->d + at, &len, 4);
}

/* An .eh_frame CIE with augmentation aug ("zR", "zRS", ...; version 1), code alignment 1,
 * data alignment -8, udata4 FDE addresses; CFA = rsp + 8, return address at CFA - 8. */
static size_t eh_cie(struct bytes *b, const char *aug, uint8_t version)
{
	size_t at = entry_start(b);

	put32(b, 0);
	put8(b, version);
	put(b, aug, strlen(aug) + 1);
	uleb(b, 1);
	sleb(b, -8);
	put8(b, 16);
	uleb(b, 1);
	put8(b, DW_EH_PE_udata4);
	ops(b, DW_CFA_def_cfa, 7, 8, DW_CFA_offset | 16, 1, -1);
	entry_end(b, at);
	return at;
}

/* The header of an .eh_frame FDE for [begin, end); its instructions follow. */
static size_t eh_fde(struct bytes *b, size_t cie, uint32_t begin, uint32_t end)
{
	size_t at = entry_start(b);

	put32(b, (uint32_t)(b->n - cie));
	put32(b, begin);
	put32(b, end - begin);
	uleb(b, 0);
	return at;
}

struct syn_section {
	const char *name;
	const struct bytes *data;
};

/* A memfd holding an x86-64 ET_DYN with one R+X PT_LOAD over [SYN_TEXT, SYN_TEXT_END) and
 * the given sections (then .shstrtab). Returns the fd or -1. */
static int synth_elf(const struct syn_section *secs, int nsecs)
{
	Elf64_Ehdr eh = {
	    .e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT},
	    .e_type = ET_DYN,
	    .e_machine = EM_X86_64,
	    .e_version = EV_CURRENT,
	    .e_phoff = sizeof(Elf64_Ehdr),
	    .e_ehsize = sizeof(Elf64_Ehdr),
	    .e_phentsize = sizeof(Elf64_Phdr),
	    .e_phnum = 1,
	    .e_shentsize = sizeof(Elf64_Shdr)};
	Elf64_Phdr ph = {.p_type = PT_LOAD,
			 .p_flags = PF_R | PF_X,
			 .p_vaddr = SYN_TEXT,
			 .p_memsz = SYN_TEXT_END - SYN_TEXT,
			 .p_align = 0x1000};
	Elf64_Shdr sh[SYN_MAX_SECTIONS + 2] = {{0}};
	struct bytes f = {0}, names = {0};
	int i, fd;

	put(&f, &eh, sizeof(eh));
	put(&f, &ph, sizeof(ph));
	put8(&names, 0);
	for (i = 0; i < nsecs; i++) {
		sh[i + 1] = (Elf64_Shdr){.sh_name = names.n,
					 .sh_type = SHT_PROGBITS,
					 .sh_addr = SYN_CFI_ADDR + 0x100000 * i,
					 .sh_offset = f.n,
					 .sh_size = secs[i].data->n,
					 .sh_addralign = 1};
		put(&names, secs[i].name, strlen(secs[i].name) + 1);
		put(&f, secs[i].data->d, secs[i].data->n);
	}
	sh[nsecs + 1] = (Elf64_Shdr){
	    .sh_name = names.n, .sh_type = SHT_STRTAB, .sh_offset = f.n, .sh_addralign = 1};
	put(&names, ".shstrtab", 10);
	sh[nsecs + 1].sh_size = names.n;
	put(&f, names.d, names.n);
	while (f.n % 8)
		put8(&f, 0);
	eh.e_shoff = f.n;
	eh.e_shnum = nsecs + 2;
	eh.e_shstrndx = nsecs + 1;
	memcpy(f.d, &eh, sizeof(eh));
	put(&f, sh, sizeof(*sh) * (nsecs + 2));
	fd = memfd_create("synth", MFD_CLOEXEC);
	if (fd >= 0 && write(fd, f.d, f.n) != (ssize_t)f.n) {
		close(fd);
		fd = -1;
	}
	free(f.d);
	free(names.d);
	return fd;
}

static int synth_build(const struct syn_section *secs, int nsecs, struct unwind_table *t)
{
	int fd = synth_elf(secs, nsecs), err;

	if (fd < 0)
		return -errno;
	err = unwind_table__build(fd, -1, t);
	close(fd);
	return err;
}

static bool dump_is(const struct unwind_table *t, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool ok;

	if (!f)
		return false;
	unwind_table__dump(t, f);
	fclose(f);
	ok = buf && !strcmp(buf, want);
	if (!ok)
		fprintf(stderr, "  dump:\n%s  want:\n%s", buf ? buf : "", want);
	free(buf);
	return ok;
}

/* Register rules, state stack, locations, PLT, signal and end frames, and the FDEs that are
 * dropped (overlapping, at 0, outside the executable segment, bad CIE) or cut short. */
static void cfi_rules(struct bytes *b)
{
	size_t cie = eh_cie(b, "zR", 1), sig = eh_cie(b, "zRS", 1), bad = eh_cie(b, "zR", 2), f;

	f = eh_fde(b, cie, 0x2000, 0x2100);
	ops(b, DW_CFA_advance_loc | 1, DW_CFA_def_cfa_offset, 16, DW_CFA_offset | 6, 2,
	    DW_CFA_advance_loc | 3, DW_CFA_def_cfa_register, 6, DW_CFA_advance_loc | 0x10,
	    DW_CFA_remember_state, DW_CFA_def_cfa, 7, 8, DW_CFA_advance_loc | 1,
	    DW_CFA_restore_state, DW_CFA_advance_loc | 1, DW_CFA_restore | 6, -1);
	entry_end(b, f);
	f = eh_fde(b, cie, 0x2100, 0x2180);
	ops(b, DW_CFA_GNU_args_size, 8, DW_CFA_advance_loc1, 0x10, DW_CFA_def_cfa_offset_sf, 0x7e,
	    DW_CFA_set_loc, 0x20, 0x21, 0, 0, DW_CFA_def_cfa_sf, 7, 0x7f, DW_CFA_advance_loc2, 0x20,
	    0, DW_CFA_offset_extended_sf, 6, 2, DW_CFA_advance_loc | 8, DW_CFA_val_offset, 6, 1,
	    DW_CFA_nop, -1);
	entry_end(b, f);
	f = eh_fde(b, cie, 0x2200, 0x2240);
	ops(b, DW_CFA_def_cfa_expression, 11, DW_OP_breg7, 8, DW_OP_breg16, 0, DW_OP_lit15,
	    DW_OP_and, DW_OP_lit11, DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus,
	    DW_CFA_advance_loc | 0x10, DW_CFA_def_cfa_expression, 3, DW_OP_breg6, 0x78, DW_OP_deref,
	    DW_CFA_advance_loc | 8, DW_CFA_def_cfa, 10, 0, DW_CFA_advance_loc | 8, DW_CFA_def_cfa,
	    7, 8, DW_CFA_undefined, 16, -1);
	entry_end(b, f);
	entry_end(b, eh_fde(b, sig, 0x2300, 0x2310));
	f = eh_fde(b, cie, 0x2400, 0x2480);
	ops(b, DW_CFA_advance_loc | 0x10, 0x3f, DW_CFA_advance_loc | 1, -1); /* unknown opcode */
	entry_end(b, f);
	f = eh_fde(b, cie, 0x2600, 0x2640); /* libgcc's rules around an expression */
	ops(b, DW_CFA_def_cfa_offset, 24, DW_CFA_advance_loc | 0x10, DW_CFA_def_cfa_expression, 3,
	    DW_OP_breg6, 0x78, DW_OP_deref, DW_CFA_def_cfa_offset, 32, DW_CFA_advance_loc | 0x10,
	    DW_CFA_def_cfa_register, 7, -1);
	entry_end(b, f);
	entry_end(b, eh_fde(b, cie, 0x2080, 0x2090)); /* overlaps the first */
	entry_end(b, eh_fde(b, cie, 0, 0x10));	      /* a discarded function */
	entry_end(b, eh_fde(b, cie, SYN_TEXT_END, SYN_TEXT_END + 0x10));
	entry_end(b, eh_fde(b, bad, 0x2500, 0x2510));
	put32(b, 0); /* a zero terminator, and one more FDE after it */
	f = eh_fde(b, cie, 0x3000, 0x3010);
	for (int i = 0; i < 17; i++) /* deeper than the state stack */
		put8(b, DW_CFA_remember_state);
	entry_end(b, f);
}

static void test_synthetic_rules(void)
{
	struct unwind_table t = {0};
	struct bytes b = {0};
	struct syn_section s = {".eh_frame", &b};
	const struct unwind_table_stats *st = &t.stats;

	cfi_rules(&b);
	CHECK(synth_build(&s, 1, &t) == 0);
	CHECK(table_ok(&t));
	CHECK(dump_is(&t, "00002000 sp+8 ra=c-8 fp=s\n"
			  "00002001 sp+16 ra=c-8 fp=c-16\n"
			  "00002004 fp+16 ra=c-8 fp=c-16\n"
			  "00002014 sp+8 ra=c-8 fp=c-16\n"
			  "00002015 fp+16 ra=c-8 fp=c-16\n"
			  "00002016 fp+16 ra=c-8 fp=s\n"
			  "00002100 sp+8 ra=c-8 fp=s\n"
			  "00002110 sp+16 ra=c-8 fp=s\n"
			  "00002120 sp+8 ra=c-8 fp=s\n"
			  "00002140 sp+8 ra=c-8 fp=c-16\n"
			  "00002148 sp+8 ra=c-8 fp=u\n"
			  "00002180 none\n"
			  "00002200 plt sp+8 >=11 ra=c-8 fp=s\n"
			  "00002210 none\n"
			  "00002220 end\n"
			  "00002240 none\n"
			  "00002300 signal\n"
			  "00002310 none\n"
			  "00002400 sp+8 ra=c-8 fp=s\n"
			  "00002410 none\n"
			  "00002600 sp+24 ra=c-8 fp=s\n"
			  "00002610 none\n"
			  "00002620 sp+32 ra=c-8 fp=s\n"
			  "00002640 none\n"));
	CHECK(st->fdes == 11 && st->fdes_used == 7 && st->fdes_overlap == 1);
	CHECK(st->fdes_outside == 2 && st->fdes_bad == 1 && st->cies_bad == 1);
	CHECK(st->fdes_truncated == 2 && st->fdes_signal == 1 && st->rows_plt == 1);
	CHECK(st->rows_cfa_unsupported == 3 && st->rows_fp_undef == 1 && st->rows_end == 1);
	unwind_table__free(&t);
	free(b.d);
}

/* One FDE with more rows than UNWIND_FDE_MAX_ROWS: cut there with a NONE row. */
static void test_fde_row_cap(void)
{
	struct unwind_table t = {0};
	struct bytes b = {0};
	struct syn_section s = {".eh_frame", &b};
	uint32_t begin = 0x10000, n = UNWIND_FDE_MAX_ROWS + 100, i;
	size_t cie = eh_cie(&b, "zR", 1), f = eh_fde(&b, cie, begin, begin + 2 * n);

	for (i = 0; i < n; i++)
		ops(&b, DW_CFA_def_cfa_offset, i % 2 ? 8 : 16, DW_CFA_advance_loc | 1, -1);
	entry_end(&b, f);
	CHECK(synth_build(&s, 1, &t) == 0);
	CHECK(table_ok(&t));
	CHECK(t.stats.fdes_truncated == 1);
	CHECK(t.nrows == UNWIND_FDE_MAX_ROWS + 1);
	CHECK(row_is(&t, begin + UNWIND_FDE_MAX_ROWS - 1, "sp+8 ra=c-8 fp=s"));
	CHECK(row_is(&t, begin + UNWIND_FDE_MAX_ROWS, "none"));
	unwind_table__free(&t);
	free(b.d);
}

/* More rows than UNWIND_TABLE_MAX_ROWS: the table stops there, closed by NONE. */
static void test_table_row_cap(void)
{
	uint32_t per_fde = UNWIND_FDE_MAX_ROWS - 8, nfde = UNWIND_TABLE_MAX_ROWS / per_fde + 2;
	struct unwind_table t = {0};
	struct bytes b = {0};
	struct syn_section s = {".eh_frame", &b};
	size_t cie = eh_cie(&b, "zR", 1), f;
	uint32_t i, k, begin;

	for (k = 0; k < nfde; k++) {
		begin = 0x10000 + k * 0x20000;
		f = eh_fde(&b, cie, begin, begin + 0x20000);
		for (i = 0; i < per_fde; i++)
			ops(&b, DW_CFA_def_cfa_offset, i % 2 ? 8 : 16, DW_CFA_advance_loc | 1, -1);
		entry_end(&b, f);
	}
	CHECK(synth_build(&s, 1, &t) == 0);
	CHECK(table_ok(&t));
	CHECK(t.stats.truncated == 1 && t.stats.fdes_truncated == 0);
	CHECK(t.nrows == UNWIND_TABLE_MAX_ROWS);
	unwind_table__free(&t);
	free(b.d);
}

/* ---- A build cancelled by another thread's stop flag ---- */

/* As many FDEs as a large C++ library has (libLLVM-15: 98 k) and more, so that the build
 * outlasts the few instructions the other thread needs to set the flag. */
#define CANCEL_FDES 1000000u

struct cancel_job {
	const struct elf_file *e;
	const bool *flag;
	pthread_barrier_t *started;
	struct unwind_table t;
	int err;
};

static void *cancel_job_main(void *arg)
{
	struct cancel_job *j = arg;

	pthread_barrier_wait(j->started);
	j->err = unwind_table__build_elf(j->e, NULL, j->flag, &j->t);
	return NULL;
}

/* n FDEs of 16 bytes of code, two rows each. */
static void many_fdes(struct bytes *b, uint32_t n)
{
	size_t cie = eh_cie(b, "zR", 1), f;

	for (uint32_t k = 0; k < n; k++) {
		f = eh_fde(b, cie, 0x10000 + k * 16, 0x10000 + k * 16 + 16);
		ops(b, DW_CFA_advance_loc | 1, DW_CFA_def_cfa_offset, 16, -1);
		entry_end(b, f);
	}
}

/* Builds e on a thread and sets the flag once the build is interpreting FDEs (its count
 * of them is read while it writes it: a torn or late read only delays the flag). Returns
 * the build's result; *used gets the FDEs that produced rows before it gave up. */
static int build_cancelled(const struct elf_file *e, uint32_t *used)
{
	pthread_barrier_t started;
	bool flag = false;
	struct cancel_job j = {.e = e, .flag = &flag, .started = &started};
	pthread_t th;

	pthread_barrier_init(&started, NULL, 2);
	if (pthread_create(&th, NULL, cancel_job_main, &j)) {
		pthread_barrier_destroy(&started);
		return -EAGAIN;
	}
	pthread_barrier_wait(&started);
	while (!__atomic_load_n(&j.t.stats.fdes_used, __ATOMIC_RELAXED))
		sched_yield();
	cancel__request(&flag);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&started);
	*used = j.t.stats.fdes_used;
	CHECK(!j.t.rows && !j.t.nrows); /* nothing half-built comes back */
	unwind_table__free(&j.t);
	return j.err;
}

/* The stop flag (the tracker's, at the end of a recording) ends a build in progress: it
 * returns -ECANCELED with an empty table, having interpreted fewer FDEs than the file
 * has (counted, not timed). Without the polls it would run to the end, as the control
 * build with the flag never set does. */
static void test_cancel(void)
{
	struct bytes b = {0};
	struct syn_section s = {".eh_frame", &b};
	struct unwind_table t = {0};
	struct elf_file *e = NULL;
	bool unset = false, set = true;
	uint32_t used = CANCEL_FDES;
	int fd, err;

	many_fdes(&b, CANCEL_FDES);
	fd = synth_elf(&s, 1);
	CHECK(fd >= 0 && (e = elf_file__open(fd)));
	if (!e)
		goto out;
	CHECK(unwind_table__build_elf(e, NULL, &unset, &t) == 0);
	CHECK(t.stats.fdes_used == CANCEL_FDES && t.nrows == 2 * CANCEL_FDES + 1);
	unwind_table__free(&t);
	/* Set before it starts: it gives up at the first poll. */
	CHECK(unwind_table__build_elf(e, NULL, &set, &t) == -ECANCELED);
	CHECK(!t.rows && !t.nrows && t.stats.fdes_used == 0);
	err = build_cancelled(e, &used);
	fprintf(stderr, "  cancelled after %u of %u FDEs\n", used, CANCEL_FDES);
	CHECK(err == -ECANCELED);
	CHECK(used > 0 && used < CANCEL_FDES);
out:
	elf_file__free(e);
	if (fd >= 0)
		close(fd);
	free(b.d);
}

/* .debug_frame (DWARF 4 CIE, and the 64-bit format) fills what .eh_frame leaves out. */
static void test_debug_frame_format(void)
{
	struct bytes eh = {0}, dbg = {0};
	struct syn_section s[2] = {{".eh_frame", &eh}, {".debug_frame", &dbg}};
	struct unwind_table t = {0};
	size_t cie, cie64, at;

	entry_end(&eh, eh_fde(&eh, eh_cie(&eh, "zR", 1), 0x2000, 0x2100));
	cie = entry_start(&dbg); /* 32-bit DWARF 4 CIE: address size 8, segment size 0 */
	put32(&dbg, 0xffffffff);
	ops(&dbg, 4, 0, 8, 0, 1, 0x78, 16, DW_CFA_def_cfa, 7, 8, DW_CFA_offset | 16, 1, -1);
	entry_end(&dbg, cie);
	at = entry_start(&dbg); /* overlaps the .eh_frame FDE: dropped */
	put32(&dbg, cie);
	put64(&dbg, 0x2080);
	put64(&dbg, 0x100);
	entry_end(&dbg, at);
	cie64 = dbg.n; /* 64-bit DWARF CIE version 3 and its FDE */
	put32(&dbg, 0xffffffff);
	put64(&dbg, 8 + 8);
	put64(&dbg, UINT64_MAX);
	ops(&dbg, 3, 0, 1, 0x78, 16, DW_CFA_def_cfa, 6, 16, -1);
	put32(&dbg, 0xffffffff);
	put64(&dbg, 8 + 8 + 8 + 2);
	put64(&dbg, cie64);
	put64(&dbg, 0x3000);
	put64(&dbg, 0x40);
	ops(&dbg, DW_CFA_offset | 16, 1, -1);
	CHECK(synth_build(s, 2, &t) == 0);
	CHECK(table_ok(&t));
	CHECK(t.stats.sources == (UNWIND_SRC_EH_FRAME | UNWIND_SRC_DEBUG_FRAME));
	CHECK(t.stats.fdes == 3 && t.stats.fdes_used == 2 && t.stats.fdes_overlap == 1);
	CHECK(dump_is(&t, "00002000 sp+8 ra=c-8 fp=s\n"
			  "00002100 none\n"
			  "00003000 fp+16 ra=c-8 fp=s\n"
			  "00003040 none\n"));
	unwind_table__free(&t);
	free(eh.d);
	free(dbg.d);
}

static void test_find_and_dump(void)
{
	struct unwind_row rows[] = {
	    {.pc = 0x100, .cfa_kind = UNW_CFA_SP, .cfa_off = 8, .ra_off = -8},
	    {.pc = 0x110,
	     .cfa_kind = UNW_CFA_FP,
	     .cfa_off = 16,
	     .ra_off = -8,
	     .fp_rule = UNW_FP_AT_CFA,
	     .fp_off = -16},
	    {.pc = 0x200, .cfa_kind = UNW_CFA_NONE},
	};
	struct unwind_table t = {.rows = rows, .nrows = 3}, empty = {0};

	CHECK(unwind_table__find(&t, 0xff) == NULL);
	CHECK(unwind_table__find(&t, 0x100) == &rows[0]);
	CHECK(unwind_table__find(&t, 0x10f) == &rows[0]);
	CHECK(unwind_table__find(&t, 0x110) == &rows[1]);
	CHECK(unwind_table__find(&t, 0x1ff) == &rows[1]);
	CHECK(unwind_table__find(&t, 0x200) == &rows[2]);
	CHECK(unwind_table__find(&t, 1ull << 40) == &rows[2]);
	CHECK(unwind_table__find(&empty, 0x100) == NULL);
	CHECK(dump_is(&t, "00000100 sp+8 ra=c-8 fp=s\n"
			  "00000110 fp+16 ra=c-8 fp=c-16\n"
			  "00000200 none\n"));
	unwind_table__free(&empty);
}

/* ---- Hostile input ---- */

static int memfd_with(const void *data, size_t len)
{
	int fd = memfd_create("cfi", MFD_CLOEXEC);

	if (fd >= 0 && len && write(fd, data, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return fd;
}

static void *read_file(const char *path, size_t *len)
{
	struct stat st;
	void *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && (buf = malloc(st.st_size)) &&
	    read(fd, buf, st.st_size) != st.st_size) {
		free(buf);
		buf = NULL;
	}
	*len = buf ? st.st_size : 0;
	close(fd);
	return buf;
}

/* Builds from data; whatever it returns, a table that comes back must be sound. */
static bool hostile_ok(const void *data, size_t len, int *err)
{
	struct unwind_table t = {0};
	int fd = memfd_with(data, len);
	bool ok;

	if (fd < 0)
		return false;
	*err = unwind_table__build(fd, fd, &t);
	ok = table_ok(&t) && (*err == 0 || (t.nrows == 0 && t.rows == NULL));
	unwind_table__free(&t);
	close(fd);
	return ok;
}

static void test_not_elf(void)
{
	static const char text[] = "#!/bin/sh\necho not an ELF file\n";
	struct unwind_table t = {0};
	uint8_t *buf;
	size_t len;
	int err, fd;

	CHECK(hostile_ok(text, sizeof(text), &err) && err == -EINVAL);
	CHECK(hostile_ok("", 0, &err) && err == -EINVAL);
	CHECK(unwind_table__build(-1, -1, &t) == -EBADF);
	fd = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(fd >= 0 && unwind_table__build(fd, -1, &t) == -EINVAL);
	close(fd);
	buf = read_file("/bin/true", &len);
	CHECK(buf && len > sizeof(Elf64_Ehdr));
	if (!buf)
		return;
	((Elf64_Ehdr *)buf)->e_machine = EM_AARCH64;
	CHECK(hostile_ok(buf, len, &err) && err == -ENOTSUP);
	((Elf64_Ehdr *)buf)->e_machine = EM_X86_64;
	((Elf64_Ehdr *)buf)->e_type = ET_REL;
	CHECK(hostile_ok(buf, len, &err) && err == -ENOTSUP);
	buf[EI_CLASS] = ELFCLASS32;
	CHECK(hostile_ok(buf, len, &err) && (err == -ENOTSUP || err == -EINVAL));
	free(buf);
}

static void test_truncated(void)
{
	uint64_t vaddr, eh_addr, eh_size = 0, eh_off = 0;
	char path[4096];
	uint8_t *buf;
	size_t len, cut;
	int i, err;

	CHECK(object_of(signal_restorer(), &vaddr, path, sizeof(path)) == 0);
	CHECK(section_of(path, ".eh_frame", &eh_addr, &eh_size, &eh_off) == 0);
	buf = read_file(path, &len);
	CHECK(buf != NULL);
	if (!buf)
		return;
	for (i = 0; i <= TRUNCATIONS; i++) {
		cut = len / TRUNCATIONS * i;
		CHECK(hostile_ok(buf, cut < len ? cut : len, &err));
		cut = eh_off + eh_size / TRUNCATIONS * i; /* inside .eh_frame */
		CHECK(cut > len || hostile_ok(buf, cut, &err));
	}
	free(buf);
}

/* Random bytes written over the CFI (and its headers) of a real file. */
static void test_byte_flips(void)
{
	uint64_t eh_addr, eh_off = 0, eh_size = 0;
	size_t len, off, n, k;
	uint8_t *orig, *buf;
	double t0, worst = 0;
	int i, err;

	CHECK(section_of("/bin/true", ".eh_frame", &eh_addr, &eh_size, &eh_off) == 0);
	orig = read_file("/bin/true", &len);
	buf = orig ? malloc(len) : NULL;
	CHECK(buf && eh_size && eh_off + eh_size <= len);
	if (!buf || !eh_size || eh_off + eh_size > len)
		goto out;
	srand(1234);
	for (i = 0; i < FLIP_ROUNDS; i++) {
		memcpy(buf, orig, len);
		n = 1 + rand() % 16;
		for (k = 0; k < n; k++) {
			off = eh_off + (size_t)rand() % eh_size;
			buf[off] = i % 3 ? (uint8_t)rand() : buf[off] ^ (1u << (rand() % 8));
		}
		t0 = now_ms();
		CHECK(hostile_ok(buf, len, &err) && err == 0);
		worst = now_ms() - t0 > worst ? now_ms() - t0 : worst;
	}
	fprintf(stderr, "  %d mutated copies of /bin/true, slowest %.1f ms\n", FLIP_ROUNDS, worst);
out:
	free(orig);
	free(buf);
}

static void cleanup_tmpdir(void)
{
	run("rm -rf '%s'", tmpdir);
}

int main(void)
{
	ssize_t n = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
	bool readelf = has_tool("readelf"), objcopy = has_tool("objcopy");
	bool cc = has_tool("cc") && has_tool("nm");

	if (n <= 0 || !mkdtemp(tmpdir)) {
		perror("test_cfi setup");
		return 1;
	}
	exe_path[n] = '\0';
	RUN_TEST(test_find_and_dump);
	RUN_TEST(test_synthetic_rules);
	RUN_TEST(test_fde_row_cap);
	RUN_TEST(test_table_row_cap);
	RUN_TEST(test_cancel);
	RUN_TEST(test_debug_frame_format);
	RUN_TEST(test_not_elf);
	RUN_TEST(test_truncated);
	RUN_TEST(test_byte_flips);
	RUN_TEST(test_vdso);
	if (readelf) {
		RUN_TEST(test_libc);
		RUN_TEST(test_self);
		RUN_TEST(test_bin_true);
	} else {
		SKIP_TEST(test_libc, "readelf not installed");
		SKIP_TEST(test_self, "readelf not installed");
		SKIP_TEST(test_bin_true, "readelf not installed");
	}
	if (readelf && access(LIBSTDCXX, R_OK) == 0)
		RUN_TEST(test_libstdcxx);
	else
		SKIP_TEST(test_libstdcxx, "no readelf or no " LIBSTDCXX);
	if (access(LIBLLVM, R_OK) == 0 || access(LIBLLVM_OLD, R_OK) == 0)
		RUN_TEST(test_large);
	else
		SKIP_TEST(test_large, "no libLLVM to time");
	if (objcopy) {
		RUN_TEST(test_stripped);
		RUN_TEST(test_no_cfi);
	} else {
		SKIP_TEST(test_stripped, "objcopy not installed");
		SKIP_TEST(test_no_cfi, "objcopy not installed");
	}
	if (objcopy && cc) {
		RUN_TEST(test_debug_file);
		RUN_TEST(test_plt_sec);
	} else {
		SKIP_TEST(test_debug_file, "cc, nm or objcopy not installed");
		SKIP_TEST(test_plt_sec, "cc, nm or objcopy not installed");
	}
	cleanup_tmpdir();
	HARNESS_EXIT();
}
