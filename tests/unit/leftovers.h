/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper: did a write-then-rename leave its temporary (PATH.tmp.*) behind? */
#ifndef EBPROF_TEST_LEFTOVERS_H
#define EBPROF_TEST_LEFTOVERS_H

#include <dirent.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static inline bool tmp_leftover(const char *path)
{
	char dir_buf[4096], base_buf[4096], prefix[4200];
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(dir_buf, sizeof(dir_buf), "%s", path);
	snprintf(base_buf, sizeof(base_buf), "%s", path);
	snprintf(prefix, sizeof(prefix), "%s.tmp", basename(base_buf));
	d = opendir(dirname(dir_buf));
	while (d && (e = readdir(d)))
		found |= strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	if (d)
		closedir(d);
	return found;
}

#endif
