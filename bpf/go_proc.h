/* SPDX-License-Identifier: GPL-2.0 OR Apache-2.0 */
/* What userspace tells the Go walker about one Go process (map pid_to_go), and how the
 * goroutine's pprof labels travel in a sample's user stack. Shared by bpf/go.bpf.c and
 * src/interp/go.c; fixed-width and pointer-free. */
#ifndef EBPROF_GO_PROC_H
#define EBPROF_GO_PROC_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Labels read per sample, and bytes of a key or value userspace reads (cut past it). */
#define GO_LABELS_MAX 8
#define GO_LABEL_LEN_MAX 0xffff

/* A label travels as two frames after the in-order part of the stack, file_id
 * UF_RUNTIME_FILE(WALKER_GO), pad UF_LABEL (sample.h): addr = the string's bytes in the
 * process, pad's low bits its length (at most GO_LABEL_LEN_MAX). Key, then value
 * (UF_LABEL_VALUE). */
#define UF_LABEL_LEN_MASK 0xffffu

/* Where the labels are: g.labels points to runtime/pprof's labelMap. */
enum go_labels_kind {
	GO_LABELS_NONE = 0, /* unknown version: labels not read */
	GO_LABELS_MAP,	    /* 1.9-1.23: map[string]string */
	GO_LABELS_SLICE,    /* 1.24+: struct { list []label } with label {key, value string} */
};

/* Go's map buckets (before 1.24's Swiss tables) for map[string]string: 8 top hashes,
 * 8 keys, 8 values, the overflow pointer. A top hash of at least 5 is a filled slot. */
#define GO_BUCKET_SLOTS 8
#define GO_BUCKET_SIZE (8 + 8 * 16 + 8 * 16 + 8)
#define GO_BUCKET_KEYS 8
#define GO_BUCKET_VALUES (8 + 8 * 16)
#define GO_MIN_TOPHASH 5
#define GO_MAP_BUCKETS_MAX 2 /* B <= 1: up to 13 labels before Go grows the map */
#define GO_HMAP_B 9	     /* hmap.B (uint8) */
#define GO_HMAP_BUCKETS 16   /* hmap.buckets */

struct go_proc {
	__s64 tls_g;	  /* g's offset from the thread pointer (fs base) */
	__u16 g_m;	  /* offsetof(g, m) */
	__u16 m_curg;	  /* offsetof(m, curg) */
	__u16 g_labels;	  /* offsetof(g, labels) */
	__u8 labels_kind; /* enum go_labels_kind */
	__u8 pad;
};

/* The Go walker's own counters (map go_counters). */
enum go_counter {
	GO_CTR_NO_G,	   /* no g in the thread's TLS (a thread Go does not run) */
	GO_CTR_READ_FAULT, /* g, m, the labels or a string header unreadable */
	GO_CTR_NO_ROOM,	   /* the stack left no room for the labels: dropped */
	GO_CTR_BIG_MAP,	   /* more buckets than GO_MAP_BUCKETS_MAX: labels past them lost */
	GO_CTR_LABELS,	   /* samples that carried labels */
	GO_CTR__COUNT,
};

#endif
