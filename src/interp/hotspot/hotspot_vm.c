// SPDX-License-Identifier: Apache-2.0
/* Reads HotSpot's exported self-description tables (see hotspot_vm.h) into one index of
 * "kind:name" keys. The JVM publishes, next to each table pointer, ints that say where in
 * an entry each member is and how far apart entries are: those are read first, checked,
 * and then every entry is taken apart with them, never with a compiled-in layout. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/hotspot/hotspot_vm.h"
#include "util/hmap.h"

const char *const hs_sym_names[HS_SYM__COUNT] = {
    [HS_SYM_STRUCTS] = "gHotSpotVMStructs",
    [HS_SYM_STRUCT_TYPE_NAME] = "gHotSpotVMStructEntryTypeNameOffset",
    [HS_SYM_STRUCT_FIELD_NAME] = "gHotSpotVMStructEntryFieldNameOffset",
    [HS_SYM_STRUCT_TYPE_STRING] = "gHotSpotVMStructEntryTypeStringOffset",
    [HS_SYM_STRUCT_IS_STATIC] = "gHotSpotVMStructEntryIsStaticOffset",
    [HS_SYM_STRUCT_OFFSET] = "gHotSpotVMStructEntryOffsetOffset",
    [HS_SYM_STRUCT_ADDRESS] = "gHotSpotVMStructEntryAddressOffset",
    [HS_SYM_STRUCT_STRIDE] = "gHotSpotVMStructEntryArrayStride",
    [HS_SYM_TYPES] = "gHotSpotVMTypes",
    [HS_SYM_TYPE_NAME] = "gHotSpotVMTypeEntryTypeNameOffset",
    [HS_SYM_TYPE_SIZE] = "gHotSpotVMTypeEntrySizeOffset",
    [HS_SYM_TYPE_STRIDE] = "gHotSpotVMTypeEntryArrayStride",
    [HS_SYM_INTS] = "gHotSpotVMIntConstants",
    [HS_SYM_INT_NAME] = "gHotSpotVMIntConstantEntryNameOffset",
    [HS_SYM_INT_VALUE] = "gHotSpotVMIntConstantEntryValueOffset",
    [HS_SYM_INT_STRIDE] = "gHotSpotVMIntConstantEntryArrayStride",
    [HS_SYM_LONGS] = "gHotSpotVMLongConstants",
    [HS_SYM_LONG_NAME] = "gHotSpotVMLongConstantEntryNameOffset",
    [HS_SYM_LONG_VALUE] = "gHotSpotVMLongConstantEntryValueOffset",
    [HS_SYM_LONG_STRIDE] = "gHotSpotVMLongConstantEntryArrayStride",
};

#define CHUNK 64 /* entries read per process_vm_readv */

struct hs_entry {
	uint64_t value;
	char *type_string; /* a field's declared type ("int16_t"), malloc'd; NULL for others */
	char key[];	   /* "F:Type::field", "S:Type::field", "T:Type", "C:name" */
};

struct hs_vm {
	struct hmap index; /* struct hs_entry by key */
	uint32_t fields, types, consts;
};

static int entry_eq(const void *e, const void *k)
{
	return !strcmp(((const struct hs_entry *)e)->key, k);
}

static uint64_t key_hash(const char *key)
{
	return hash_bytes(key, strlen(key), 0);
}

/* Adds key = value; a key seen before keeps its first value. 0 or -ENOMEM. */
static int add(struct hs_vm *vm, const char *key, uint64_t value, const char *type_string)
{
	size_t len = strlen(key);
	struct hs_entry *e;

	if (hmap_find(&vm->index, key_hash(key), key))
		return 0;
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return -ENOMEM;
	e->value = value;
	e->type_string = type_string ? strdup(type_string) : NULL;
	memcpy(e->key, key, len + 1);
	if ((type_string && !e->type_string) || hmap_insert(&vm->index, key_hash(key), e)) {
		free(e->type_string);
		free(e);
		return -ENOMEM;
	}
	return 0;
}

static bool lookup(const struct hs_vm *vm, const char *key, uint64_t *value)
{
	const struct hs_entry *e = hmap_find(&vm->index, key_hash(key), key);

	if (e)
		*value = e->value;
	return e != NULL;
}

