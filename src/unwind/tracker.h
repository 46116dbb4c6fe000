/* SPDX-License-Identifier: Apache-2.0 */
/* The process tracker: a thread that makes the tables of the files processes map exist
 * (file_tables, through the table pool) and describes to the in-kernel walkers the
 * processes a runtime claims something of (executable mappings with file ids, biases,
 * unwind tables and the runtimes' markers in pid_to_mappings, and what each runtime
 * keeps for the process). It learns of processes and files from an initial /proc scan
 * and from the notices BPF sends (a file without a table, a runtime's file or JIT code
 * in a process without a description, an unknown mapping of a described one, exec,
 * exit), and never blocks the sample path. */
#ifndef EBPROF_TRACKER_H
#define EBPROF_TRACKER_H

#include <stdbool.h>
#include <stdint.h>

#include "interp/runtime.h"
#include "proc/proc.h"
#include "sample.h"
#include "unwind/tables.h"

struct tracker;

struct tracker_stats {
	uint64_t looked;    /* processes whose maps were read */
	uint64_t described; /* process descriptions written (a runtime claims part of it) */
	uint64_t damped;    /* notices about a process looked at within the last second, or
			     * of a file since they were queued, for that file */
	uint64_t preempted; /* builds the scan queued that gave way to a sample's */
	uint64_t vanished;  /* processes gone before they could be looked at */
	uint64_t exits;
	uint64_t queue_full; /* requests dropped because the queue was full */
	uint64_t too_many_mappings;
	uint64_t queried;  /* notices of files answered by one VMA (proc_query_file), no look */
	uint64_t relooked; /* processes looked at again once a runtime's walker was verified */
};

/* pid_maps_fd: the pid_to_mappings map. runtimes (may be NULL) learn of every process
 * described and every exit, to describe what runs in it too. pids/npids: the processes
 * to scan at start (NULL: every process in /proc). Starts the thread. Returns NULL with
 * errno set. */
struct tracker *tracker__start(struct proc_table *procs, struct table_pool *pool, int pid_maps_fd,
			       struct runtime_set *runtimes, const uint32_t *pids, size_t npids);
/* Stops the thread, then the runtimes' verifier (runtime_set__stop_verifier), and
 * releases every table reference; descriptions stay in BPF until the maps are closed. A
 * table build in progress is abandoned (the CFI compiler polls the stop flag), and so is
 * the description it was for: the wait is for at most a few hundred FDEs, a chunk being
 * made, or a runtime's walker being verified (a BPF verification cannot be
 * interrupted). */
void tracker__stop(struct tracker *t);
/* Queues a notice from BPF; cheap, callable from the sample path. */
void tracker__notice(struct tracker *t, const struct notice_record *n);
/* True when the thread has nothing left to do: the start-up scan is over, no notice
 * waits or is being served, no runtime's walker is being verified and no process waiting
 * for it is still to be looked at again, no table waits to be built or is being built.
 * What a one-shot verb waits for before it takes its stacks. */
bool tracker__idle(struct tracker *t);
void tracker__stats(struct tracker *t, struct tracker_stats *out);

#endif
