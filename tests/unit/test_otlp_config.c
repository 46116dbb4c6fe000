// SPDX-License-Identifier: Apache-2.0
/* Unit test of the OTLP settings: the specification's endpoint rules (generic base URL
 * gets /v1development/profiles, the profiles-specific one is used as is, the scheme
 * decides TLS for gRPC), flags over variables over defaults, headers, timeouts,
 * compression and the errors for bad values. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/otlp_config.h"
#include "harness.h"

#define GRPC_TAIL OTLP_GRPC_PATH

static struct otlp_client_opts o;

/* Resolves flags (may be NULL) and a NULL-terminated list of "NAME=value". */
static int resolve(const struct otlp_flags *flags, char **env)
{
	struct otlp_flags none;

	otlp_client_opts__release(&o);
	otlp_flags__init(&none);
	return otlp_config__resolve(flags ? flags : &none, env, &o);
}

static bool url_is(const char *want)
{
	if (o.url && !strcmp(o.url, want))
		return true;
	fprintf(stderr, "  url '%s', expected '%s'\n", o.url ? o.url : "(null)", want);
	return false;
}

static bool has_header(const char *line)
{
	size_t i;

	for (i = 0; i < o.n_headers; i++) {
		if (!strcmp(o.headers[i], line))
			return true;
	}
	return false;
}

static void test_defaults(void)
{
	char *env[] = {NULL};

	CHECK(resolve(NULL, env) == 0);
	CHECK(o.protocol == OTLP_PROTO_GRPC);
	CHECK(url_is("http://localhost:4317" GRPC_TAIL));
	CHECK(o.gzip);
	CHECK(o.timeout_ms == 10000);
	CHECK(o.max_queue == OTLP_DEFAULT_MAX_QUEUE);
	CHECK(o.n_headers == 0 && !o.ca_file);

	char *http[] = {"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf", NULL};
	CHECK(resolve(NULL, http) == 0);
	CHECK(o.protocol == OTLP_PROTO_HTTP);
	CHECK(url_is("http://localhost:4318/v1development/profiles"));
}

/* The variables below pick OTLP/HTTP; gRPC is the default. */
#define H "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"

static void test_http_endpoint_rules(void)
{
	char *generic[] = {H, "OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318/mycollector/",
			   NULL};
	char *generic_bare[] = {H, "OTEL_EXPORTER_OTLP_ENDPOINT=https://collector", NULL};
	char *specific[] = {
	    H, "OTEL_EXPORTER_OTLP_ENDPOINT=http://generic:4318",
	    "OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT=https://c.example.com/in/profiles", NULL};
	char *specific_bare[] = {H, "OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT=http://c:4318", NULL};
	char *empty_specific[] = {H, "OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT=",
				  "OTEL_EXPORTER_OTLP_ENDPOINT=http://g:1", NULL};
	char *no_scheme[] = {H, "OTEL_EXPORTER_OTLP_ENDPOINT=collector:4318", NULL};
	char *bad_scheme[] = {H, "OTEL_EXPORTER_OTLP_ENDPOINT=ftp://collector", NULL};

	CHECK(resolve(NULL, generic) == 0);
	CHECK(url_is("http://collector:4318/mycollector/v1development/profiles"));
	CHECK(resolve(NULL, generic_bare) == 0);
	CHECK(url_is("https://collector/v1development/profiles"));
	CHECK(resolve(NULL, specific) == 0);
	CHECK(url_is("https://c.example.com/in/profiles"));
	CHECK(resolve(NULL, specific_bare) == 0);
	CHECK(url_is("http://c:4318/"));
	/* An empty variable is unset, so the generic one applies. */
	CHECK(resolve(NULL, empty_specific) == 0);
	CHECK(url_is("http://g:1/v1development/profiles"));
	CHECK(resolve(NULL, no_scheme) == -EINVAL);
	CHECK(!o.url);
	CHECK(resolve(NULL, bad_scheme) == -EINVAL);
}

