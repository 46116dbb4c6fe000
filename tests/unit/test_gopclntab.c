// SPDX-License-Identifier: Apache-2.0
/* Unit tests for the Go pclntab reader on real Go binaries of every installed toolchain
 * (tests/workloads/go/build.sh): plain, stripped (-s -w) and without section headers;
 * inlined frames with their lines, cgo's C code left alone, and damaged copies. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "shell.h"
#include "symbol/gopclntab.h"

#define MAX_VERSIONS 16

struct toolchain {
	char version[32]; /* go1.23.5 */
	char dir[1024];	  /* where build.sh put its binaries */
	char go[1024];
};

static struct toolchain tcs[MAX_VERSIONS];
static int ntcs;
static char tmpdir[] = "/tmp/test_gopclntab.XXXXXX";

static int load_toolchains(void)
{
	FILE *p = popen("tests/workloads/go/build.sh 2>&2", "r");
	char line[4096];

	if (!p)
		return -1;
	while (ntcs < MAX_VERSIONS && fgets(line, sizeof(line), p)) {
		struct toolchain *t = &tcs[ntcs];

		if (sscanf(line, "%31s %1023s %1023s", t->version, t->dir, t->go) == 3)
			ntcs++;
	}
	return pclose(p) == 0 ? 0 : -1;
}

/* The line of the workload's source marked "// line:NAME". */
static uint32_t marked_line(const char *prog, const char *name)
{
	char path[256], want[64], line[1024], *m;
	uint32_t n = 0, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "tests/workloads/go/%s/main.go", prog);
	snprintf(want, sizeof(want), "// line:%s", name);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		n++;
		m = strstr(line, want);
		if (m && !found && (m[strlen(want)] == '\n' || m[strlen(want)] == '\0'))
			found = n;
	}
	if (f)
		fclose(f);
	return found;
}

/* Runs cmd and reads one hex number from its output; 0 when none. */
static uint64_t hex_from(const char *cmd)
{
	unsigned long long v = 0;
	FILE *p = popen(cmd, "r");

	if (!p)
		return 0;
	if (fscanf(p, "%llx", &v) != 1)
		v = 0;
	pclose(p);
	return v;
}

/* The file offset of vaddr in path's executable segment. */
static uint64_t file_offset(const char *path, uint64_t va)
{
	int fd = open(path, O_RDONLY);
	uint64_t off = 0;
	GElf_Phdr ph;
	size_t n = 0;
	Elf *e;

	elf_version(EV_CURRENT);
	e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	if (e && !elf_getphdrnum(e, &n))
		for (size_t i = 0; i < n; i++)
			if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X) && va >= ph.p_vaddr &&
			    va < ph.p_vaddr + ph.p_filesz)
				off = va - ph.p_vaddr + ph.p_offset;
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return off;
}

/* The ELF address of sym in t's binary bin, from go tool nm. */
static uint64_t symbol_vaddr(const struct toolchain *t, const char *bin, const char *sym)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "'%s' tool nm '%s/%s' | awk '$3 == \"%s\" && !n++ { print $1 }'",
		 t->go, t->dir, bin, sym);
	return hex_from(cmd);
}

static uint64_t symbol_offset(const struct toolchain *t, const char *bin, const char *sym)
{
	char path[2048];

	snprintf(path, sizeof(path), "%s/%s", t->dir, bin);
	return file_offset(path, symbol_vaddr(t, bin, sym));
}

/* The return address of serve's call to scan, minus one: a pc in parse's inlined code. */
static uint64_t call_site_offset(const struct toolchain *t)
{
	char cmd[4096], path[2048];

	snprintf(path, sizeof(path), "%s/chain", t->dir);
	snprintf(cmd, sizeof(cmd),
		 "'%s' tool objdump -s '^main.serve$' '%s' | "
		 "awk '/CALL main.scan/ && !n++ { print $2, length($3) / 2 }' | "
		 "{ read a n; printf '%%x\\n' $((a + n - 1)); }",
		 t->go, path);
	return file_offset(path, hex_from(cmd));
}

