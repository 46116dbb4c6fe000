// SPDX-License-Identifier: Apache-2.0
/* Unit tests for the ELF symbol reader: real files (this binary, libc, stripped copies and
 * separate debug files), demangling, and hostile input (truncated, mutated, not ELF). */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "harness.h"
#include "shell.h"
#include "symbol/elfsym.h"

#define FLIP_ROUNDS 300

static char tmpdir[] = "/tmp/test_elfsym.XXXXXX";
static char exe_path[4096];

/* Called through a volatile pointer so it keeps its own, uncloned symbol. */
static __attribute__((noinline, used)) int elfsym_test_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

/* An assembly function without .size: it must cover the bytes up to the next symbol. */
__asm__(".text\n"
	".type elfsym_test_unsized,@function\n"
	"elfsym_test_unsized:\n"
	"\tnop\n\tnop\n\tnop\n\tret\n");
void elfsym_test_unsized(void);

static int (*volatile target_ptr)(int) = elfsym_test_target;

/* Finds the mapping holding addr in /proc/self/maps: its file and addr's file offset. */
static int map_lookup(const void *addr, uint64_t *off, char *path, size_t path_len)
{
	unsigned long start, end, pgoff;
	char line[4096 + 256];
	int n, err = -ENOENT;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		n = 0;
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %n", &start, &end, &pgoff, &n) < 3 ||
		    !n || (uintptr_t)addr < start || (uintptr_t)addr >= end)
			continue;
		*off = (uintptr_t)addr - start + pgoff;
		snprintf(path, path_len, "%s", line + n);
		path[strcspn(path, "\n")] = '\0';
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

static struct elf_syms *open_path(const char *path)
{
	struct elf_syms *s;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	s = elf_syms__open(fd);
	close(fd);
	return s;
}

static int add_debug_path(struct elf_syms *s, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = elf_syms__add_debug_file(s, fd);
	close(fd);
	return err;
}

static void tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

/* Expects lookup(off) to name `want` at distance sym_off (want NULL: no symbol). */
static bool lookup_is(struct elf_syms *s, uint64_t off, const char *want, uint64_t sym_off)
{
	uint64_t got_off = ~0ull;
	const char *got = elf_syms__lookup(s, off, &got_off);

	if (!want)
		return !got;
	if (!got || strcmp(got, want) || got_off != sym_off) {
		fprintf(stderr, "  lookup %#llx: got %s+%llu, want %s+%llu\n",
			(unsigned long long)off, got ? got : "NULL", (unsigned long long)got_off,
			want, (unsigned long long)sym_off);
		return false;
	}
	return true;
}

static void test_self_exe(void)
{
	uint64_t off, uoff;
	char path[4096];
	struct elf_syms *s;

	CHECK(target_ptr(1) == 4);
	CHECK(map_lookup((const void *)elfsym_test_target, &off, path, sizeof(path)) == 0);
	CHECK(map_lookup((const void *)elfsym_test_unsized, &uoff, path, sizeof(path)) == 0);
	s = open_path("/proc/self/exe");
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(lookup_is(s, off, "elfsym_test_target", 0));
	CHECK(lookup_is(s, off + 1, "elfsym_test_target", 1));
	CHECK(lookup_is(s, uoff, "elfsym_test_unsized", 0));
	CHECK(lookup_is(s, uoff + 3, "elfsym_test_unsized", 3));
	CHECK(lookup_is(s, 0, NULL, 0));
	CHECK(lookup_is(s, UINT64_MAX, NULL, 0));
	CHECK(strlen(elf_syms__build_id(s)) % 2 == 0);
	elf_syms__free(s);
}

/* libc's own qsort and malloc (not the sanitizer's interceptors), with their file offsets. */
static int libc_offsets(uint64_t *qsort_off, uint64_t *malloc_off, char *path, size_t len)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *q, *m;
	int err;

	if (!libc)
		return -ENOENT;
	q = dlsym(libc, "qsort");
	m = dlsym(libc, "malloc");
	dlclose(libc);
	if (!q || !m)
		return -ENOENT;
	err = map_lookup(m, malloc_off, path, len);
	return err ? err : map_lookup(q, qsort_off, path, len);
}

