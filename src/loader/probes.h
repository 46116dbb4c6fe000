/* SPDX-License-Identifier: Apache-2.0 */
/* Probes on user code and kernel tracepoints: parsing "--probe" specs, choosing the BPF
 * program each kind needs, and attaching them with libbpf (each spec's event index
 * rides in the attach cookie). Every probe collects the same full stack as a CPU
 * sample; probes__free detaches everything. */
#ifndef EBPROF_PROBES_H
#define EBPROF_PROBES_H

#include <stddef.h>
#include <stdint.h>

enum probe_kind {
	PROBE_UPROBE,	  /* uprobe:PATH:SYMBOL[+OFF] */
	PROBE_URETPROBE,  /* uretprobe:PATH:SYMBOL */
	PROBE_TRACEPOINT, /* tracepoint:CATEGORY:NAME */
	PROBE_USDT,	  /* usdt:PATH:PROVIDER:NAME */
};

struct probe_spec {
	enum probe_kind kind;
	char *text;	 /* the spec as given: the event's name */
	char *path;	 /* uprobe, uretprobe, usdt: the binary or library */
	char *target;	 /* uprobe: symbol; tracepoint: category; usdt: provider */
	char *name;	 /* tracepoint: event name; usdt: probe name */
	uint64_t offset; /* uprobe: bytes past the symbol (only with an explicit +OFF) */
	int has_offset;	 /* the user gave +OFF: the probe goes exactly there */
};

/* Parses text into *out (strings malloc'd, freed by probe_spec__free). Returns 0, or a
 * negative errno with a message in err (errlen bytes): -EINVAL for a malformed spec,
 * -EOPNOTSUPP for kinds ebprof does not attach (kprobe, kretprobe). */
int probe_spec__parse(const char *text, struct probe_spec *out, char *err, size_t errlen);
void probe_spec__free(struct probe_spec *s);

/* A file-name-safe short name for a probe's output files ("uprobe-foo"), written into
 * buf (len bytes). */
void probe_spec__slug(const struct probe_spec *s, char *buf, size_t len);

struct bpf_object;
struct loader;
struct probes;

/* For kernels without attach cookies (before 5.15), where each program reads one fixed
 * cookie: the uprobe and tracepoint programs' cookies, the specs being events
 * first_event + i. Returns 0, or -ENOTSUP (logged: which kernel it needs) when a
 * program would serve more than one probe. USDT probes do not count (libbpf's own
 * mechanism). */
int probes__fixed_cookies(const struct probe_spec *specs, size_t n, uint32_t first_event,
			  uint64_t *uprobe, uint64_t *tracepoint);
/* Marks for loading the programs of owner (opened, not loaded) that the specs need. */
int probes__select(struct bpf_object *owner, const struct probe_spec *specs, size_t n);
/* After loading: attaches spec i as event first_event + i (for every process; the BPF
 * process filter applies). Returns 0, or a negative errno after logging which probe
 * failed and why; *out then holds what was attached, for probes__free. */
int probes__attach(struct probes **out, struct loader *l, const struct bpf_object *owner,
		   const struct probe_spec *specs, size_t n, uint32_t first_event);
/* Detaches and frees; NULL is fine. */
void probes__free(struct probes *p);

#endif
