// SPDX-License-Identifier: Apache-2.0
/* Unit tests for the debug cache: the inline_chain workload built with compressed DWARF,
 * copied inflated under its build id; every address looked up in the copy answers as in
 * the original; a copy is reused, a corrupt or foreign one replaced, an unsafe directory
 * refused; a file without compressed DWARF is not copied; past the bound, the copies used
 * longest ago go first; decompression bombs (a huge alignment, a huge ratio) are not
 * written nor inflated. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "shell.h"
#include "symbol/debugcache.h"
#include "symbol/dwarfsym.h"
#include "util/inflate_limit.h"

#define SRC "tests/workloads/inline_chain.c"
#define ID_BASE "0123456789abcdef0123456789abcdef0000000"
#define BIG (64ull << 20)

static char tmpdir[] = "/tmp/test_debugcache.XXXXXX";
static char src_path[4096], cache[1024];

/* Builds the workload as tmpdir/NAME with build id ID_BASE + digit. */
static int build(const char *name, int digit, const char *flags)
{
	return run("cd %s && gcc -O2 -g %s -Wl,--build-id=0x%s%d %s -o %s", tmpdir, flags, ID_BASE,
		   digit, src_path, name);
}

static void path_of(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", tmpdir, name);
}

static void copy_path(char *out, size_t len, int digit)
{
	snprintf(out, len, "%s/%s%d.debug", cache, ID_BASE, digit);
}

/* debug_cache__open on tmpdir/name. */
static int cache_open(const char *name, uint64_t max)
{
	char p[4096];
	int fd, cfd;

	path_of(p, sizeof(p), name);
	fd = open(p, O_RDONLY);
	if (fd < 0)
		return -errno;
	cfd = debug_cache__open(cache, max, fd);
	close(fd);
	return cfd;
}

static ino_t ino_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

/* Checks the copy's sections against the original's: no compressed one left, each debug
 * section lines read holds its inflated size, code and location lists hold no bytes. */
static void check_sections(const char *orig, int cfd)
{
	int ofd = open(orig, O_RDONLY);
	Elf *o = elf_begin(ofd, ELF_C_READ, NULL), *c = elf_begin(cfd, ELF_C_READ, NULL);
	size_t ostr, cstr, on = 0, cn = 0, inflated = 0;
	Elf_Scn *os = NULL, *cs;
	GElf_Shdr osh, csh;
	GElf_Chdr ch;
	const char *name;

	CHECK(o && c && !elf_getshdrstrndx(o, &ostr) && !elf_getshdrstrndx(c, &cstr));
	CHECK(o && c && !elf_getshdrnum(o, &on) && !elf_getshdrnum(c, &cn) && on == cn);
	while (o && c && (os = elf_nextscn(o, os))) {
		cs = elf_getscn(c, elf_ndxscn(os));
		CHECK(cs && gelf_getshdr(os, &osh) && gelf_getshdr(cs, &csh));
		if (!cs)
			break;
		name = elf_strptr(o, ostr, osh.sh_name);
		CHECK(name && !strcmp(name, elf_strptr(c, cstr, csh.sh_name)));
		CHECK(!(csh.sh_flags & SHF_COMPRESSED));
		if (!strcmp(name, ".text") || !strcmp(name, ".debug_loclists"))
			CHECK(csh.sh_type == SHT_NOBITS);
		if (!strcmp(name, ".debug_info")) {
			CHECK(osh.sh_flags & SHF_COMPRESSED);
			CHECK(gelf_getchdr(os, &ch) && csh.sh_size == ch.ch_size);
			CHECK(csh.sh_type == SHT_PROGBITS);
			inflated = csh.sh_size;
		}
	}
	CHECK(inflated > 0);
	elf_end(o);
	elf_end(c);
	close(ofd);
}

