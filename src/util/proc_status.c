// SPDX-License-Identifier: Apache-2.0
/* /proc/PID/status reading and field parsing (proc_status.h). */
#include "util/proc_status.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/safe_file.h"

int proc_status__read(const char *root, uint32_t pid, char **text, char *why)
{
	char path[256];
	size_t len;
	int fd, err;

	*text = NULL;
	snprintf(path, sizeof(path), "%s/%u/status", root, pid);
	fd = safe_file__open(path, 0, PROC_STATUS_MAX, NULL, why);
	if (fd < 0)
		return fd;
	err = safe_file__read_fd(fd, PROC_STATUS_MAX, text, &len, why);
	close(fd);
	return err;
}

/* Parses the value [p, end) of a field: blanks, digits, then blanks to the line's end. */
static bool parse_u32(const char *p, const char *end, uint32_t *out)
{
	uint64_t v = 0;
	bool digits = false;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	for (; p < end && *p >= '0' && *p <= '9'; p++, digits = true) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UINT32_MAX)
			return false;
	}
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (!digits || p != end)
		return false;
	*out = (uint32_t)v;
	return true;
}

int proc_status__u32(const char *text, size_t len, const char *name, uint32_t *out)
{
	const char *p = text, *end = text + len, *nl;
	size_t n = strlen(name);

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		if ((size_t)(nl - p) > n && !memcmp(p, name, n) && p[n] == ':')
			return parse_u32(p + n + 1, nl, out) ? 0 : -ENOENT;
	}
	return -ENOENT;
}
