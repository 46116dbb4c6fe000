/* SPDX-License-Identifier: Apache-2.0 */
/* Files written under a unique temporary name (PATH.tmp.XXXXXX) and renamed into place
 * once complete, so a reader, a crash or a second ebprof never sees half of one. */
#ifndef EBPROF_ATOMIC_FILE_H
#define EBPROF_ATOMIC_FILE_H

#include <stdio.h>

struct atomic_file {
	int fd;
	FILE *stream; /* from atomic_file__stream, or NULL */
	char *tmp;
	char *path;
};

/* Creates the temporary file (mode 0644) next to path. Returns 0 or -errno. */
int atomic_file__open(struct atomic_file *af, const char *path);
/* A stdio stream on the file (made once); NULL with errno set on failure. */
FILE *atomic_file__stream(struct atomic_file *af);
/* With err == 0, flushes, syncs and renames the file into place; otherwise, or when
 * any of that fails, removes it. Always releases af. Returns err or the new failure. */
int atomic_file__finish(struct atomic_file *af, int err);

#endif
