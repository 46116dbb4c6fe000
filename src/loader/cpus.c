// SPDX-License-Identifier: Apache-2.0
/* Online CPU list: sampling opens one perf event per online CPU, and a machine's CPUs
 * need not be numbered 0..n-1 (hot-unplug, isolated CPUs). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "loader/cpus.h"

static int push(int **v, int *n, int *cap, int cpu)
{
	if (*n == *cap) {
		int c = *cap ? *cap * 2 : 16;
		int *p = realloc(*v, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = cpu;
	return 0;
}

int parse_cpu_list(const char *s, int **out)
{
	int *v = NULL, n = 0, cap = 0, err = -EINVAL;

	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0 || a > 65535)
			goto fail;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a || b > 65535)
				goto fail;
		}
		for (long c = a; c <= b; c++) {
			if (push(&v, &n, &cap, (int)c)) {
				err = -ENOMEM;
				goto fail;
			}
		}
		s = *end == ',' ? end + 1 : end;
		if (*end != ',' && *end != '\n' && *end != '\0')
			goto fail;
	}
	if (!n)
		goto fail;
	*out = v;
	return n;
fail:
	free(v);
	return err;
}

int online_cpus(int **out)
{
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int err;

	if (!f)
		return -errno;
	err = fgets(buf, sizeof(buf), f) ? 0 : -EIO;
	fclose(f);
	return err ? err : parse_cpu_list(buf, out);
}