/* Every address of the workload's code answers the same from the copy as from the file. */
static void check_lookups(const char *orig, int cfd)
{
	struct dwarf_line a[DWARF_LINES_MAX], b[DWARF_LINES_MAX];
	int ofd = open(orig, O_RDONLY);
	struct dwarf_syms *o = dwarf_syms__open(ofd), *c = dwarf_syms__open(cfd);
	unsigned long long lo = 0, hi = 0, named = 0;
	int n, m;
	FILE *p;
	char cmd[8192];

	close(ofd);
	CHECK(o && c);
	snprintf(cmd, sizeof(cmd), "nm -n %s | awk '$2 ~ /^[Tt]$/ { print $1 }' | sed -n '1p;$p'",
		 orig);
	p = popen(cmd, "r");
	CHECK(p && fscanf(p, "%llx %llx", &lo, &hi) == 2 && lo < hi);
	if (p)
		pclose(p);
	for (uint64_t va = lo; o && c && va < hi; va++) {
		n = dwarf_syms__lookup(o, va, true, a, DWARF_LINES_MAX);
		m = dwarf_syms__lookup(c, va, true, b, DWARF_LINES_MAX);
		CHECK(n == m);
		for (int i = 0; i < n && n == m; i++) {
			CHECK(!strcmp(a[i].function, b[i].function) &&
			      !strcmp(a[i].file, b[i].file));
			CHECK(a[i].line == b[i].line);
		}
		named += n > 0;
	}
	CHECK(named > 64);
	dwarf_syms__free(o);
	dwarf_syms__free(c);
}

static void test_copy(void)
{
	char orig[4096], copy[4096];
	struct stat st;
	int cfd;

	path_of(orig, sizeof(orig), "gz0");
	CHECK(build("gz0", 0, "-gdwarf-5 -gz=zlib") == 0);
	cfd = cache_open("gz0", BIG);
	CHECK(cfd >= 0);
	if (cfd < 0)
		return;
	copy_path(copy, sizeof(copy), 0);
	CHECK(stat(copy, &st) == 0 && st.st_ino == ino_of(cfd) && !(st.st_mode & 022));
	check_sections(orig, cfd);
	check_lookups(orig, cfd);
	close(cfd);
}

/* The second open reads the copy the first made. */
static void test_reused(void)
{
	int a = cache_open("gz0", BIG), b = cache_open("gz0", BIG);

	CHECK(a >= 0 && b >= 0 && ino_of(a) == ino_of(b));
	close(a);
	close(b);
}

/* A copy cut short, or one another user could have written, is made again. */
static void test_bad_copy_replaced(void)
{
	char copy[4096], orig[4096];
	int before = cache_open("gz0", BIG), cfd;
	ino_t ino = ino_of(before);

	close(before);
	copy_path(copy, sizeof(copy), 0);
	path_of(orig, sizeof(orig), "gz0");
	CHECK(truncate(copy, 100) == 0);
	cfd = cache_open("gz0", BIG);
	CHECK(cfd >= 0 && ino_of(cfd) != ino);
	if (cfd >= 0)
		check_lookups(orig, cfd);
	ino = ino_of(cfd);
	close(cfd);
	CHECK(chmod(copy, 0666) == 0);
	cfd = cache_open("gz0", BIG);
	CHECK(cfd >= 0 && ino_of(cfd) != ino);
	close(cfd);
}

/* A directory others may write is not used: nothing is made in it. */
static void test_unsafe_dir(void)
{
	char copy[4096];

	CHECK(build("gz1", 1, "-gz=zlib") == 0);
	CHECK(chmod(cache, 0777) == 0);
	CHECK(cache_open("gz1", BIG) == -EPERM);
	copy_path(copy, sizeof(copy), 1);
	CHECK(access(copy, F_OK) != 0);
	CHECK(chmod(cache, 0700) == 0);
}

/* Uncompressed DWARF is read from the file itself, and a file that is not ELF by the
 * reader; a copy past a quarter of the bound is not made. */
static void test_not_copied(void)
{
	char copy[4096];

	CHECK(build("plain", 2, "") == 0);
	CHECK(cache_open("plain", BIG) == -ENOENT);
	CHECK(run("echo 'not an ELF file' > %s/text", tmpdir) == 0);
	CHECK(cache_open("text", BIG) == -EINVAL);
	CHECK(cache_open("gz1", 4096) == -EFBIG);
	copy_path(copy, sizeof(copy), 1);
	CHECK(access(copy, F_OK) != 0);
}

static long long blocks_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (long long)st.st_blocks * 512;
}

