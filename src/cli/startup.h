/* SPDX-License-Identifier: Apache-2.0 */
/* Start-up timeline of a verb: when each phase ended, measured from the start of main,
 * printed with -v and read by bench/startup.sh. Start-up is a feature we measure. */
#ifndef EBPROF_STARTUP_H
#define EBPROF_STARTUP_H

#include <stdint.h>

struct loader;

enum startup_phase {
	STARTUP_MAIN,	      /* main() began */
	STARTUP_CHECKED,      /* host checks and output directory done */
	STARTUP_PREPARED,     /* BPF objects opened and configured */
	STARTUP_LOADED,	      /* maps created, the sampler's programs verified */
	STARTUP_ATTACHED,     /* perf events and tracepoints attached */
	STARTUP_FIRST_SAMPLE, /* the first sample reached userspace */
	/* The way out, for the same budget: */
	EXIT_BEGIN,    /* the recording was told to stop */
	EXIT_DRAINED,  /* perf events detached, the ring buffer read to the end */
	EXIT_TRACKER,  /* the tracker thread stopped */
	EXIT_RELEASED, /* BPF programs, maps and links closed */
	EXIT_KSYMS,    /* kernel symbols read */
	EXIT_REPORTED, /* every frame symbolized */
	EXIT_WRITTEN,  /* the outputs written and the summary printed */
	EXIT_FREED,    /* everything freed: the process only has to exit */
	STARTUP__COUNT,
};

void startup__mark(enum startup_phase p);
/* Marks STARTUP_FIRST_SAMPLE once, at taken_ns (the sample's bpf_ktime_get_ns(), the
 * same CLOCK_MONOTONIC): when sampling began, not when the batch reached us. */
void startup__first_sample(uint64_t taken_ns);
/* Set by a launcher to its CLOCK_MONOTONIC ns just before it execs ebprof: the timeline
 * then starts with exec= (ms from that exec to main). Only the start-up benchmark does. */
#define EXEC_STAMP_ENV "EBPROF_EXEC_MONO_NS"

/* Prints the timeline, in ms from main (exec= excepted), and the loader's per-program
 * figures to stderr. */
void startup__print(const struct loader *l);
/* Prints the exit timeline ("exit_ms phase=value ...", ms from EXIT_BEGIN) and the
 * process's CPU time so far to stderr. */
void startup__print_exit(void);

#endif
