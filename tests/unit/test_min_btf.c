// SPDX-License-Identifier: Apache-2.0
/* Unit tests for the minimal kernel BTF: generated for ebprof's own sample object from the
 * running kernel's BTF, checked member by member, loaded with it (root), and fed hostile
 * objects (not ELF, truncated, corrupted .BTF.ext, random flips). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "harness.h"
#include "loader/min_btf.h"
#include "sample.skel.h"

#define VMLINUX "/sys/kernel/btf/vmlinux"
#define FLIP_ROUNDS 300
#define MAX_MIN_BTF (64u << 10)

static char tmpdir[] = "/tmp/test_min_btf.XXXXXX";
static char min_path[4200]; /* generated from the kernel BTF by test_generate */
static const void *elf;	    /* the sample object's ELF image (in the skeleton) */
static size_t elf_sz;
static int kernel_btf_loads; /* libbpf's "loading kernel BTF" messages seen */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (strstr(fmt, "loading kernel BTF"))
		kernel_btf_loads++;
	return 0;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long)st.st_size;
}

static void tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

static int generate(const char *vmlinux, const void *image, size_t sz, const char *out)
{
	const void *elfs[] = {image};
	size_t sizes[] = {sz};

	return min_btf__generate(vmlinux, elfs, sizes, 1, out);
}

/* Bit offset of member name in struct id, looking inside anonymous members. */
static bool member_offset(const struct btf *btf, uint32_t id, const char *name, uint32_t *off,
			  uint32_t *type)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	for (uint32_t i = 0; t && btf_is_composite(t) && i < btf_vlen(t); i++) {
		const struct btf_member *m = btf_members(t) + i;
		const char *mn = btf__name_by_offset(btf, m->name_off);

		if (mn[0] && strcmp(mn, name) == 0) {
			*off = btf_member_bit_offset(t, i);
			*type = m->type;
			return true;
		}
		if (!mn[0] && member_offset(btf, m->type, name, off, type)) {
			*off += btf_member_bit_offset(t, i);
			return true;
		}
	}
	return false;
}

static bool same_files(const char *a, const char *b)
{
	struct btf *x = btf__parse_raw(a), *y = btf__parse_raw(b);
	uint32_t xs = 0, ys = 0;
	const void *xd = x ? btf__raw_data(x, &xs) : NULL;
	const void *yd = y ? btf__raw_data(y, &ys) : NULL;
	bool same = xd && yd && xs == ys && memcmp(xd, yd, xs) == 0;

	btf__free(x);
	btf__free(y);
	return same;
}

static void check_member(const struct btf *min, int32_t min_id, const struct btf *vml,
			 int32_t vml_id, const char *name)
{
	uint32_t moff = 0, voff = 0, mtype = 0, vtype = 0;
	bool in_min = member_offset(min, min_id, name, &moff, &mtype);
	bool in_vml = member_offset(vml, vml_id, name, &voff, &vtype);

	CHECK(in_min && in_vml);
	CHECK(moff == voff);
	if (!in_min || !in_vml || moff != voff)
		fprintf(stderr, "  task_struct.%s: %u vs %u\n", name, moff, voff);
	else
		printf("  task_struct.%s at bit %u, %lld bytes\n", name, moff,
		       (long long)btf__resolve_size(min, mtype));
	CHECK(in_min && btf__resolve_size(min, mtype) == btf__resolve_size(vml, vtype));
}

/* group_leader stays a pointer to the (pruned) task_struct. */
static void check_group_leader(const struct btf *min, int32_t task)
{
	uint32_t off, type;
	const struct btf_type *t;

	CHECK(member_offset(min, task, "group_leader", &off, &type));
	t = btf__type_by_id(min, type);
	CHECK(t && btf_is_ptr(t) && t->type == (uint32_t)task);
}

