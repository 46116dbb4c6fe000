/* SPDX-License-Identifier: Apache-2.0 */
/* The resource limits ebprof raises for itself, and puts back for the command it runs:
 * locked memory, which kernels before 5.11 charge BPF maps and programs to, and open
 * files, of which the walkers of every runtime take over a thousand (a program, its maps
 * and its BTF each an fd) where a login shell's soft limit is 1,024. The command should
 * see the limits it was started with. */
#ifndef EBPROF_LIMITS_H
#define EBPROF_LIMITS_H

/* Raises both soft limits as far as the hard limits allow (locked memory to unlimited
 * where permitted); keeps the limits found, once. Failing is harmless. */
void limits__raise(void);
/* Puts back the limits limits__raise found: in a child, before it execs. */
void limits__restore(void);

#endif
