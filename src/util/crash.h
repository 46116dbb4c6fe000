/* SPDX-License-Identifier: Apache-2.0 */
/* Last words on a fatal signal: which signal, where, and a backtrace on stderr, so a
 * crash is a report with a place in it instead of a silent exit status. */
#ifndef EBPROF_CRASH_H
#define EBPROF_CRASH_H

/* Installs the handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT. Call once,
 * first thing in main. */
void crash__install(void);

#endif
