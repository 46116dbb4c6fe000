// SPDX-License-Identifier: Apache-2.0
/* Unit tests for the shared ELF view (src/elf/elf_file.c): this binary's own symbols and
 * load bias against /proc/self/maps, a stripped library's .dynsym, compressed sections,
 * build ids against readelf, and hostile input (not ELF, truncated, mutated). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "harness.h"
#include "shell.h"

#define FLIP_ROUNDS 200

static char tmpdir[] = "/tmp/test_elf_file.XXXXXX";

/* Local (in .symtab only), kept whole by noinline and the volatile pointer below. */
static __attribute__((noinline, used)) int elf_file_test_local(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 5 + 2;
}

static int (*volatile local_ptr)(int) = elf_file_test_local;

static struct elf_file *open_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct elf_file *e;

	if (fd < 0)
		return NULL;
	e = elf_file__open(fd);
	close(fd); /* the view keeps its own descriptor */
	return e;
}

static void tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

/* The mapping of /proc/self/maps holding addr: its start and file offset. */
static int map_of(uintptr_t addr, uint64_t *start, uint64_t *pgoff)
{
	unsigned long s, end, off;
	char line[4352];
	int err = -ENOENT;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %lx", &s, &end, &off) != 3 || addr < s || addr >= end)
			continue;
		*start = s;
		*pgoff = off;
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

static void test_self(void)
{
	struct elf_file *e = open_path("/proc/self/exe");
	uint64_t value = 0, size = 0, start = 0, pgoff = 0, bias = 0, va;
	uintptr_t fn = (uintptr_t)local_ptr;
	const struct elf_segment *segs;
	size_t n;

	CHECK(e != NULL);
	if (!e)
		return;
	CHECK(elf_file__machine(e) == EM_X86_64);
	CHECK(elf_file__is_64le(e));
	CHECK(elf_file__type(e) == ET_DYN || elf_file__type(e) == ET_EXEC);
	segs = elf_file__segments(e, &n);
	CHECK(n >= 2 && segs[0].offset == 0);
	CHECK(elf_file__symbol(e, "elf_file_test_local", &value, &size) == 0);
	CHECK(size > 0);
	CHECK(map_of(fn, &start, &pgoff) == 0);
	CHECK(elf_file__vaddr_bias(e, start, pgoff, &bias));
	CHECK(value + bias == fn);
	/* The same answer from a copy of the segments, after the file is gone. */
	CHECK(elf_segments__vaddr_bias(segs, n, start, pgoff, &va) && va == bias);
	/* File offset of the function -> its ELF address. */
	CHECK(elf_file__off_to_vaddr(e, fn - start + pgoff, &va) && va == value);
	CHECK(elf_file__vaddr_to_off(e, value, &va) && va == fn - start + pgoff);
	CHECK(!elf_file__vaddr_to_off(e, UINT64_MAX - 1, &va));
	CHECK(elf_file__symbol(e, "main", &value, NULL) == 0);
	CHECK(elf_file__symbol(e, "elf_file_test_no_such_symbol", &value, NULL) == -ENOENT);
	CHECK(elf_file__symbol(e, "", NULL, NULL) == -ENOENT);
	elf_file__free(e);
}

/* A library stripped of .symtab: globals are found through .dynsym, locals are gone. */
static void test_dynsym(void)
{
	char src[4200], lib[4200], stripped[4200];
	struct elf_file *e, *s;
	uint64_t v1 = 0, v2 = 0, sz = 0;
	FILE *f;

	tmp_path(src, sizeof(src), "lib.c");
	tmp_path(lib, sizeof(lib), "lib.so");
	tmp_path(stripped, sizeof(stripped), "lib.stripped.so");
	f = fopen(src, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("static int hidden(int x) { return x + 1; }\n"
	      "int exported(int x) { return hidden(x) * 2; }\n"
	      "int (*keep)(int) = hidden;\n",
	      f);
	fclose(f);
	CHECK(run("cc -O1 -shared -fPIC -Wl,--build-id %s -o %s", src, lib) == 0);
	CHECK(run("objcopy --strip-all %s %s", lib, stripped) == 0);
	e = open_path(lib);
	s = open_path(stripped);
	CHECK(e && s);
	if (e && s) {
		struct elf_section sec;

		CHECK(elf_file__symbol(e, "exported", &v1, &sz) == 0 && sz > 0);
		CHECK(elf_file__symbol(s, "exported", &v2, NULL) == 0 && v1 == v2);
		CHECK(elf_file__symbol(e, "hidden", NULL, NULL) == 0);
		CHECK(elf_file__symbol(s, "hidden", NULL, NULL) == -ENOENT);
		CHECK(elf_file__section(s, ".symtab", &sec) == -ENOENT);
		CHECK(elf_file__section(s, ".dynsym", &sec) == 0 && sec.type == SHT_DYNSYM);
	}
	elf_file__free(e);
	elf_file__free(s);
}

/* A symbol as the tables hold it: the reference elf_file__symbol must agree with. */
struct ref_sym {
	char *name;
	size_t order; /* .symtab's entries first, then .dynsym's */
	uint64_t value, size;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ref_sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* Appends the defined, named symbols of the first table of type, read with libelf. */
static size_t ref_table(Elf *elf, uint32_t type, struct ref_sym **v, size_t n, size_t *cap)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) && (!gelf_getshdr(scn, &sh) || sh.sh_type != type))
		;
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym st;
		const char *name;

		if (!gelf_getsym(d, (int)i, &st) || st.st_shndx == SHN_UNDEF || !st.st_name ||
		    !(name = elf_strptr(elf, sh.sh_link, st.st_name)))
			continue;
		if (n == *cap) {
			*cap = *cap ? 2 * *cap : 1024;
			*v = realloc(*v, *cap * sizeof(**v));
		}
		(*v)[n] = (struct ref_sym){strdup(name), n, st.st_value, st.st_size};
		n++;
	}
	return n;
}

