// SPDX-License-Identifier: Apache-2.0
/* Write-then-rename files. The temporary name is unique (mkstemp), so two writers of
 * one path (two ebprof runs sharing a cache) cannot mix their bytes. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomic_file.h"

int atomic_file__open(struct atomic_file *af, const char *path)
{
	memset(af, 0, sizeof(*af));
	af->fd = -1;
	af->path = strdup(path);
	if (!af->path || asprintf(&af->tmp, "%s.tmp.XXXXXX", path) < 0) {
		af->tmp = NULL;
		atomic_file__finish(af, -ENOMEM);
		return -ENOMEM;
	}
	af->fd = mkostemp(af->tmp, O_CLOEXEC);
	if (af->fd < 0 || fchmod(af->fd, 0644)) {
		int err = -errno;

		atomic_file__finish(af, err);
		return err;
	}
	return 0;
}

FILE *atomic_file__stream(struct atomic_file *af)
{
	if (!af->stream)
		af->stream = fdopen(af->fd, "w");
	return af->stream;
}

/* Flushes and closes whatever is open; returns err or the first new failure. */
static int close_all(struct atomic_file *af, int err)
{
	if (af->stream) {
		if (!err && fflush(af->stream))
			err = -errno;
		if (!err && fsync(af->fd))
			err = -errno;
		if (fclose(af->stream) && !err)
			err = -errno;
	} else if (af->fd >= 0) {
		if (!err && fsync(af->fd))
			err = -errno;
		/* Some file systems (NFS) report write errors only at close. */
		if (close(af->fd) && !err)
			err = -errno;
	}
	af->stream = NULL;
	af->fd = -1;
	return err;
}

int atomic_file__finish(struct atomic_file *af, int err)
{
	bool created = af->tmp && (af->fd >= 0 || af->stream);

	err = close_all(af, err);
	if (!err && rename(af->tmp, af->path))
		err = -errno;
	if (err && created)
		unlink(af->tmp);
	free(af->tmp);
	free(af->path);
	af->tmp = af->path = NULL;
	return err;
}
