/* SPDX-License-Identifier: Apache-2.0 */
/* Diagnostics to stderr with one prefix, so every message says it came from ebprof. */
#ifndef EBPROF_LOG_H
#define EBPROF_LOG_H

#include <stdbool.h>

extern bool log_verbose;

void log_msg(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Errors printed so far: a caller compares two readings to know whether a failure
 * below it has already said what went wrong. */
unsigned int log_errors(void);

#define pr_err(...) log_msg("error: ", __VA_ARGS__)
#define pr_warn(...) log_msg("warning: ", __VA_ARGS__)
#define pr_info(...) log_msg("", __VA_ARGS__)
#define pr_debug(...)                                    \
	do {                                             \
		if (log_verbose)                         \
			log_msg("debug: ", __VA_ARGS__); \
	} while (0)

#endif
