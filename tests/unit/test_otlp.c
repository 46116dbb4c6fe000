/* SPDX-License-Identifier: Apache-2.0 */
/* Unit test of the OTLP Profiles encoder: encodes hand-built reports, decodes them with
 * protobuf-c, and checks the invariants a collector relies on (every index in range,
 * zero values at index 0, deduplicated tables) and the content (resources, attributes,
 * functions, values); `protoc --decode` reads the bytes too. Also the response decoder
 * and the OTEL_RESOURCE_ATTRIBUTES parser. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "shell.h"
#include "export/otlp.h"
#include "export/otlp_response.h"
#include "export/otlp_env.h"
#include "interp/runtime.h"
#include "profile/frame_source.h"
#include "profile/report.h"
#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb-c.h"

typedef Opentelemetry__Proto__Collector__Profiles__V1development__ExportProfilesServiceRequest
    pb_request;
typedef Opentelemetry__Proto__Collector__Profiles__V1development__ExportProfilesServiceResponse
    pb_response;
typedef Opentelemetry__Proto__Collector__Profiles__V1development__ExportProfilesPartialSuccess
    pb_partial;
typedef Opentelemetry__Proto__Profiles__V1development__ProfilesDictionary pb_dict;
typedef Opentelemetry__Proto__Profiles__V1development__ResourceProfiles pb_resource_profiles;
typedef Opentelemetry__Proto__Profiles__V1development__Profile pb_profile;
typedef Opentelemetry__Proto__Profiles__V1development__Sample pb_sample;
typedef Opentelemetry__Proto__Profiles__V1development__Location pb_location;
typedef Opentelemetry__Proto__Profiles__V1development__Mapping pb_mapping;
typedef Opentelemetry__Proto__Profiles__V1development__Stack pb_stack;
typedef Opentelemetry__Proto__Profiles__V1development__KeyValueAndUnit pb_kvu;
typedef Opentelemetry__Proto__Common__V1__KeyValue pb_kv;
typedef Opentelemetry__Proto__Common__V1__AnyValue pb_any;

#define UNPACK \
	opentelemetry__proto__collector__profiles__v1development__export_profiles_service_request__unpack
#define FREE_UNPACKED \
	opentelemetry__proto__collector__profiles__v1development__export_profiles_service_request__free_unpacked
#define ANY_STRING OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE
#define ANY_INT OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE
#define SERVICE_PROTO "opentelemetry/proto/collector/profiles/v1development/profiles_service.proto"
#define REQUEST_TYPE \
	"opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest"

/* -- the fixture ---------------------------------------------------------------------- */

enum { M_KERNEL, M_APP, M_LIBC, NMAPS };
enum { F_SCHEDULE, F_KMEMCPY, F_MAIN, F_WORK, F_MEMCPY, F_JIT, F_JAVA, NFRAMES };

static const struct report_mapping maps[NMAPS] = {
    [M_KERNEL] = {0, UINT64_MAX, 0, "[kernel.kallsyms]", "", true},
    [M_APP] = {0, 0x4000, 0, "/usr/bin/app", "0123abcd", false},
    [M_LIBC] = {0, 0x200000, 0, "/lib/x86_64-linux-gnu/libc.so.6", "feedf00d", false},
};

static const struct report_frame frames[NFRAMES] = {
    [F_SCHEDULE] = {"schedule", 0xffffffff81000100, M_KERNEL, FRAME_KERNEL},
    [F_KMEMCPY] = {"memcpy", 0xffffffff81000200, M_KERNEL, FRAME_KERNEL},
    [F_MAIN] = {"main", 0x1130, M_APP, FRAME_NATIVE},
    [F_WORK] = {"work", 0x1200, M_APP, FRAME_NATIVE},
    [F_MEMCPY] = {"memcpy", 0x9a000, M_LIBC, FRAME_NATIVE},
    [F_JIT] = {"[unknown]", 0x7f0000001000, -1, FRAME_UNKNOWN},
    [F_JAVA] = {"Chain.leaf (Chain.java:7)", 7, -1, FRAME_JVM},
};

static const uint32_t st_work[] = {F_WORK, F_MAIN};
static const uint32_t st_kernel[] = {F_SCHEDULE, F_KMEMCPY, F_MEMCPY, F_MAIN};
static const uint32_t st_jit[] = {F_JIT, F_MEMCPY};
static const uint64_t times_a[] = {1000000100, 1000000200, 1000000300};
static const uint64_t times_b[] = {1000000400};
static const uint64_t off_values[] = {2, 5000000}; /* 2 switches, 5 ms off CPU */

#define START_NS 1000000000ULL
#define PERIOD_NS 10101010ULL /* 99 Hz */

/* pid 100: two threads with the same stack (one Stack, two samples), timestamps
 * complete; pid 200: a kernel+native stack, no CPU split, no timestamps; and a
 * truncated JIT stack. */
static struct report_stack stacks[] = {
    {.pid = 100,
     .tid = 100,
     .cpu = 0,
     .comm = "app",
     .thread = "app",
     .count = 3,
     .ntimes = 3,
     .times_unix_ns = times_a,
     .nframes = 2,
     .frames = st_work},
    {.pid = 100,
     .tid = 101,
     .cpu = 1,
     .comm = "app",
     .thread = "worker",
     .count = 1,
     .ntimes = 1,
     .times_unix_ns = times_b,
     .nframes = 2,
     .frames = st_work},
    {.pid = 200,
     .tid = 201,
     .cpu = -1,
     .comm = "db",
     .thread = "db-io",
     .count = 7,
     .nframes = 4,
     .frames = st_kernel},
    {.pid = 200,
     .tid = 201,
     .cpu = -1,
     .comm = "db",
     .thread = "db-io",
     .count = 2,
     .nframes = 2,
     .truncated = true,
     .frames = st_jit},
};
#define NSTACKS (sizeof(stacks) / sizeof(stacks[0]))

