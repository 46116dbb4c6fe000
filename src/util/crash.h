/* SPDX-License-Identifier: Apache-2.0 */
/* Last words on a fatal signal: which signal, where, and a backtrace on stderr, so a
 * crash is a report with a place in it instead of a silent exit status. */
#ifndef EBPROF_CRASH_H
#define EBPROF_CRASH_H

#include <pthread.h>

/* Installs the handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT, with an
 * alternate stack for the calling thread. Call once, first thing in main. */
void crash__install(void);

/* fn runs first on a fatal signal (before the report, so it shows where the user can
 * read it): what must be put back, such as a terminal in raw mode. It must be
 * async-signal-safe. One at a time; NULL removes it. */
void crash__on_fatal(void (*fn)(void));

/* pthread_create(thread, NULL, fn, arg) for a thread that gets an alternate signal
 * stack of its own while fn runs, so that its stack overflow is reported too, and the
 * fatal signals unblocked whatever mask it inherits. fn must return (not
 * pthread_exit). Returns 0 or a positive errno, as pthread_create. */
int crash__thread_create(pthread_t *thread, void *(*fn)(void *), void *arg);

#endif
