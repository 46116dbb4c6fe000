/* SPDX-License-Identifier: Apache-2.0 */
/* What a test's code under test says on stderr (ebprof's messages go to fd 2 in one write
 * each): captured into a file between capture_begin and capture_end, then read back. */
#ifndef EBPROF_TEST_STDERR_CAPTURE_H
#define EBPROF_TEST_STDERR_CAPTURE_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int capture_saved = -1;
static FILE *capture_file;

static inline void capture_begin(void)
{
	fflush(stderr);
	capture_file = tmpfile();
	capture_saved = dup(STDERR_FILENO);
	if (capture_file)
		dup2(fileno(capture_file), STDERR_FILENO);
}

/* Ends the capture: the lines said, NUL-terminated in out (len bytes), and how many. */
static inline int capture_end(char *out, size_t len)
{
	size_t n = 0;
	int lines = 0;

	fflush(stderr);
	if (capture_saved >= 0) {
		dup2(capture_saved, STDERR_FILENO);
		close(capture_saved);
		capture_saved = -1;
	}
	out[0] = '\0';
	if (!capture_file)
		return -1;
	rewind(capture_file);
	n = fread(out, 1, len - 1, capture_file);
	out[n] = '\0';
	fclose(capture_file);
	capture_file = NULL;
	for (size_t i = 0; i < n; i++)
		lines += out[i] == '\n';
	/* Shown in the test's own output too, for whoever reads a failure. */
	fputs(out, stderr);
	return lines;
}

#endif
