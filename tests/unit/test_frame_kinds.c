// SPDX-License-Identifier: Apache-2.0
/* Unit test of the frame-kind table (src/profile/frame_kinds.c) through its consumers: a
 * report with one frame of every kind goes through the folded, pprof, OTLP and flame graph
 * writers, and each must show every kind's name, type and description from the table. A
 * kind added without a name, an OTLP type or a tooltip fails here. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "export/flamegraph.h"
#include "export/folded.h"
#include "export/otlp.h"
#include "export/pprof.h"
#include "harness.h"
#include "interp/runtime.h"
#include "profile/frame.h"
#include "profile/frame_source.h"
#include "profile/report.h"
#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb-c.h"
#include "profile.pb-c.h"

typedef Opentelemetry__Proto__Collector__Profiles__V1development__ExportProfilesServiceRequest
    pb_request;
typedef Opentelemetry__Proto__Profiles__V1development__ProfilesDictionary pb_dict;
typedef Opentelemetry__Proto__Profiles__V1development__Location pb_location;

#define OTLP_UNPACK \
	opentelemetry__proto__collector__profiles__v1development__export_profiles_service_request__unpack
#define OTLP_FREE \
	opentelemetry__proto__collector__profiles__v1development__export_profiles_service_request__free_unpacked
#define ANY_STRING OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE

static char dir[] = "/tmp/ebprof-test-frame-kinds-XXXXXX";
static char names[FRAME_KIND__COUNT][32];
static struct report_frame frames[FRAME_KIND__COUNT];
static uint32_t stack_frames[FRAME_KIND__COUNT];
static struct report_mapping mapping = {.limit = 1 << 20, .path = "/usr/bin/app", .build_id = ""};
static struct report_stack stack = {.pid = 1,
				    .tid = 1,
				    .comm = "app",
				    .thread = "app",
				    .count = 3,
				    .nframes = FRAME_KIND__COUNT,
				    .frames = stack_frames,
				    .cpu = -1};
static struct report rep = {.period_ns = 10000000,
			    .nmappings = 1,
			    .mappings = &mapping,
			    .nframes = FRAME_KIND__COUNT,
			    .frames = frames,
			    .nstacks = 1,
			    .stacks = &stack};

/* Frame k is of kind k, named "frame_<kind name>"; native frames have the mapping. */
static void build_report(void)
{
	/* The rows a session's report carries: the runtimes' from the registry. */
	const struct frame_source registry = {.kind = runtime_registry__kind};

	report__fill_kinds(&rep, &registry);
	for (uint32_t k = 0; k < FRAME_KIND__COUNT; k++) {
		snprintf(names[k], sizeof(names[k]), "frame_%s", report_kind(&rep, k)->name);
		frames[k] =
		    (struct report_frame){names[k], 0x100 * (k + 1), k == FRAME_NATIVE ? 0 : -1, k};
		stack_frames[k] = k;
	}
}

static bool filled(const char *s)
{
	return s && s[0];
}

static void test_table_is_complete(void)
{
	struct report bare = {0};

	for (uint32_t k = 0; k < FRAME_KIND__COUNT; k++) {
		const struct frame_kind_info *i = report_kind(&rep, k);

		CHECK(filled(i->name));
		CHECK(filled(i->otlp_type));
		CHECK(filled(i->about));
		CHECK(i->folded_suffix != NULL);
		CHECK(i->colour.sat > 0 && i->colour.light > 0);
		for (uint32_t j = 0; j < k; j++)
			CHECK(strcmp(report_kind(&rep, j)->name, i->name) != 0);
		/* A report built without runtimes reads their kinds as unknown. */
		if (frame_kind_is_runtime(k))
			CHECK(report_kind(&bare, k) == frame_kind__info(FRAME_UNKNOWN));
	}
	/* Out of the table: unknown's entry, never NULL. */
	CHECK(report_kind(&rep, FRAME_KIND__COUNT) == frame_kind__info(FRAME_UNKNOWN));
	CHECK(report_kind(&rep, UINT32_MAX) == frame_kind__info(FRAME_UNKNOWN));
}

static void test_folded(void)
{
	char *buf = NULL, want[192];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f && folded__fprint(&rep, f) == 0);
	if (f)
		fclose(f);
	CHECK(buf != NULL);
	for (uint32_t k = 0; buf && k < FRAME_KIND__COUNT; k++) {
		int n = snprintf(want, sizeof(want), ";%s%s", names[k],
				 report_kind(&rep, k)->folded_suffix);

		CHECK(n > 0 && (size_t)n < sizeof(want) && strstr(buf, want) != NULL);
	}
	CHECK(buf && strstr(buf, "frame_kernel_[k]"));
	free(buf);
}

static Perftools__Profiles__Profile *read_pprof(const char *path)
{
	static uint8_t buf[1 << 16];
	gzFile f = gzopen(path, "rb");
	int n;

	if (!f)
		return NULL;
	n = gzread(f, buf, sizeof(buf));
	gzclose(f);
	return n > 0 ? perftools__profiles__profile__unpack(NULL, n, buf) : NULL;
}

