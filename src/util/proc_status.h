/* SPDX-License-Identifier: Apache-2.0 */
/* /proc/PID/status: read without blocking and bounded, and its "Name:\tvalue" fields
 * found by name. The text is the kernel's, or whatever a bind mount put there. */
#ifndef EBPROF_UTIL_PROC_STATUS_H
#define EBPROF_UTIL_PROC_STATUS_H

#include <stddef.h>
#include <stdint.h>

#define PROC_STATUS_MAX (16u << 10) /* the kernel's is under 2 KiB */

/* Reads root/PID/status (root: "/proc"; tests point it elsewhere) into a malloc'd,
 * NUL-terminated *text (the caller frees it). Returns 0 or -errno (-ENOENT: no such
 * process), writing why (SAFE_FILE_WHY bytes) for a file that is not the kernel's. */
int proc_status__read(const char *root, uint32_t pid, char **text, char *why);

/* The value of field name in status text (len bytes, need not end in NUL) as a decimal
 * number that fits 32 bits: 0, or -ENOENT when no line starts "name:" with such a value. */
int proc_status__u32(const char *text, size_t len, const char *name, uint32_t *out);

#endif
