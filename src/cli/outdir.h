/* SPDX-License-Identifier: Apache-2.0 */
/* record's output directory: made and proven writable before any profiling starts, and
 * after it, left holding this recording's files only. Each recording lists the files it
 * wrote (.ebprof-outputs); the next removes those of the list it did not write again,
 * so a probe's files of yesterday do not pass for today's. Nothing else is touched. */
#ifndef EBPROF_OUTDIR_H
#define EBPROF_OUTDIR_H

#include <stddef.h>

#define OUTDIR_LIST ".ebprof-outputs"

struct outdir {
	const char *dir; /* borrowed */
	char **names;	 /* written by this recording, plain file names */
	size_t n, cap;
};

/* Creates dir (and its parents) and proves it writable; logs and returns -errno when it
 * cannot. Sets od up. */
int outdir__prepare(struct outdir *od, const char *dir);
/* Notes that this recording wrote dir/name. Returns 0 or -ENOMEM. */
int outdir__wrote(struct outdir *od, const char *name);
/* Removes the files the previous recording listed and this one did not write, then
 * lists this one's. Returns how many were removed, or -errno when the list could not be
 * written (logged). */
int outdir__finish(struct outdir *od);
void outdir__free(struct outdir *od);

#endif
