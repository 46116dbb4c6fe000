// SPDX-License-Identifier: Apache-2.0
/* The start-up timeline: CLOCK_MONOTONIC stamps per phase, and one report of durations in a
 * stable format ("startup_ms phase=value ...", "program name=... ") that the benchmark
 * parses. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "cli/startup.h"
#include "loader/loader.h"
#include "util/clock.h"

static uint64_t stamps[STARTUP__COUNT];

void startup__mark(enum startup_phase p)
{
	stamps[p] = now_ns();
}

void startup__first_sample(uint64_t taken_ns)
{
	if (!stamps[STARTUP_FIRST_SAMPLE])
		stamps[STARTUP_FIRST_SAMPLE] = taken_ns;
}

static double ms_since_main(enum startup_phase p)
{
	return stamps[p] ? (stamps[p] - stamps[STARTUP_MAIN]) / 1e6 : -1;
}

/* Milliseconds from the exec to main when whoever exec'd us said when
 * (EXEC_STAMP_ENV, CLOCK_MONOTONIC ns: bench/exec_clock.c), else -1. */
static double exec_to_main_ms(void)
{
	const char *v = getenv(EXEC_STAMP_ENV);
	unsigned long long t;
	char *end;

	if (!v || !*v)
		return -1;
	errno = 0;
	t = strtoull(v, &end, 10);
	if (errno || *end || !t || t > stamps[STARTUP_MAIN])
		return -1;
	return (stamps[STARTUP_MAIN] - t) / 1e6;
}

void startup__print(const struct loader *l)
{
	uint64_t maps_ns = 0, verify_ns = 0;

	if (l)
		loader__phase_ns(l, &maps_ns, &verify_ns);
	fprintf(stderr,
		"ebprof: startup_ms exec=%.2f checked=%.2f prepared=%.2f loaded=%.2f attached=%.2f "
		"first_sample=%.2f maps=%.2f verify=%.2f verify_later=%.2f\n",
		exec_to_main_ms(), ms_since_main(STARTUP_CHECKED), ms_since_main(STARTUP_PREPARED),
		ms_since_main(STARTUP_LOADED), ms_since_main(STARTUP_ATTACHED),
		ms_since_main(STARTUP_FIRST_SAMPLE), maps_ns / 1e6, verify_ns / 1e6,
		l ? loader__pending_ns(l) / 1e6 : 0.0);
	/* Every program verified, at start or later (a runtime's walker, on demand). */
	for (size_t i = 0; l && i < loader__njobs(l); i++) {
		const struct loader_stat *s = loader__stat(l, i);

		if (s->pending)
			continue;
		fprintf(stderr,
			"ebprof: program name=%s rank=%u verified_insns=%" PRIu32
			" insns=%zu verify_ms=%.2f cost=%" PRIu64 "\n",
			s->name, s->rank, s->verified_insns, s->insns, s->verify_ns / 1e6, s->cost);
	}
}

static double ms_since_exit(enum startup_phase p)
{
	return stamps[p] && stamps[EXIT_BEGIN] ? (stamps[p] - stamps[EXIT_BEGIN]) / 1e6 : -1;
}

void startup__print_exit(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr,
		"ebprof: exit_ms drained=%.2f tracker=%.2f released=%.2f ksyms=%.2f reported=%.2f "
		"written=%.2f freed=%.2f cpu_user_s=%.3f cpu_sys_s=%.3f\n",
		ms_since_exit(EXIT_DRAINED), ms_since_exit(EXIT_TRACKER),
		ms_since_exit(EXIT_RELEASED), ms_since_exit(EXIT_KSYMS),
		ms_since_exit(EXIT_REPORTED), ms_since_exit(EXIT_WRITTEN),
		ms_since_exit(EXIT_FREED), ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
}