/* The build id as `readelf -n` prints it, "" if none. */
static void readelf_build_id(const char *path, char out[256])
{
	char cmd[4352], line[512];
	FILE *p;

	out[0] = '\0';
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, " Build ID: %255s", out) == 1)
			break;
	pclose(p);
}

static void test_libc(void)
{
	uint64_t qoff, moff;
	char path[4096], want[256];
	struct elf_syms *s;

	CHECK(libc_offsets(&qoff, &moff, path, sizeof(path)) == 0);
	s = open_path(path);
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(lookup_is(s, qoff, "qsort", 0));
	CHECK(lookup_is(s, moff, "malloc", 0));
	CHECK(lookup_is(s, moff + 5, "malloc", 5));
	CHECK(lookup_is(s, 0, NULL, 0));
	readelf_build_id(path, want);
	CHECK(want[0] != '\0');
	CHECK(strcmp(elf_syms__build_id(s), want) == 0);
	elf_syms__free(s);
}

static void test_stripped(void)
{
	char path[4096], copy[4200], self[4200];
	uint64_t qoff, moff, off;
	struct elf_syms *s;

	CHECK(libc_offsets(&qoff, &moff, path, sizeof(path)) == 0);
	tmp_path(copy, sizeof(copy), "libc.stripped");
	CHECK(run("objcopy --strip-all '%s' '%s'", path, copy) == 0);
	s = open_path(copy);
	CHECK(s != NULL);
	if (s) {
		CHECK(lookup_is(s, qoff, "qsort", 0));
		CHECK(lookup_is(s, moff, "malloc", 0));
		elf_syms__free(s);
	}
	CHECK(map_lookup((const void *)elfsym_test_target, &off, path, sizeof(path)) == 0);
	tmp_path(self, sizeof(self), "self.stripped");
	CHECK(run("objcopy --strip-all '%s' '%s'", exe_path, self) == 0);
	s = open_path(self);
	CHECK(s != NULL);
	if (s) {
		CHECK(lookup_is(s, off, NULL, 0));
		elf_syms__free(s);
	}
}

static void test_debug_merge(void)
{
	char dbg[4200], stripped[4200], libc[4096], path[4096];
	struct elf_syms *orig, *s;
	uint64_t off, uoff, q, m;

	CHECK(map_lookup((const void *)elfsym_test_target, &off, path, sizeof(path)) == 0);
	CHECK(map_lookup((const void *)elfsym_test_unsized, &uoff, path, sizeof(path)) == 0);
	tmp_path(dbg, sizeof(dbg), "self.debug");
	tmp_path(stripped, sizeof(stripped), "self.stripped2");
	CHECK(run("objcopy --only-keep-debug '%s' '%s'", exe_path, dbg) == 0);
	CHECK(run("objcopy --strip-all --add-gnu-debuglink='%s' '%s' '%s'", dbg, exe_path,
		  stripped) == 0);
	orig = open_path(exe_path);
	s = open_path(stripped);
	CHECK(orig && s);
	if (!orig || !s)
		goto out;
	CHECK(strcmp(elf_syms__build_id(s), elf_syms__build_id(orig)) == 0);
	CHECK(elf_syms__debuglink(s) && strcmp(elf_syms__debuglink(s), "self.debug") == 0);
	CHECK(elf_syms__debuglink(orig) == NULL);
	CHECK(lookup_is(s, off, NULL, 0));
	CHECK(add_debug_path(s, dbg) == 0);
	CHECK(lookup_is(s, off, "elfsym_test_target", 0));
	CHECK(lookup_is(s, uoff + 2, "elfsym_test_unsized", 2));
	/* A file of another build must not be merged. */
	CHECK(libc_offsets(&q, &m, libc, sizeof(libc)) == 0);
	if (elf_syms__build_id(s)[0])
		CHECK(add_debug_path(s, libc) == -EINVAL);
	CHECK(add_debug_path(s, "/proc/self/status") == -EINVAL);
	CHECK(lookup_is(s, off, "elfsym_test_target", 0));
out:
	elf_syms__free(orig);
	elf_syms__free(s);
}

