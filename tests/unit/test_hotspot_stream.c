// SPDX-License-Identifier: Apache-2.0
/* Unit tests of the HotSpot decoders: line-number tables recorded from OpenJDK 17.0.15
 * (plain ints) and 21.0.13 (UNSIGNED5) by tests/hotspot/hotspot_inspect, checked against
 * javap -l of the same classes; scope records and PcDesc search on tables written here;
 * the VMStructs reader on a table laid out in this process as a JVM lays out its own. */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "interp/hotspot/hotspot_stream.h"
#include "interp/hotspot/hotspot_vm.h"

/* Spin.main: javap -l says line 6: 0, line 7: 17, line 8: 55, line 9: 62. */
static const uint8_t spin_main_17[] = {0x06, 0x89, 0xff, 0x4c, 0x02, 0x39, 0x00};
static const uint8_t spin_main_21[] = {0x06, 0x89, 0xff, 0x4d, 0x03, 0x39, 0x00};
/* java.lang.Long.parseLong(String): line 836: 0 on 17, line 832: 0 on 21. */
static const uint8_t parse_long_17[] = {0xff, 0x00, 0xc8, 0x17, 0x00};
static const uint8_t parse_long_21[] = {0xff, 0x01, 0xc1, 0x18, 0x00};

static void check_spin(const uint8_t *t, size_t n, enum hs_ints ints)
{
	static const int want[][2] = {{0, 6},  {5, 6},	{17, 7}, {30, 7},
				      {55, 8}, {61, 8}, {62, 9}, {70, 9}};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(hs_line_of(t, n, ints, want[i][0]) == want[i][1]);
	CHECK(hs_line_of(t, n, ints, -1) == 6); /* synchronization entry: bci 0 */
}

static void test_lines_recorded(void)
{
	check_spin(spin_main_17, sizeof(spin_main_17), HS_INTS_PLAIN);
	check_spin(spin_main_21, sizeof(spin_main_21), HS_INTS_EXCESS1);
	CHECK(hs_line_of(parse_long_17, sizeof(parse_long_17), HS_INTS_PLAIN, 3) == 836);
	CHECK(hs_line_of(parse_long_21, sizeof(parse_long_21), HS_INTS_EXCESS1, 3) == 832);
	/* The other encoding reads another number: the two must not be confused. */
	CHECK(hs_line_of(parse_long_21, sizeof(parse_long_21), HS_INTS_PLAIN, 3) != 832);
}

static void test_lines_truncated(void)
{
	/* Cut inside the 0xff pair's ints: the pairs before it still count, nothing after. */
	CHECK(hs_line_of(spin_main_17, 3, HS_INTS_PLAIN, 60) == 7);
	CHECK(hs_line_of(spin_main_17, 0, HS_INTS_PLAIN, 0) == -1);
	/* A zero byte inside an UNSIGNED5 int is invalid: the pair is not used. */
	static const uint8_t zero[] = {0x06, 0xff, 0x00, 0x03, 0x00};
	CHECK(hs_line_of(zero, sizeof(zero), HS_INTS_EXCESS1, 10) == 6);
}

static void test_ints(void)
{
	/* 1664 = 192 + 23 * 64 (plain: 0xc0 then 0x17; UNSIGNED5: each byte + 1). */
	static const uint8_t plain[] = {0xc0, 0x17}, x1[] = {0xc1, 0x18};
	struct hs_stream a = {.p = plain, .n = 2}, b = {.p = x1, .n = 2, .ints = HS_INTS_EXCESS1};
	/* Five bytes at most: the fifth ends the number whatever it is. */
	static const uint8_t five[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0x07};
	struct hs_stream c = {.p = five, .n = sizeof(five)};

	CHECK(hs_stream__u32(&a) == 1664 && !a.bad && a.pos == 2);
	CHECK(hs_stream__u32(&b) == 1664 && !b.bad && b.pos == 2);
	hs_stream__u32(&c);
	CHECK(!c.bad && c.pos == 5);
	a.pos = 1;
	CHECK(hs_stream__s32(&a) == -12 && !a.bad); /* 0x17 = 23: zigzag -12 */
	a.pos = 2;
	hs_stream__u32(&a);
	CHECK(a.bad);
}

/* Scope records as a JVM writes them: sender offset, method index, bci + 1. */
static void test_scopes(void)
{
	/* [0] unused; @1: inlined leaf (method 2, bci 4), sender @5; @5: outer (method 1,
	 * bci 17), no sender. UNSIGNED5, so every byte is one more. */
	static const uint8_t d[] = {0x00, 0x06, 0x03, 0x06, 0x00, 0x01, 0x02, 0x13};
	struct hs_scope s;

	CHECK(hs_scope_at(d, sizeof(d), 1, HS_INTS_EXCESS1, &s) == 0);
	CHECK(s.sender == 5 && s.method_index == 2 && s.bci == 4);
	CHECK(hs_scope_at(d, sizeof(d), 5, HS_INTS_EXCESS1, &s) == 0);
	CHECK(s.sender == 0 && s.method_index == 1 && s.bci == 17);
	CHECK(hs_scope_at(d, sizeof(d), 0, HS_INTS_EXCESS1, &s) == -EINVAL);
	CHECK(hs_scope_at(d, sizeof(d), 8, HS_INTS_EXCESS1, &s) == -EINVAL);
	CHECK(hs_scope_at(d, 7, 5, HS_INTS_EXCESS1, &s) == -EINVAL); /* cut before the bci */
}

