/* SPDX-License-Identifier: Apache-2.0 */
/* The directories under /var/cache/ebprof that ebprof writes and reads back (minimal BTF,
 * inflated debug files): made private, and trusted, with the files in them, only when we
 * own them and nobody else may write them, since what is read back steers our work. */
#ifndef EBPROF_UTIL_CACHE_DIR_H
#define EBPROF_UTIL_CACHE_DIR_H

#include <stdbool.h>
#include <sys/stat.h>

/* Whether st (from lstat or fstat) is ours and writable by nobody else. */
bool cache_dir__safe(const struct stat *st);
/* Makes dir (0700; its parent 0755 if missing) unless it exists. Returns 0 when it is then
 * a directory cache_dir__safe accepts, -EPERM when it is not, or another negative errno. */
int cache_dir__make(const char *dir);

#endif
