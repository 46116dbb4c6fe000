/* SPDX-License-Identifier: Apache-2.0 */
/* The userspace half of native unwinding: the table pool and the process tracker that
 * feed the BPF unwinder's maps, started once the sampler's maps exist. */
#ifndef EBPROF_NATIVE_H
#define EBPROF_NATIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "interp/runtime.h"
#include "loader/sampler.h"
#include "proc/proc.h"
#include "sample.h"
#include "unwind/warm.h"

struct native_unwinder;

/* Starts making the tables of processes' files (pids, or all when NULL) and describing
 * those a runtime (runtimes may be NULL) claims part of. First, before it returns, it
 * builds the tables of warm (may be NULL: a command's files, see warm.h) or, for the
 * whole system, those of the files every process maps (warm__common, the vDSO).
 * Returns NULL with errno set, having logged why. */
struct native_unwinder *native__start(const struct sampler_maps *maps, struct proc_table *procs,
				      struct runtime_set *runtimes, const uint32_t *pids,
				      size_t npids, const struct warm_list *warm);
/* Passes a notice record from BPF on. */
void native__notice(struct native_unwinder *n, const struct notice_record *r);
/* True when the tracker has described and built all it knows of (tracker__idle). */
bool native__idle(struct native_unwinder *n);
/* Stops the tracker; the figures stay readable for native__print_stats. */
void native__stop(struct native_unwinder *n);
void native__print_stats(struct native_unwinder *n, FILE *out);
void native__free(struct native_unwinder *n);

#endif
