/* SPDX-License-Identifier: Apache-2.0 */
/* OTLP Profiles encoder: turns a report into one ExportProfilesServiceRequest (the body
 * `ebprof agent` sends to a collector over gRPC or HTTP). No I/O here: the transport owns
 * the wire, and decodes the answer (otlp_response.h). */
#ifndef EBPROF_EXPORT_OTLP_H
#define EBPROF_EXPORT_OTLP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct report;

#define OTLP_SCOPE_NAME "ebprof"
/* Profile attribute naming the event a profile counts: "cpu", "off-cpu", "alloc",
 * "inuse", or the probe as given ("uprobe:/usr/bin/app:handle"). */
#define OTLP_EVENT_ATTR "ebprof.event"

/* A string-valued resource attribute, e.g. from OTEL_RESOURCE_ATTRIBUTES. */
struct otlp_attr {
	const char *key;
	const char *value;
};

/* What the caller knows about one profiled process. NULL or "" fields are omitted. */
struct otlp_process {
	const char *exe_name;	  /* process.executable.name: basename of /proc/PID/exe */
	const char *exe_path;	  /* process.executable.path */
	const char *container_id; /* container.id */
	const char *pod_uid;	  /* k8s.pod.uid */
	const char *service_name; /* service.name, when the process names its own */
};

/*
 * Fills *out for pid. Returns 0, or a negative errno when nothing is known (the process
 * then gets process.pid and the host-wide attributes only). The strings need to stay
 * valid only until the callback is called again: the encoder copies them.
 */
typedef int (*otlp_lookup_fn)(void *ctx, uint32_t pid, struct otlp_process *out);

struct otlp_options {
	const char *scope_version; /* InstrumentationScope.version (ebprof's); NULL omits it */
	const char *host_name;	   /* host.name on every resource; NULL or "" omits it */
	/* Host-wide service.name (OTEL_SERVICE_NAME). Per resource, service.name is the
	 * process's own, else this, else the executable's name, else the process's comm. */
	const char *service_name;
	const struct otlp_attr *attrs; /* host-wide attributes (OTEL_RESOURCE_ATTRIBUTES) */
	size_t nattrs;
	otlp_lookup_fn lookup; /* may be NULL */
	void *lookup_ctx;
};

/*
 * Encodes r as one serialized ExportProfilesServiceRequest: one shared dictionary, one
 * ResourceProfiles per process (ascending pid), one ScopeProfiles ("ebprof"), and one
 * Profile per (event, value type) the process has samples of. A report with no events
 * (nevents == 0) is read as CPU samples: samples/count, period cpu/nanoseconds.
 *
 * Returns 0 and a malloc'd buffer in *out (the caller frees it) of *outlen bytes, or a
 * negative errno: -EINVAL for a report whose indices are out of range, -E2BIG when a
 * table would pass 2^31 entries, -ENOMEM. r and o are only read.
 */
int otlp__encode(const struct report *r, const struct otlp_options *o, uint8_t **out,
		 size_t *outlen);

#endif
