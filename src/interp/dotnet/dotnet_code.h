/* SPDX-License-Identifier: Apache-2.0 */
/* From a pc of JIT code to the method it belongs to, through another process's memory:
 * the JIT manager's code heaps (EEJitManager::m_pCodeHeap, a list of HeapList), the
 * heap's nibble map (where each method's code starts), the code header before the code
 * (a RealCodeHeader, or a stub's kind), the MethodDesc it names, its chunk (method table,
 * token), the method table's module and the module's simple name. Layouts are per .NET
 * major version (struct dn_layout); every read is bounded and checked. */
#ifndef EBPROF_DOTNET_CODE_H
#define EBPROF_DOTNET_CODE_H

#include <stdbool.h>
#include <stdint.h>

#include "interp/dotnet/dotnet_meta.h"

#define DN_MAX_HEAPS 64	    /* code heaps followed per process */
#define DN_NAME_MAX 128	    /* a module's simple name */
#define DN_STUB_KIND_MAX 16 /* a code header below this holds a stub's kind, not a pointer */

/* Offsets of what the lookup reads, in bytes (dn_layout__for). */
struct dn_layout {
	uint32_t major;
	uint16_t dac_jit_manager; /* the DAC table's entry of ExecutionManager::m_pEEJitManager */
	uint16_t jm_code_heap;	  /* EEJitManager::m_pCodeHeap */
	uint16_t hl_next, hl_start, hl_end, hl_map_base, hl_hdr_map; /* HeapList */
	uint16_t rch_method_desc;				     /* RealCodeHeader */
	uint16_t md_flags3, md_chunk_index, md_flags;		     /* MethodDesc */
	uint16_t chunk_size, chunk_mt, chunk_token_range;	     /* MethodDescChunk */
	uint16_t mt_module;					     /* MethodTable */
	uint16_t module_simple_name;				     /* Module */
};

/* The layout of a .NET major version, or NULL when ebprof has none (its JIT frames are
 * then named by where their code lies). */
const struct dn_layout *dn_layout__for(uint32_t major);

struct dn_heap {
	uint64_t start, end, map_base, hdr_map;
};

/* The code heaps of the JIT manager whose pointer lies at jm_addr: up to max into out.
 * Returns how many, or -errno. */
int dn_code__heaps(dn_read_fn read, void *ctx, const struct dn_layout *l, uint64_t jm_addr,
		   struct dn_heap *out, int max);

/* What a code address is. */
struct dn_method {
	uint64_t start;		 /* where its code starts */
	uint64_t header;	 /* the code header's word: a RealCodeHeader, or a stub's kind */
	uint32_t stub;		 /* the stub's kind (header < DN_STUB_KIND_MAX); 0: a method */
	uint32_t token;		 /* MethodDef token's rid (0: none, a dynamic method) */
	uint32_t classification; /* MethodDesc's (0 IL, 7 dynamic: an IL stub, ...) */
	uint64_t module;
	char module_name[DN_NAME_MAX];
};

/* The start of the code holding pc in heap h (the nibble map searched back at most
 * 1 MiB). Returns 0, -ENOENT (no code starts before pc in reach), or -errno. */
int dn_code__start(dn_read_fn read, void *ctx, const struct dn_heap *h, uint64_t pc,
		   uint64_t *start);
/* The code header's word before start. Returns 0 or -errno. */
int dn_code__header(dn_read_fn read, void *ctx, uint64_t start, uint64_t *header);
/* The method whose code starts at start (out->start, out->header set by the caller):
 * its token, classification, module and the module's name. 0, or -errno (-EINVAL: what
 * was read is not what the layout says). */
int dn_code__method(dn_read_fn read, void *ctx, const struct dn_layout *l, struct dn_method *out);

/* Whether the bytes before ret (8 of them, in code) end with a call instruction: ret is
 * then a return address (the forms CoreCLR's code calls with: rel32, a register, a
 * register or rip plus a displacement). */
bool dn_code__after_call(const uint8_t b[8]);

#endif