static bool demangles_to(const char *mangled, const char *want)
{
	char *got = ebprof_demangle(mangled);
	bool ok = got && !strcmp(got, want);

	if (!ok)
		fprintf(stderr, "  demangle %s: got %s, want %s\n", mangled, got ? got : "NULL",
			want);
	free(got);
	return ok;
}

/* Each level names a template over the previous level twice: 30 levels would print
 * terabytes, so the demangler must give up (and quickly) instead. */
static bool expands_exponentially(void)
{
	char name[1024] = "_Z1f1a1bIS_S_E", ref[16];
	char *out;
	int level;

	for (level = 1; level <= 30; level++) {
		snprintf(ref, sizeof(ref), level < 10 ? "S%d_" : "S%c_",
			 level < 10 ? level : 'A' + level - 10);
		strcat(name, "S0_I");
		strcat(name, ref);
		strcat(name, ref);
		strcat(name, "E");
	}
	out = ebprof_demangle(name);
	free(out);
	return out != NULL;
}

static void test_demangle(void)
{
	char *lambda, *v0, *longname;

	CHECK(demangles_to("_ZN3foo3barEv", "foo::bar()"));
	CHECK(demangles_to("_ZN3foo3barEv.cold", "foo::bar() [clone .cold]"));
	CHECK(demangles_to("_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write"));
	lambda = ebprof_demangle("_ZSt4sortIN9__gnu_cxx17__normal_iteratorIPiSt6vectorIiSaIiEEEEZ4"
				 "mainEUliiE_EvT_S7_T0_");
	CHECK(lambda && strncmp(lambda, "void std::sort<", 15) == 0 &&
	      strstr(lambda, "main::{lambda(int, int)#1}"));
	free(lambda);
	v0 = ebprof_demangle("_RNvCs1234_7mycrate4main");
	CHECK(v0 && strstr(v0, "mycrate::main"));
	free(v0);
	CHECK(ebprof_demangle("main") == NULL);
	CHECK(ebprof_demangle("_Z") == NULL);
	CHECK(ebprof_demangle("") == NULL);
	CHECK(ebprof_demangle(NULL) == NULL);
	CHECK(!expands_exponentially());
	/* Too long to demangle on a small stack: left mangled. */
	longname = malloc(20001);
	if (longname) {
		memset(longname, 'a', 20000);
		memcpy(longname, "_ZN5", 4);
		longname[20000] = '\0';
		CHECK(ebprof_demangle(longname) == NULL);
		free(longname);
	}
}

