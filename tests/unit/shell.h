/* SPDX-License-Identifier: Apache-2.0 */
/* Test helpers for running system tools (readelf, objcopy, cc) from unit tests. */
#ifndef EBPROF_TEST_SHELL_H
#define EBPROF_TEST_SHELL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* Runs a printf-formatted shell command; returns system()'s status. */
static inline int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int run(const char *fmt, ...)
{
	char cmd[16384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static inline bool has_tool(const char *name)
{
	return run("command -v %s >/dev/null 2>&1", name) == 0;
}

#endif
