// SPDX-License-Identifier: Apache-2.0
/* Prints, from a Perl's own headers, the figures src/interp/perl/perl_layout.c holds for
 * it, in pl_layout__print's form: tests/kernel/perl.sh builds this against each Debian
 * root's CORE/ directory (cc -I.../CORE layout.c) and compares. Never linked with perl:
 * the two symbols its inline functions name are defined here. */
#include <EXTERN.h>
#include <perl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

const char PL_memory_wrap[] = "";
void Perl_croak_nocontext(const char *pat, ...)
{
	(void)pat;
}

#define CX(m) offsetof(PERL_CONTEXT, cx_u.cx_blk.m)

/* The byte where op_type's bit field lives: it is no member offsetof() can name. */
static size_t op_type_offset(void)
{
	OP o;
	const unsigned char *b = (const unsigned char *)&o;

	memset(&o, 0, sizeof(o));
	o.op_type = 0x1ff;
	for (size_t i = 0; i < sizeof(o); i++)
		if (b[i])
			return i;
	return 0;
}

int main(void)
{
	printf("version %d.%d\n", PERL_REVISION, PERL_VERSION);
	printf("interp.op %zu\n", offsetof(struct interpreter, Iop));
	printf("interp.curcop %zu\n", offsetof(struct interpreter, Icurcop));
	printf("interp.curstackinfo %zu\n", offsetof(struct interpreter, Icurstackinfo));
	printf("interp.top_env %zu\n", offsetof(struct interpreter, Itop_env));
	printf("si.cxstack %zu\n", offsetof(PERL_SI, si_cxstack));
	printf("si.prev %zu\n", offsetof(PERL_SI, si_prev));
	printf("si.cxix %zu\n", offsetof(PERL_SI, si_cxix));
	printf("si.type %zu\n", offsetof(PERL_SI, si_type));
	printf("cx.size %zu\n", sizeof(PERL_CONTEXT));
	printf("cx.oldcop %zu\n", CX(blku_oldcop));
	printf("cx.retop %zu\n", CX(blk_u.blku_sub.retop));
	printf("cx.sub_cv %zu\n", CX(blk_u.blku_sub.cv));
	printf("cx.eval_cv %zu\n", CX(blk_u.blku_eval.cv));
	printf("cx.eval_env %zu\n", CX(blk_u.blku_eval.cur_top_env));
	printf("env.prev %zu\n", offsetof(JMPENV, je_prev));
	printf("env.catch %zu\n", offsetof(JMPENV, je_mustcatch));
	printf("op.nextstate %d\n", OP_NEXTSTATE);
	printf("op.dbstate %d\n", OP_DBSTATE);
	printf("cop.line %zu\n", offsetof(COP, cop_line));
	printf("cop.file %zu\n", offsetof(COP, cop_file));
	printf("sv.flags %zu\n", offsetof(SV, sv_flags));
	printf("sv.u %zu\n", offsetof(SV, sv_u));
	printf("cv.stash %zu\n", offsetof(XPVCV, xcv_stash));
	printf("cv.start %zu\n", offsetof(XPVCV, xcv_start_u));
	printf("cv.gv %zu\n", offsetof(XPVCV, xcv_gv_u));
	printf("cv.flags %zu\n", offsetof(XPVCV, xcv_flags));
	printf("gv.name %zu\n", offsetof(XPVGV, xiv_u.xivu_namehek));
	printf("gv.stash %zu\n", offsetof(XPVGV, xnv_u.xgv_stash));
	printf("hv.max %zu\n", offsetof(XPVHV, xhv_max));
#if PERL_VERSION >= 36
	printf("hv.aux %zu\n", offsetof(struct xpvhv_with_aux, xhv_aux));
#else
	printf("hv.aux after-buckets\n");
#endif
	printf("aux.name %zu\n", offsetof(struct xpvhv_aux, xhv_name_u));
	printf("aux.name_count %zu\n", offsetof(struct xpvhv_aux, xhv_name_count));
	printf("hek.len %zu\n", offsetof(HEK, hek_len));
	printf("hek.key %zu\n", offsetof(HEK, hek_key));
	/* What pl_layout.h takes as constants, printed so a change fails here too. */
	printf("const op_type_at %zu\n", op_type_offset());
	printf("const cxt %d %d %d %d %#x %#x %d\n", CXt_NULL, CXt_SUB, CXt_FORMAT, CXt_EVAL,
	       CXp_MULTICALL, CXp_TRYBLOCK, PERLSI_SORT);
	printf("const svt %d %d %d %#x %#x\n", SVt_PVGV, SVt_PVHV, SVt_PVCV, SVf_FAKE, SVf_OOK);
	printf("const cvf %#x %#x %#x %#x\n", CVf_ISXSUB, CVf_ANON, CVf_UNIQUE, CVf_NAMED);
	return 0;
}