static void test_pcdesc(void)
{
	/* {pc_offset, scope_offset, obj_offset, flags} x 4, and the end sentinel HotSpot
	 * writes (pc offset past the code, no scope) */
	static const int32_t t[] = {-1, 0, 0,  0,  12, 7, 0,	      0, 40, 19,
				    0,	0, 41, 30, 0,  0, 0x7fffffff, 0, 0,  0};
	const uint8_t *b = (const uint8_t *)t;

	CHECK(hs_pcdesc_scope(b, sizeof(t), 16, 0, 4, 12) == 7);
	CHECK(hs_pcdesc_scope(b, sizeof(t), 16, 0, 4, 13) == 19);
	CHECK(hs_pcdesc_scope(b, sizeof(t), 16, 0, 4, 41) == 30);
	/* past the last debug point: the sentinel has no scope, the one before has */
	CHECK(hs_pcdesc_scope(b, sizeof(t), 16, 0, 4, 42) == 30);
	/* no sentinel, past the end: the last entry */
	CHECK(hs_pcdesc_scope(b, 4 * 16, 16, 0, 4, 42) == 30);
	/* before the first real one: the dummy at -1 has no scope, nothing before it */
	CHECK(hs_pcdesc_scope(b, sizeof(t), 16, 0, 4, -1) == -1);
	CHECK(hs_pcdesc_scope(b, 15, 16, 0, 4, 12) == -1);	   /* not one whole entry */
	CHECK(hs_pcdesc_scope(b, sizeof(t), 16, 0, 14, 12) == -1); /* member past the entry */
}

/* ---- the VMStructs reader on tables in our own memory ---- */

struct vm_struct_entry { /* as HotSpot declares it */
	const char *type, *field, *type_string;
	int32_t is_static;
	uint64_t offset;
	void *address;
};
struct vm_type_entry {
	const char *type, *super;
	int32_t oop, integer, unsign;
	uint64_t size;
};
struct vm_int_entry {
	const char *name;
	int32_t value;
};
struct vm_long_entry {
	const char *name;
	uint64_t value;
};

static int read_self(void *ctx, uint64_t addr, void *buf, size_t len)
{
	memcpy(buf, (const void *)addr, len);
	return 0;
}

static int release_static;
static struct vm_struct_entry structs[] = {
    {"CodeBlob", "_name", "const char*", 0, 0x60, NULL},
    {"CodeBlob", "_frame_complete_offset", "int16_t", 0, 0x36, NULL},
    {"HeapBlock::Header", "_length", "size_t", 0, 0, NULL},
    {"CodeCache", "_heaps", "GrowableArray<CodeHeap*>*", 1, 0, &release_static},
    {NULL, NULL, NULL, 0, 0, NULL},
};
static struct vm_type_entry types[] = {
    {"PcDesc", NULL, 0, 0, 0, 16}, {"int16_t", NULL, 0, 1, 0, 2}, {NULL}};
static struct vm_int_entry ints[] = {{"CodeBlobKind::Nmethod", 1}, {"neg", -2}, {NULL}};
static struct vm_long_entry longs[] = {{"big", 1ULL << 40}, {NULL}};
static void *p_structs = structs, *p_types = types, *p_ints = ints, *p_longs = longs;
static int32_t shape[HS_SYM__COUNT];

static void syms_of_self(uint64_t *s)
{
	static const struct {
		enum hs_sym sym;
		int32_t value;
	} v[] = {
	    {HS_SYM_STRUCT_TYPE_NAME, offsetof(struct vm_struct_entry, type)},
	    {HS_SYM_STRUCT_FIELD_NAME, offsetof(struct vm_struct_entry, field)},
	    {HS_SYM_STRUCT_TYPE_STRING, offsetof(struct vm_struct_entry, type_string)},
	    {HS_SYM_STRUCT_IS_STATIC, offsetof(struct vm_struct_entry, is_static)},
	    {HS_SYM_STRUCT_OFFSET, offsetof(struct vm_struct_entry, offset)},
	    {HS_SYM_STRUCT_ADDRESS, offsetof(struct vm_struct_entry, address)},
	    {HS_SYM_STRUCT_STRIDE, sizeof(struct vm_struct_entry)},
	    {HS_SYM_TYPE_NAME, offsetof(struct vm_type_entry, type)},
	    {HS_SYM_TYPE_SIZE, offsetof(struct vm_type_entry, size)},
	    {HS_SYM_TYPE_STRIDE, sizeof(struct vm_type_entry)},
	    {HS_SYM_INT_NAME, offsetof(struct vm_int_entry, name)},
	    {HS_SYM_INT_VALUE, offsetof(struct vm_int_entry, value)},
	    {HS_SYM_INT_STRIDE, sizeof(struct vm_int_entry)},
	    {HS_SYM_LONG_NAME, offsetof(struct vm_long_entry, name)},
	    {HS_SYM_LONG_VALUE, offsetof(struct vm_long_entry, value)},
	    {HS_SYM_LONG_STRIDE, sizeof(struct vm_long_entry)},
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		shape[v[i].sym] = v[i].value;
		s[v[i].sym] = (uint64_t)&shape[v[i].sym];
	}
	s[HS_SYM_STRUCTS] = (uint64_t)&p_structs;
	s[HS_SYM_TYPES] = (uint64_t)&p_types;
	s[HS_SYM_INTS] = (uint64_t)&p_ints;
	s[HS_SYM_LONGS] = (uint64_t)&p_longs;
}

