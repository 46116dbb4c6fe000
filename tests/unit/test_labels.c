// SPDX-License-Identifier: Apache-2.0
/* Unit tests for sample labels (Go's pprof labels) from the profile to every output: the
 * interned sets and their bounds, stacks told apart by labels, the report's copy, pprof
 * Sample.label, OTLP sample attributes and the flame graph's label nodes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "harness.h"
#include "export/flamegraph.h"
#include "export/otlp.h"
#include "export/pprof.h"
#include "proc/files.h"
#include "profile/labels.h"
#include "profile/profile.h"
#include "profile/report.h"
#include "symbol/symbolizer.h"
#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb-c.h"
#include "profile.pb-c.h"

#define UNPACK \
	opentelemetry__proto__collector__profiles__v1development__export_profiles_service_request__unpack
#define FREE_UNPACKED \
	opentelemetry__proto__collector__profiles__v1development__export_profiles_service_request__free_unpacked

static char tmpdir[] = "/tmp/test_labels.XXXXXX";

static const struct label acme[] = {{"tenant", "acme"}, {"endpoint", "/v1/orders"}};
static const struct label acme_swapped[] = {{"endpoint", "/v1/orders"}, {"tenant", "acme"}};

static void test_sets(void)
{
	struct label_sets ls;
	struct label many[LABELS_MAX + 3], dup[] = {{"k", "first"}, {"k", "second"}};
	char keys[LABELS_MAX + 3][8], longv[LABEL_VALUE_MAX * 2];
	const struct label_set *s;
	uint32_t a, b, c;

	label_sets__init(&ls);
	a = label_sets__intern(&ls, acme, 2);
	b = label_sets__intern(&ls, acme_swapped, 2);
	CHECK(a == 1 && b == a); /* one set whatever the order */
	s = label_sets__get(&ls, a);
	CHECK(s && s->n == 2 && !strcmp(s->labels[0].key, "endpoint") &&
	      !strcmp(s->labels[1].value, "acme"));
	CHECK(label_sets__intern(&ls, acme, 0) == 0);
	CHECK(label_sets__get(&ls, 0) == NULL && label_sets__get(&ls, 99) == NULL);
	c = label_sets__intern(&ls, dup, 2); /* a repeated key keeps its first value */
	s = label_sets__get(&ls, c);
	CHECK(c == 2 && s && s->n == 1 && !strcmp(s->labels[0].value, "first"));
	for (int i = 0; i < LABELS_MAX + 3; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k%02d", i);
		many[i] = (struct label){keys[i], "v"};
	}
	s = label_sets__get(&ls, label_sets__intern(&ls, many, LABELS_MAX + 3));
	CHECK(s && s->n == LABELS_MAX && ls.dropped == 3);
	memset(longv, 'x', sizeof(longv) - 1);
	longv[sizeof(longv) - 1] = '\0';
	many[0] = (struct label){"long", longv};
	a = label_sets__intern(&ls, many, 1);
	s = label_sets__get(&ls, a);
	CHECK(s && strlen(s->labels[0].value) == LABEL_VALUE_MAX);
	CHECK(label_sets__intern(&ls, many, 1) == a); /* the cut value is found again */
	label_sets__clear(&ls);
	CHECK(ls.count == 0 && label_sets__get(&ls, a) == NULL && ls.dropped == 3);
	label_sets__free(&ls);
}

/* Two samples of one stack under labels and one without: two report stacks. */
static struct report *labelled_report(struct profile *p, struct file_table *files,
				      struct symbolizer *sym)
{
	union {
		struct stack s;
		char bytes[sizeof(struct stack) + 2 * sizeof(struct frame)];
	} key;
	uint64_t one = 1;

	profile__init(p);
	file_table__init(files);
	symbolizer__init(sym, files, NULL);
	memset(&key, 0, sizeof(key));
	key.s.pid = 42;
	key.s.tid = 43;
	key.s.cpu = -1;
	strcpy(key.s.comm, "api");
	strcpy(key.s.thread, "api");
	key.s.nframes = 2;
	key.s.frames[0] = (struct frame){.addr = 0x1000, .kind = FRAME_UNKNOWN};
	key.s.frames[1] = (struct frame){.addr = 0x2000, .kind = FRAME_UNKNOWN};
	key.s.labels = label_sets__intern(&p->labels, acme, 2);
	CHECK(profile__add(p, &key.s, &one, 0) == 0);
	CHECK(profile__add(p, &key.s, &one, 0) == 0);
	key.s.labels = 0;
	CHECK(profile__add(p, &key.s, &one, 0) == 0);
	CHECK(p->stacks.len == 2);
	return report__build(p, sym, NULL, 10000000, 0, 1000000000);
}

static const struct report_stack *find_labelled(const struct report *r)
{
	for (size_t i = 0; r && i < r->nstacks; i++)
		if (r->stacks[i].nlabels)
			return &r->stacks[i];
	return NULL;
}

