/* SPDX-License-Identifier: Apache-2.0 */
/* `ebprof record`: sample the whole system, some processes, or a command, for a while,
 * and write pprof, folded stacks and a flame graph into an output directory. */
#ifndef EBPROF_RECORD_H
#define EBPROF_RECORD_H

/* Returns the process exit status: 0 success, 1 runtime failure, 2 usage error. */
int cmd_record(int argc, char **argv);

#endif