static struct report fixture(void)
{
	/* A JVM frame's row, as the registry gives it to a session's report. */
	const struct frame_source registry = {.kind = runtime_registry__kind};
	struct report r = {
	    .period_ns = PERIOD_NS,
	    .start_unix_ns = START_NS,
	    .duration_ns = 5000000000ULL,
	    .nmappings = NMAPS,
	    .mappings = maps,
	    .nframes = NFRAMES,
	    .frames = frames,
	    .nstacks = NSTACKS,
	    .stacks = stacks,
	};

	report__fill_kinds(&r, &registry);
	return r;
}

/* pid 100 is known; any other pid is not (the encoder must still describe it). */
static int lookup(void *ctx, uint32_t pid, struct otlp_process *out)
{
	static char path[64];

	(*(int *)ctx)++;
	if (pid != 100)
		return -ESRCH;
	snprintf(path, sizeof(path), "/usr/bin/app"); /* reused: the encoder must copy */
	*out = (struct otlp_process){.exe_name = "app",
				     .exe_path = path,
				     .container_id = "c0ffee",
				     .pod_uid = "0a1b2c3d-1111-2222-3333-444455556666",
				     .service_name = NULL};
	return 0;
}

static const struct otlp_attr host_attrs[] = {
    {"deployment.environment.name", "test"},
    {"process.pid", "999"}, /* a process's own value wins */
};

static struct otlp_options options(int *calls)
{
	return (struct otlp_options){
	    .scope_version = "9.9.9",
	    .host_name = "testhost",
	    .attrs = host_attrs,
	    .nattrs = 2,
	    .lookup = lookup,
	    .lookup_ctx = calls,
	};
}

static pb_request *encode(const struct report *r, const struct otlp_options *o)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	pb_request *req;
	int err = otlp__encode(r, o, &buf, &len);

	CHECK(err == 0);
	if (err)
		return NULL;
	req = UNPACK(NULL, len, buf);
	CHECK(req != NULL);
	free(buf);
	return req;
}

/* -- invariant checks ----------------------------------------------------------------- */

static bool in_range(int32_t i, size_t n)
{
	return i >= 0 && (size_t)i < n;
}

static void check_attr_indices(const pb_dict *d, size_t n, const int32_t *idx)
{
	for (size_t i = 0; i < n; i++) {
		CHECK(idx[i] > 0 && (size_t)idx[i] < d->n_attribute_table);
		/* one list names a key once */
		for (size_t j = 0; j < i && in_range(idx[i], d->n_attribute_table); j++)
			CHECK(d->attribute_table[idx[j]]->key_strindex !=
			      d->attribute_table[idx[i]]->key_strindex);
	}
}

static void check_zero_entries(const pb_dict *d)
{
	const pb_mapping *m = d->mapping_table[0];
	const pb_location *l = d->location_table[0];

	CHECK(d->n_string_table > 0 && !strcmp(d->string_table[0], ""));
	CHECK(m->memory_start == 0 && m->memory_limit == 0 && m->file_offset == 0 &&
	      m->filename_strindex == 0 && m->n_attribute_indices == 0);
	CHECK(l->mapping_index == 0 && l->address == 0 && l->n_lines == 0 &&
	      l->n_attribute_indices == 0);
	CHECK(d->function_table[0]->name_strindex == 0 &&
	      d->function_table[0]->system_name_strindex == 0 &&
	      d->function_table[0]->filename_strindex == 0 &&
	      d->function_table[0]->start_line == 0);
	CHECK(d->link_table[0]->trace_id.len == 16 && d->link_table[0]->span_id.len == 8);
	for (size_t i = 0; i < 16 && d->link_table[0]->trace_id.len == 16; i++)
		CHECK(d->link_table[0]->trace_id.data[i] == 0);
	CHECK(d->attribute_table[0]->key_strindex == 0 && d->attribute_table[0]->value == NULL &&
	      d->attribute_table[0]->unit_strindex == 0);
	CHECK(d->stack_table[0]->n_location_indices == 0);
}