/* A copy of src whose ELF header no longer points at section headers. */
static int copy_without_sections(const char *src, const char *dst)
{
	Elf64_Ehdr eh;
	int fd;

	if (run("cp '%s' '%s'", src, dst))
		return -1;
	fd = open(dst, O_RDWR);
	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		return -1;
	eh.e_shoff = 0;
	eh.e_shnum = 0;
	eh.e_shstrndx = 0;
	if (pwrite(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		return -1;
	return close(fd);
}

static struct go_table *open_table(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct go_table *g;

	if (fd < 0)
		return NULL;
	g = go_table__open(fd);
	close(fd);
	return g;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static void check_chain(const struct toolchain *t, const char *path, uint64_t site, uint64_t scan)
{
	struct go_table *g = open_table(path);
	struct go_line l[GO_INLINE_MAX];
	unsigned int n;

	CHECK(g);
	if (!g) {
		fprintf(stderr, "  %s: %s\n", path, strerror(errno));
		return;
	}
	CHECK(!strcmp(go_table__version(g), strncmp(t->version, "go1.19", 6) ? "1.20" : "1.18"));
	CHECK(go_table__has_inline(g));
	n = go_table__lookup(g, site, l, GO_INLINE_MAX);
	CHECK(n == 2);
	if (n == 2) {
		CHECK(!strcmp(l[0].function, "main.parse"));
		CHECK(ends_with(l[0].file, "go/chain/main.go"));
		CHECK(l[0].line == marked_line("chain", "parse"));
		CHECK(!strcmp(l[1].function, "main.serve"));
		CHECK(l[1].line == marked_line("chain", "serve"));
	}
	n = go_table__lookup(g, scan, l, GO_INLINE_MAX);
	CHECK(n == 1 && !strcmp(l[0].function, "main.scan"));
	/* Room for one position only: the physical function wins. */
	n = go_table__lookup(g, site, l, 1);
	CHECK(n == 1 && !strcmp(l[0].function, "main.serve"));
	go_table__free(g);
}

static void test_inlined_chain(void)
{
	char path[2048], nosh[2048];

	CHECK(ntcs > 0);
	for (int i = 0; i < ntcs; i++) {
		const struct toolchain *t = &tcs[i];
		uint64_t site = call_site_offset(t), scan = symbol_offset(t, "chain", "main.scan");

		fprintf(stderr, "  %s: call site +0x%llx, scan +0x%llx\n", t->version,
			(unsigned long long)site, (unsigned long long)scan);
		CHECK(site && scan);
		snprintf(path, sizeof(path), "%s/chain", t->dir);
		check_chain(t, path, site, scan);
		snprintf(path, sizeof(path), "%s/chain.stripped", t->dir);
		check_chain(t, path, site, scan);
		snprintf(nosh, sizeof(nosh), "%s/chain.%s.nosh", tmpdir, t->version);
		CHECK(copy_without_sections(path, nosh) == 0);
		check_chain(t, nosh, site, scan);
	}
}

/* cgo: runtime.text is not where .text starts, and C functions are not Go's. */
static void test_cgo(void)
{
	struct go_line l[GO_INLINE_MAX];
	char path[2048];

	for (int i = 0; i < ntcs; i++) {
		const struct toolchain *t = &tcs[i];
		uint64_t leaf = symbol_offset(t, "cgo", "main.goLeaf");
		uint64_t c = symbol_offset(t, "cgo", "c_spin"), entry, end;
		struct go_table *g;

		snprintf(path, sizeof(path), "%s/cgo.stripped", t->dir);
		g = open_table(path);
		CHECK(g && leaf && c);
		if (!g)
			continue;
		/* The entry's line is the func line or, without a stack check, the first
		 * statement's (1.22+). */
		CHECK(go_table__lookup(g, leaf, l, GO_INLINE_MAX) == 1 &&
		      !strcmp(l[0].function, "main.goLeaf") &&
		      l[0].line >= marked_line("cgo", "goLeafEntry") &&
		      l[0].line <= marked_line("cgo", "goLeaf"));
		CHECK(go_table__lookup(g, c, l, GO_INLINE_MAX) == 0);
		/* The stack switch the Go walker claims, found by name: the assembly itself,
		 * not the ABI wrapper of the same name (nm's runtime.asmcgocall). */
		entry = end = 0;
		CHECK(go_table__asm_func(g, "runtime.asmcgocall", &entry, &end) == 0);
		CHECK(entry && entry == symbol_vaddr(t, "cgo", "runtime.asmcgocall.abi0") &&
		      end > entry && end - entry < 512);
		CHECK(go_table__asm_func(g, "main.goLeaf", &entry, &end) == -ENOENT);
		CHECK(go_table__asm_func(g, "runtime.asmcgocal", &entry, &end) == -ENOENT);
		go_table__free(g);
	}
}

static void test_not_go(void)
{
	struct go_table *g;

	errno = 0;
	g = open_table("/proc/self/exe");
	CHECK(!g && errno == ENOENT);
	errno = 0;
	g = open_table("/dev/null");
	CHECK(!g && errno == EINVAL);
}

/* Truncated and byte-flipped copies open or fail, and look up without harm. */
static void test_damaged(void)
{
	struct go_line l[GO_INLINE_MAX];
	char path[2048], bad[2048];
	unsigned int seed = 1;
	long size = 0;
	FILE *f;

	if (!ntcs)
		return;
	snprintf(path, sizeof(path), "%s/chain.stripped", tcs[ntcs - 1].dir);
	snprintf(bad, sizeof(bad), "%s/bad", tmpdir);
	f = fopen(path, "rb");
	CHECK(f && !fseek(f, 0, SEEK_END) && (size = ftell(f)) > 0);
	if (f)
		fclose(f);
	for (int round = 0; round < 40; round++) {
		struct go_table *g;
		int fd;

		CHECK(run("cp '%s' '%s'", path, bad) == 0);
		fd = open(bad, O_RDWR);
		if (round < 8) {
			CHECK(ftruncate(fd, size * (round + 1) / 9) == 0);
		} else {
			for (int k = 0; k < 64; k++) {
				uint8_t b = (uint8_t)rand_r(&seed);
				off_t at = (off_t)(rand_r(&seed) % size);

				CHECK(pwrite(fd, &b, 1, at) == 1);
			}
		}
		g = go_table__open(fd);
		close(fd);
		for (long off = 0; g && off < size; off += 4093)
			go_table__lookup(g, (uint64_t)off, l, GO_INLINE_MAX);
		go_table__free(g);
	}
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		return 1;
	if (load_toolchains()) {
		printf("FAIL test_gopclntab: tests/workloads/go/build.sh failed\n");
		return 1;
	}
	if (!ntcs) {
		SKIP_TEST(test_inlined_chain, "no Go toolchain (scripts/install-deps.sh test)");
	} else {
		RUN_TEST(test_inlined_chain);
		RUN_TEST(test_cgo);
		RUN_TEST(test_damaged);
	}
	RUN_TEST(test_not_go);
	run("rm -rf '%s'", tmpdir);
	HARNESS_EXIT();
}
