// SPDX-License-Identifier: Apache-2.0
/* CRuby layouts per minor version, for x86-64 builds configured as Debian configures them
 * (no debug checks, default options). Each figure is offsetof() or a constant in that
 * release's own headers: vm_core.h, iseq.h, method.h, internal/class.h, include/ruby/
 * (2.7.4, 3.1.2: the rb_mjit_min_header of Debian's ruby2.7-dev and ruby3.1-dev, which is
 * those headers as Debian's build saw them; 3.3.8: the source with Debian's config.h from
 * ruby3.3-dev). The VM's objspace member is also what rb_during_gc() reads in each of
 * Debian's libruby builds, which ruby.c checks before trusting the rest. */
#include <stddef.h>

#include "interp/ruby/ruby_layout.h"

static const struct rb_layout layouts[] = {
    {
	.version = 0x0207,
	.ec_thread = 56,
	.cfp_size = 56, /* pc, sp, iseq, self, ep, block_code, __bp__ */
	.th_ec = 32,
	.th_id = 72,
	.th_node = 0,
	.vm_threads = 312,
	.vm_objspace = 1152,
	.iseq_body = 16,
	.body_type = 0,
	.body_size = 4,
	.body_encoded = 8,
	.body_path = 64,
	.body_base_label = 72,
	.body_label = 80,
	.body_first_lineno = 88,
	.body_insns = 120,
	.body_positions = 128,
	.body_insns_size = 136,
	.body_succ = 144,
	.body_local_iseq = 176,
	.insn_info_size = 8, /* line_no, events */
	.me_def = 16,
	.me_owner = 32,
	.def_iseq = 8,
	.def_original_id = 32,
	.svar_cref_or_me = 8,
	.qnil = 8,
	.string = RB_STRING_FLAGS_LEN,
	.string_embed = 16,
	.array_embed_mask = 0x18000, /* FL_USER3 | FL_USER4 */
	.klass = RB_CLASS_IVARS,
	.class_ext = 24,
	.ext_iv_tbl = 8,
	.last_op_id = 0xa8,
    },
    {
	.version = 0x0301,
	.ec_thread = 48,
	.cfp_size = 64, /* ..., __bp__, jit_return */
	.th_ec = 40,
	.th_ractor = 24,
	.ractor_ec = 520,
	.vm_objspace = 1104,
	.iseq_body = 16,
	.body_type = 0,
	.body_size = 4,
	.body_encoded = 8,
	.body_path = 64,
	.body_base_label = 72,
	.body_label = 80,
	.body_first_lineno = 88,
	.body_insns = 120,
	.body_positions = 128,
	.body_insns_size = 136,
	.body_succ = 144,
	.body_local_iseq = 176,
	.insn_info_size = 12, /* line_no, node_id, events */
	.me_def = 16,
	.me_owner = 32,
	.def_iseq = 8,
	.def_original_id = 32,
	.svar_cref_or_me = 8,
	.qnil = 8,
	.string = RB_STRING_FLAGS_LEN,
	.string_embed = 16,
	.array_embed_mask = 0x18000,
	.klass = RB_CLASS_IVARS,
	.class_ext = 24,
	.ext_iv_tbl = 8,
	.last_op_id = 0xa9,
    },
    {
	.version = 0x0303,
	.ec_thread = 48,
	.cfp_size = 56, /* pc, sp, iseq, self, ep, block_code, jit_return */
	.th_ec = 48,
	.th_ractor = 24,
	.ractor_ec = 384,
	.vm_objspace = 1304,
	.iseq_body = 16,
	.body_type = 0,
	.body_size = 4,
	.body_encoded = 8,
	.body_path = 64,
	.body_base_label = 72,
	.body_label = 80,
	.body_first_lineno = 88,
	.body_insns = 112,
	.body_positions = 120,
	.body_insns_size = 128,
	.body_succ = 136,
	.body_local_iseq = 168,
	.insn_info_size = 12,
	.me_def = 16,
	.me_owner = 32,
	.def_iseq = 8,
	.def_original_id = 32,
	.svar_cref_or_me = 8,
	.qnil = 4, /* special constants were renumbered in 3.2 */
	.string = RB_STRING_LEN_FIELD,
	.string_embed = 24,
	.array_embed_mask = 0x3f8000, /* FL_USER3 .. FL_USER9 */
	.klass = RB_CLASS_EXT,
	.class_ext = 32,
	.ext_classpath = 120,
	.ext_attached = 96,
	.last_op_id = 0xa9,
    },
};

const struct rb_layout *rb_layout__get(uint16_t version)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		if (layouts[i].version == version)
			return &layouts[i];
	}
	return NULL;
}

const char *rb_layout__known(void)
{
	return "2.7, 3.1 and 3.3";
}