static void check_dictionary(const pb_dict *d)
{
	CHECK(d->n_mapping_table && d->n_location_table && d->n_function_table && d->n_link_table &&
	      d->n_attribute_table && d->n_stack_table);
	if (!d->n_mapping_table || !d->n_location_table || !d->n_function_table ||
	    !d->n_link_table || !d->n_attribute_table || !d->n_stack_table || !d->n_string_table)
		return;
	check_zero_entries(d);
	for (size_t i = 1; i < d->n_mapping_table; i++) {
		CHECK(in_range(d->mapping_table[i]->filename_strindex, d->n_string_table));
		check_attr_indices(d, d->mapping_table[i]->n_attribute_indices,
				   d->mapping_table[i]->attribute_indices);
	}
	for (size_t i = 1; i < d->n_location_table; i++) {
		const pb_location *l = d->location_table[i];

		CHECK(in_range(l->mapping_index, d->n_mapping_table));
		CHECK(l->n_lines >= 1); /* more for an inline chain */
		for (size_t j = 0; j < l->n_lines; j++)
			CHECK(l->lines[j]->function_index > 0 &&
			      in_range(l->lines[j]->function_index, d->n_function_table));
		check_attr_indices(d, l->n_attribute_indices, l->attribute_indices);
	}
	for (size_t i = 1; i < d->n_function_table; i++) {
		CHECK(d->function_table[i]->name_strindex > 0);
		CHECK(in_range(d->function_table[i]->name_strindex, d->n_string_table));
	}
	for (size_t i = 1; i < d->n_attribute_table; i++) {
		CHECK(d->attribute_table[i]->key_strindex > 0);
		CHECK(in_range(d->attribute_table[i]->key_strindex, d->n_string_table));
		CHECK(d->attribute_table[i]->value != NULL);
	}
	for (size_t i = 1; i < d->n_stack_table; i++) {
		CHECK(d->stack_table[i]->n_location_indices > 0);
		for (size_t j = 0; j < d->stack_table[i]->n_location_indices; j++)
			CHECK(
			    d->stack_table[i]->location_indices[j] > 0 &&
			    in_range(d->stack_table[i]->location_indices[j], d->n_location_table));
	}
}

static bool any_equal(const pb_any *a, const pb_any *b)
{
	if (a->value_case != b->value_case)
		return false;
	if (a->value_case == ANY_STRING)
		return !strcmp(a->string_value, b->string_value);
	return a->value_case == ANY_INT && a->int_value == b->int_value;
}

/* No two entries of a table are equal (SHOULD NOT in the specification; we promise it). */
static void check_no_duplicates(const pb_dict *d)
{
	for (size_t i = 0; i < d->n_string_table; i++)
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(d->string_table[i], d->string_table[j]));
	for (size_t i = 1; i < d->n_function_table; i++)
		for (size_t j = 1; j < i; j++)
			CHECK(d->function_table[i]->name_strindex !=
			      d->function_table[j]->name_strindex);
	for (size_t i = 1; i < d->n_attribute_table; i++)
		for (size_t j = 1; j < i; j++)
			CHECK(
			    d->attribute_table[i]->key_strindex !=
				d->attribute_table[j]->key_strindex ||
			    !any_equal(d->attribute_table[i]->value, d->attribute_table[j]->value));
	for (size_t i = 1; i < d->n_stack_table; i++)
		for (size_t j = 1; j < i; j++)
			CHECK(d->stack_table[i]->n_location_indices !=
				  d->stack_table[j]->n_location_indices ||
			      memcmp(d->stack_table[i]->location_indices,
				     d->stack_table[j]->location_indices,
				     d->stack_table[i]->n_location_indices * sizeof(int32_t)));
}

static void check_profile(const pb_dict *d, const pb_profile *p)
{
	CHECK(p->sample_type != NULL);
	if (!p->sample_type)
		return;
	CHECK(p->sample_type->type_strindex > 0 &&
	      in_range(p->sample_type->type_strindex, d->n_string_table));
	CHECK(in_range(p->sample_type->unit_strindex, d->n_string_table));
	if (p->period_type)
		CHECK(in_range(p->period_type->type_strindex, d->n_string_table) &&
		      in_range(p->period_type->unit_strindex, d->n_string_table));
	CHECK(p->time_unix_nano == START_NS);
	CHECK(p->n_samples > 0);
	for (size_t i = 0; i < p->n_samples; i++) {
		const pb_sample *s = p->samples[i];

		CHECK(in_range(s->stack_index, d->n_stack_table));
		CHECK(in_range(s->link_index, d->n_link_table));
		CHECK(s->n_values > 0);
		CHECK(!s->n_timestamps_unix_nano || s->n_timestamps_unix_nano == s->n_values);
		for (size_t j = 0; j < s->n_timestamps_unix_nano; j++)
			CHECK(s->timestamps_unix_nano[j] >= p->time_unix_nano &&
			      s->timestamps_unix_nano[j] < p->time_unix_nano + p->duration_nano);
		check_attr_indices(d, s->n_attribute_indices, s->attribute_indices);
	}
}

static void check_request(const pb_request *req)
{
	const pb_dict *d = req->dictionary;

	CHECK(d != NULL);
	if (!d)
		return;
	check_dictionary(d);
	check_no_duplicates(d);
	for (size_t i = 0; i < req->n_resource_profiles; i++) {
		const pb_resource_profiles *rp = req->resource_profiles[i];

		CHECK(rp->resource != NULL && rp->n_scope_profiles == 1);
		for (size_t j = 0; j < rp->n_scope_profiles; j++) {
			CHECK(!strcmp(rp->scope_profiles[j]->scope->name, "ebprof"));
			for (size_t k = 0; k < rp->scope_profiles[j]->n_profiles; k++)
				check_profile(d, rp->scope_profiles[j]->profiles[k]);
		}
	}
}

/* -- lookups in a decoded request ----------------------------------------------------- */

static const char *str(const pb_dict *d, int32_t i)
{
	return in_range(i, d->n_string_table) ? d->string_table[i] : "<out of range>";
}

static const pb_any *resource_attr(const pb_resource_profiles *rp, const char *key)
{
	for (size_t i = 0; i < rp->resource->n_attributes; i++) {
		if (!strcmp(rp->resource->attributes[i]->key, key))
			return rp->resource->attributes[i]->value;
	}
	return NULL;
}

static bool resource_str_is(const pb_resource_profiles *rp, const char *key, const char *val)
{
	const pb_any *v = resource_attr(rp, key);

	return v && v->value_case == ANY_STRING && !strcmp(v->string_value, val);
}

