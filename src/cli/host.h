/* SPDX-License-Identifier: Apache-2.0 */
/* What this host offers ebprof: privileges, BTF, BPF features, perf events. Used by
 * `ebprof check` to print everything and by the verbs to refuse early with one clear
 * line instead of failing deep inside a load. */
#ifndef EBPROF_HOST_H
#define EBPROF_HOST_H

#include <stdbool.h>
#include <stdio.h>

/* Checks what recording needs; on the first problem logs one line saying what is wrong
 * and what to do, and returns a negative errno. Returns 0 when all is present. */
int host__require_recording(void);
/* Prints one line per capability of the host (or, with json, one JSON object:
 * {"can_record", "checks": [{"name", "status", "required", "detail", "hint"}]}); what
 * only a privileged process may ask the kernel is "untested" without the privileges.
 * Returns the number of required ones that failed (0: ebprof can record here). */
int host__report(FILE *out, bool json);

#endif
