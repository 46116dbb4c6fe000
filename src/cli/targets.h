/* SPDX-License-Identifier: Apache-2.0 */
/* The processes of `record -p PIDS`, watched so the recording ends once every one of
 * them has exited, as perf's does. */
#ifndef EBPROF_TARGETS_H
#define EBPROF_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct targets;

/* Starts watching the processes pids[0..n). Returns NULL with errno set. */
struct targets *targets__new(const uint32_t *pids, size_t n);
/* True once every watched process has exited (a zombie counts as exited). Costs one
 * poll() over the pidfds, so a loop may ask every time round. */
bool targets__all_exited(struct targets *t);
void targets__free(struct targets *t);

#endif
