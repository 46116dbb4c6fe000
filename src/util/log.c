// SPDX-License-Identifier: Apache-2.0
/* Diagnostics to stderr: "ebprof: <level>message". One write per line, so lines from
 * different threads never interleave. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"

bool log_verbose;
static unsigned int errors;

unsigned int log_errors(void)
{
	return __atomic_load_n(&errors, __ATOMIC_RELAXED);
}

void log_msg(const char *level, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	int n;

	if (strcmp(level, "error: ") == 0)
		__atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
	n = snprintf(buf, sizeof(buf), "ebprof: %s", level);
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf) - 1)
		n = sizeof(buf) - 2;
	if (buf[n - 1] != '\n')
		buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, n) < 0)
		return;
}