static void test_flags_win(void)
{
	char *env[] = {"OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT=http://env:1/x",
		       "OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "OTEL_EXPORTER_OTLP_COMPRESSION=none",
		       "OTEL_EXPORTER_OTLP_TIMEOUT=500", NULL};
	struct otlp_flags f;

	otlp_flags__init(&f);
	f.endpoint = "http://flag:4318";
	f.protocol = "http/protobuf";
	f.compression = "gzip";
	f.timeout = "2.5s";
	f.max_queue = 3;
	CHECK(resolve(&f, env) == 0);
	CHECK(o.protocol == OTLP_PROTO_HTTP);
	CHECK(url_is("http://flag:4318/v1development/profiles"));
	CHECK(o.gzip && o.timeout_ms == 2500 && o.max_queue == 3);

	/* A flag that already names the profiles path is not given it twice. */
	f.endpoint = "https://flag/v1development/profiles";
	CHECK(resolve(&f, env) == 0);
	CHECK(url_is("https://flag/v1development/profiles"));

	/* Without flags, the variables decide. */
	CHECK(resolve(NULL, env) == 0);
	CHECK(o.protocol == OTLP_PROTO_GRPC && !o.gzip && o.timeout_ms == 500);
	CHECK(url_is("http://env:1" GRPC_TAIL));
}

static void test_grpc_tls_rules(void)
{
	char *bare[] = {"OTEL_EXPORTER_OTLP_PROTOCOL=grpc",
			"OTEL_EXPORTER_OTLP_ENDPOINT=collector:4317", NULL};
	char *bare_insecure[] = {"OTEL_EXPORTER_OTLP_PROTOCOL=grpc",
				 "OTEL_EXPORTER_OTLP_ENDPOINT=collector:4317",
				 "OTEL_EXPORTER_OTLP_INSECURE=TRUE", NULL};
	char *insecure_yes[] = {"OTEL_EXPORTER_OTLP_PROTOCOL=grpc",
				"OTEL_EXPORTER_OTLP_ENDPOINT=collector:4317",
				"OTEL_EXPORTER_OTLP_INSECURE=yes", NULL};
	char *env[] = {NULL};
	struct otlp_flags f;

	CHECK(resolve(NULL, bare) == 0);
	CHECK(url_is("https://collector:4317" GRPC_TAIL));
	CHECK(resolve(NULL, bare_insecure) == 0);
	CHECK(url_is("http://collector:4317" GRPC_TAIL));
	/* Only "true", in any case, is true. */
	CHECK(resolve(NULL, insecure_yes) == 0);
	CHECK(url_is("https://collector:4317" GRPC_TAIL));

	otlp_flags__init(&f);
	f.protocol = "grpc";
	f.endpoint = "https://secure:4317";
	f.insecure = 1; /* the scheme wins */
	CHECK(resolve(&f, env) == 0);
	CHECK(url_is("https://secure:4317" GRPC_TAIL));
	f.endpoint = "plain:4317";
	CHECK(resolve(&f, env) == 0);
	CHECK(url_is("http://plain:4317" GRPC_TAIL));
	/* host:port on the loopback is plaintext without --insecure; elsewhere TLS. */
	f.insecure = -1;
	f.endpoint = "127.0.0.1:4317";
	CHECK(resolve(&f, env) == 0);
	CHECK(url_is("http://127.0.0.1:4317" GRPC_TAIL));
	f.endpoint = "localhost:4317";
	CHECK(resolve(&f, env) == 0);
	CHECK(url_is("http://localhost:4317" GRPC_TAIL));
	f.endpoint = "[::1]:4317";
	CHECK(resolve(&f, env) == 0);
	CHECK(url_is("http://[::1]:4317" GRPC_TAIL));
	f.endpoint = "127.example.com:4317";
	CHECK(resolve(&f, env) == 0);
	CHECK(url_is("https://127.example.com:4317" GRPC_TAIL));
	f.insecure = 0;
	f.endpoint = "http://plain:4317/ignored/path";
	CHECK(resolve(&f, env) == 0);
	CHECK(url_is("http://plain:4317" GRPC_TAIL));
}

