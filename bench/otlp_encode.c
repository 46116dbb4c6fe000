// SPDX-License-Identifier: Apache-2.0
/* Cost of otlp__encode (src/export/otlp.c, linked in as it is), for bench/otlp.sh: builds
 * a synthetic report of PROCS processes and STACKS distinct stacks of DEPTH frames drawn
 * from a pool of FRAMES frames in 64 mappings, every stack with TIMES timestamps, and
 * prints the median encode time of REPEAT runs, the request's size raw and gzip'd, and
 * how much the process's peak RSS grew during the encodes (the encoder's working set:
 * the report is built and touched before).
 * Usage: otlp_encode PROCS STACKS DEPTH FRAMES TIMES REPEAT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <zlib.h>

#include "export/otlp.h"
#include "profile/report.h"

#define NMAPS 64

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A report whose strings and arrays are all malloc'd here and never freed: the process
 * exits after measuring. Frame names repeat every 4 frames, like inlined helpers do. */
static struct report *synthetic(unsigned procs, unsigned nstacks, unsigned depth, unsigned nframes,
				unsigned ntimes)
{
	struct report *r = calloc(1, sizeof(*r));
	struct report_mapping *maps = calloc(NMAPS, sizeof(*maps));
	struct report_frame *frames = calloc(nframes, sizeof(*frames));
	struct report_stack *stacks = calloc(nstacks, sizeof(*stacks));
	uint64_t *times = calloc(ntimes ? ntimes : 1, sizeof(*times));
	char buf[64];

	for (unsigned i = 0; i < NMAPS; i++) {
		snprintf(buf, sizeof(buf), "/usr/lib/lib%u.so", i);
		maps[i] = (struct report_mapping){0, UINT64_MAX, 0, strdup(buf), "0123abcd", false};
	}
	for (unsigned i = 0; i < nframes; i++) {
		snprintf(buf, sizeof(buf), "function_%u", i / 4 * 4);
		frames[i] = (struct report_frame){strdup(buf), 0x1000 + 16 * i,
						  (int32_t)(i % NMAPS), FRAME_NATIVE};
	}
	for (unsigned i = 0; i < ntimes; i++)
		times[i] = 1000000000ULL + i;
	srand(1);
	for (unsigned i = 0; i < nstacks; i++) {
		uint32_t *f = malloc(depth * sizeof(*f));

		for (unsigned j = 0; j < depth; j++)
			f[j] = (uint32_t)rand() % nframes;
		snprintf(buf, sizeof(buf), "thread-%u", i % 16);
		stacks[i] = (struct report_stack){.pid = 1000 + i % procs,
						  .tid = 1000 + i % (procs * 4),
						  .cpu = (int32_t)(i % 2),
						  .comm = "proc",
						  .thread = strdup(buf),
						  .count = ntimes,
						  .ntimes = ntimes,
						  .times_unix_ns = times,
						  .nframes = depth,
						  .frames = f};
	}
	*r = (struct report){.period_ns = 10101010,
			     .start_unix_ns = 1000000000ULL,
			     .duration_ns = 5000000000ULL,
			     .nmappings = NMAPS,
			     .mappings = maps,
			     .nframes = nframes,
			     .frames = frames,
			     .nstacks = nstacks,
			     .stacks = stacks};
	return r;
}

int main(int argc, char **argv)
{
	unsigned a[6];
	uint64_t t[101];
	uint8_t *buf = NULL, *gz;
	size_t len = 0;
	uLongf gzlen;
	long rss0;
	struct report *r;

	if (argc != 7) {
		fprintf(stderr, "usage: otlp_encode PROCS STACKS DEPTH FRAMES TIMES REPEAT\n");
		return 2;
	}
	for (int i = 0; i < 6; i++)
		a[i] = (unsigned)strtoul(argv[i + 1], NULL, 10);
	if (!a[0] || !a[1] || !a[2] || !a[3] || !a[5] || a[5] > 101) {
		fprintf(stderr, "otlp_encode: counts must be positive, REPEAT at most 101\n");
		return 2;
	}
	r = synthetic(a[0], a[1], a[2], a[3], a[4]);
	rss0 = maxrss_kb();
	for (unsigned i = 0; i < a[5]; i++) {
		uint64_t t0 = now_ns();
		int err = otlp__encode(r, NULL, &buf, &len);

		t[i] = now_ns() - t0;
		if (err) {
			fprintf(stderr, "otlp__encode: %d\n", err);
			return 1;
		}
		if (i + 1 < a[5])
			free(buf);
	}
	qsort(t, a[5], sizeof(t[0]), cmp_u64);
	gzlen = compressBound(len);
	gz = malloc(gzlen);
	if (!gz || compress2(gz, &gzlen, buf, len, 6) != Z_OK)
		return 1;
	printf("%u\t%u\t%u\t%u\t%u\t%.1f\t%zu\t%lu\t%ld\n", a[0], a[1], a[2], a[3], a[4],
	       t[a[5] / 2] / 1e6, len, (unsigned long)gzlen, maxrss_kb() - rss0);
	return 0;
}