static void test_vm_tables(void)
{
	struct hs_mem mem = {.read = read_self};
	uint64_t syms[HS_SYM__COUNT] = {0}, v;
	struct hs_vm *vm = NULL;
	uint32_t nf, nt, nc;
	int64_t c;

	syms_of_self(syms);
	CHECK(hs_vm__read(&mem, syms, &vm) == 0);
	if (!vm)
		return;
	hs_vm__counts(vm, &nf, &nt, &nc);
	CHECK(nf == 4 && nt == 2 && nc == 3);
	CHECK(hs_vm__field_size(vm, "CodeBlob", "_frame_complete_offset", &v) && v == 2);
	CHECK(!hs_vm__field_size(vm, "CodeBlob", "_name", &v)); /* "const char*" has no entry */
	CHECK(hs_vm__offset(vm, "CodeBlob", "_name", &v) && v == 0x60);
	CHECK(hs_vm__offset(vm, "HeapBlock::Header", "_length", &v) && v == 0);
	CHECK(hs_vm__address(vm, "CodeCache", "_heaps", &v) && v == (uint64_t)&release_static);
	CHECK(!hs_vm__offset(vm, "CodeCache", "_heaps", &v)); /* static: no offset */
	CHECK(hs_vm__size(vm, "PcDesc", &v) && v == 16);
	CHECK(hs_vm__constant(vm, "CodeBlobKind::Nmethod", &c) && c == 1);
	CHECK(hs_vm__constant(vm, "neg", &c) && c == -2);
	CHECK(hs_vm__constant(vm, "big", &c) && c == 1LL << 40);
	CHECK(!hs_vm__constant(vm, "absent", &c));
	hs_vm__free(vm);
}

static void test_vm_hostile(void)
{
	struct hs_mem mem = {.read = read_self};
	uint64_t syms[HS_SYM__COUNT] = {0};
	struct hs_vm *vm = NULL;

	syms_of_self(syms);
	shape[HS_SYM_STRUCT_STRIDE] = 100000; /* a stride no JVM has */
	CHECK(hs_vm__read(&mem, syms, &vm) == -EINVAL && !vm);
	shape[HS_SYM_STRUCT_STRIDE] = sizeof(struct vm_struct_entry);
	shape[HS_SYM_STRUCT_OFFSET] = sizeof(struct vm_struct_entry) - 4; /* member past it */
	CHECK(hs_vm__read(&mem, syms, &vm) == -EINVAL && !vm);
	syms_of_self(syms);
	syms[HS_SYM_TYPES] = 0;
	CHECK(hs_vm__read(&mem, syms, &vm) == -ENOENT && !vm);
	syms_of_self(syms);
	static char unprintable[] = "Code\001Blob";
	structs[0].type = unprintable;
	CHECK(hs_vm__read(&mem, syms, &vm) == -EINVAL && !vm);
	structs[0].type = "CodeBlob";
	/* libjvm mapped, not relocated yet (the pointer null, or the array's link-time
	 * address, a load bias away): a later read succeeds. */
	p_types = NULL;
	CHECK(hs_vm__read(&mem, syms, &vm) == -EAGAIN && !vm);
	p_types = (char *)types - (0x7f0000000000ULL & ~(uint64_t)(uintptr_t)types);
	CHECK(hs_vm__read(&mem, syms, &vm) == -EAGAIN && !vm);
	p_types = types;
	shape[HS_SYM_STRUCT_STRIDE] = 0; /* libjvm's constructors not run yet */
	CHECK(hs_vm__read(&mem, syms, &vm) == -EAGAIN && !vm);
	shape[HS_SYM_STRUCT_STRIDE] = sizeof(struct vm_struct_entry);
	CHECK(hs_vm__read(&mem, syms, &vm) == 0 && vm);
	hs_vm__free(vm);
}

int main(void)
{
	RUN_TEST(test_lines_recorded);
	RUN_TEST(test_lines_truncated);
	RUN_TEST(test_ints);
	RUN_TEST(test_scopes);
	RUN_TEST(test_pcdesc);
	RUN_TEST(test_vm_tables);
	RUN_TEST(test_vm_hostile);
	HARNESS_EXIT();
}
