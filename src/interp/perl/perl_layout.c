// SPDX-License-Identifier: Apache-2.0
/* The per-version layouts of perl_layout.h. Every figure is offsetof() (or a constant)
 * in that version's headers under Debian's configuration; tests/kernel/perl.sh compiles
 * tests/workloads/perl/layout.c against each Debian root's CORE/ headers and compares
 * its output with pl_layout__print's, so a wrong figure fails a test. What differs
 * between the three: the interpreter's members (PL_curcop, PL_curstackinfo, PL_top_env
 * move as members are added before them), OP_NEXTSTATE's number (5.40 added ops), and
 * where a stash keeps its name (in the body from 5.36 on). */
#include <stddef.h>

#include "interp/perl/perl_layout.h"

/* What 5.32, 5.36 and 5.40 share. */
#define PL_COMMON                                                                                  \
	.op_type = 32, .cop_line = 36, .cop_file = 48, .sv_flags = 12, .sv_u = 16, .cv_stash = 32, \
	.cv_start = 40, .cv_gv = 56, .gv_name = 32, .gv_stash = 40, .hv_max = 24, .aux_name = 0,   \
	.aux_name_count = 28, .hek_len = 4, .hek_key = 8

#define PL_BPF_COMMON                                                                          \
	.op = 8, .si_cxstack = 8, .si_prev = 16, .si_cxix = 32, .si_type = 44, .cx_size = 104, \
	.cx_oldcop = 16, .cx_retop = 48, .cx_sub_cv = 72, .cx_eval_cv = 88, .cx_eval_env = 96, \
	.env_prev = 0, .env_catch = 212, .cv_flags = 92

static const struct pl_layout layouts[] = {
    {
	.revision = 5,
	.version = 32,
	.bpf = {PL_BPF_COMMON, .curcop = 224, .curstackinfo = 240, .top_env = 776},
	.op_nextstate = 195,
	.op_dbstate = 196,
	.hv_aux_at = PL_AUX_AFTER_BUCKETS,
	PL_COMMON,
    },
    {
	.revision = 5,
	.version = 36,
	.bpf = {PL_BPF_COMMON, .curcop = 208, .curstackinfo = 224, .top_env = 760},
	.op_nextstate = 195,
	.op_dbstate = 196,
	.hv_aux_at = PL_AUX_IN_BODY,
	.hv_aux = 32,
	PL_COMMON,
    },
    {
	.revision = 5,
	.version = 40,
	.bpf = {PL_BPF_COMMON, .curcop = 208, .curstackinfo = 224, .top_env = 776},
	.op_nextstate = 198,
	.op_dbstate = 199,
	.hv_aux_at = PL_AUX_IN_BODY,
	.hv_aux = 32,
	PL_COMMON,
    },
};

#define NLAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

const struct pl_layout *pl_layout__for(unsigned int revision, unsigned int version)
{
	for (size_t i = 0; i < NLAYOUTS; i++) {
		if (layouts[i].revision == revision && layouts[i].version == version)
			return &layouts[i];
	}
	return NULL;
}

const char *pl_layout__known(void)
{
	return "5.32, 5.36, 5.40";
}

void pl_layout__print(const struct pl_layout *l, FILE *out)
{
	const struct pl_offsets *o = &l->bpf;

	fprintf(out, "version %u.%u\n", l->revision, l->version);
	fprintf(out, "interp.op %u\ninterp.curcop %u\ninterp.curstackinfo %u\n", o->op, o->curcop,
		o->curstackinfo);
	fprintf(out, "interp.top_env %u\n", o->top_env);
	fprintf(out, "si.cxstack %u\nsi.prev %u\nsi.cxix %u\nsi.type %u\n", o->si_cxstack,
		o->si_prev, o->si_cxix, o->si_type);
	fprintf(out, "cx.size %u\ncx.oldcop %u\ncx.retop %u\n", o->cx_size, o->cx_oldcop,
		o->cx_retop);
	fprintf(out, "cx.sub_cv %u\ncx.eval_cv %u\ncx.eval_env %u\n", o->cx_sub_cv, o->cx_eval_cv,
		o->cx_eval_env);
	fprintf(out, "env.prev %u\nenv.catch %u\n", o->env_prev, o->env_catch);
	fprintf(out, "op.nextstate %u\nop.dbstate %u\n", l->op_nextstate, l->op_dbstate);
	fprintf(out, "cop.line %u\ncop.file %u\n", l->cop_line, l->cop_file);
	fprintf(out, "sv.flags %u\nsv.u %u\n", l->sv_flags, l->sv_u);
	fprintf(out, "cv.stash %u\ncv.start %u\ncv.gv %u\ncv.flags %u\n", l->cv_stash, l->cv_start,
		l->cv_gv, o->cv_flags);
	fprintf(out, "gv.name %u\ngv.stash %u\n", l->gv_name, l->gv_stash);
	fprintf(out, "hv.max %u\n", l->hv_max);
	if (l->hv_aux_at == PL_AUX_IN_BODY)
		fprintf(out, "hv.aux %u\n", l->hv_aux);
	else
		fprintf(out, "hv.aux after-buckets\n");
	fprintf(out, "aux.name %u\naux.name_count %u\n", l->aux_name, l->aux_name_count);
	fprintf(out, "hek.len %u\nhek.key %u\n", l->hek_len, l->hek_key);
	/* The constants of perl_proc.h and perl_layout.h, which the headers state too. */
	fprintf(out, "const op_type_at %u\n", l->op_type);
	fprintf(out, "const cxt %d %d %d %d %#x %#x %d\n", PL_CXt_NULL, PL_CXt_SUB, PL_CXt_FORMAT,
		PL_CXt_EVAL, PL_CXp_MULTICALL, PL_CXp_EVALBLOCK, PL_SI_SORT);
	fprintf(out, "const svt %d %d %d %#x %#x\n", PL_SVt_PVGV, PL_SVt_PVHV, PL_SVt_PVCV,
		PL_SVf_FAKE, PL_SVf_OOK);
	fprintf(out, "const cvf %#x %#x %#x %#x\n", PL_CVf_ISXSUB, PL_CVf_ANON, PL_CVf_UNIQUE,
		PL_CVf_NAMED);
}