/* Reads a NUL-terminated name at addr into out[HS_MAX_NAME]: never past the page the
 * name starts in unless the name goes on, since the next page may not be mapped.
 * Returns 0, -EINVAL for a name too long or not printable, or the read's -errno. */
static int read_name(const struct hs_mem *mem, uint64_t addr, char *out)
{
	size_t got = 0;

	while (got < HS_MAX_NAME) {
		uint64_t at = addr + got;
		size_t n = 4096 - (at & 4095);
		int err;

		if (n > HS_MAX_NAME - got)
			n = HS_MAX_NAME - got;
		err = mem->read(mem->ctx, at, out + got, n);
		if (err)
			return err;
		for (size_t i = got; i < got + n; i++) {
			if (!out[i])
				return i ? 0 : -EINVAL;
			if ((unsigned char)out[i] < 0x20 || (unsigned char)out[i] > 0x7e)
				return -EINVAL;
		}
		got += n;
	}
	return -EINVAL;
}

static int read_int(const struct hs_mem *mem, uint64_t addr, int32_t *v)
{
	return addr ? mem->read(mem->ctx, addr, v, sizeof(*v)) : -ENOENT;
}

static int read_ptr(const struct hs_mem *mem, uint64_t addr, uint64_t *v)
{
	return addr ? mem->read(mem->ctx, addr, v, sizeof(*v)) : -ENOENT;
}

/* One table's shape: where its entries are and where each member of an entry sits. */
struct table {
	uint64_t base;
	uint32_t stride;
	int32_t off[6]; /* member offsets, -1 = not used; off[0] is the name (a pointer) */
	uint8_t size[6];
};

/* Reads the table pointer and the member offsets and stride; checks each member fits. */
static int table_shape(const struct hs_mem *mem, const uint64_t *syms, enum hs_sym base,
		       enum hs_sym stride, const enum hs_sym *members, const uint8_t *sizes, int n,
		       struct table *t)
{
	int32_t v;
	int err;

	err = read_ptr(mem, syms[base], &t->base);
	if (!err)
		err = read_int(mem, syms[stride], &v);
	if (err)
		return err;
	/* Each table pointer holds the address of a static array of libjvm's, near the
	 * pointer itself, once the dynamic loader relocated it, and its stride is computed
	 * by libjvm's constructors: a JVM found between its mmap of libjvm and those (seconds
	 * under emulation) reads a pointer 0 or the array's link-time address, a whole load
	 * bias away, or a stride 0. Asked again later, not refused. */
	if (!t->base || !v ||
	    (t->base > syms[base] ? t->base - syms[base] : syms[base] - t->base) > HS_TABLE_NEAR)
		return -EAGAIN;
	if (v < 0 || v > HS_MAX_STRIDE)
		return -EINVAL;
	t->stride = (uint32_t)v;
	for (int i = 0; i < 6; i++) {
		t->off[i] = -1;
		t->size[i] = i < n ? sizes[i] : 0;
		if (i >= n)
			continue;
		err = read_int(mem, syms[members[i]], &t->off[i]);
		if (err)
			return err;
		if (t->off[i] < 0 || (uint32_t)t->off[i] + sizes[i] > t->stride)
			return -EINVAL;
	}
	return 0;
}

static uint64_t member(const struct table *t, const uint8_t *entry, int i)
{
	uint64_t v = 0;

	if (t->off[i] >= 0)
		memcpy(&v, entry + t->off[i], t->size[i]);
	return v;
}

/* Called for each entry of a table with its members; returns 0, 1 at the terminator,
 * or a negative errno. */
typedef int (*entry_fn)(struct hs_vm *vm, const struct hs_mem *mem, const struct table *t,
			const uint8_t *entry);

