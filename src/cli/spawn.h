/* SPDX-License-Identifier: Apache-2.0 */
/* Starting the command of `ebprof record -- CMD`: the child is created stopped before
 * exec, so its pid can join the BPF filter before it runs a single instruction of CMD. */
#ifndef EBPROF_SPAWN_H
#define EBPROF_SPAWN_H

#include <sys/types.h>

struct spawn {
	pid_t pid;
	int go_fd;  /* write end: closing it lets the child exec */
	int err_fd; /* read end: the child's exec errno, or EOF when exec worked */
};

/* Forks a child that waits, then execs argv. Returns 0 or -errno. */
int spawn__prepare(struct spawn *sp, char *const argv[]);
/* Lets the child exec; returns 0, or -errno of a failed exec (the child is reaped). */
int spawn__start(struct spawn *sp);
/* Kills and reaps a child that was prepared but will not be started. */
void spawn__abort(struct spawn *sp);

#endif