/* Five copies where four and a half fit: the one used longest ago is removed. */
static void test_evicts_oldest(void)
{
	char name[32], copy[4096];
	struct timespec t[2];
	long long one;
	int fd;

	CHECK(run("rm -f %s/*", cache) == 0);
	for (int i = 3; i <= 7; i++) {
		snprintf(name, sizeof(name), "v%d", i);
		CHECK(build(name, i, "-gz=zlib") == 0);
	}
	for (int i = 3; i <= 6; i++) {
		snprintf(name, sizeof(name), "v%d", i);
		fd = cache_open(name, BIG);
		CHECK(fd >= 0);
		close(fd);
		copy_path(copy, sizeof(copy), i);
		/* Used in the order 4, 3, 5, 6: 4 longest ago. */
		t[0].tv_sec = t[1].tv_sec = 1000000 + (i == 4 ? 0 : i * 10);
		t[0].tv_nsec = t[1].tv_nsec = 0;
		CHECK(utimensat(AT_FDCWD, copy, t, 0) == 0);
	}
	copy_path(copy, sizeof(copy), 3);
	one = blocks_of(copy);
	CHECK(one > 0);
	fd = cache_open("v7", one * 9 / 2);
	CHECK(fd >= 0);
	close(fd);
	for (int i = 3; i <= 7; i++) {
		copy_path(copy, sizeof(copy), i);
		if (i == 4)
			CHECK(access(copy, F_OK) != 0);
		else
			CHECK(access(copy, F_OK) == 0);
	}
}

/* Writes value at byte off of the compression header of section name in path. */
static int patch_chdr(const char *path, const char *name, size_t off, uint64_t value)
{
	int fd = open(path, O_RDWR);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	const char *n;
	size_t str;
	GElf_Shdr sh;
	int err = -ENOENT;

	while (e && !elf_getshdrstrndx(e, &str) && (scn = elf_nextscn(e, scn))) {
		n = gelf_getshdr(scn, &sh) ? elf_strptr(e, str, sh.sh_name) : NULL;
		if (!n || strcmp(n, name) || !(sh.sh_flags & SHF_COMPRESSED))
			continue;
		err = pwrite(fd, &value, sizeof(value), sh.sh_offset + off) == sizeof(value) ? 0
											     : -EIO;
		break;
	}
	elf_end(e);
	close(fd);
	return err;
}

static off_t size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

/* An 18 KB file whose compression header asks for 2^31 alignment made a copy of 2 GiB of
 * zeros (16 s of writing): the copy keeps no alignment past a word, and stays small. */
static void test_alignment_bomb(void)
{
	char orig[4096], copy[4096];
	int cfd;

	CHECK(build("align", 8, "-gz=zlib") == 0);
	path_of(orig, sizeof(orig), "align");
	CHECK(patch_chdr(orig, ".debug_info", 16, 1ull << 31) == 0); /* Elf64_Chdr.ch_addralign */
	cfd = cache_open("align", BIG);
	CHECK(cfd >= 0);
	close(cfd);
	copy_path(copy, sizeof(copy), 8);
	CHECK(size_of(copy) > 0 && size_of(copy) < 4 * size_of(orig));
}

/* 4 MiB of zeros compressed into a few KiB of .debug_str: more than INFLATE_RATIO_MAX times
 * the file, so neither the cache nor the reader inflates it, and each refusal is counted. */
static void test_ratio_bomb(void)
{
	char orig[4096], copy[4096];
	uint64_t refused = inflate_limit__refused();
	int fd;

	CHECK(build("ratio", 9, "") == 0);
	path_of(orig, sizeof(orig), "ratio");
	CHECK(run("cd %s && head -c 4M /dev/zero > zeros && objcopy --update-section "
		  ".debug_str=zeros ratio && objcopy --compress-debug-sections=zlib ratio && "
		  "rm zeros",
		  tmpdir) == 0);
	CHECK(size_of(orig) > 0 && size_of(orig) * INFLATE_RATIO_MAX < (4 << 20));
	CHECK(cache_open("ratio", BIG) == -EFBIG);
	copy_path(copy, sizeof(copy), 9);
	CHECK(access(copy, F_OK) != 0);
	fd = open(orig, O_RDONLY);
	errno = 0;
	CHECK(dwarf_syms__open(fd) == NULL && errno == EFBIG);
	close(fd);
	CHECK(inflate_limit__refused() == refused + 2);
}

int main(void)
{
	if (!mkdtemp(tmpdir) || !realpath(SRC, src_path)) {
		printf("FAIL test_debugcache: setup (run from the source tree)\n");
		return 1;
	}
	elf_version(EV_CURRENT);
	snprintf(cache, sizeof(cache), "%s/cache", tmpdir);
	RUN_TEST(test_copy);
	RUN_TEST(test_reused);
	RUN_TEST(test_bad_copy_replaced);
	RUN_TEST(test_unsafe_dir);
	RUN_TEST(test_not_copied);
	RUN_TEST(test_evicts_oldest);
	RUN_TEST(test_alignment_bomb);
	RUN_TEST(test_ratio_bomb);
	run("rm -rf %s", tmpdir);
	HARNESS_EXIT();
}