static int walk_table(struct hs_vm *vm, const struct hs_mem *mem, const struct table *t,
		      entry_fn fn)
{
	uint8_t buf[CHUNK * HS_MAX_STRIDE];

	for (uint32_t i = 0; i < HS_MAX_ENTRIES; i += CHUNK) {
		int err = mem->read(mem->ctx, t->base + (uint64_t)i * t->stride, buf,
				    (size_t)CHUNK * t->stride);

		/* The last chunk may run past the table's mapping: read it entry by entry. */
		for (uint32_t j = 0; j < CHUNK; j++) {
			const uint8_t *e = buf + (size_t)j * t->stride;
			int r;

			if (err && mem->read(mem->ctx, t->base + (uint64_t)(i + j) * t->stride,
					     (void *)e, t->stride))
				return -EFAULT;
			r = fn(vm, mem, t, e);
			if (r)
				return r < 0 ? r : 0;
		}
	}
	return -EINVAL; /* no terminator within HS_MAX_ENTRIES */
}

static int struct_entry(struct hs_vm *vm, const struct hs_mem *mem, const struct table *t,
			const uint8_t *e)
{
	char type[HS_MAX_NAME], field[HS_MAX_NAME], ts[HS_MAX_NAME], key[2 * HS_MAX_NAME + 4];
	uint64_t tn = member(t, e, 0), fn = member(t, e, 1), tsn = member(t, e, 5);
	bool is_static = member(t, e, 2) != 0;
	int err;

	if (!tn)
		return 1;
	if (!fn)
		return 0; /* a type without fields (not emitted today) */
	err = read_name(mem, tn, type);
	if (!err)
		err = read_name(mem, fn, field);
	if (err)
		return err;
	/* The declared type only sizes a field: one that does not read is left out. */
	if (!tsn || read_name(mem, tsn, ts))
		ts[0] = 0;
	snprintf(key, sizeof(key), "%c:%s::%s", is_static ? 'S' : 'F', type, field);
	vm->fields++;
	return add(vm, key, member(t, e, is_static ? 3 : 4), ts[0] ? ts : NULL);
}

static int type_entry(struct hs_vm *vm, const struct hs_mem *mem, const struct table *t,
		      const uint8_t *e)
{
	char name[HS_MAX_NAME], key[HS_MAX_NAME + 2];
	uint64_t tn = member(t, e, 0);
	int err;

	if (!tn)
		return 1;
	err = read_name(mem, tn, name);
	if (err)
		return err;
	snprintf(key, sizeof(key), "T:%s", name);
	vm->types++;
	return add(vm, key, member(t, e, 1), NULL);
}

static int const_entry(struct hs_vm *vm, const struct hs_mem *mem, const struct table *t,
		       const uint8_t *e)
{
	char name[HS_MAX_NAME], key[HS_MAX_NAME + 2];
	uint64_t nn = member(t, e, 0), v = member(t, e, 1);
	int err;

	if (!nn)
		return 1;
	err = read_name(mem, nn, name);
	if (err)
		return err;
	if (t->size[1] == 4) /* an int constant: sign-extend */
		v = (uint64_t)(int64_t)(int32_t)v;
	snprintf(key, sizeof(key), "C:%s", name);
	vm->consts++;
	return add(vm, key, v, NULL);
}

static int read_structs(struct hs_vm *vm, const struct hs_mem *mem, const uint64_t *syms)
{
	/* typeName, fieldName, isStatic, address (static fields), offset (the others), and
	 * typeString (the field's declared type) */
	static const enum hs_sym m[] = {HS_SYM_STRUCT_TYPE_NAME, HS_SYM_STRUCT_FIELD_NAME,
					HS_SYM_STRUCT_IS_STATIC, HS_SYM_STRUCT_ADDRESS,
					HS_SYM_STRUCT_OFFSET,	 HS_SYM_STRUCT_TYPE_STRING};
	static const uint8_t sz[] = {8, 8, 4, 8, 8, 8};
	struct table t;
	int err = table_shape(mem, syms, HS_SYM_STRUCTS, HS_SYM_STRUCT_STRIDE, m, sz, 6, &t);

	return err ? err : walk_table(vm, mem, &t, struct_entry);
}

static int read_types(struct hs_vm *vm, const struct hs_mem *mem, const uint64_t *syms)
{
	static const enum hs_sym m[] = {HS_SYM_TYPE_NAME, HS_SYM_TYPE_SIZE};
	static const uint8_t sz[] = {8, 8};
	struct table t;
	int err = table_shape(mem, syms, HS_SYM_TYPES, HS_SYM_TYPE_STRIDE, m, sz, 2, &t);

	return err ? err : walk_table(vm, mem, &t, type_entry);
}

