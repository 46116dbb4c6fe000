/* SPDX-License-Identifier: Apache-2.0 */
/* A process's threads as /proc tells them: each one's name, its scheduler state, the
 * system call it waits in and the kernel stack it sleeps on. What `ebprof dump` says of
 * a thread before it stops it for its user stack. */
#ifndef EBPROF_THREADS_H
#define EBPROF_THREADS_H

#include <stddef.h>
#include <stdint.h>

#define THREAD_KSTACK_MAX 64 /* kernel functions kept of a stack */

/* /proc/PID/task/TID/syscall's first word, or what stands for it. */
enum {
	THREAD_SYSCALL_NONE = -1,    /* running, or blocked outside a system call */
	THREAD_SYSCALL_UNKNOWN = -2, /* unreadable (no CONFIG_HAVE_ARCH_TRACEHOOK, gone) */
};

struct thread_info {
	uint32_t tid;
	char name[17]; /* comm */
	char state;    /* /proc's letter: R S D T t Z X I; '?' when unreadable */
	long syscall;  /* its number, or THREAD_SYSCALL_* */
	uint64_t arg0; /* its first argument (a descriptor, an address) */
	char **kstack; /* kernel functions, innermost first (malloc'd) */
	size_t nkstack;
	int kstack_err; /* 0, or why the stack could not be read (errno) */
};

/* The threads of pid, sorted, in *tids (malloc'd). Returns how many, or -errno (-ESRCH:
 * the process is gone). */
int threads__list(uint32_t pid, uint32_t **tids);
/* Reads what /proc says of thread tid of pid. Returns 0, or -ESRCH when it is gone. */
int thread_info__read(uint32_t pid, uint32_t tid, struct thread_info *t);
void thread_info__free(struct thread_info *t);
/* The state's word: "running", "sleeping", "disk sleep"... */
const char *thread_state_name(char state);
/* A system call's name on this architecture, NULL when the number is not known. */
const char *syscall_name(long nr);

#endif