/* The value of key among an attribute_indices list, or NULL. */
static const pb_any *attr_of(const pb_dict *d, size_t n, const int32_t *idx, const char *key)
{
	for (size_t i = 0; i < n; i++) {
		if (in_range(idx[i], d->n_attribute_table) &&
		    !strcmp(str(d, d->attribute_table[idx[i]]->key_strindex), key))
			return d->attribute_table[idx[i]]->value;
	}
	return NULL;
}

static const char *location_name(const pb_dict *d, int32_t loc)
{
	const pb_location *l = d->location_table[loc];

	if (l->n_lines != 1 || !in_range(l->lines[0]->function_index, d->n_function_table))
		return "<no function>";
	return str(d, d->function_table[l->lines[0]->function_index]->name_strindex);
}

/* The stack of a sample as "leaf;...;root" function names. */
static void stack_names(const pb_dict *d, const pb_sample *s, char *out, size_t size)
{
	const pb_stack *st = d->stack_table[s->stack_index];
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < st->n_location_indices && used < size; i++)
		used += snprintf(out + used, size - used, "%s%s", i ? ";" : "",
				 location_name(d, st->location_indices[i]));
}

static const pb_sample *sample_of_tid(const pb_profile *p, const pb_dict *d, int64_t tid)
{
	for (size_t i = 0; i < p->n_samples; i++) {
		const pb_any *v = attr_of(d, p->samples[i]->n_attribute_indices,
					  p->samples[i]->attribute_indices, "thread.id");

		if (v && v->value_case == ANY_INT && v->int_value == tid)
			return p->samples[i];
	}
	return NULL;
}

/* -- tests ---------------------------------------------------------------------------- */

/* A report without events (today's report__build) is one CPU profile per process. */
static void test_cpu_report_invariants(void)
{
	struct report r = fixture();
	int calls = 0;
	struct otlp_options o = options(&calls);
	pb_request *req = encode(&r, &o);
	const pb_dict *d;

	if (!req)
		return;
	check_request(req);
	d = req->dictionary;
	CHECK(req->n_resource_profiles == 2);
	CHECK(calls == 2); /* one lookup per process, not per stack */
	for (size_t i = 0; i < req->n_resource_profiles; i++) {
		const pb_profile *p;

		CHECK(req->resource_profiles[i]->scope_profiles[0]->n_profiles == 1);
		CHECK(
		    !strcmp(req->resource_profiles[i]->scope_profiles[0]->scope->version, "9.9.9"));
		p = req->resource_profiles[i]->scope_profiles[0]->profiles[0];
		CHECK(!strcmp(str(d, p->sample_type->type_strindex), "samples"));
		CHECK(!strcmp(str(d, p->sample_type->unit_strindex), "count"));
		CHECK(p->period_type && !strcmp(str(d, p->period_type->type_strindex), "cpu"));
		CHECK(p->period_type &&
		      !strcmp(str(d, p->period_type->unit_strindex), "nanoseconds"));
		CHECK(p->period == (int64_t)PERIOD_NS);
		CHECK(p->duration_nano == 5000000000ULL);
		CHECK(p->profile_id.len == 16);
	}
	FREE_UNPACKED(req, NULL);
}

/* Per-process resources: the lookup's fields, host-wide ones, and the fallbacks. */
static void test_resource_attributes(void)
{
	struct report r = fixture();
	int calls = 0;
	struct otlp_options o = options(&calls);
	pb_request *req = encode(&r, &o);
	const pb_resource_profiles *app, *db;
	const pb_any *pid;

	if (!req || req->n_resource_profiles != 2)
		goto out;
	app = req->resource_profiles[0]; /* ascending pid */
	db = req->resource_profiles[1];
	pid = resource_attr(app, "process.pid");
	CHECK(pid && pid->value_case == ANY_INT && pid->int_value == 100);
	CHECK(resource_str_is(app, "process.executable.name", "app"));
	CHECK(resource_str_is(app, "process.executable.path", "/usr/bin/app"));
	CHECK(resource_str_is(app, "container.id", "c0ffee"));
	CHECK(resource_str_is(app, "k8s.pod.uid", "0a1b2c3d-1111-2222-3333-444455556666"));
	CHECK(resource_str_is(app, "host.name", "testhost"));
	CHECK(resource_str_is(app, "service.name", "app"));
	CHECK(resource_str_is(app, "deployment.environment.name", "test"));

	pid = resource_attr(db, "process.pid");
	CHECK(pid && pid->value_case == ANY_INT && pid->int_value == 200);
	/* The comm, as the semantic conventions allow when the executable is unknown. */
	CHECK(resource_str_is(db, "process.executable.name", "db"));
	CHECK(resource_attr(db, "container.id") == NULL);
	CHECK(resource_attr(db, "k8s.pod.uid") == NULL);
	CHECK(resource_str_is(db, "service.name", "db")); /* comm, when nothing else is known */
	CHECK(resource_str_is(db, "host.name", "testhost"));

	/* keys are unique within a resource */
	for (size_t i = 0; i < app->resource->n_attributes; i++)
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(app->resource->attributes[i]->key,
				     app->resource->attributes[j]->key));
out:
	if (req)
		FREE_UNPACKED(req, NULL);
}

