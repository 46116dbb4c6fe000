/* SPDX-License-Identifier: Apache-2.0 */
/* The seam between what BPF sends and what the profile stores: turns a sample record
 * (raw kernel and user addresses) into a stack of position-independent frames. When the
 * in-kernel unwinder sends (file, offset) frames itself, only this file changes. */
#ifndef EBPROF_INGEST_H
#define EBPROF_INGEST_H

#include <stdbool.h>

#include "profile/profile.h"
#include "proc/proc.h"
#include "sample.h"

struct frame_source;

struct cgroup_names;

struct ingest {
	struct proc_table *procs;
	struct profile *profile;
	const struct frame_source *frames; /* runtimes' frames; NULL: they stay unknown */
	/* Names samples' cgroups as the labels "cgroup" and "container.id"; NULL: none. */
	struct cgroup_names *cgroups;
	uint64_t unmapped_frames; /* user addresses outside every known mapping */
	uint64_t mono_to_unix_ns; /* added to BPF's CLOCK_MONOTONIC times */
	/* Leave out the innermost user frames that share the innermost one's file (the
	 * allocation library's marker, sampler and malloc wrapper). */
	bool trim_innermost_file;
	union {
		struct stack stack;
		char bytes[sizeof(struct stack) + PROFILE_MAX_FRAMES * sizeof(struct frame)];
	} scratch;
};

void ingest__init(struct ingest *in, struct proc_table *procs, struct profile *profile);
/* Adds one sample; now_ns (CLOCK_MONOTONIC) paces re-reads of /proc/PID/maps. The
 * caller has checked that the record holds r->ustack_len frames. */
int ingest__sample(struct ingest *in, const struct sample_record *r, uint64_t now_ns);
/* Adds one event of r->event with its values (profile.events[r->event].nvalues of
 * them). The stack it built stays in in->scratch.stack until the next call. */
int ingest__event(struct ingest *in, const struct sample_record *r, uint64_t now_ns,
		  const uint64_t *values);

#endif
