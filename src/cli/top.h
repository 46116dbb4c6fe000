/* SPDX-License-Identifier: Apache-2.0 */
/* `ebprof top`: a live view of the functions taking the CPU, every runtime's included,
 * refreshed in the terminal or printed every interval (--batch). */
#ifndef EBPROF_TOP_H
#define EBPROF_TOP_H

/* Returns the process exit status: 0 success, 1 runtime failure, 2 usage error. */
int cmd_top(int argc, char **argv);

#endif
