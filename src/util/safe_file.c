// SPDX-License-Identifier: Apache-2.0
/* Non-blocking, link-aware, bounded opening and reading of paths (safe_file.h says why). */
#include "util/safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"

static void say(char *why, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(char *why, const char *fmt, ...)
{
	va_list ap;

	if (!why)
		return;
	va_start(ap, fmt);
	vsnprintf(why, SAFE_FILE_WHY, fmt, ap);
	va_end(ap);
}

/* What a file that is not a regular one is, for the reason. */
static const char *kind_of(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/* Why opening failed: a link O_NOFOLLOW refused says ELOOP, as does a loop of links. */
static int open_failed(int err, unsigned int flags, char *why)
{
	if (err == ELOOP && !(flags & SAFE_FILE_FOLLOW))
		say(why, "is a symbolic link (not followed)");
	else
		say(why, "%s", strerror(err));
	return -err;
}

int safe_file__open(const char *path, unsigned int flags, uint64_t max, struct stat *st, char *why)
{
	int oflags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
	struct stat own;
	int fd;

	if (!(flags & SAFE_FILE_FOLLOW))
		oflags |= O_NOFOLLOW;
	if (!st)
		st = &own;
	/* O_NONBLOCK: a FIFO opens at once (it would wait for a writer), and is refused
	 * below; on a regular file the flag changes nothing. */
	fd = open(path, oflags);
	if (fd < 0)
		return open_failed(errno, flags, why);
	if (fstat(fd, st)) {
		int err = errno;

		close(fd);
		say(why, "%s", strerror(err));
		return -err;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		if (S_ISDIR(st->st_mode))
			say(why, "is a directory, not a regular file");
		else
			say(why, "is %s, not a regular file", kind_of(st->st_mode));
		return -EINVAL;
	}
	if (max && (uint64_t)st->st_size > max) {
		close(fd);
		say(why, "is larger than %" PRIu64 " bytes", max);
		return -EFBIG;
	}
	return fd;
}

int safe_file__open_proc(const char *path)
{
	static bool said;
	char why[SAFE_FILE_WHY];
	int fd = safe_file__open(path, 0, 0, NULL, why);

	/* Only what no /proc holds: a process that exited is -ENOENT or -ESRCH. */
	if ((fd == -EINVAL || fd == -ELOOP) && !__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
		pr_warn("%s %s: not read", path, why);
	return fd;
}

/* Grows *buf (of *cap bytes, n of them used) for the next read: to at most max + 1 bytes,
 * the one past max being how a file larger than max shows. */
static int grow(char **buf, size_t *cap, size_t max)
{
	size_t want = *cap > max / 2 ? max + 1 : *cap * 2;
	char *p = realloc(*buf, want);

	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = want;
	return 0;
}

int safe_file__read_fd(int fd, size_t max, char **out, size_t *len, char *why)
{
	size_t n = 0, cap = max < 4096 ? max + 1 : 4096;
	char *buf = malloc(cap);
	ssize_t got;
	int err = buf ? 0 : -ENOMEM;

	*out = NULL;
	*len = 0;
	/* Each read has room left (a full buffer grows first), so the NUL always fits. */
	while (!err) {
		if (n == cap && cap > max) {
			say(why, "is larger than %zu bytes", max);
			err = -EFBIG;
			break;
		}
		if (n == cap && (err = grow(&buf, &cap, max)))
			break;
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno != EINTR)
			err = -errno;
		else if (got == 0)
			break;
		else if (got > 0)
			n += (size_t)got;
	}
	if (err) {
		if (err != -EFBIG)
			say(why, "%s", strerror(-err));
		free(buf);
		return err;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int safe_file__read(const char *path, unsigned int flags, size_t max, char **out, size_t *len,
		    char *why)
{
	int fd = safe_file__open(path, flags, max, NULL, why), err;

	*out = NULL;
	*len = 0;
	if (fd < 0)
		return fd;
	err = safe_file__read_fd(fd, max, out, len, why);
	close(fd);
	return err;
}
