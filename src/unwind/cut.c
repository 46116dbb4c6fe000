// SPDX-License-Identifier: Apache-2.0
/* Why stacks were cut: the words and remedy of each cause the BPF submitter counts cut
 * samples under (bpf/sample.bpf.c, count_cut), in the order of enum cut_cause. */
#include <stddef.h>

#include "unwind/cut.h"

static const struct cut_cause_info causes[] = {
#define CUT_ROW(id, what, remedy) {#id, what, remedy},
    EBPROF_CUT_CAUSES(CUT_ROW)
#undef CUT_ROW
};

_Static_assert(sizeof(causes) / sizeof(causes[0]) == CUT__COUNT, "a row per cause");

const struct cut_cause_info *cut_cause__info(unsigned int c)
{
	return c < CUT__COUNT ? &causes[c] : NULL;
}
