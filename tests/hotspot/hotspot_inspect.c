// SPDX-License-Identifier: Apache-2.0
/* hotspot_inspect PID [--dump | --nmethods CLASS]: runs ebprof's HotSpot discovery on a
 * live JVM, the way the profiler does, and prints what it learned: the version and
 * whether the layout is complete; --dump: every table entry; --nmethods: for each
 * compiled method of CLASS, each distinct chain of inlined methods its debug points name,
 * with lines. tests/kernel/hotspot.sh checks discovery and naming with it on every JDK. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "interp/hotspot/hotspot_elf.h"
#include "interp/hotspot/hotspot_layout.h"
#include "interp/hotspot/hotspot_method.h"
#include "interp/hotspot/hotspot_vm.h"
#include "jvm.h"

static void print_entry(const char *key, uint64_t value, void *ctx)
{
	printf("%s = %#llx\n", key, (unsigned long long)value);
}

static uint64_t rd64(const struct hs_mem *m, uint64_t a)
{
	uint64_t v = 0;

	m->read(m->ctx, a, &v, 8);
	return v;
}

static uint32_t rd32(const struct hs_mem *m, uint64_t a)
{
	uint32_t v = 0;

	m->read(m->ctx, a, &v, 4);
	return v;
}

/* "Class.method (File.java:LINE)" of one scope. */
static void scope_name(const struct hs_mem *m, const struct hs_layout *l,
		       const struct hs_scope_frame *f, char *out, size_t cap)
{
	struct hs_method hm;

	if (hs_method__read(m, l, f->method, &hm)) {
		snprintf(out, cap, "[unreadable method %#llx]", (unsigned long long)f->method);
		return;
	}
	snprintf(out, cap, "%s.%s (%s:%d)", hm.klass, hm.name, hm.file,
		 hs_method__line(l, &hm, f->bci));
	/* HS_INSPECT_HEX=1: the line-number table's bytes, for recording unit-test data. */
	if (getenv("HS_INSPECT_HEX") && hm.lines) {
		printf("lines %s.%s:", hm.klass, hm.name);
		for (uint32_t i = 0; i < hm.nlines && i < 32; i++)
			printf(" %02x", hm.lines[i]);
		printf("\n");
	}
	free(hm.lines);
}

static bool blob_is_nmethod(const struct hs_mem *m, const struct hs_layout *l, uint64_t cb)
{
	char name[16] = "";
	uint8_t kind = 0;

	if (l->cb_kind != HS_NONE)
		return !m->read(m->ctx, cb + l->cb_kind, &kind, 1) && kind == l->kind_nmethod;
	m->read(m->ctx, rd64(m, cb + l->cb_name), name, 8);
	return !strncmp(name, "nmethod", 8);
}

/* Prints each distinct inlining chain of nmethod nm's debug points. */
static void print_chains(const struct hs_mem *m, const struct hs_layout *l, uint64_t nm)
{
	static int32_t offs[4096];
	char seen[64][2048], line[2048];
	int n, nseen = 0;
	uint64_t code;
	int32_t id = 0;

	hs_nmethod__compile_id(m, l, nm, &id);
	n = hs_nmethod__pc_offsets(m, l, nm, &code, offs, 4096);
	for (int i = 0; i < n; i++) {
		struct hs_scope_frame f[HS_INLINE_MAX];
		int k = hs_nmethod__scopes(m, l, nm, code + offs[i], f, HS_INLINE_MAX);
		size_t at = 0;
		bool dup = false;

		if (k <= 0)
			continue;
		for (int j = 0; j < k && at < sizeof(line); j++) {
			char one[3 * HS_NAME_MAX + 32];

			scope_name(m, l, &f[j], one, sizeof(one));
			at += snprintf(line + at, sizeof(line) - at, "%s%s", j ? " <- " : "", one);
		}
		for (int j = 0; j < nseen && !dup; j++)
			dup = !strcmp(seen[j], line);
		if (dup || nseen == 64)
			continue;
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", line);
		printf("nmethod %d: %s\n", id, line);
	}
}

/* Walks every code heap's blocks (HeapBlock headers, lengths in segments; a free block's
 * first segment map byte is 0xff) and prints the chains of CLASS's nmethods. */
static void walk_heaps(const struct hs_mem *m, const struct hs_layout *l, const char *klass)
{
	uint64_t ga = rd64(m, l->code_heaps), data = rd64(m, ga + l->ga_data);
	int nheaps = (int)rd32(m, ga + l->ga_len);

	for (int h = 0; h < nheaps && h < 8; h++) {
		uint64_t heap = rd64(m, data + 8ULL * h);
		uint64_t low = rd64(m, heap + l->heap_memory + l->vs_low);
		uint64_t high = rd64(m, heap + l->heap_memory + l->vs_high);
		uint64_t segmap = rd64(m, heap + l->heap_segmap + l->vs_low);
		uint32_t log2 = rd32(m, heap + l->heap_log2_segment);
		uint64_t seg = 0, nsegs = log2 < 16 ? (high - low) >> log2 : 0;

		while (seg < nsegs) {
			uint64_t blk = low + (seg << log2), cb = blk + l->heap_block_size;
			uint32_t len = rd32(m, blk);
			uint8_t mark = 0xff;
			struct hs_scope_frame top;
			struct hs_method hm;

			if (!len)
				break;
			m->read(m->ctx, segmap + seg, &mark, 1);
			seg += len;
			if (mark == 0xff || !blob_is_nmethod(m, l, cb))
				continue;
			top.method = rd64(m, cb + l->nm_method);
			if (hs_method__read(m, l, top.method, &hm))
				continue;
			if (!strcmp(hm.klass, klass))
				print_chains(m, l, cb);
			free(hm.lines);
		}
	}
}

int main(int argc, char **argv)
{
	struct hs_mem mem = {.read = jvm_read};
	uint64_t syms[HS_SYM__COUNT], bias = 0;
	struct hs_vm *vm = NULL;
	struct hs_layout layout;
	const char *missing;
	uint32_t nf, nt, nc;
	char path[4096];
	struct hs_elf e;
	pid_t pid;
	int err;

	if (argc < 2) {
		fprintf(stderr, "usage: hotspot_inspect PID [--dump]\n");
		return 2;
	}
	pid = atoi(argv[1]);
	mem.ctx = (void *)(intptr_t)pid;
	err = jvm_find_libjvm(pid, &e, &bias, path, sizeof(path));
	if (err) {
		fprintf(stderr, "hotspot_inspect: no libjvm.so in pid %d: %s\n", pid,
			strerror(-err));
		return 1;
	}
	jvm_syms(&e, bias, syms);
	err = hs_vm__read(&mem, syms, &vm);
	if (err) {
		fprintf(stderr, "hotspot_inspect: %s: tables unreadable: %s\n", path,
			strerror(-err));
		return 1;
	}
	hs_vm__counts(vm, &nf, &nt, &nc);
	printf("libjvm %s: %u fields, %u types, %u constants\n", path, nf, nt, nc);
	if (argc > 2 && !strcmp(argv[2], "--dump"))
		hs_vm__each(vm, print_entry, NULL);
	err = hs_layout__from_vm(vm, &mem, &layout, &missing);
	printf("version %s (feature %u): layout %s%s\n", layout.release, layout.major,
	       err ? "incomplete, missing " : "complete", err ? missing : "");
	if (!err && argc > 3 && !strcmp(argv[2], "--nmethods"))
		walk_heaps(&mem, &layout, argv[3]);
	hs_vm__free(vm);
	return 0;
}
