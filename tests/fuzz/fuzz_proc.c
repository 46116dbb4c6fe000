// SPDX-License-Identifier: Apache-2.0
/* libFuzzer harness for the parsers of /proc text: with the first byte even, the rest is a
 * /proc/PID/maps read by the process table's own loop (proc_table__parse_maps, interning
 * each mapped file); odd, a /proc/PID/status whose fields are looked up by name
 * (proc_status__u32), the name of the last one taken from the input. The kernel writes
 * both, but a bind mount or a container's /proc can put anything there. Built by
 * run_proc.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/proc.h"
#include "util/proc_status.h"

static void maps(const uint8_t *data, size_t size)
{
	struct proc_table t = {0};
	struct file_table files;
	struct proc_mapping *m = NULL;
	uint32_t n = 0;
	FILE *fp;

	if (!size)
		return;
	/* No proc_table__init: it reads this process's own maps for the vDSO. */
	file_table__init(&files);
	t.files = &files;
	fp = fmemopen((void *)data, size, "r");
	if (fp && !proc_table__parse_maps(&t, fp, &m, &n)) {
		for (uint32_t i = 0; i < n; i++)
			if (m[i].file_id > files.count)
				abort();
	}
	if (fp)
		fclose(fp);
	free(m);
	file_table__free(&files);
}

/* The value of a one-line "name:\t123 " text when it is one (up to 9 digits), else -1:
 * what the parser must find. */
static long expected(const char *text, size_t size, size_t name_len)
{
	size_t i = name_len + 1, digits = 0;
	long v = 0;

	while (i < size && (text[i] == ' ' || text[i] == '\t'))
		i++;
	for (; i < size && text[i] >= '0' && text[i] <= '9' && digits < 10; i++, digits++)
		v = v * 10 + (text[i] - '0');
	while (i < size && (text[i] == ' ' || text[i] == '\t'))
		i++;
	return i == size && digits && digits <= 9 ? v : -1;
}

static void status(const uint8_t *data, size_t size)
{
	static const char *const names[] = {"Tgid", "Pid", "PPid", "Name", ""};
	const char *text = (const char *)data;
	const char *colon = memchr(text, ':', size < 32 ? size : 32);
	char name[33];
	uint32_t v;
	long want;

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		proc_status__u32(text, size, names[i], &v);
	if (!colon || colon == text || memchr(text, '\n', size) || memchr(text, '\0', size))
		return;
	memcpy(name, text, colon - text);
	name[colon - text] = '\0';
	want = expected(text, size, colon - text);
	if (want >= 0 && (proc_status__u32(text, size, name, &v) || v != (uint32_t)want))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		status(data + 1, size - 1);
	else
		maps(data + 1, size - 1);
	return 0;
}
