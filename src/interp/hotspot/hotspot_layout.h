/* SPDX-License-Identifier: Apache-2.0 */
/* What ebprof needs to know about one JVM build, all of it taken from the JVM's own
 * tables (hotspot_vm.h): the code cache, code blobs and nmethods, methods, constant
 * pools, classes and symbols. Pointer-free, so the BPF walker can share it. */
#ifndef EBPROF_HOTSPOT_LAYOUT_H
#define EBPROF_HOTSPOT_LAYOUT_H

#include <stdint.h>

#include "interp/hotspot/hotspot_stream.h"
#include "interp/hotspot/hotspot_vm.h"

#define HS_NONE 0xffff /* a member this build does not have */

struct hs_layout {
	uint32_t major; /* the JVM's feature version: 11, 17, 21, 25 */
	enum hs_ints ints;
	char release[32]; /* Abstract_VM_Version::_s_vm_release: "17.0.15+6-Debian-1deb12u1" */
	/* absolute addresses of statics */
	uint64_t code_heaps;	      /* CodeCache::_heaps: GrowableArray<CodeHeap*>* */
	uint64_t code_low, code_high; /* CodeCache::_low_bound / _high_bound: address */
	uint64_t interp_code;	      /* AbstractInterpreter::_code: StubQueue* */
	uint64_t call_stub_return;    /* StubRoutines::_call_stub_return_address: address */
	/* GrowableArray, CodeHeap, VirtualSpace, HeapBlock */
	uint16_t ga_len, ga_data;
	uint16_t heap_memory, heap_segmap, heap_log2_segment;
	uint16_t vs_low, vs_high, vs_low_boundary, vs_high_boundary;
	uint16_t sq_stub_buffer, sq_buffer_limit;
	uint16_t heap_block_size;
	/* CodeBlob: _code_begin is a pointer up to JDK 21, _code_offset an int after */
	uint16_t cb_name, cb_size, cb_frame_size, cb_code_begin, cb_code_offset, cb_kind;
	uint16_t cb_frame_complete, cb_frame_complete_size; /* an int, or int16_t from 25 */
	uint16_t cb_mutable_data, cb_mutable_size, cb_relocation_size;
	uint8_t kind_nmethod; /* CodeBlobKind::Nmethod when cb_kind exists */
	/* nmethod: scopes and metadata are offsets from the nmethod up to JDK 21, and from
	 * its immutable data (scopes) or mutable data (metadata) after */
	uint16_t nm_method, nm_compile_id, nm_scopes_data_begin, nm_scopes_pcs, nm_scopes_data,
	    nm_dependencies, nm_metadata, nm_immutable, nm_immutable_size;
	uint16_t pc_desc_size, pc_desc_pc, pc_desc_scope;
	/* Method, ConstMethod, ConstantPool, Klass, Symbol */
	uint16_t method_const, method_access, cm_constants, cm_code_size, cm_name_index, cm_flags,
	    cm_size;
	uint32_t cm_has_lines; /* the flag bit of a line-number table */
	uint16_t cp_holder, cp_source_file, cp_size, ik_source_file, ik_constants;
	uint16_t klass_name, sym_length, sym_body;
};

/* Fills l from vm (and reads the version string and feature version through mem).
 * Returns 0, or -ENOENT with *missing naming the first member the tables lack. */
int hs_layout__from_vm(const struct hs_vm *vm, const struct hs_mem *mem, struct hs_layout *l,
		       const char **missing);

#endif