/* The first symbol called name, or NULL. */
static const struct ref_sym *ref_find(const struct ref_sym *v, size_t n, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(v[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(v[lo].name, name) ? &v[lo] : NULL;
}

/* elf_file__symbol says of name what the tables say; fresh: on a view of its own, so
 * the answer comes before any index is built. Returns whether it agreed. */
static bool agrees(const char *path, struct elf_file *shared, const struct ref_sym *v, size_t n,
		   const char *name, bool fresh)
{
	const struct ref_sym *r = ref_find(v, n, name);
	struct elf_file *e = fresh ? open_path(path) : shared;
	uint64_t value = 0, size = 0;
	int err = e ? elf_file__symbol(e, name, &value, &size) : -EBADF;
	bool ok = r ? !err && value == r->value && size == r->size : err == -ENOENT;

	if (!ok)
		fprintf(stderr, "  %s: %s: %d %#llx, tables: %#llx\n", path, name, err,
			(unsigned long long)value, r ? (unsigned long long)r->value : 0ull);
	if (fresh)
		elf_file__free(e);
	return ok;
}

/* Every name of path's tables, and names just beside them (a suffix, a longer name), is
 * found as the tables say: through .dynsym's hash table and .symtab's strings first,
 * through the index once it is built; every fresh_every-th on a fresh view. */
static void check_lookups(const char *path, size_t fresh_every)
{
	struct elf_file *shared = open_path(path); /* first: it sets libelf's version */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	struct ref_sym *v = NULL;
	size_t n = 0, cap = 0, bad = 0;
	char other[512];

	CHECK(elf && shared);
	if (elf && shared) {
		n = ref_table(elf, SHT_SYMTAB, &v, n, &cap);
		n = ref_table(elf, SHT_DYNSYM, &v, n, &cap);
		qsort(v, n, sizeof(*v), ref_cmp);
	}
	for (size_t i = 0; i < n && bad < 5; i++) {
		if (i && !strcmp(v[i].name, v[i - 1].name))
			continue;
		snprintf(other, sizeof(other), "%sX", v[i].name);
		bad += !agrees(path, shared, v, n, v[i].name, i % fresh_every == 0);
		bad += !agrees(path, shared, v, n, other, i % fresh_every == 1);
		bad += !agrees(path, shared, v, n, v[i].name + 1, i % fresh_every == 2);
	}
	CHECK(n > 0 && bad == 0);
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	elf_file__free(shared);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

/* The C library this test runs on (stripped: .dynsym and its hash table only). */
static bool libc_path(char *out, size_t len)
{
	char line[4352], *p;
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && !found && fgets(line, sizeof(line), f)) {
		p = strchr(line, '/');
		found = p && strstr(p, "/libc.so");
		if (found)
			snprintf(out, len, "%.*s", (int)strcspn(p, "\n"), p);
	}
	if (f)
		fclose(f);
	return found;
}

static void test_lookups_agree(void)
{
	char lib[4200], stripped[4200], libc[4352];

	tmp_path(lib, sizeof(lib), "lib.so");
	tmp_path(stripped, sizeof(stripped), "lib.stripped.so");
	check_lookups(lib, 1);
	check_lookups(stripped, 1);
	check_lookups("/proc/self/exe", 50);
	CHECK(libc_path(libc, sizeof(libc)));
	check_lookups(libc, 7);
}

/* Reads what readelf says the build id is ("" when none). */
static void readelf_build_id(const char *path, char *out, size_t len)
{
	char cmd[4400];
	FILE *p;

	out[0] = '\0';
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null | sed -n 's/.*Build ID: //p'",
		 path);
	p = popen(cmd, "r");
	if (!p)
		return;
	if (!fgets(out, (int)len, p))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	pclose(p);
}

static void test_build_id(void)
{
	char want[256], got[2 * ELF_BUILD_ID_MAX + 1], lib[4200];
	struct elf_file *e;
	const uint8_t *id;

	tmp_path(lib, sizeof(lib), "lib.so");
	readelf_build_id(lib, want, sizeof(want));
	e = open_path(lib);
	CHECK(e && want[0]);
	if (!e)
		return;
	CHECK(elf_file__build_id(e, &id) == 20);
	elf_file__build_id_hex(e, got);
	CHECK(!strcmp(got, want));
	elf_file__free(e);
}

/* Section data equals the file's bytes; compressed sections come back decompressed and
 * bounded by max. */
static void test_sections(void)
{
	char src[4200], obj[4200];
	const void *data = NULL;
	struct elf_section sec;
	struct elf_file *e;
	size_t size = 0;
	FILE *f;

	tmp_path(src, sizeof(src), "lib.c");
	tmp_path(obj, sizeof(obj), "z.so");
	CHECK(run("cc -O1 -g -gz=zlib -shared -fPIC %s -o %s", src, obj) == 0);
	e = open_path(obj);
	CHECK(e != NULL);
	if (!e)
		return;
	CHECK(elf_file__section(e, ".debug_info", &sec) == 0);
	CHECK(sec.flags & SHF_COMPRESSED);
	CHECK(elf_file__section_data(e, &sec, 16, &data, &size) == -EFBIG);
	CHECK(elf_file__section_data(e, &sec, 1 << 20, &data, &size) == 0);
	CHECK(size > sec.size);
	/* Again: already decompressed, same answer. */
	CHECK(elf_file__section_data(e, &sec, 1 << 20, &data, &size) == 0 && size > sec.size);
	CHECK(elf_file__section(e, ".text", &sec) == 0 && sec.type == SHT_PROGBITS);
	CHECK(elf_file__section_data(e, &sec, 1 << 20, &data, &size) == 0 && size == sec.size);
	f = fopen(obj, "rb");
	if (f) {
		unsigned char buf[64];
		size_t n = size < sizeof(buf) ? size : sizeof(buf);

		CHECK(fseek(f, (long)sec.offset, SEEK_SET) == 0 && fread(buf, 1, n, f) == n);
		CHECK(!memcmp(buf, data, n));
		fclose(f);
	}
	CHECK(elf_file__section(e, ".bss", &sec) != 0 ||
	      elf_file__section_data(e, &sec, 1 << 20, &data, &size) == -ENOENT);
	elf_file__free(e);
}

/* GNU's older .zdebug form: a section named .zdebug_*, "ZLIB" and the size before the
 * stream. Made by objcopy from test_sections' library, where binutils can still write it
 * (2.40 can; a release that dropped zlib-gnu makes this a SKIP). */
static void test_zdebug(void)
{
	char obj[4200], gnu[4200];
	const void *data = NULL;
	struct elf_section sec;
	struct elf_file *e;
	size_t size = 0;

	tmp_path(obj, sizeof(obj), "z.so");
	tmp_path(gnu, sizeof(gnu), "zgnu.so");
	if (run("objcopy --compress-debug-sections=zlib-gnu %s %s 2>/dev/null", obj, gnu))
		SKIP("objcopy cannot write zlib-gnu (.zdebug) sections");
	e = open_path(gnu);
	CHECK(e && elf_file__section(e, ".zdebug_info", &sec) == 0);
	if (e && !elf_file__section(e, ".zdebug_info", &sec))
		CHECK(elf_file__section_data(e, &sec, 1 << 20, &data, &size) == 0 &&
		      size > sec.size);
	elf_file__free(e);
}

static int memfd_with(const void *buf, size_t len)
{
	int fd = memfd_create("elf_file_test", MFD_CLOEXEC);

	if (fd >= 0 && len && write(fd, buf, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Every call of the API on whatever opens; must neither crash nor leak (ASan in fuzz). */
static void exercise(const void *buf, size_t len)
{
	static const char *const names[] = {".text", ".eh_frame", ".debug_info", ".dynsym"};
	struct elf_section sec;
	struct elf_file *e;
	const void *data;
	uint64_t v, bias;
	size_t size, i;
	int fd = memfd_with(buf, len);

	if (fd < 0)
		return;
	e = elf_file__open(fd);
	close(fd);
	if (!e)
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!elf_file__section(e, names[i], &sec))
			elf_file__section_data(e, &sec, 1 << 20, &data, &size);
	elf_file__symbol(e, "main", &v, NULL);
	elf_file__symbol(e, "malloc", &v, NULL);
	elf_file__vaddr_bias(e, 0x400000, 0x1000, &bias);
	elf_file__off_to_vaddr(e, 0x1000, &v);
	elf_file__vaddr_to_off(e, v, &v);
	elf_file__free(e);
}

static void *read_whole(const char *path, size_t *len)
{
	struct stat st;
	void *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) || !(buf = malloc(st.st_size)) ||
	    read(fd, buf, st.st_size) != st.st_size) {
		free(buf);
		buf = NULL;
	} else {
		*len = st.st_size;
	}
	if (fd >= 0)
		close(fd);
	return buf;
}

static void test_hostile(void)
{
	static const char not_elf[] = "\177ELF but not really";
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	char lib[4200];
	size_t len = 0, i;
	unsigned char *buf;
	int fd;

	CHECK(elf_file__open(-1) == NULL && errno == EBADF);
	fd = memfd_with(not_elf, sizeof(not_elf));
	CHECK(fd >= 0 && elf_file__open(fd) == NULL && errno == EINVAL);
	close(fd);
	fd = memfd_with(NULL, 0);
	CHECK(fd >= 0 && elf_file__open(fd) == NULL && errno == EINVAL);
	close(fd);
	tmp_path(lib, sizeof(lib), "z.so");
	buf = read_whole(lib, &len);
	CHECK(buf != NULL);
	if (!buf)
		return;
	for (i = 1; i <= 64; i++)
		exercise(buf, len * i / 65);
	for (i = 0; i < FLIP_ROUNDS; i++) {
		unsigned char *copy = malloc(len);
		size_t k;

		if (!copy)
			break;
		memcpy(copy, buf, len);
		for (k = 0; k < 8; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			copy[(seed >> 33) % len] ^= (unsigned char)(seed >> 13);
		}
		exercise(copy, len);
		free(copy);
	}
	free(buf);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		printf("FAIL test_elf_file: mkdtemp\n");
		return 1;
	}
	RUN_TEST(test_self);
	if (has_tool("cc") && has_tool("objcopy") && has_tool("readelf")) {
		RUN_TEST(test_dynsym);
		RUN_TEST(test_lookups_agree); /* after test_dynsym: its libraries */
		RUN_TEST(test_build_id);
		RUN_TEST(test_sections);
		RUN_TEST(test_zdebug);
		RUN_TEST(test_hostile);
	} else {
		SKIP_TEST(test_dynsym, "cc, objcopy or readelf missing");
	}
	run("rm -rf %s", tmpdir);
	HARNESS_EXIT();
}
