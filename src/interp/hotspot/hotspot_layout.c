// SPDX-License-Identifier: Apache-2.0
/* One JVM build's layout (see hotspot_layout.h) from its own tables. Members that moved
 * between releases are looked up under each name they have had; a member that is required
 * and absent under every name makes the whole layout unusable, and says which one. */
#include <errno.h>
#include <string.h>

#include "interp/hotspot/hotspot_layout.h"

struct ctx {
	const struct hs_vm *vm;
	const char *missing;
};

/* "Type::field" split at the last "::" (HeapBlock::Header::_length). */
static bool split(const char *name, char *type, size_t cap, const char **field)
{
	const char *sep = NULL;

	for (const char *p = strstr(name, "::"); p; p = strstr(p + 2, "::"))
		sep = p;
	if (!sep || (size_t)(sep - name) >= cap)
		return false;
	memcpy(type, name, sep - name);
	type[sep - name] = 0;
	*field = sep + 2;
	return true;
}

/* The offset of the first of the NULL-terminated names present; HS_NONE when none is
 * (and, when required, remembers the first name as missing). */
static uint16_t off(struct ctx *c, bool required, const char *const *names)
{
	for (const char *const *n = names; *n; n++) {
		char type[HS_MAX_NAME];
		const char *field;
		uint64_t v;

		if (split(*n, type, sizeof(type), &field) &&
		    hs_vm__offset(c->vm, type, field, &v) && v < HS_NONE)
			return (uint16_t)v;
	}
	if (required && !c->missing)
		c->missing = names[0];
	return HS_NONE;
}

#define REQ(c, ...) off(c, true, (const char *const[]){__VA_ARGS__, NULL})
#define OPT(c, ...) off(c, false, (const char *const[]){__VA_ARGS__, NULL})

static uint16_t size_of(struct ctx *c, const char *type)
{
	uint64_t v;

	if (hs_vm__size(c->vm, type, &v) && v < HS_NONE)
		return (uint16_t)v;
	if (!c->missing)
		c->missing = type;
	return HS_NONE;
}

static uint64_t address(struct ctx *c, const char *type, const char *field)
{
	uint64_t v;

	if (hs_vm__address(c->vm, type, field, &v))
		return v;
	if (!c->missing)
		c->missing = field;
	return 0;
}

static int64_t constant(struct ctx *c, const char *const *names)
{
	int64_t v;

	for (const char *const *n = names; *n; n++)
		if (hs_vm__constant(c->vm, *n, &v))
			return v;
	if (!c->missing)
		c->missing = names[0];
	return 0;
}

static void code_cache(struct ctx *c, struct hs_layout *l)
{
	l->code_heaps = address(c, "CodeCache", "_heaps");
	l->code_low = address(c, "CodeCache", "_low_bound");
	l->code_high = address(c, "CodeCache", "_high_bound");
	l->interp_code = address(c, "AbstractInterpreter", "_code");
	l->call_stub_return = address(c, "StubRoutines", "_call_stub_return_address");
	l->sq_stub_buffer = REQ(c, "StubQueue::_stub_buffer");
	l->sq_buffer_limit = REQ(c, "StubQueue::_buffer_limit");
	l->ga_len = REQ(c, "GrowableArrayBase::_len", "GenericGrowableArray::_len");
	l->ga_data = REQ(c, "GrowableArray<int>::_data");
	l->heap_memory = REQ(c, "CodeHeap::_memory");
	l->heap_segmap = REQ(c, "CodeHeap::_segmap");
	l->heap_log2_segment = REQ(c, "CodeHeap::_log2_segment_size");
	l->vs_low = REQ(c, "VirtualSpace::_low");
	l->vs_high = REQ(c, "VirtualSpace::_high");
	l->vs_low_boundary = REQ(c, "VirtualSpace::_low_boundary");
	l->vs_high_boundary = REQ(c, "VirtualSpace::_high_boundary");
	l->heap_block_size = size_of(c, "HeapBlock");
}

static void code_blobs(struct ctx *c, struct hs_layout *l)
{
	uint64_t v;

	l->cb_name = REQ(c, "CodeBlob::_name");
	l->cb_size = REQ(c, "CodeBlob::_size");
	l->cb_frame_size = REQ(c, "CodeBlob::_frame_size");
	l->cb_frame_complete = REQ(c, "CodeBlob::_frame_complete_offset");
	if (hs_vm__field_size(c->vm, "CodeBlob", "_frame_complete_offset", &v) &&
	    (v == 2 || v == 4))
		l->cb_frame_complete_size = (uint16_t)v;
	else if (!c->missing)
		c->missing = "CodeBlob::_frame_complete_offset's type";
	l->cb_code_begin = OPT(c, "CodeBlob::_code_begin");
	l->cb_code_offset = OPT(c, "CodeBlob::_code_offset");
	if (l->cb_code_begin == HS_NONE && l->cb_code_offset == HS_NONE)
		REQ(c, "CodeBlob::_code_begin");
	l->cb_kind = OPT(c, "CodeBlob::_kind");
	if (l->cb_kind != HS_NONE)
		l->kind_nmethod =
		    (uint8_t)constant(c, (const char *const[]){"CodeBlobKind::Nmethod", NULL});
	l->cb_mutable_data = OPT(c, "CodeBlob::_mutable_data");
	l->cb_mutable_size = OPT(c, "CodeBlob::_mutable_data_size");
	l->cb_relocation_size = OPT(c, "CodeBlob::_relocation_size");
}

