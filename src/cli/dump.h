/* SPDX-License-Identifier: Apache-2.0 */
/* `ebprof dump -p PID`: every thread's stack of one process, once, every runtime's
 * frames included, whether the thread runs, sleeps or hangs. */
#ifndef EBPROF_DUMP_H
#define EBPROF_DUMP_H

/* Returns the process exit status: 0 success, 1 runtime failure, 2 usage error. */
int cmd_dump(int argc, char **argv);

#endif