static void test_generate(void)
{
	/* What the sampler reads: group_leader->comm (process name), tgid (fork hook). */
	const char *members[] = {"group_leader", "comm", "tgid"};
	uint64_t t0 = now_ns();
	int err = generate(VMLINUX, elf, elf_sz, min_path); /* first: the real cost */
	uint64_t gen_ns = now_ns() - t0;
	long sz = file_size(min_path);
	struct btf *min = btf__parse_raw(min_path), *vml = btf__parse_raw(VMLINUX);
	int32_t mt, vt;

	printf("  min BTF: %ld bytes, generated in %.1f ms (vmlinux BTF %ld bytes)\n", sz,
	       gen_ns / 1e6, file_size(VMLINUX));
	CHECK(err == 0);
	CHECK(sz > 0 && sz < (long)MAX_MIN_BTF);
	CHECK(min != NULL && vml != NULL);
	if (!min || !vml)
		goto cleanup;
	printf("  %u types (vmlinux: %u)\n", btf__type_cnt(min) - 1, btf__type_cnt(vml) - 1);
	mt = btf__find_by_name_kind(min, "task_struct", BTF_KIND_STRUCT);
	vt = btf__find_by_name_kind(vml, "task_struct", BTF_KIND_STRUCT);
	CHECK(mt > 0 && vt > 0);
	if (mt <= 0 || vt <= 0)
		goto cleanup;
	CHECK(btf__type_by_id(min, mt)->size == btf__type_by_id(vml, vt)->size);
	CHECK(btf_vlen(btf__type_by_id(min, mt)) < btf_vlen(btf__type_by_id(vml, vt)));
	for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++)
		check_member(min, mt, vml, vt, members[i]);
	check_group_leader(min, mt);
cleanup:
	btf__free(min);
	btf__free(vml);
}

/* The output holds every type its own relocations need, so regenerating from it gives
 * it back; two copies of one object need nothing more than one. */
static void test_fixed_point(void)
{
	const void *elfs[] = {elf, elf};
	size_t sizes[] = {elf_sz, elf_sz};
	char again[4200], twice[4200];

	tmp_path(again, sizeof(again), "again.btf");
	tmp_path(twice, sizeof(twice), "twice.btf");
	CHECK(generate(min_path, elf, elf_sz, again) == 0);
	CHECK(same_files(min_path, again));
	CHECK(min_btf__generate(VMLINUX, elfs, sizes, 2, twice) == 0);
	CHECK(same_files(min_path, twice));
}

/* Opens and loads the sample object, with the min BTF or not. Returns it (the caller
 * closes it) or NULL, and the time it took in *ns. */
static struct bpf_object *timed_load(const char *btf_path, uint64_t *ns)
{
	LIBBPF_OPTS(bpf_object_open_opts, o, .btf_custom_path = btf_path);
	uint64_t t0 = now_ns();
	struct bpf_object *obj = bpf_object__open_mem(elf, elf_sz, &o);

	if (obj && bpf_object__load(obj)) {
		bpf_object__close(obj);
		obj = NULL;
	}
	*ns = now_ns() - t0;
	return obj;
}

/* Counts instructions that differ after relocation, map references (fds) aside. */
static int insn_diffs(const struct bpf_object *a, const struct bpf_object *b)
{
	struct bpf_program *pa = NULL, *pb = NULL;
	int diffs = 0;

	while ((pa = bpf_object__next_program(a, pa)) && (pb = bpf_object__next_program(b, pb))) {
		const struct bpf_insn *x = bpf_program__insns(pa), *y = bpf_program__insns(pb);
		size_t n = bpf_program__insn_cnt(pa);

		if (!x || !y || n != bpf_program__insn_cnt(pb)) {
			diffs++;
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			if (x[i].code == (BPF_LD | BPF_IMM | BPF_DW) && x[i].src_reg)
				i++; /* a map's fd or address: differs between objects */
			else
				diffs += memcmp(&x[i], &y[i], sizeof(x[i])) != 0;
		}
	}
	return diffs;
}

/* The real proof: libbpf relocates every instruction as it does against the kernel's
 * BTF, the kernel verifies both programs, and libbpf never loads the kernel's BTF. */