static int read_consts(struct hs_vm *vm, const struct hs_mem *mem, const uint64_t *syms,
		       enum hs_sym base, uint8_t value_size)
{
	const enum hs_sym m[] = {(enum hs_sym)(base + 1), (enum hs_sym)(base + 2)};
	const uint8_t sz[] = {8, value_size};
	struct table t;
	int err = table_shape(mem, syms, base, (enum hs_sym)(base + 3), m, sz, 2, &t);

	return err ? err : walk_table(vm, mem, &t, const_entry);
}

int hs_vm__read(const struct hs_mem *mem, const uint64_t syms[HS_SYM__COUNT], struct hs_vm **out)
{
	struct hs_vm *vm;
	int err;

	*out = NULL;
	for (int i = 0; i < HS_SYM__COUNT; i++)
		if (!syms[i])
			return -ENOENT;
	vm = calloc(1, sizeof(*vm));
	if (!vm)
		return -ENOMEM;
	hmap_init(&vm->index, entry_eq);
	err = read_structs(vm, mem, syms);
	if (!err)
		err = read_types(vm, mem, syms);
	if (!err)
		err = read_consts(vm, mem, syms, HS_SYM_INTS, 4);
	if (!err)
		err = read_consts(vm, mem, syms, HS_SYM_LONGS, 8);
	if (err) {
		hs_vm__free(vm);
		return err;
	}
	*out = vm;
	return 0;
}

void hs_vm__free(struct hs_vm *vm)
{
	if (!vm)
		return;
	hmap_for_each(&vm->index, i)
	{
		struct hs_entry *e = vm->index.slots[i].entry;

		free(e->type_string);
		free(e);
	}
	hmap_free(&vm->index);
	free(vm);
}

static bool field_key(const struct hs_vm *vm, char kind, const char *type, const char *field,
		      uint64_t *v)
{
	char key[2 * HS_MAX_NAME + 4];

	snprintf(key, sizeof(key), "%c:%s::%s", kind, type, field);
	return lookup(vm, key, v);
}

bool hs_vm__offset(const struct hs_vm *vm, const char *type, const char *field, uint64_t *off)
{
	return field_key(vm, 'F', type, field, off);
}

bool hs_vm__address(const struct hs_vm *vm, const char *type, const char *field, uint64_t *addr)
{
	return field_key(vm, 'S', type, field, addr);
}

bool hs_vm__field_size(const struct hs_vm *vm, const char *type, const char *field, uint64_t *size)
{
	char key[2 * HS_MAX_NAME + 4];
	const struct hs_entry *e;

	snprintf(key, sizeof(key), "F:%s::%s", type, field);
	e = hmap_find(&vm->index, key_hash(key), key);
	return e && e->type_string && hs_vm__size(vm, e->type_string, size);
}

bool hs_vm__size(const struct hs_vm *vm, const char *type, uint64_t *size)
{
	char key[HS_MAX_NAME + 2];

	snprintf(key, sizeof(key), "T:%s", type);
	return lookup(vm, key, size);
}

bool hs_vm__constant(const struct hs_vm *vm, const char *name, int64_t *value)
{
	char key[HS_MAX_NAME + 2];
	uint64_t v;

	snprintf(key, sizeof(key), "C:%s", name);
	if (!lookup(vm, key, &v))
		return false;
	*value = (int64_t)v;
	return true;
}

void hs_vm__counts(const struct hs_vm *vm, uint32_t *fields, uint32_t *types, uint32_t *consts)
{
	*fields = vm->fields;
	*types = vm->types;
	*consts = vm->consts;
}

void hs_vm__each(const struct hs_vm *vm, void (*fn)(const char *key, uint64_t value, void *ctx),
		 void *ctx)
{
	hmap_for_each(&vm->index, i)
	{
		const struct hs_entry *e = vm->index.slots[i].entry;

		fn(e->key, e->value, ctx);
	}
}