/* OTEL_SERVICE_NAME (host-wide) beats the executable's name, not the process's own. */
static void test_service_name_precedence(void)
{
	struct report r = fixture();
	int calls = 0;
	struct otlp_options o = options(&calls);
	pb_request *req;

	o.service_name = "checkout";
	req = encode(&r, &o);
	if (!req)
		return;
	CHECK(req->n_resource_profiles == 2);
	for (size_t i = 0; i < req->n_resource_profiles; i++)
		CHECK(resource_str_is(req->resource_profiles[i], "service.name", "checkout"));
	FREE_UNPACKED(req, NULL);

	o.lookup = NULL; /* no lookup, no host service: comm */
	o.service_name = NULL;
	req = encode(&r, &o);
	if (!req)
		return;
	CHECK(resource_str_is(req->resource_profiles[0], "service.name", "app"));
	CHECK(resource_attr(req->resource_profiles[0], "process.executable.path") == NULL);
	FREE_UNPACKED(req, NULL);
}

/* Stacks, functions, mappings and frame types, read back through the indices. */
static void test_stacks_and_frames(void)
{
	struct report r = fixture();
	int calls = 0;
	struct otlp_options o = options(&calls);
	pb_request *req = encode(&r, &o);
	const pb_dict *d;
	const pb_profile *app, *db;
	const pb_sample *s100, *s101;
	char names[256];
	size_t nfn_memcpy = 0;

	if (!req || req->n_resource_profiles != 2)
		goto out;
	d = req->dictionary;
	app = req->resource_profiles[0]->scope_profiles[0]->profiles[0];
	db = req->resource_profiles[1]->scope_profiles[0]->profiles[0];
	s100 = sample_of_tid(app, d, 100);
	s101 = sample_of_tid(app, d, 101);
	CHECK(s100 && s101);
	if (!s100 || !s101 || db->n_samples != 2)
		goto out;
	/* two threads, one stack */
	CHECK(s100->stack_index == s101->stack_index && s100->stack_index > 0);
	stack_names(d, s100, names, sizeof(names));
	CHECK(!strcmp(names, "work;main"));
	stack_names(d, db->samples[0], names, sizeof(names));
	CHECK(!strcmp(names, "schedule;memcpy;memcpy;main"));
	stack_names(d, db->samples[1], names, sizeof(names));
	CHECK(!strcmp(names, "[unknown];memcpy;[truncated]"));
	/* 3 + 1 stacks in the report, 3 distinct, plus the empty Stack at 0 */
	CHECK(d->n_stack_table == 4);
	/* kernel memcpy and libc memcpy are two locations but one Function */
	for (size_t i = 1; i < d->n_function_table; i++)
		nfn_memcpy += !strcmp(str(d, d->function_table[i]->name_strindex), "memcpy");
	CHECK(nfn_memcpy == 1);
	/* frame i is location i + 1: address, mapping, frame type */
	CHECK(d->n_location_table == NFRAMES + 2); /* + the zero value, + [truncated] */
	for (size_t i = 0; i < NFRAMES && i + 1 < d->n_location_table; i++) {
		const pb_location *l = d->location_table[i + 1];
		const pb_any *type =
		    attr_of(d, l->n_attribute_indices, l->attribute_indices, "profile.frame.type");

		CHECK(l->address == frames[i].addr);
		CHECK(l->mapping_index == frames[i].mapping + 1);
		CHECK(!strcmp(location_name(d, i + 1), frames[i].name));
		/* unknown code (no file behind it) is machine code too: "native" */
		CHECK(type && type->value_case == ANY_STRING &&
		      !strcmp(type->string_value, frames[i].kind == FRAME_KERNEL ? "kernel"
						  : frames[i].kind == FRAME_JVM	 ? "jvm"
										 : "native"));
	}
	/* mapping i is mapping_table[i + 1], with its build id */
	CHECK(d->n_mapping_table == NMAPS + 1);
	for (size_t i = 0; i < NMAPS && i + 1 < d->n_mapping_table; i++) {
		const pb_mapping *m = d->mapping_table[i + 1];
		const pb_any *id = attr_of(d, m->n_attribute_indices, m->attribute_indices,
					   "process.executable.build_id.gnu");

		CHECK(!strcmp(str(d, m->filename_strindex), maps[i].path));
		CHECK(m->memory_limit == maps[i].limit);
		if (!*maps[i].build_id)
			CHECK(id == NULL);
		else
			CHECK(id && !strcmp(id->string_value, maps[i].build_id));
	}
out:
	if (req)
		FREE_UNPACKED(req, NULL);
}

/* Sample attributes, values and timestamps. */
/* A frame with an inline chain is one Location whose Lines run innermost first, each a
 * Function with its name and source file, at its line. */
static void test_inline_lines(void)
{
	static const struct report_line chain[] = {
	    {.function = "inner", .file = "/src/a.h", .line = 11, .label = "inner"},
	    {.function = "outer", .file = "/src/a.c", .line = 33, .label = "outer"},
	};
	struct report r = fixture();
	struct report_frame *fr = calloc(r.nframes, sizeof(*fr));
	int calls = 0;
	struct otlp_options o = options(&calls);
	const pb_location *loc;
	const pb_dict *d;
	pb_request *req;

	if (!fr)
		return;
	memcpy(fr, r.frames, r.nframes * sizeof(*fr));
	fr[0].nlines = 2;
	fr[0].lines = chain;
	r.frames = fr;
	req = encode(&r, &o);
	if (!req)
		goto out;
	d = req->dictionary;
	check_request(req);
	CHECK(d->n_location_table > 1);
	loc = d->location_table[1]; /* report frame 0 */
	CHECK(loc->n_lines == 2);
	for (size_t j = 0; j < loc->n_lines && j < 2; j++) {
		const Opentelemetry__Proto__Profiles__V1development__Function *fn =
		    d->function_table[loc->lines[j]->function_index];

		CHECK(!strcmp(d->string_table[fn->name_strindex], chain[j].function));
		CHECK(!strcmp(d->string_table[fn->filename_strindex], chain[j].file));
		CHECK(loc->lines[j]->line == chain[j].line);
	}
	CHECK(d->location_table[2]->n_lines == 1);
	FREE_UNPACKED(req, NULL);
out:
	free(fr);
}