static void test_load(void)
{
	struct bpf_object *with, *without;
	uint64_t with_ns, without_ns;
	int loads_with;

	kernel_btf_loads = 0;
	with = timed_load(min_path, &with_ns);
	loads_with = kernel_btf_loads;
	kernel_btf_loads = 0;
	without = timed_load(NULL, &without_ns);
	printf("  open+load: %.1f ms with the min BTF, %.1f ms without (kernel BTF loaded %d "
	       "and %d times)\n",
	       with_ns / 1e6, without_ns / 1e6, loads_with, kernel_btf_loads);
	CHECK(with != NULL);
	CHECK(without != NULL);
	CHECK(loads_with == 0);
	CHECK(kernel_btf_loads > 0);
	if (with && without)
		CHECK(insn_diffs(with, without) == 0);
	bpf_object__close(with);
	bpf_object__close(without);
}

/* Returns the file offset and size of section name in an ELF image, or false. */
static bool section_at(const void *image, size_t sz, const char *name, size_t *off, size_t *len)
{
	char *copy = malloc(sz);
	Elf *e = copy ? elf_memory(memcpy(copy, image, sz), sz) : NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;
	GElf_Shdr sh;

	if (e && !elf_getshdrstrndx(e, &shstrndx)) {
		while (!found && (scn = elf_nextscn(e, scn)) && gelf_getshdr(scn, &sh)) {
			const char *n = elf_strptr(e, shstrndx, sh.sh_name);

			found = n && strcmp(n, name) == 0;
		}
	}
	if (found) {
		*off = sh.sh_offset;
		*len = sh.sh_size;
	}
	if (e)
		elf_end(e);
	free(copy);
	return found;
}

/* Runs generate on a copy of the sample with 4 bytes at off replaced by v. */
static int generate_patched(size_t off, uint32_t v, const char *out)
{
	uint8_t *copy = malloc(elf_sz);
	int err;

	memcpy(copy, elf, elf_sz);
	memcpy(copy + off, &v, sizeof(v));
	err = generate(min_path, copy, elf_sz, out);
	free(copy);
	return err;
}

static void test_hostile_ext(void)
{
	size_t ext = 0, ext_len = 0;
	uint32_t hdr_len, core_off, rec_size;
	char out[4200];
	size_t rec;

	tmp_path(out, sizeof(out), "hostile.btf");
	/* Our own object, built with CO-RE relocations: a header and records at least. */
	CHECK(section_at(elf, elf_sz, ".BTF.ext", &ext, &ext_len));
	CHECK(ext_len >= 32);
	if (ext_len < 32)
		return;
	memcpy(&hdr_len, (const uint8_t *)elf + ext + 4, 4);
	memcpy(&core_off, (const uint8_t *)elf + ext + 24, 4);
	rec = ext + hdr_len + core_off; /* u32 rec_size, then sec_name_off, num_info, records */
	memcpy(&rec_size, (const uint8_t *)elf + rec, 4);
	CHECK(rec_size >= 16);
	CHECK(generate_patched(ext, 0xffffffff, out) == -EINVAL);      /* magic, version */
	CHECK(generate_patched(ext + 4, 0x7fffffff, out) == -EINVAL);  /* hdr_len */
	CHECK(generate_patched(ext + 28, 0xfffffff0, out) == -EINVAL); /* core_relo_len */
	CHECK(generate_patched(rec, 7, out) == -EINVAL);	       /* rec_size */
	CHECK(generate_patched(rec + 8, 0x7fffffff, out) == -EINVAL);  /* num_info */
	CHECK(generate_patched(rec + 16, 0x7fffffff, out) == -EINVAL); /* type_id */
	CHECK(generate_patched(rec + 20, 0x7fffffff, out) == -EINVAL); /* access_str_off */
	CHECK(generate_patched(rec + 24, 99, out) == -EOPNOTSUPP);     /* kind */
	CHECK(generate_patched(rec + 24, 7, out) == -EOPNOTSUPP);      /* TYPE_ID_TARGET */
}

