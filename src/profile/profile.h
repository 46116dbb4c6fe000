/* SPDX-License-Identifier: Apache-2.0 */
/* Aggregation of samples by stack: each distinct (process, thread, names, frames) is
 * stored once with a count, so memory grows with distinct stacks, not with samples.
 * Frames are already position-independent here: (file id, file offset) for user code. */
#ifndef EBPROF_PROFILE_H
#define EBPROF_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "ebprof_shared.h"
#include "profile/report.h"
#include "util/hmap.h"

#define PROFILE_MAX_FRAMES (EBPROF_MAX_KSTACK + EBPROF_MAX_USTACK)

struct frame {
	uint64_t addr;	  /* file offset (native), kernel address, or raw address */
	uint32_t file_id; /* files.h id for FRAME_NATIVE, else 0 */
	uint32_t kind;	  /* enum report_frame_kind */
};

struct stack {
	uint64_t count;
	uint32_t pid;
	uint32_t tid;
	char comm[EBPROF_COMM_LEN]; /* process name */
	char thread[EBPROF_COMM_LEN];
	uint16_t nframes;
	bool truncated;
	struct frame frames[]; /* innermost first */
};

struct profile {
	struct hmap stacks;
	uint64_t samples;
	uint64_t dropped; /* distinct stacks we had no memory for */
};

void profile__init(struct profile *p);
void profile__free(struct profile *p);
/* Counts one sample of key (a caller-built stack whose count is ignored); copies it
 * when it is new. Returns 0 or -ENOMEM (the sample is then counted as dropped). */
int profile__add(struct profile *p, const struct stack *key, uint64_t count);

#endif
