/* SPDX-License-Identifier: Apache-2.0 */
/* The caches under /var/cache/ebprof that ebprof writes and reads back (load costs, minimal
 * BTF, inflated debug files): what is read back steers root's work, so a cache is used
 * only when every directory from /var/cache/ebprof down to it, and every file read from
 * it, is ours and writable by nobody else. A cache refused is said once, with the path
 * and the reason, and the run goes on without it. */
#ifndef EBPROF_UTIL_CACHE_DIR_H
#define EBPROF_UTIL_CACHE_DIR_H

#include <stdbool.h>
#include <sys/stat.h>

#define CACHE_ROOT "/var/cache/ebprof"

/* Whether st (from lstat or fstat) is ours and writable by nobody else. */
bool cache_dir__safe(const struct stat *st);

/* Makes dir unless it exists, and checks it and every directory above it up to the cache
 * root: CACHE_ROOT for a dir under it, else dir itself (a directory the user named). Each
 * must be a directory, not a link, that cache_dir__safe accepts; those missing are made
 * (the root 0755, for the caches' several users, the others 0700). Returns 0, or -EPERM
 * when one is refused, or another negative errno (the root's parent missing, say): then it
 * has said so once (cache_dir__refuse). */
int cache_dir__make(const char *dir);
/* The same with the cache root given (tests, and callers with a root of their own):
 * dir must be root or below it. */
int cache_dir__make_under(const char *root, const char *dir);

/* Whether the file st describes (an lstat or an fstat of path, in a directory
 * cache_dir__make accepted) may be read back: a regular file cache_dir__safe accepts. Says
 * once why not. */
bool cache_dir__file_trusted(const char *path, const struct stat *st);

/* Says, once per path in a process's life, that the cache at path is not used and why
 * (a phrase after the path: "is owned by uid 1000, not uid 0"). */
void cache_dir__refuse(const char *path, const char *why);

#endif
