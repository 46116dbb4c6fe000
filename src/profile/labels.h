/* SPDX-License-Identifier: Apache-2.0 */
/* Label sets of samples (Go's pprof labels, pprof.Do): each distinct set of key/value
 * strings is stored once and named by a small id that is part of a stack's identity, so
 * the same stack under other labels is another stack. Bounded in sets and in bytes. */
#ifndef EBPROF_PROFILE_LABELS_H
#define EBPROF_PROFILE_LABELS_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/hmap.h"

#define LABELS_MAX 8 /* labels of one sample (the rest are counted dropped); REPORT_MAX_LABELS */
#define LABEL_KEY_MAX 64 /* bytes of a key; longer ones are cut */
#define LABEL_VALUE_MAX \
	256 /* bytes of a value (a Kubernetes cgroup path fits); longer ones are cut */
#define LABEL_SETS_MAX (1u << 16) /* distinct sets held; then samples go without labels */

struct label {
	const char *key;
	const char *value;
};

struct label_set {
	uint32_t id; /* 1-based */
	uint32_t n;
	struct label labels[]; /* sorted by key, keys unique */
};

struct label_sets {
	struct hmap by_content;
	struct label_set **by_id; /* by_id[id - 1] */
	uint32_t count, cap;
	uint64_t full;	  /* samples whose new set did not fit LABEL_SETS_MAX */
	uint64_t dropped; /* labels past LABELS_MAX */
	struct arena arena;
};

void label_sets__init(struct label_sets *ls);
void label_sets__free(struct label_sets *ls);
/* Forgets every set (an agent interval ends); ids start over. */
void label_sets__clear(struct label_sets *ls);
/* Returns the id of the set of n labels (any order; keys and values cut to their bounds,
 * a repeated key keeps its first value, past LABELS_MAX dropped), adding it when new; 0
 * for none (n == 0, the table full, or ENOMEM). Copies the strings. */
uint32_t label_sets__intern(struct label_sets *ls, const struct label *labels, uint32_t n);
/* The set of id, or NULL for 0 and unknown ids. Valid until clear or free. */
const struct label_set *label_sets__get(const struct label_sets *ls, uint32_t id);

#endif
