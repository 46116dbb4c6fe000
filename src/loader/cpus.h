/* SPDX-License-Identifier: Apache-2.0 */
/* The list of online CPUs, from /sys/devices/system/cpu/online. */
#ifndef EBPROF_CPUS_H
#define EBPROF_CPUS_H

/* Parses a kernel CPU list such as "0-3,8,10-11" into a malloc'd array. Returns the
 * count, or a negative errno (-EINVAL for a malformed list). */
int parse_cpu_list(const char *s, int **out);
/* Returns the count of online CPUs and their numbers in *out (malloc'd), or -errno. */
int online_cpus(int **out);

#endif
