/* SPDX-License-Identifier: Apache-2.0 */
/* Starting the command of `ebprof record -- CMD`: the child is created stopped before
 * exec, so its pid can join the BPF filter before it runs a single instruction of CMD. */
#ifndef EBPROF_SPAWN_H
#define EBPROF_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

struct spawn {
	pid_t pid;  /* 0 once reaped */
	int go_fd;  /* write end: closing it lets the child exec */
	int err_fd; /* read end: the child's exec errno, or EOF when exec worked */
	bool reaped;
	int status; /* its wait status, once reaped */
};

/* Forks a child that waits, then execs argv. Returns 0 or -errno. */
int spawn__prepare(struct spawn *sp, char *const argv[]);
/* Lets the child exec; returns 0, or -errno of a failed exec (the child is reaped). */
int spawn__start(struct spawn *sp);
/* Kills and reaps a child that was prepared but will not be started. */
void spawn__abort(struct spawn *sp);
/* True once the started child has exited; reaps it (its status in sp->status). */
bool spawn__exited(struct spawn *sp);
/* Ends a child that is still running, as a wrapper should: SIGTERM, then up to grace_ms
 * for it to exit, calling idle(ctx) between checks (each call returns within tens of
 * milliseconds; nonzero cuts the grace short), then SIGKILL. Reaps it. */
void spawn__stop(struct spawn *sp, int grace_ms, int (*idle)(void *ctx), void *ctx);
/* The child's status as a shell reports it: its exit code, or 128 + N when signal N
 * ended it; -1 before it was reaped. */
int spawn__exit_code(const struct spawn *sp);

#endif
