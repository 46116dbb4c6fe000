/* SPDX-License-Identifier: Apache-2.0 */
/* Opening a path someone else may have put something at. ebprof runs as root and reads
 * files other users control: a FIFO there would block open() for ever, a link to
 * /dev/zero would never end a read, a link elsewhere would steer what root reads. Every
 * reader of a path opens it here: without blocking, following the last component only
 * when the caller allows it, and only a regular file of bounded size comes back; anything
 * else comes back with one reason a message can print after the path. */
#ifndef EBPROF_UTIL_SAFE_FILE_H
#define EBPROF_UTIL_SAFE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* The last component may be a symbolic link: a path the user gave (a probe's library,
 * a CA file), /usr/lib/debug/.build-id's links, /proc's magic links. Without it a link
 * is refused. Directories above the last component are always followed. */
#define SAFE_FILE_FOLLOW 1u

#define SAFE_FILE_WHY 128 /* bytes of a reason, its NUL included */

/* Opens path read-only (O_NONBLOCK, O_CLOEXEC, O_NOCTTY; O_NOFOLLOW without
 * SAFE_FILE_FOLLOW) and returns the descriptor of a regular file of at most max bytes
 * (0: no bound, for /proc files, which say 0), the caller closing it; *st gets its fstat
 * when st is not NULL. Otherwise returns a negative errno and writes why (SAFE_FILE_WHY
 * bytes, may be NULL) as a phrase to print after the path: "is a FIFO, not a regular
 * file", "is a symbolic link (not followed)", "is larger than 65536 bytes", or
 * strerror's text: -ENOENT and the open's other errors, -ELOOP (a link refused),
 * -EINVAL (not a regular file), -EFBIG (too large). */
int safe_file__open(const char *path, unsigned int flags, uint64_t max, struct stat *st, char *why);

/* For the files of /proc (and /sys), which no user makes: opens path as safe_file__open
 * (no bound: they say 0 bytes) and says once in the process's life what was there
 * instead, which only a bind mount or a container's /proc can put; a file that is gone
 * (the process exited) is not said. Returns the descriptor or -errno. */
int safe_file__open_proc(const char *path);

/* Reads the whole of the regular file open on fd, at most max bytes, into a malloc'd
 * buffer NUL-terminated at *len (the caller frees *out). A file that holds more than max
 * bytes (a /proc file has no size to check beforehand) is -EFBIG, with why written as
 * above; a read error its -errno. */
int safe_file__read_fd(int fd, size_t max, char **out, size_t *len, char *why);

/* safe_file__open and safe_file__read_fd together: the whole of path, closed again. */
int safe_file__read(const char *path, unsigned int flags, size_t max, char **out, size_t *len,
		    char *why);

#endif
