/* SPDX-License-Identifier: Apache-2.0 */
/* HotSpot's own description of itself: the gHotSpotVMStructs, gHotSpotVMTypes and
 * gHotSpotVMIntConstants / gHotSpotVMLongConstants tables libjvm.so exports for its
 * serviceability agent, read out of a running JVM (whose memory is untrusted: every
 * count, stride and string is bounded). Lookups by "Type", "field" and constant name. */
#ifndef EBPROF_HOTSPOT_VM_H
#define EBPROF_HOTSPOT_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads len bytes at addr of the traced process: 0 or a negative errno. */
typedef int (*hs_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

struct hs_mem {
	hs_read_fn read;
	void *ctx;
};

/* Where the exported symbols are in the process (absolute addresses; 0 = absent). The
 * offset and stride symbols are ints the JVM sets for its own build. */
enum hs_sym {
	HS_SYM_STRUCTS,
	HS_SYM_STRUCT_TYPE_NAME,
	HS_SYM_STRUCT_FIELD_NAME,
	HS_SYM_STRUCT_TYPE_STRING,
	HS_SYM_STRUCT_IS_STATIC,
	HS_SYM_STRUCT_OFFSET,
	HS_SYM_STRUCT_ADDRESS,
	HS_SYM_STRUCT_STRIDE,
	HS_SYM_TYPES,
	HS_SYM_TYPE_NAME,
	HS_SYM_TYPE_SIZE,
	HS_SYM_TYPE_STRIDE,
	HS_SYM_INTS,
	HS_SYM_INT_NAME,
	HS_SYM_INT_VALUE,
	HS_SYM_INT_STRIDE,
	HS_SYM_LONGS,
	HS_SYM_LONG_NAME,
	HS_SYM_LONG_VALUE,
	HS_SYM_LONG_STRIDE,
	HS_SYM__COUNT,
};

/* The symbol name of each enum hs_sym ("gHotSpotVMStructs", ...). */
extern const char *const hs_sym_names[HS_SYM__COUNT];

#define HS_MAX_ENTRIES 16384	   /* entries read per table: today's JVMs have < 4,000 */
#define HS_MAX_STRIDE 256	   /* bytes per entry: today's are 48 or less */
#define HS_MAX_NAME 96		   /* bytes of a type, field or constant name */
#define HS_TABLE_NEAR (1ULL << 30) /* a relocated table is this near its pointer */

struct hs_vm;

/* Reads the four tables through mem, the symbols' addresses in syms. Returns 0 and a new
 * *out (hs_vm__free it), -ENOENT when a table symbol is missing, -EAGAIN when a table's
 * pointer is null or not near it, or its stride 0 (libjvm not relocated or its
 * constructors not run yet: ask again later), -EINVAL
 * when a table is malformed (a stride or offset out of bounds, no terminator), or a
 * read's -errno. */
int hs_vm__read(const struct hs_mem *mem, const uint64_t syms[HS_SYM__COUNT], struct hs_vm **out);
void hs_vm__free(struct hs_vm *vm);

/* A field of a type: its offset (instance field) or address (static field). */
bool hs_vm__offset(const struct hs_vm *vm, const char *type, const char *field, uint64_t *off);
bool hs_vm__address(const struct hs_vm *vm, const char *type, const char *field, uint64_t *addr);
/* The size of an instance field, from its declared type's entry in the types table. */
bool hs_vm__field_size(const struct hs_vm *vm, const char *type, const char *field, uint64_t *size);
/* The size of a type (sizeof in the JVM's build). */
bool hs_vm__size(const struct hs_vm *vm, const char *type, uint64_t *size);
/* An int or long constant. */
bool hs_vm__constant(const struct hs_vm *vm, const char *name, int64_t *value);
/* Entries read: fields, types, constants (for messages and tests). */
void hs_vm__counts(const struct hs_vm *vm, uint32_t *fields, uint32_t *types, uint32_t *consts);

/* Calls fn for every entry: key "F:Type::field" (offset), "S:Type::field" (address),
 * "T:Type" (size) or "C:name" (value). For diagnostics (hotspot_inspect --dump). */
void hs_vm__each(const struct hs_vm *vm, void (*fn)(const char *key, uint64_t value, void *ctx),
		 void *ctx);

#endif