static void test_report(void)
{
	struct file_table files;
	struct symbolizer sym;
	struct profile p;
	struct report *r = labelled_report(&p, &files, &sym);
	const struct report_stack *s = find_labelled(r);

	CHECK(r && r->nstacks == 2);
	CHECK(s && s->count == 2 && s->nlabels == 2 && !strcmp(s->labels[0].key, "endpoint") &&
	      !strcmp(s->labels[0].value, "/v1/orders") && !strcmp(s->labels[1].key, "tenant"));
	profile__free(&p); /* the report keeps its own copy */
	CHECK(s && !strcmp(s->labels[1].value, "acme"));
	report__free(r);
	file_table__free(&files);
}

static uint8_t *gunzip(const char *path, size_t *len)
{
	gzFile f = gzopen(path, "rb");
	uint8_t *buf = malloc(1 << 20);
	int n = f && buf ? gzread(f, buf, 1 << 20) : -1;

	if (f)
		gzclose(f);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	*len = (size_t)n;
	return buf;
}

static void test_pprof(void)
{
	struct file_table files;
	struct symbolizer sym;
	struct profile p;
	struct report *r = labelled_report(&p, &files, &sym);
	char path[256];
	Perftools__Profiles__Profile *pb = NULL;
	uint8_t *buf;
	size_t len, found = 0;

	snprintf(path, sizeof(path), "%s/profile.pb.gz", tmpdir);
	CHECK(r && pprof__write(r, path) == 0);
	buf = gunzip(path, &len);
	if (buf)
		pb = perftools__profiles__profile__unpack(NULL, len, buf);
	CHECK(pb && pb->n_sample == 2);
	for (size_t i = 0; pb && i < pb->n_sample; i++) {
		const Perftools__Profiles__Sample *smp = pb->sample[i];
		int tenant = 0, endpoint = 0;

		for (size_t j = 0; j < smp->n_label; j++) {
			const char *k = pb->string_table[smp->label[j]->key];
			const char *v = pb->string_table[smp->label[j]->str];

			tenant += !strcmp(k, "tenant") && !strcmp(v, "acme");
			endpoint += !strcmp(k, "endpoint") && !strcmp(v, "/v1/orders");
		}
		CHECK(tenant == endpoint);
		if (tenant) {
			found++;
			CHECK(smp->value[0] == 2);
		}
	}
	CHECK(found == 1);
	if (pb)
		perftools__profiles__profile__free_unpacked(pb, NULL);
	free(buf);
	report__free(r);
	profile__free(&p);
	file_table__free(&files);
}

static void test_otlp(void)
{
	struct otlp_options o = {.scope_version = "1", .host_name = "h"};
	struct file_table files;
	struct symbolizer sym;
	struct profile p;
	struct report *r = labelled_report(&p, &files, &sym);
	Opentelemetry__Proto__Collector__Profiles__V1development__ExportProfilesServiceRequest
	    *req = NULL;
	uint8_t *buf = NULL;
	size_t len = 0, with = 0, samples = 0;

	CHECK(r && otlp__encode(r, &o, &buf, &len) == 0);
	if (buf)
		req = UNPACK(NULL, len, buf);
	CHECK(req && req->dictionary && req->n_resource_profiles == 1);
	for (size_t i = 0; req && i < req->n_resource_profiles; i++) {
		const Opentelemetry__Proto__Profiles__V1development__Profile *prof =
		    req->resource_profiles[i]->scope_profiles[0]->profiles[0];

		for (size_t j = 0; j < prof->n_samples; j++) {
			const Opentelemetry__Proto__Profiles__V1development__Sample *s =
			    prof->samples[j];
			int hits = 0;

			samples++;
			for (size_t k = 0; k < s->n_attribute_indices; k++) {
				const Opentelemetry__Proto__Profiles__V1development__KeyValueAndUnit
				    *a = req->dictionary->attribute_table[s->attribute_indices[k]];
				const char *key = req->dictionary->string_table[a->key_strindex];

				hits += (!strcmp(key, "tenant") &&
					 !strcmp(a->value->string_value, "acme")) ||
					(!strcmp(key, "endpoint") &&
					 !strcmp(a->value->string_value, "/v1/orders"));
			}
			CHECK(hits == 0 || hits == 2);
			with += hits == 2;
		}
	}
	CHECK(with == 1 && samples >= 2);
	if (req)
		FREE_UNPACKED(req, NULL);
	free(buf);
	report__free(r);
	profile__free(&p);
	file_table__free(&files);
}

static void test_flamegraph(void)
{
	struct file_table files;
	struct symbolizer sym;
	struct profile p;
	struct report *r = labelled_report(&p, &files, &sym);
	char path[256], line[1 << 16];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/flamegraph.html", tmpdir);
	CHECK(r && flamegraph__write(r, path, "t") == 0);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		found += strstr(line, "\"{endpoint=/v1/orders, tenant=acme}\"") != NULL;
	if (f)
		fclose(f);
	CHECK(found == 1);
	report__free(r);
	profile__free(&p);
	file_table__free(&files);
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		return 1;
	RUN_TEST(test_sets);
	RUN_TEST(test_report);
	RUN_TEST(test_pprof);
	RUN_TEST(test_otlp);
	RUN_TEST(test_flamegraph);
	unlink(strcat(strcpy((char[300]){0}, tmpdir), "/profile.pb.gz"));
	unlink(strcat(strcpy((char[300]){0}, tmpdir), "/flamegraph.html"));
	rmdir(tmpdir);
	HARNESS_EXIT();
}
