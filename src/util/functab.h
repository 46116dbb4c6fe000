/* SPDX-License-Identifier: Apache-2.0 */
/* Interned (function, file) names with small dense ids: an interpreter's or a JIT's
 * frames carry the id (UF_RUNTIME_FILE frames' file_id), and naming a frame is an index. */
#ifndef EBPROF_FUNCTAB_H
#define EBPROF_FUNCTAB_H

#include <stdint.h>

#include "util/hmap.h"

struct functab_entry {
	uint32_t id;
	char *func, *file;
};

struct functab {
	struct hmap by_name;
	struct functab_entry **v; /* by id; v[0] is unused: id 0 is "could not be named" */
	uint32_t n, cap, max;
};

/* max bounds the distinct names kept (0: no bound); past it, intern returns 0. */
int functab__init(struct functab *t, uint32_t max);
void functab__free(struct functab *t);
/* The id of (func, file), added when new; 0 when the table is full or on ENOMEM. */
uint32_t functab__intern(struct functab *t, const char *func, const char *file);
/* The entry of id, or NULL for 0 and for ids never given. */
const struct functab_entry *functab__get(const struct functab *t, uint32_t id);

#endif
