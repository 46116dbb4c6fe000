/* SPDX-License-Identifier: Apache-2.0 */
/* What ebprof knows of each Perl's structures: the offsets the BPF walker follows
 * (struct pl_offsets) and those userspace follows to name a frame (a CV's package and
 * name, a COP's file and line). Perl publishes no layout of its own, so these are
 * per-version tables, each figure offsetof() or a constant in that version's public
 * headers (the CORE/ directory Debian's perl package installs) as Debian configures it:
 * threads (MULTIPLICITY, USE_ITHREADS), no DEBUGGING. */
#ifndef EBPROF_PERL_LAYOUT_H
#define EBPROF_PERL_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "interp/perl/perl_proc.h"

/* Where a stash's xpvhv_aux (its name) lies. */
enum pl_hv_aux {
	PL_AUX_AFTER_BUCKETS, /* HvARRAY(hv)[HvMAX(hv) + 1] (5.32) */
	PL_AUX_IN_BODY,	      /* struct xpvhv_with_aux, after the body (5.36+) */
};

struct pl_layout {
	uint8_t revision, version; /* 5, 36 */
	struct pl_offsets bpf;
	uint16_t op_type;	 /* OP: the U16 whose low 9 bits are op_type */
	uint16_t op_nextstate;	 /* opnames.h: OP_NEXTSTATE */
	uint16_t op_dbstate;	 /* opnames.h: OP_DBSTATE */
	uint16_t cop_line;	 /* COP: cop_line (line_t, U32) */
	uint16_t cop_file;	 /* COP: cop_file (char *, threaded builds) */
	uint16_t sv_flags;	 /* SV head: sv_flags (U32; the type in its low byte) */
	uint16_t sv_u;		 /* SV head: sv_u (HvARRAY of a hash) */
	uint16_t cv_stash;	 /* XPVCV: xcv_stash (CvSTASH) */
	uint16_t cv_start;	 /* XPVCV: xcv_start_u (CvSTART) */
	uint16_t cv_gv;		 /* XPVCV: xcv_gv_u (CvGV, or CvNAME_HEK when CvNAMED) */
	uint16_t gv_name;	 /* XPVGV: xiv_u.xivu_namehek (GvNAME_HEK) */
	uint16_t gv_stash;	 /* XPVGV: xnv_u.xgv_stash (GvSTASH) */
	uint16_t hv_max;	 /* XPVHV: xhv_max (STRLEN) */
	uint16_t hv_aux;	 /* with PL_AUX_IN_BODY: the aux's offset in the body */
	uint8_t hv_aux_at;	 /* enum pl_hv_aux */
	uint16_t aux_name;	 /* xpvhv_aux: xhv_name_u */
	uint16_t aux_name_count; /* xpvhv_aux: xhv_name_count (I32) */
	uint16_t hek_len;	 /* HEK: hek_len (I32) */
	uint16_t hek_key;	 /* HEK: hek_key */
};

/* sv.h and cv.h, the same in 5.32 to 5.40. */
#define PL_SVTYPEMASK 0xff
#define PL_SVt_PVGV 9
#define PL_SVt_PVHV 12
#define PL_SVt_PVCV 13
#define PL_SVf_FAKE 0x01000000u
#define PL_SVf_OOK 0x02000000u /* a hash has its aux (SVphv_HasAUX in 5.38+) */
#define PL_CVf_ANON 0x0080u
#define PL_CVf_UNIQUE 0x0100u /* with !SvFAKE: an eval's (or the main program's) CV */
#define PL_CVf_NAMED 0x8000u  /* the name is a HEK in xcv_gv_u, the package CvSTASH */

/* The layout of Perl 5.version, or NULL when ebprof has none. */
const struct pl_layout *pl_layout__for(unsigned int revision, unsigned int version);
/* The versions ebprof has a layout for, "5.32, 5.36, 5.40", for messages. */
const char *pl_layout__known(void);
/* Writes the layout as "name value" lines, the form tests/workloads/perl/layout.c prints
 * from a version's headers, so a test can compare the two. */
void pl_layout__print(const struct pl_layout *l, FILE *out);

#endif