static const char *pp_str(const Perftools__Profiles__Profile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] : "<out of range>";
}

/* Location k + 1 is frame k: its function's name, and the file the kind gives frames
 * without a mapping. */
static void test_pprof(void)
{
	char path[128];
	Perftools__Profiles__Profile *p;

	snprintf(path, sizeof(path), "%s/p.pb.gz", dir);
	CHECK(pprof__write(&rep, path) == 0);
	p = read_pprof(path);
	CHECK(p && p->n_location == FRAME_KIND__COUNT);
	for (uint32_t k = 0; p && k < p->n_location && k < FRAME_KIND__COUNT; k++) {
		const Perftools__Profiles__Location *l = p->location[k];
		const char *unmapped = report_kind(&rep, k)->pprof_file;
		const Perftools__Profiles__Function *fn = NULL;

		CHECK(l->n_line == 1);
		for (size_t i = 0; l->n_line == 1 && i < p->n_function; i++)
			if (p->function[i]->id == l->line[0]->function_id)
				fn = p->function[i];
		CHECK(fn && !strcmp(pp_str(p, fn->name), names[k]));
		if (fn && k != FRAME_NATIVE)
			CHECK(!strcmp(pp_str(p, fn->filename), unmapped ? unmapped : ""));
	}
	if (p)
		perftools__profiles__profile__free_unpacked(p, NULL);
}

static const char *ot_str(const pb_dict *d, int32_t i)
{
	return i >= 0 && (size_t)i < d->n_string_table ? d->string_table[i] : "<out of range>";
}

/* The profile.frame.type of location loc, NULL when it has none. */
static const char *ot_frame_type(const pb_dict *d, const pb_location *l)
{
	for (size_t i = 0; i < l->n_attribute_indices; i++) {
		int32_t a = l->attribute_indices[i];

		if (a < 0 || (size_t)a >= d->n_attribute_table)
			continue;
		if (!strcmp(ot_str(d, d->attribute_table[a]->key_strindex), "profile.frame.type") &&
		    d->attribute_table[a]->value->value_case == ANY_STRING)
			return d->attribute_table[a]->value->string_value;
	}
	return NULL;
}

/* Location k + 1 is frame k (location 0 is the zero value): its type is the table's. */
static void test_otlp(void)
{
	const struct otlp_options o = {0};
	uint8_t *buf = NULL;
	size_t len = 0;
	pb_request *req;
	const pb_dict *d;

	CHECK(otlp__encode(&rep, &o, &buf, &len) == 0);
	req = buf ? OTLP_UNPACK(NULL, len, buf) : NULL;
	free(buf);
	CHECK(req && req->dictionary);
	if (!req || !req->dictionary)
		goto out;
	d = req->dictionary;
	CHECK(d->n_location_table > FRAME_KIND__COUNT);
	for (uint32_t k = 0; k < FRAME_KIND__COUNT && k + 1 < d->n_location_table; k++) {
		const char *type = ot_frame_type(d, d->location_table[k + 1]);

		CHECK(type && !strcmp(type, report_kind(&rep, k)->otlp_type));
	}
out:
	if (req)
		OTLP_FREE(req, NULL);
}

static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "re"), *mem = open_memstream(&buf, &len);
	char chunk[4096];
	size_t n;

	if (f && mem)
		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
			fwrite(chunk, 1, n, mem);
	if (mem)
		fclose(mem);
	if (f)
		fclose(f);
	return buf;
}

/* The page's data says what each node kind is; every frame kind is there with the
 * table's name and tooltip (the script reads nothing else: tests/browser hovers them). */
static void test_flamegraph(void)
{
	char path[128], want[256], *page;

	snprintf(path, sizeof(path), "%s/fg.html", dir);
	CHECK(flamegraph__write(&rep, path, "kinds") == 0);
	page = slurp(path);
	CHECK(page && strstr(page, "\"kinds\":[{\"name\":\"root\""));
	for (uint32_t k = 0; page && k < FRAME_KIND__COUNT; k++) {
		const struct frame_kind_info *i = report_kind(&rep, k);
		const struct frame_colour *c = &i->colour;

		snprintf(want, sizeof(want),
			 "{\"name\":\"%s\",\"about\":\"%s\",\"colour\":[%u,%u,%u,%u,%u]}", i->name,
			 i->about, c->hue, c->hue_span, c->sat, c->light, c->light_span);
		CHECK(strstr(page, want) != NULL);
	}
	/* The viewer came from the asset file, whole. */
	CHECK(page && strstr(page, "var K = D.kinds;") && strstr(page, "})();\n</script>"));
	free(page);
}

int main(void)
{
	char cmd[128];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	build_report();
	RUN_TEST(test_table_is_complete);
	RUN_TEST(test_folded);
	RUN_TEST(test_pprof);
	RUN_TEST(test_otlp);
	RUN_TEST(test_flamegraph);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	HARNESS_EXIT();
}
