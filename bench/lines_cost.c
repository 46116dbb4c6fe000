// SPDX-License-Identifier: Apache-2.0
/* What naming frames with source lines costs a report after report, as the agent makes
 * them: one symbolizer over a binary with DWARF, its DWARF freed once a report has named
 * its frames, the line cache kept. Each interval samples addresses anew in the same hot
 * code (windows of the text), so most are new addresses of lines seen before: what spans
 * in the line cache are for. Prints the DWARF opens, cache hits and misses and the CPU of
 * the reports; run under callgrind for instruction counts. Built twice by the Makefile:
 * build/bench/lines_cost (spans) and lines_cost_per_address (-DLINE_SPANS=0, the line
 * cache keyed by address alone, as before spans).
 * Usage: lines_cost BINARY [INTERVALS [SAMPLES [WINDOW_BYTES]]] (20, 2000, 2048) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cost.h"
#include "native_frames.h"
#include "profile/profile.h"
#include "profile/report.h"
#include "proc/files.h"
#include "symbol/symbolizer.h"

#define HOT_WINDOWS 64

static uint64_t rng(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return *state >> 17;
}

/* One interval's profile: samples one-frame stacks at addresses drawn from the windows. */
static int fill(struct profile *p, const uint64_t *windows, uint64_t window, uint32_t samples,
		uint64_t *seed)
{
	struct stack *key = native_stack_new(p, 1);
	uint64_t one = 1;
	int err = 0;

	if (!key)
		return -ENOMEM;
	for (uint32_t i = 0; !err && i < samples; i++) {
		uint64_t at = windows[rng(seed) % HOT_WINDOWS] + rng(seed) % window;

		key->frames[0] = (struct frame){at, 1, FRAME_NATIVE};
		err = profile__add(p, key, &one, 0);
	}
	free(key);
	return err;
}

int main(int argc, char **argv)
{
	uint32_t intervals = argc > 2 ? atoi(argv[2]) : 20,
		 samples = argc > 3 ? atoi(argv[3]) : 2000;
	uint64_t window = argc > 4 ? strtoull(argv[4], NULL, 0) : 2048;
	uint64_t off = 0, size = 0, seed = 42, windows[HOT_WINDOWS];
	struct symbolizer sym;
	struct file_table t;
	struct file_entry *f;
	double ms = 0, t0;

	if (argc < 2 || text_range(argv[1], &off, &size) || !window || size < window) {
		fprintf(stderr, "usage: lines_cost BINARY [INTERVALS [SAMPLES [WINDOW_BYTES]]]\n");
		return 2;
	}
	for (int i = 0; i < HOT_WINDOWS; i++)
		windows[i] = off + rng(&seed) % (size - window);
	file_table__init(&t);
	f = file_table__intern(&t, 1, 1, argv[1]);
	if (!f || (f->fd = open(argv[1], O_RDONLY | O_CLOEXEC)) < 0)
		return 1;
	symbolizer__init(&sym, &t, NULL);
	sym.release_dwarf = true; /* freed once named, as the agent does */
	sym.units_keep = SYMBOLIZER_UNITS_KEEP;
	for (uint32_t i = 0; i < intervals; i++) {
		struct profile p;
		struct report *r;

		profile__init(&p);
		if (fill(&p, windows, window, samples, &seed))
			return 1;
		t0 = cpu_s() * 1e3;
		r = report__build(&p, &sym, NULL, 1000000, 0, 1000000000);
		ms += cpu_s() * 1e3 - t0;
		report__free(r);
		profile__free(&p);
	}
	printf(
	    "intervals %u samples %u window %llu dwarf_opened %u lines_hits %llu lines_misses %llu "
	    "lines_cache_kib %llu report_cpu_ms %.1f\n",
	    intervals, samples, (unsigned long long)window, sym.dwarf_opened,
	    (unsigned long long)sym.lines_hits, (unsigned long long)sym.lines_misses,
	    (unsigned long long)symbolizer__lines_memory(&sym, NULL, NULL) / 1024, ms);
	file_table__free(&t);
	return 0;
}
