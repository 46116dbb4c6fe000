/* SPDX-License-Identifier: Apache-2.0 */
/* Checked conversions of command-line and configuration values, shared by every verb and
 * by the components that take settings (exporters, allocation sampling): a bad value is a
 * usage error with a message that names the flag, never a silent zero. */
#ifndef EBPROF_UTIL_OPTIONS_H
#define EBPROF_UTIL_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

/* Each returns 0, or -EINVAL after printing "ebprof: error: <flag>: ..." to stderr. */
int opt_uint(const char *flag, const char *s, unsigned long min, unsigned long max,
	     unsigned long *out);
/* Seconds with an optional fraction and suffix s/m/h: "10", "2.5", "30s", "5m". */
int opt_seconds(const char *flag, const char *s, double *out);
/* Sizes with an optional K/M/G suffix (powers of 1024). */
int opt_size(const char *flag, const char *s, uint64_t *out);
/* A comma-separated pid list; each must name a live process or thread (a thread is
 * replaced by its process). *out is malloc'd. */
int opt_pids(const char *flag, const char *s, uint32_t **out, size_t *n);

#endif
