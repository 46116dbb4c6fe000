// SPDX-License-Identifier: Apache-2.0
/* Why stacks were cut: one line per dominant cause, with the remedy, from the counters
 * the BPF submitter keeps per cause (bpf/sample.bpf.c, count_cut). */
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

void cut_causes__print(const uint64_t *counters, bool all, FILE *out)
{
	const uint64_t *cut = &counters[CTR_CUT_FIRST];
	uint64_t total = 0, rest = 0, samples = counters[CTR_SAMPLES] - counters[CTR_FILTERED];
	unsigned int others = 0;

	for (unsigned int c = 0; c < CUT__COUNT; c++)
		total += cut[c];
	if (!total)
		return;
	fprintf(out, "  cut stacks: %llu of %llu samples (%.1f %%) end in [truncated]:\n",
		(unsigned long long)total, (unsigned long long)samples,
		samples ? 100.0 * total / samples : 0.0);
	for (unsigned int c = 0; c < CUT__COUNT; c++) {
		if (!cut[c])
			continue;
		if (!all && cut[c] * 10 < total) {
			rest += cut[c];
			others++;
			continue;
		}
		fprintf(out, "    %llu %s: %s\n", (unsigned long long)cut[c], causes[c].what,
			causes[c].remedy);
	}
	if (others)
		fprintf(out, "    %llu for %u other cause%s (-v lists them)\n",
			(unsigned long long)rest, others, others > 1 ? "s" : "");
}
