// SPDX-License-Identifier: Apache-2.0
/* Command-line value parsing with range checks and messages that say what was wrong. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/options.h"
#include "util/proc_status.h"
#include "util/safe_file.h"
#include "util/log.h"

int opt_uint(const char *flag, const char *s, unsigned long min, unsigned long max,
	     unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *end || errno || s[0] == '-') {
		pr_err("%s: '%s' is not a whole number", flag, s);
		return -EINVAL;
	}
	if (v < min || v > max) {
		pr_err("%s: %lu is out of range (%lu to %lu)", flag, v, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int opt_seconds(const char *flag, const char *s, double *out)
{
	char *end;
	double v, mul = 1;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		goto bad;
	if (*end == 's')
		end++;
	else if (*end == 'm')
		mul = 60, end++;
	else if (*end == 'h')
		mul = 3600, end++;
	if (*end)
		goto bad;
	*out = v * mul;
	return 0;
bad:
	pr_err("%s: '%s' is not a duration (examples: 10, 2.5, 30s, 5m)", flag, s);
	return -EINVAL;
}

int opt_size(const char *flag, const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || errno || s[0] == '-')
		goto bad;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	if (*end || v > (UINT64_MAX >> shift))
		goto bad;
	*out = (uint64_t)v << shift;
	return 0;
bad:
	pr_err("%s: '%s' is not a size (examples: 4096, 512K, 8M)", flag, s);
	return -EINVAL;
}

/* The thread group of pid (itself for a process) in *tgid: 0, -ENOENT when there is no
 * such process, or another -errno after saying what is wrong with its status file. */
static int tgid_of(const char *flag, uint32_t pid, uint32_t *tgid)
{
	char *text, why[SAFE_FILE_WHY];
	int err = proc_status__read("/proc", pid, &text, why);

	if (err == -ENOENT || err == -ESRCH)
		return -ENOENT;
	if (err) {
		pr_err("%s: /proc/%u/status %s", flag, pid, why);
		return err;
	}
	err = proc_status__u32(text, strlen(text), "Tgid", tgid);
	free(text);
	if (!err && !*tgid)
		err = -ENOENT;
	return err;
}

int opt_pids(const char *flag, const char *s, uint32_t **out, size_t *n)
{
	char *copy = strdup(s), *tok, *save = NULL;
	uint32_t *v = NULL;
	size_t len = 0;
	int err = -EINVAL, r;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long pid;
		uint32_t *p;

		if (opt_uint(flag, tok, 1, 4194304, &pid))
			goto out;
		p = realloc(v, (len + 1) * sizeof(*v));
		if (!p) {
			err = -ENOMEM;
			goto out;
		}
		v = p;
		r = tgid_of(flag, pid, &v[len]);
		if (r == -ENOENT)
			pr_err("%s: no process with pid %lu", flag, pid);
		if (r)
			goto out;
		len++;
	}
	if (!len) {
		pr_err("%s: expects a comma-separated list of pids", flag);
		goto out;
	}
	*out = v;
	*n = len;
	v = NULL;
	err = 0;
out:
	free(v);
	free(copy);
	return err;
}