static void test_samples(void)
{
	struct report r = fixture();
	int calls = 0;
	struct otlp_options o = options(&calls);
	pb_request *req = encode(&r, &o);
	const pb_dict *d;
	const pb_profile *app, *db;
	const pb_sample *s;
	const pb_any *v;

	if (!req || req->n_resource_profiles != 2)
		goto out;
	d = req->dictionary;
	app = req->resource_profiles[0]->scope_profiles[0]->profiles[0];
	db = req->resource_profiles[1]->scope_profiles[0]->profiles[0];
	s = sample_of_tid(app, d, 100);
	if (!s)
		goto out;
	/* complete timestamps: one value of 1 per timestamp */
	CHECK(s->n_timestamps_unix_nano == 3 && s->n_values == 3);
	for (size_t i = 0; i < s->n_values && i < 3; i++)
		CHECK(s->values[i] == 1 && s->timestamps_unix_nano[i] == times_a[i]);
	v = attr_of(d, s->n_attribute_indices, s->attribute_indices, "thread.name");
	CHECK(v && v->value_case == ANY_STRING && !strcmp(v->string_value, "app"));
	v = attr_of(d, s->n_attribute_indices, s->attribute_indices, "cpu.logical_number");
	CHECK(v && v->value_case == ANY_INT && v->int_value == 0);
	/* no timestamps, no CPU: one aggregated value, no cpu.logical_number */
	for (size_t i = 0; i < db->n_samples; i++) {
		s = db->samples[i];
		CHECK(s->n_timestamps_unix_nano == 0 && s->n_values == 1);
		CHECK(s->values[0] == (int64_t)stacks[2 + i].count);
		CHECK(!attr_of(d, s->n_attribute_indices, s->attribute_indices,
			       "cpu.logical_number"));
		v = attr_of(d, s->n_attribute_indices, s->attribute_indices, "thread.id");
		CHECK(v && v->value_case == ANY_INT && v->int_value == 201);
	}
out:
	if (req)
		FREE_UNPACKED(req, NULL);
}

/* A report with events: one Profile per (process, event, value type). */
static bool event_is(const pb_dict *d, const pb_profile *p, const char *name)
{
	const pb_any *v = attr_of(d, p->n_attribute_indices, p->attribute_indices, OTLP_EVENT_ATTR);

	return v && v->value_case == ANY_STRING && !strcmp(v->string_value, name);
}

static void test_events_and_values(void)
{
	static const struct report_event events[] = {
	    {"cpu", {"cpu", "nanoseconds"}, PERIOD_NS, 1, {{"samples", "count"}}},
	    {"off_cpu",
	     {"events", "count"},
	     1,
	     2,
	     {{"events", "count"}, {"off_cpu", "nanoseconds"}}},
	};
	static const uint64_t cpu3[] = {3}, cpu1[] = {1};
	struct report_stack st[3];
	struct report r = fixture();
	int calls = 0;
	struct otlp_options o = options(&calls);
	const pb_resource_profiles *rp;
	const pb_dict *d;
	pb_request *req;
	size_t nsamples = 0;

	memcpy(st, stacks, sizeof(st));
	st[0].values = cpu3;
	st[1].values = cpu1;
	st[2] = stacks[0]; /* the same thread and stack, off CPU */
	st[2].event = 1;
	st[2].count = 2;
	st[2].values = off_values;
	st[2].ntimes = 0;
	st[2].times_unix_ns = NULL;
	r.nevents = 2;
	r.events = events;
	r.nstacks = 3;
	r.stacks = st;
	req = encode(&r, &o);
	if (!req)
		return;
	check_request(req);
	d = req->dictionary;
	CHECK(req->n_resource_profiles == 1);
	rp = req->resource_profiles[0];
	CHECK(rp->scope_profiles[0]->n_profiles == 3);
	if (rp->scope_profiles[0]->n_profiles == 3) {
		const pb_profile *cpu = rp->scope_profiles[0]->profiles[0];
		const pb_profile *sw = rp->scope_profiles[0]->profiles[1];
		const pb_profile *off = rp->scope_profiles[0]->profiles[2];

		CHECK(!strcmp(str(d, cpu->sample_type->type_strindex), "samples"));
		CHECK(cpu->n_samples == 2);
		CHECK(!strcmp(str(d, sw->sample_type->type_strindex), "events"));
		CHECK(!strcmp(str(d, off->sample_type->type_strindex), "off_cpu"));
		CHECK(!strcmp(str(d, off->sample_type->unit_strindex), "nanoseconds"));
		CHECK(sw->n_samples == 1 && sw->samples[0]->n_values == 1 &&
		      sw->samples[0]->values[0] == 2);
		CHECK(off->n_samples == 1 && off->samples[0]->n_values == 1 &&
		      off->samples[0]->values[0] == 5000000);
		CHECK(off->period == 1);
		/* the off-CPU stack is the CPU one: same Stack */
		CHECK(off->samples[0]->stack_index == cpu->samples[0]->stack_index);
		/* each profile names its event, so two probes' events/count stay apart */
		CHECK(event_is(d, cpu, "cpu") && event_is(d, sw, "off_cpu") &&
		      event_is(d, off, "off_cpu"));
		nsamples = cpu->n_samples + sw->n_samples + off->n_samples;
	}
	CHECK(nsamples == 4);
	FREE_UNPACKED(req, NULL);
}

