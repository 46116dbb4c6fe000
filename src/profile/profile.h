/* SPDX-License-Identifier: Apache-2.0 */
/* Aggregation of samples by stack: each distinct (event, process, thread, CPU, names,
 * frames) is stored once with its summed values, so memory grows with distinct stacks,
 * not with samples (unless the caller asks to keep every event's time, as OTLP wants).
 * Frames are already position-independent here: (file id, file offset) for user code. */
#ifndef EBPROF_PROFILE_H
#define EBPROF_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "ebprof_shared.h"
#include "profile/frame.h"
#include "profile/labels.h"
#include "profile/report.h"
#include "util/hmap.h"

/* Room for the user frames a runtime expands (inlined methods) beyond what BPF sent. */
#define PROFILE_MAX_FRAMES (EBPROF_MAX_KSTACK + 2 * EBPROF_MAX_USTACK)

struct stack {
	uint64_t count;			    /* events */
	uint64_t values[REPORT_MAX_VALUES]; /* summed per value type of the event */
	uint64_t *times;		    /* unix ns of each event, when kept */
	uint32_t ntimes;
	uint32_t times_cap;
	/* The identity of the stack starts here: everything below is hashed. */
	uint32_t pid;
	uint32_t tid;
	uint32_t event;		    /* index into profile.events */
	int32_t cpu;		    /* -1 unless the profile splits by CPU */
	char comm[EBPROF_COMM_LEN]; /* process name */
	char thread[EBPROF_COMM_LEN];
	uint16_t nframes;
	bool truncated;
	uint32_t labels;       /* label set id in profile.labels, 0 for none */
	struct frame frames[]; /* innermost first */
};

#define PROFILE_MAX_EVENTS 64

struct profile {
	struct hmap stacks;
	uint64_t samples; /* events added */
	uint64_t dropped; /* events we had no memory for */
	bool by_cpu;	  /* callers set stack.cpu; else they leave it -1 */
	bool keep_times;  /* remember each event's time (OTLP's timestamps_unix_nano) */
	uint32_t nevents;
	struct report_event events[PROFILE_MAX_EVENTS]; /* names owned by the caller */
	struct label_sets labels;			/* what stack.labels names */
};

void profile__init(struct profile *p);
void profile__free(struct profile *p);
/* Forgets every stack (an interval ends), keeping the events and settings. */
void profile__clear(struct profile *p);
/* Declares a kind of event; returns its index, or -ENOSPC. */
int profile__add_event(struct profile *p, const struct report_event *e);
/* Adds one event of key (a caller-built stack whose own values are ignored) with the
 * event's values (profile.events[key->event].nvalues of them) at time_unix_ns; copies
 * the stack when it is new. Returns 0 or -ENOMEM (the event is then counted dropped). */
int profile__add(struct profile *p, const struct stack *key, const uint64_t *values,
		 uint64_t time_unix_ns);

#endif
