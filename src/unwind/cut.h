/* SPDX-License-Identifier: Apache-2.0 */
/* Why stacks were cut, as users read it: the causes BPF counts each cut CPU sample under
 * (enum cut_cause, CTR_CUT_FIRST + cause), each with what happened and what to do about
 * it, from the one table in bpf/ebprof_shared.h (EBPROF_CUT_CAUSES). The summary
 * (export/summary.c, summary__print_cut) says them. */
#ifndef EBPROF_CUT_H
#define EBPROF_CUT_H

#include "ebprof_shared.h"

struct cut_cause_info {
	const char *id;	    /* "NEW_FILE": stable, for scripts and the summary's table */
	const char *what;   /* "in files met before their unwind tables were built" */
	const char *remedy; /* what the user can do */
};

/* The row of cause c, NULL past the last. */
const struct cut_cause_info *cut_cause__info(unsigned int c);

#endif