/* Out-of-range indices in a report are -EINVAL, never a crash or a bad request. */
static void test_bad_reports(void)
{
	static const uint32_t bad_frames[] = {F_MAIN, NFRAMES};
	static const struct report_frame bad_map[] = {{"x", 1, NMAPS, FRAME_NATIVE}};
	static const struct report_event one = {"cpu", {"cpu", "nanoseconds"}, 1, 1, {{"s", "c"}}};
	struct report_stack st = stacks[0];
	struct report r = fixture();
	uint8_t *buf = (uint8_t *)&r;
	size_t len = 1;

	r.nstacks = 1;
	r.stacks = &st;
	st.frames = bad_frames;
	CHECK(otlp__encode(&r, NULL, &buf, &len) == -EINVAL);
	CHECK(buf == NULL && len == 0);

	st = stacks[0];
	st.event = 1; /* only one event */
	r.nevents = 1;
	r.events = &one;
	CHECK(otlp__encode(&r, NULL, &buf, &len) == -EINVAL);

	r = fixture();
	r.frames = bad_map;
	r.nframes = 1;
	r.nstacks = 0;
	CHECK(otlp__encode(&r, NULL, &buf, &len) == -EINVAL);
}

/* An empty report is a valid request with no resources; NULL options are allowed. */
static void test_empty_report(void)
{
	struct report r = {.period_ns = PERIOD_NS};
	pb_request *req = encode(&r, NULL);

	if (!req)
		return;
	CHECK(req->n_resource_profiles == 0);
	CHECK(req->dictionary && req->dictionary->n_string_table == 1);
	if (req->dictionary)
		check_zero_entries(req->dictionary);
	FREE_UNPACKED(req, NULL);
}

/* Where the build put the pinned release's .proto files (scripts/otlp-proto.sh). */
static const char *proto_dir(void)
{
	static char dir[PATH_MAX];
	const char *build = getenv("BUILD");

	snprintf(dir, sizeof(dir), "%s/proto", build && build[0] ? build : "build");
	return dir;
}

/* protoc, from the .proto files the encoder was generated from, reads what protobuf-c
 * wrote. */
static void test_protoc_decode(void)
{
	struct report r = fixture();
	int calls = 0;
	struct otlp_options o = options(&calls);
	char dir[] = "/tmp/test_otlp.XXXXXX", path[64];
	uint8_t *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!mkdtemp(dir) || otlp__encode(&r, &o, &buf, &len)) {
		CHECK(!"set-up failed");
		return;
	}
	snprintf(path, sizeof(path), "%s/req.bin", dir);
	f = fopen(path, "w");
	CHECK(f && fwrite(buf, 1, len, f) == len);
	if (f)
		fclose(f);
	CHECK(run("protoc -I%s --decode=%s %s <%s/req.bin >%s/req.txt", proto_dir(), REQUEST_TYPE,
		  SERVICE_PROTO, dir, dir) == 0);
	CHECK(run("grep -q 'string_table: \"work\"' %s/req.txt", dir) == 0);
	CHECK(run("grep -q 'key: \"process.executable.name\"' %s/req.txt", dir) == 0);
	CHECK(run("grep -q 'timestamps_unix_nano: 1000000300' %s/req.txt", dir) == 0);
	/* nothing protoc did not know: an unknown field prints as a bare number */
	CHECK(run("grep -qE '^ *[0-9]+:' %s/req.txt", dir) != 0);
	run("rm -rf %s", dir);
	free(buf);
}

static size_t pack_response(const pb_partial *ps, uint8_t *buf)
{
	pb_response resp;

	opentelemetry__proto__collector__profiles__v1development__export_profiles_service_response__init(
	    &resp);
	resp.partial_success = (pb_partial *)ps;
	return opentelemetry__proto__collector__profiles__v1development__export_profiles_service_response__pack(
	    &resp, buf);
}

static void test_decode_response(void)
{
	static const uint8_t garbage[] = {0x0a, 0x05, 0x08}; /* a field longer than the body */
	struct otlp_partial_success ps;
	pb_partial p;
	uint8_t buf[1024];
	char longmsg[900];
	size_t len;

	CHECK(otlp_response__partial("", 0, &ps) == 0);
	CHECK(!ps.present && ps.rejected == 0 && ps.message[0] == '\0');

	/* What the OpenTelemetry Collector answers to a fully accepted request. */
	opentelemetry__proto__collector__profiles__v1development__export_profiles_partial_success__init(
	    &p);
	len = pack_response(&p, buf);
	CHECK(len == 2);
	CHECK(otlp_response__partial(buf, len, &ps) == 0);
	CHECK(!ps.present && ps.rejected == 0 && ps.message[0] == '\0');

	p.rejected_profiles = 3;
	p.error_message = "3 profiles without samples";
	len = pack_response(&p, buf);
	CHECK(otlp_response__partial(buf, len, &ps) == 0);
	CHECK(ps.present && ps.rejected == 3 && !strcmp(ps.message, "3 profiles without samples"));

	memset(longmsg, 'x', sizeof(longmsg) - 1);
	longmsg[sizeof(longmsg) - 1] = '\0';
	p.rejected_profiles = 0;
	p.error_message = longmsg;
	len = pack_response(&p, buf);
	CHECK(otlp_response__partial(buf, len, &ps) == 0);
	CHECK(ps.present && ps.rejected == 0 && strlen(ps.message) == OTLP_MESSAGE_MAX - 1);

	CHECK(otlp_response__partial(garbage, sizeof(garbage), &ps) == -EBADMSG);
}