static void test_headers(void)
{
	char *env[] = {"OTEL_EXPORTER_OTLP_HEADERS=api-key=abc%20def, x-b = 1 ,broken,=v,k=%zz",
		       NULL};
	char *specific[] = {"OTEL_EXPORTER_OTLP_HEADERS=a=1",
			    "OTEL_EXPORTER_OTLP_PROFILES_HEADERS=b=2", NULL};
	struct otlp_flags f;

	CHECK(resolve(NULL, env) == 0);
	CHECK(o.n_headers == 2);
	CHECK(has_header("api-key: abc def"));
	CHECK(has_header("x-b: 1"));

	otlp_flags__init(&f);
	CHECK(otlp_flags__add_header(&f, "X-B=2") == 0);
	CHECK(otlp_flags__add_header(&f, "Authorization=Bearer t0k=n") == 0);
	CHECK(resolve(&f, env) == 0);
	CHECK(o.n_headers == 3);
	CHECK(has_header("X-B: 2") && !has_header("x-b: 1"));
	CHECK(has_header("Authorization: Bearer t0k=n"));

	CHECK(resolve(NULL, specific) == 0);
	CHECK(o.n_headers == 1 && has_header("b: 2"));

	otlp_flags__init(&f);
	otlp_flags__add_header(&f, "bad name=x");
	CHECK(resolve(&f, env) == -EINVAL);
	otlp_flags__init(&f);
	otlp_flags__add_header(&f, "x=a\r\nInjected: 1");
	CHECK(resolve(&f, env) == -EINVAL);
	otlp_flags__init(&f);
	otlp_flags__add_header(&f, "novalue");
	CHECK(resolve(&f, env) == -EINVAL);
	otlp_flags__init(&f);
	for (int i = 0; i < OTLP_MAX_HEADERS; i++)
		CHECK(otlp_flags__add_header(&f, "k=v") == 0);
	CHECK(otlp_flags__add_header(&f, "k=v") == -E2BIG);
}

static void test_values(void)
{
	char *neg_timeout[] = {"OTEL_EXPORTER_OTLP_TIMEOUT=-5", NULL};
	char *zero_timeout[] = {"OTEL_EXPORTER_OTLP_PROFILES_TIMEOUT=0", NULL};
	char *bad_gzip_env[] = {"OTEL_EXPORTER_OTLP_COMPRESSION=zstd", NULL};
	char *json[] = {"OTEL_EXPORTER_OTLP_PROTOCOL=http/json", NULL};
	char *env[] = {NULL};
	struct otlp_flags f;

	CHECK(resolve(NULL, neg_timeout) == 0 && o.timeout_ms == 10000);
	CHECK(resolve(NULL, zero_timeout) == 0 && o.timeout_ms == 0);
	CHECK(resolve(NULL, bad_gzip_env) == 0 && o.gzip);
	CHECK(resolve(NULL, json) == -EINVAL);

	otlp_flags__init(&f);
	f.compression = "zstd";
	CHECK(resolve(&f, env) == -EINVAL);
	otlp_flags__init(&f);
	f.protocol = "grpc+json";
	CHECK(resolve(&f, env) == -EINVAL);
	otlp_flags__init(&f);
	f.timeout = "soon";
	CHECK(resolve(&f, env) == -EINVAL);
	otlp_flags__init(&f);
	f.max_queue = 70000;
	CHECK(resolve(&f, env) == -EINVAL);
}

static void test_ca_file(void)
{
	char path[] = "/tmp/ebprof-ca-XXXXXX";
	int fd = mkstemp(path);
	char *env[] = {NULL};
	struct otlp_flags f;

	CHECK(fd >= 0);
	otlp_flags__init(&f);
	f.endpoint = "https://c:4318";
	f.ca_file = path;
	CHECK(resolve(&f, env) == 0);
	CHECK(o.ca_file && !strcmp(o.ca_file, path));
	/* Plaintext has no use for it. */
	f.endpoint = "http://c:4318";
	CHECK(resolve(&f, env) == 0 && !o.ca_file);
	f.endpoint = "https://c:4318";
	f.ca_file = "/nonexistent/ca.pem";
	CHECK(resolve(&f, env) == -EINVAL);
	/* A FIFO would block libcurl's open for ever; a directory or a device is no bundle. */
	unlink(path);
	CHECK(mkfifo(path, 0600) == 0);
	f.ca_file = path;
	CHECK(resolve(&f, env) == -EINVAL);
	f.ca_file = "/dev/zero";
	CHECK(resolve(&f, env) == -EINVAL);
	f.ca_file = "/tmp";
	CHECK(resolve(&f, env) == -EINVAL);
	close(fd);
	unlink(path);
}

int main(void)
{
	RUN_TEST(test_defaults);
	RUN_TEST(test_http_endpoint_rules);
	RUN_TEST(test_flags_win);
	RUN_TEST(test_grpc_tls_rules);
	RUN_TEST(test_headers);
	RUN_TEST(test_values);
	RUN_TEST(test_ca_file);
	otlp_client_opts__release(&o);
	HARNESS_EXIT();
}
