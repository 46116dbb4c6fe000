/* SPDX-License-Identifier: Apache-2.0 */
/* Guarded reads of mapped files that other users can shrink. A read of a file mapping
 * past the file's end raises SIGBUS, and a user who truncates a library ebprof has mapped
 * (libelf, libdw and libbpf map the files they read) would kill root's profiler with it.
 * Inside a guarded section the fault is absorbed instead: a page of zeros is mapped over
 * the one that is gone, the read goes on (zeros are one more damaged file to the readers,
 * which are fuzzed for those), and the section's owner learns at its end that the file
 * changed under it, and drops what it read. Outside a section SIGBUS is fatal as before. */
#ifndef EBPROF_UTIL_MAPGUARD_H
#define EBPROF_UTIL_MAPGUARD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* Begins a guarded section on the calling thread (sections nest). Installs the SIGBUS
 * handler on first use when none is (crash__install's handler calls
 * mapguard__absorb itself). Returns what mapguard__end takes. */
unsigned int mapguard__begin(void);
/* Ends the section begun with token; returns true when a fault was absorbed in it (or in
 * a section nested in it): what was read from a mapping since is not to be trusted. */
bool mapguard__end(unsigned int token);

/* For a SIGBUS handler: absorbs the fault si describes when it is a read past the end of
 * a mapped file in a guarded section of the faulting thread. Returns whether it did (the
 * handler then returns and the read is retried); async-signal-safe. */
bool mapguard__absorb(const siginfo_t *si);

/* Faults absorbed since the process started, by every thread. */
uint64_t mapguard__faults(void);

#endif