static const char *env_get(const struct otlp_env *env, const char *key)
{
	for (size_t i = 0; i < env->nattrs; i++) {
		if (!strcmp(env->attrs[i].key, key))
			return env->attrs[i].value;
	}
	return NULL;
}

static void test_env_parse(void)
{
	struct otlp_env env;
	char err[256];

	CHECK(otlp_env__parse(&env, NULL, NULL, err, sizeof(err)) == 0);
	CHECK(env.nattrs == 0 && env.service_name == NULL);
	otlp_env__free(&env);

	CHECK(otlp_env__parse(&env,
			      " deployment.environment.name = prod ,team=a%2Cb%3Dc,,"
			      "note=caf%C3%A9%20au%20lait, service.name=shop,team=payments,",
			      NULL, err, sizeof(err)) == 0);
	CHECK(env.nattrs == 3);
	CHECK(env_get(&env, "deployment.environment.name") &&
	      !strcmp(env_get(&env, "deployment.environment.name"), "prod"));
	CHECK(env_get(&env, "team") && !strcmp(env_get(&env, "team"), "payments")); /* last */
	CHECK(env_get(&env, "note") && !strcmp(env_get(&env, "note"), "caf\xc3\xa9 au lait"));
	CHECK(env_get(&env, "service.name") == NULL);
	CHECK(env.service_name && !strcmp(env.service_name, "shop"));
	otlp_env__free(&env);

	/* OTEL_SERVICE_NAME wins over service.name in the attributes */
	CHECK(otlp_env__parse(&env, "service.name=shop", "  cart ", err, sizeof(err)) == 0);
	CHECK(env.service_name && !strcmp(env.service_name, "cart"));
	otlp_env__free(&env);
	CHECK(otlp_env__parse(&env, "a=%2c", "", err, sizeof(err)) == 0);
	CHECK(env.service_name == NULL && env_get(&env, "a") && !strcmp(env_get(&env, "a"), ","));
	otlp_env__free(&env);
}

static void test_env_errors(void)
{
	static const struct {
		const char *in, *says;
	} bad[] = {
	    {"a=1,novalue", "entry 2 \"novalue\" has no '='"},
	    {"=1", "entry 1 \"=1\" has an empty key"},
	    {"a=%zz", "entry 1 \"a=%zz\" '%' is not followed by two hex digits"},
	    {"a=1,b=%4", "entry 2 \"b=%4\" '%' is not followed by two hex digits"},
	    {"a=x%00y", "(a NUL byte) cannot be carried"},
	};
	struct otlp_env env;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(otlp_env__parse(&env, bad[i].in, "svc", err, sizeof(err)) == -EINVAL);
		CHECK(strstr(err, "OTEL_RESOURCE_ATTRIBUTES: ") == err);
		CHECK(strstr(err, bad[i].says) != NULL);
		if (!strstr(err, bad[i].says))
			fprintf(stderr, "  got: %s\n", err);
		CHECK(env.nattrs == 0 && env.attrs == NULL && env.service_name == NULL);
	}
}

/* EBPROF_OTLP_FIXTURE=path writes the fixture's request there, for the receivers' test. */
static int write_fixture(const char *path)
{
	struct report r = fixture();
	int calls = 0;
	struct otlp_options o = options(&calls);
	uint8_t *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err = otlp__encode(&r, &o, &buf, &len);

	if (err) {
		fprintf(stderr, "otlp__encode: %s\n", strerror(-err));
		return 1;
	}
	f = fopen(path, "w");
	err = !f || fwrite(buf, 1, len, f) != len;
	if (f && fclose(f))
		err = 1;
	free(buf);
	if (err)
		fprintf(stderr, "cannot write %s\n", path);
	return err;
}

int main(void)
{
	const char *fixture_path = getenv("EBPROF_OTLP_FIXTURE");
	char service[PATH_MAX];

	if (fixture_path)
		return write_fixture(fixture_path);
	RUN_TEST(test_cpu_report_invariants);
	RUN_TEST(test_resource_attributes);
	RUN_TEST(test_service_name_precedence);
	RUN_TEST(test_stacks_and_frames);
	RUN_TEST(test_inline_lines);
	RUN_TEST(test_samples);
	RUN_TEST(test_events_and_values);
	RUN_TEST(test_bad_reports);
	RUN_TEST(test_empty_report);
	snprintf(service, sizeof(service), "%s/" SERVICE_PROTO, proto_dir());
	if (has_tool("protoc") && access(service, R_OK) == 0)
		RUN_TEST(test_protoc_decode);
	else
		SKIP_TEST(test_protoc_decode,
			  "protoc or $BUILD/proto not found (run from the repo)");
	RUN_TEST(test_decode_response);
	RUN_TEST(test_env_parse);
	RUN_TEST(test_env_errors);
	HARNESS_EXIT();
}
