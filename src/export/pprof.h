/* SPDX-License-Identifier: Apache-2.0 */
/* pprof exporter: writes a report as a gzip'd perftools.profiles.Profile, the format
 * `go tool pprof` and most profile viewers read. */
#ifndef EBPROF_EXPORT_PPROF_H
#define EBPROF_EXPORT_PPROF_H

struct report;

/*
 * Writes r to path as a gzip'd pprof Profile: samples/count and cpu/nanoseconds values,
 * one Mapping per report mapping, one Location per report frame, one Sample per stack with
 * pid/tid/thread/comm (and truncated) labels. The file is written to "path.tmp" and
 * renamed over path, so readers never see a partial profile.
 *
 * Returns 0, or a negative errno (-EINVAL for a report whose indices are out of range);
 * on failure path is left as it was and no path.tmp remains. r is only read; the caller
 * keeps ownership of it and of path.
 */
int pprof__write(const struct report *r, const char *path);

#endif