static void test_hostile_buffers(void)
{
	static const char junk[] = "definitely not an ELF file, just bytes";
	const void *elfs[] = {NULL};
	size_t sizes[] = {0};
	char out[4200], bad[4200];
	FILE *f;

	tmp_path(out, sizeof(out), "hostile.btf");
	tmp_path(bad, sizeof(bad), "garbage.btf");
	CHECK(generate(min_path, junk, sizeof(junk), out) == -EINVAL);
	CHECK(generate(min_path, elf, 64, out) < 0);
	CHECK(generate(min_path, elf, elf_sz / 2, out) < 0);
	CHECK(min_btf__generate(min_path, elfs, sizes, 1, out) == -EINVAL);
	CHECK(min_btf__generate(NULL, elfs, sizes, 0, out) == -EINVAL);
	CHECK(generate("/nonexistent/vmlinux", elf, elf_sz, out) == -ENOENT);
	f = fopen(bad, "w");
	if (f) {
		fputs(junk, f);
		fclose(f);
	}
	CHECK(generate(bad, elf, elf_sz, out) < 0);
	CHECK(access(out, F_OK) != 0); /* nothing written on failure */
}

/* Random byte flips in .BTF and .BTF.ext: any answer but a crash or a hang is fine. */
static void test_flips(void)
{
	size_t off[2] = {0}, len[2] = {0};
	uint8_t *copy = malloc(elf_sz);
	int ok = 0, failed = 0;
	char out[4200];

	tmp_path(out, sizeof(out), "flip.btf");
	CHECK(section_at(elf, elf_sz, ".BTF", &off[0], &len[0]));
	CHECK(section_at(elf, elf_sz, ".BTF.ext", &off[1], &len[1]));
	srand(12345);
	for (int round = 0; copy && len[0] && len[1] && round < FLIP_ROUNDS; round++) {
		int which = round % 2;

		memcpy(copy, elf, elf_sz);
		for (int k = 0; k < 1 + rand() % 8; k++)
			copy[off[which] + (size_t)rand() % len[which]] ^=
			    (uint8_t)(1 + rand() % 255);
		if (generate(min_path, copy, elf_sz, out) == 0)
			ok++;
		else
			failed++;
	}
	printf("  %d flipped objects: %d generated, %d refused\n", ok + failed, ok, failed);
	CHECK(ok + failed == FLIP_ROUNDS);
	free(copy);
}

static void test_kernel_id(void)
{
	char a[256], b[256], tiny[4];
	uint64_t t0 = now_ns();
	int err = min_btf__kernel_id(a, sizeof(a));

	printf("  kernel id %s (%.2f ms)\n", err ? "?" : a, (now_ns() - t0) / 1e6);
	CHECK(err == 0);
	CHECK(min_btf__kernel_id(b, sizeof(b)) == 0);
	CHECK(strcmp(a, b) == 0);
	CHECK(strspn(a, "0123456789abcdefbt-") == strlen(a) && strlen(a) > 8);
	CHECK(min_btf__kernel_id(tiny, sizeof(tiny)) == -ENOSPC);
}

int main(void)
{
	libbpf_set_print(quiet_print);
	elf_version(EV_CURRENT);
	elf = sample_bpf__elf_bytes(&elf_sz);
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	tmp_path(min_path, sizeof(min_path), "min.btf");
	RUN_TEST(test_kernel_id);
	if (access(VMLINUX, R_OK) == 0) {
		RUN_TEST(test_generate);
		RUN_TEST(test_fixed_point);
		RUN_TEST(test_hostile_buffers);
		RUN_TEST(test_hostile_ext);
		RUN_TEST(test_flips);
	} else {
		SKIP_TEST(test_generate, "no " VMLINUX);
	}
	if (geteuid() == 0 && access(min_path, R_OK) == 0)
		RUN_TEST(test_load);
	else
		SKIP_TEST(test_load, "needs root and the generated BTF");
	nftw(tmpdir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
	HARNESS_EXIT();
}