static void nmethods(struct ctx *c, struct hs_layout *l)
{
	l->nm_method = REQ(c, "nmethod::_method", "CompiledMethod::_method");
	l->nm_compile_id = REQ(c, "nmethod::_compile_id");
	l->nm_scopes_pcs = REQ(c, "nmethod::_scopes_pcs_offset");
	l->nm_scopes_data_begin =
	    OPT(c, "CompiledMethod::_scopes_data_begin", "nmethod::_scopes_data_begin");
	l->nm_scopes_data = OPT(c, "nmethod::_scopes_data_offset");
	l->nm_dependencies = OPT(c, "nmethod::_dependencies_offset");
	l->nm_metadata = OPT(c, "nmethod::_metadata_offset");
	l->nm_immutable = OPT(c, "nmethod::_immutable_data");
	l->nm_immutable_size = OPT(c, "nmethod::_immutable_data_size");
	/* Up to 21 everything is relative to the nmethod; from 25 to its data blobs. */
	if (l->nm_immutable == HS_NONE) {
		if (l->nm_scopes_data_begin == HS_NONE)
			REQ(c, "CompiledMethod::_scopes_data_begin");
		REQ(c, "nmethod::_dependencies_offset");
		REQ(c, "nmethod::_metadata_offset");
	} else {
		REQ(c, "nmethod::_scopes_data_offset");
		REQ(c, "nmethod::_immutable_data_size");
		REQ(c, "CodeBlob::_mutable_data");
		REQ(c, "CodeBlob::_mutable_data_size");
		REQ(c, "CodeBlob::_relocation_size");
	}
	l->pc_desc_size = size_of(c, "PcDesc");
	l->pc_desc_pc = REQ(c, "PcDesc::_pc_offset");
	l->pc_desc_scope = REQ(c, "PcDesc::_scope_decode_offset");
}

static void methods(struct ctx *c, struct hs_layout *l)
{
	l->method_const = REQ(c, "Method::_constMethod");
	l->method_access = OPT(c, "Method::_access_flags");
	l->cm_constants = REQ(c, "ConstMethod::_constants");
	l->cm_code_size = REQ(c, "ConstMethod::_code_size");
	l->cm_name_index = REQ(c, "ConstMethod::_name_index");
	l->cm_flags = REQ(c, "ConstMethod::_flags._flags", "ConstMethod::_flags");
	l->cm_size = size_of(c, "ConstMethod");
	l->cm_has_lines = (uint32_t)constant(
	    c, (const char *const[]){"ConstMethodFlags::_misc_has_linenumber_table",
				     "ConstMethod::_has_linenumber_table", NULL});
	l->cp_holder = REQ(c, "ConstantPool::_pool_holder");
	l->cp_size = size_of(c, "ConstantPool");
	/* The source file's name moved from the class to its constant pool in JDK 15. */
	l->cp_source_file = OPT(c, "ConstantPool::_source_file_name_index");
	l->ik_source_file = OPT(c, "InstanceKlass::_source_file_name_index");
	l->ik_constants = REQ(c, "InstanceKlass::_constants");
	if (l->cp_source_file == HS_NONE && l->ik_source_file == HS_NONE)
		REQ(c, "ConstantPool::_source_file_name_index");
	l->klass_name = REQ(c, "Klass::_name");
	l->sym_length = REQ(c, "Symbol::_length");
	l->sym_body = REQ(c, "Symbol::_body");
}

/* The release string ("21.0.13+9-1-deb13u2-Debian") and its feature version. */
static int version(struct ctx *c, const struct hs_mem *mem, struct hs_layout *l)
{
	uint64_t at = address(c, "Abstract_VM_Version", "_s_vm_release"), p = 0;
	int err;

	if (!at)
		return -ENOENT;
	err = mem->read(mem->ctx, at, &p, sizeof(p));
	if (!err)
		err = p ? mem->read(mem->ctx, p, l->release, sizeof(l->release) - 1) : -EINVAL;
	if (err) /* a short string at the end of a page: try its first bytes */
		err = mem->read(mem->ctx, p, l->release, 8);
	if (err)
		return err;
	l->release[sizeof(l->release) - 1] = 0;
	l->release[strcspn(l->release, "\n")] = 0;
	for (const char *s = l->release; *s >= '0' && *s <= '9'; s++)
		l->major = l->major * 10 + (uint32_t)(*s - '0');
	return l->major ? 0 : -EINVAL;
}

int hs_layout__from_vm(const struct hs_vm *vm, const struct hs_mem *mem, struct hs_layout *l,
		       const char **missing)
{
	struct ctx c = {.vm = vm};
	int err;

	memset(l, 0, sizeof(*l));
	err = version(&c, mem, l);
	if (err) {
		*missing = c.missing ? c.missing : "Abstract_VM_Version::_s_vm_release";
		return err == -ENOENT ? -ENOENT : err;
	}
	/* JDK 21 packs ints as UNSIGNED5 (every byte one higher, none zero). */
	l->ints = l->major >= 21 ? HS_INTS_EXCESS1 : HS_INTS_PLAIN;
	code_cache(&c, l);
	code_blobs(&c, l);
	nmethods(&c, l);
	methods(&c, l);
	*missing = c.missing;
	return c.missing ? -ENOENT : 0;
}