static int memfd_with(const void *buf, size_t len)
{
	int fd = memfd_create("test_elfsym", MFD_CLOEXEC);

	if (fd >= 0 && len && write(fd, buf, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Opens len bytes as a file and looks up offsets all over it; nothing may crash. */
static void exercise(const void *buf, size_t len)
{
	struct elf_syms *s;
	const char *name;
	uint64_t off, so;
	int fd = memfd_with(buf, len);

	CHECK(fd >= 0);
	s = elf_syms__open(fd);
	if (s) {
		for (off = 0; off < len + 4096; off += 61) {
			name = elf_syms__lookup(s, off, &so);
			if (name)
				CHECK(strlen(name) < (1 << 20));
		}
		CHECK(elf_syms__lookup(s, UINT64_MAX, &so) == NULL || so < UINT64_MAX);
		CHECK(strlen(elf_syms__build_id(s)) <= 128);
		CHECK(!elf_syms__debuglink(s) || !strchr(elf_syms__debuglink(s), '/'));
		elf_syms__add_debug_file(s, fd);
		elf_syms__lookup(s, len / 2, &so);
	} else {
		CHECK(errno == EINVAL || errno == ENOMEM);
	}
	elf_syms__free(s);
	close(fd);
}

static void *read_whole(const char *path, size_t *len)
{
	struct stat st;
	void *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && st.st_size > 0 && (buf = malloc(st.st_size)))
		if (read(fd, buf, st.st_size) != st.st_size) {
			free(buf);
			buf = NULL;
		}
	*len = buf ? (size_t)st.st_size : 0;
	close(fd);
	return buf;
}

static void test_not_elf(void)
{
	static const char text[] = "#!/bin/sh\necho this is not ELF\n";
	struct elf_syms *s;
	int fd;

	errno = 0;
	CHECK(elf_syms__open(-1) == NULL && errno == EBADF);
	fd = memfd_with(NULL, 0);
	errno = 0;
	CHECK(fd >= 0 && elf_syms__open(fd) == NULL && errno == EINVAL);
	close(fd);
	fd = memfd_with(text, sizeof(text));
	errno = 0;
	CHECK(fd >= 0 && elf_syms__open(fd) == NULL && errno == EINVAL);
	close(fd);
	fd = open("/proc/self", O_RDONLY | O_DIRECTORY);
	errno = 0;
	CHECK(fd >= 0 && elf_syms__open(fd) == NULL && errno == EINVAL);
	close(fd);
	s = NULL;
	CHECK(elf_syms__lookup(s, 0, NULL) == NULL);
	elf_syms__free(NULL);
}

static void test_truncated(void)
{
	uint64_t q, m;
	char path[4096];
	size_t len, cut;
	void *buf;

	CHECK(libc_offsets(&q, &m, path, sizeof(path)) == 0);
	buf = read_whole(path, &len);
	CHECK(buf != NULL);
	if (!buf)
		return;
	for (cut = 1; cut < len && cut <= (64 << 10); cut *= 4)
		exercise(buf, cut);
	exercise(buf, 100);
	exercise(buf, 64 << 10);
	exercise(buf, len - 1);
	free(buf);
}

static uint32_t rng(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return *state >> 33;
}

/* A flip lands in the headers, in the section header table or anywhere, in equal parts. */
static size_t flip_pos(const unsigned char *buf, size_t len, uint64_t *seed)
{
	uint64_t shoff;

	switch (rng(seed) % 3) {
	case 0:
		return rng(seed) % (len < 4096 ? len : 4096);
	case 1:
		memcpy(&shoff, buf + 0x28, sizeof(shoff)); /* Elf64_Ehdr.e_shoff */
		if (shoff < len)
			return shoff + rng(seed) % (len - shoff);
		/* fall through */
	default:
		return rng(seed) % len;
	}
}

static void test_byte_flips(void)
{
	unsigned char *orig, *buf;
	uint64_t seed = 0x5eed;
	size_t len, i, k, flips;

	orig = read_whole(exe_path, &len);
	CHECK(orig && len > 4096);
	buf = orig ? malloc(len) : NULL;
	if (!buf || len <= 4096)
		goto out;
	for (i = 0; i < FLIP_ROUNDS; i++) {
		memcpy(buf, orig, len);
		flips = 1 + rng(&seed) % 16;
		for (k = 0; k < flips; k++)
			buf[flip_pos(orig, len, &seed)] ^= 1 + rng(&seed) % 255;
		exercise(buf, i % 10 == 9 ? rng(&seed) % len : len);
	}
out:
	free(buf);
	free(orig);
}

/* A hand-built ELF: .text at file offset 0x1000 (address 0x401000), nr function symbols
 * that all use one name of name_len bytes, at one address or at consecutive ones, a build
 * id only in a section (no PT_NOTE) and a .gnu_debuglink that tries to leave its directory. */
struct synth {
	unsigned char *buf;
	size_t len;
};

static const char synth_shstr[] = "\0.text\0.symtab\0.strtab\0.note.gnu.build-id\0"
				  ".gnu_debuglink\0.shstrtab";

static size_t synth_put(struct synth *e, const void *p, size_t n)
{
	size_t at = (e->len + 7) & ~(size_t)7;

	memcpy(e->buf + at, p, n);
	e->len = at + n;
	return at;
}

static void synth_symbols(struct synth *e, size_t nr, bool same_addr, Elf64_Shdr *sh)
{
	Elf64_Sym sym = {.st_name = 1,
			 .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
			 .st_shndx = 1,
			 .st_size = 1};
	size_t i;

	sh->sh_offset = synth_put(e, &(Elf64_Sym){0}, sizeof(sym));
	for (i = 0; i < nr; i++) {
		sym.st_value = 0x401000 + (same_addr ? 0 : i);
		synth_put(e, &sym, sizeof(sym));
	}
	sh->sh_size = (nr + 1) * sizeof(sym);
}

static void synth_notes(struct synth *e, Elf64_Shdr *note, Elf64_Shdr *link)
{
	static const char debuglink[] = "../../etc/passwd\0\0\0\0\0\0\0";
	unsigned char n[16 + 20] = {4, 0, 0, 0,	  20,  0,  0, 0, NT_GNU_BUILD_ID,
				    0, 0, 0, 'G', 'N', 'U'};
	int i;

	for (i = 0; i < 20; i++)
		n[16 + i] = i + 1;
	note->sh_offset = synth_put(e, n, sizeof(n));
	note->sh_size = sizeof(n);
	link->sh_offset = synth_put(e, debuglink, sizeof(debuglink));
	link->sh_size = sizeof(debuglink);
}

static bool synth_build(struct synth *e, size_t nr, size_t name_len, bool same_addr)
{
	Elf64_Ehdr eh = {
	    .e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT},
	    .e_type = ET_DYN,
	    .e_machine = EM_X86_64,
	    .e_version = EV_CURRENT,
	    .e_phoff = sizeof(eh),
	    .e_ehsize = sizeof(eh),
	    .e_phentsize = sizeof(Elf64_Phdr),
	    .e_phnum = 1,
	    .e_shentsize = sizeof(Elf64_Shdr),
	    .e_shnum = 7,
	    .e_shstrndx = 6};
	Elf64_Phdr ph = {.p_type = PT_LOAD,
			 .p_flags = PF_R | PF_X,
			 .p_offset = 0x1000,
			 .p_vaddr = 0x401000,
			 .p_filesz = 0x1000,
			 .p_memsz = 0x1000};
	Elf64_Shdr sh[7] = {
	    [1] = {1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x401000, 0x1000, 0x1000},
	    [2] = {.sh_name = 7,
		   .sh_type = SHT_SYMTAB,
		   .sh_link = 3,
		   .sh_info = 1,
		   .sh_addralign = 8,
		   .sh_entsize = sizeof(Elf64_Sym)},
	    [3] = {.sh_name = 15, .sh_type = SHT_STRTAB, .sh_size = name_len + 2},
	    [4] = {.sh_name = 23, .sh_type = SHT_NOTE, .sh_addralign = 4},
	    [5] = {.sh_name = 42, .sh_type = SHT_PROGBITS, .sh_addralign = 4},
	    [6] = {.sh_name = 57, .sh_type = SHT_STRTAB, .sh_size = sizeof(synth_shstr)},
	};

	e->buf = calloc(1, 0x2400 + name_len + (nr + 1) * sizeof(Elf64_Sym) + sizeof(sh));
	if (!e->buf)
		return false;
	e->len = 0x2000;
	memset(e->buf + 0x1000, 0x90, 0x1000);
	sh[3].sh_offset = e->len + 1;
	e->len += 2 + name_len; /* NUL, name, NUL */
	memset(e->buf + sh[3].sh_offset + 1, 'a', name_len);
	synth_symbols(e, nr, same_addr, &sh[2]);
	synth_notes(e, &sh[4], &sh[5]);
	sh[6].sh_offset = synth_put(e, synth_shstr, sizeof(synth_shstr));
	eh.e_shoff = synth_put(e, sh, sizeof(sh));
	memcpy(e->buf, &eh, sizeof(eh));
	memcpy(e->buf + sizeof(eh), &ph, sizeof(ph));
	return true;
}

/* CPU seconds this thread used: the bound below is against copying, not a speed claim, so
 * it counts CPU time, which another load on the machine does not stretch. */
static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 40k symbols sharing one 64 KiB name: copying each would take 2.6 GB. */
static void check_shared_names(bool same_addr)
{
	static const char want_id[] = "0102030405060708090a0b0c0d0e0f1011121314";
	struct synth e = {0};
	struct elf_syms *s = NULL;
	const char *name;
	uint64_t so = 1;
	double t0;
	int fd = -1;

	CHECK(synth_build(&e, 40000, 65535, same_addr));
	fd = e.buf ? memfd_with(e.buf, e.len) : -1;
	t0 = cpu_s();
	s = fd >= 0 ? elf_syms__open(fd) : NULL;
	CHECK(s != NULL);
	if (!s)
		goto out;
	CHECK(cpu_s() - t0 < 5);
	name = elf_syms__lookup(s, 0x1000 + (same_addr ? 0 : 1234), &so);
	CHECK(name && strspn(name, "a") == 65535 && name[65535] == '\0' && so == 0);
	CHECK(elf_syms__lookup(s, 0x1000 + (same_addr ? 1 : 4095), &so) == NULL || !same_addr);
	CHECK(strcmp(elf_syms__build_id(s), want_id) == 0);
	CHECK(elf_syms__debuglink(s) == NULL);
out:
	elf_syms__free(s);
	if (fd >= 0)
		close(fd);
	free(e.buf);
}

static void test_shared_names(void)
{
	check_shared_names(false);
	check_shared_names(true);
}

/* A file that shrinks after its ELF view was opened: its tables (read a window at a
 * time, after the view) are then past its end, which is an error (EIO), not a table left
 * out nor a read past the end. (A table past the end of the file as it was opened is
 * malformed and left out: test_byte_flips and the fuzzer make those.) */
static void test_shrunk(void)
{
	struct elf_section sec;
	char path[4096];
	struct elf_syms *s;
	struct elf_file *e;
	size_t len;
	void *buf = read_whole("/proc/self/exe", &len);
	int fd;

	tmp_path(path, sizeof(path), "shrunk");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CHECK(buf && fd >= 0 && write(fd, buf, len) == (ssize_t)len);
	e = fd >= 0 ? elf_file__open(fd) : NULL;
	CHECK(e != NULL);
	if (e) {
		/* The section headers read (libelf reads them on first use), then the cut. */
		CHECK(elf_file__section(e, ".symtab", &sec) == 0);
		CHECK(ftruncate(fd, 4096) == 0);
		errno = 0;
		s = elf_syms__open_elf(e);
		CHECK(s == NULL && errno == EIO);
		elf_syms__free(s);
		elf_file__free(e);
	}
	if (fd >= 0)
		close(fd);
	free(buf);
}

static void cleanup_tmpdir(void)
{
	run("rm -rf '%s'", tmpdir);
}

int main(void)
{
	ssize_t n = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);

	if (n <= 0 || !mkdtemp(tmpdir)) {
		perror("test_elfsym setup");
		return 1;
	}
	exe_path[n] = '\0';
	RUN_TEST(test_self_exe);
	RUN_TEST(test_demangle);
	RUN_TEST(test_not_elf);
	RUN_TEST(test_truncated);
	RUN_TEST(test_byte_flips);
	RUN_TEST(test_shared_names);
	RUN_TEST(test_shrunk);
	if (has_tool("readelf"))
		RUN_TEST(test_libc);
	else
		SKIP_TEST(test_libc, "readelf not installed");
	if (has_tool("objcopy")) {
		RUN_TEST(test_stripped);
		RUN_TEST(test_debug_merge);
	} else {
		SKIP_TEST(test_stripped, "objcopy not installed");
		SKIP_TEST(test_debug_merge, "objcopy not installed");
	}
	cleanup_tmpdir();
	HARNESS_EXIT();
}
