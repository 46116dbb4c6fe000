// SPDX-License-Identifier: Apache-2.0
/* OTLP exporter settings from flags, then OTEL_EXPORTER_OTLP_PROFILES_*, then
 * OTEL_EXPORTER_OTLP_*, then the defaults, following the OTLP exporter specification:
 * the generic HTTP endpoint is a base URL that gets /v1development/profiles appended, the
 * profiles-specific one is used as is, an https:// or http:// scheme decides TLS for gRPC
 * over the insecure setting, timeouts in the environment are milliseconds, and booleans
 * are true only when "true" in any case. Kept apart from the client so it is unit-tested
 * without a network. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "export/curl_lib.h"

#include "util/options.h"
#include "export/otlp_config.h"
#include "util/log.h"
#include "util/safe_file.h"

#define ENV_PREFIX "OTEL_EXPORTER_OTLP_"
#define ENV_SIGNAL "PROFILES_"
#define DEFAULT_GRPC_ENDPOINT "http://localhost:4317"
#define DEFAULT_HTTP_ENDPOINT "http://localhost:4318"
#define CA_FILE_MAX (16u << 20) /* PEM bundles are a few hundred KiB */

/* One setting and where it came from, for messages and for the endpoint rules. */
struct source {
	const char *value; /* NULL: not given anywhere */
	char name[64];	   /* "--endpoint" or the variable's name */
	bool from_env;
	bool generic; /* OTEL_EXPORTER_OTLP_X rather than the profiles-specific one */
};

void otlp_flags__init(struct otlp_flags *f)
{
	memset(f, 0, sizeof(*f));
	f->insecure = -1;
}

int otlp_flags__add_header(struct otlp_flags *f, const char *kv)
{
	if (f->n_headers >= OTLP_MAX_HEADERS) {
		pr_err("--header: at most %d headers", OTLP_MAX_HEADERS);
		return -E2BIG;
	}
	f->headers[f->n_headers++] = kv;
	return 0;
}

static const char *env_get(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (; envp && *envp; envp++) {
		if (!strncmp(*envp, name, n) && (*envp)[n] == '=')
			return *envp + n + 1;
	}
	return NULL;
}

/* The flag if given, else OTEL_EXPORTER_OTLP_PROFILES_<what>, else OTEL_EXPORTER_OTLP_<what>.
 * Empty variables count as unset, as the specification asks. */
static struct source pick(const char *flag_value, const char *flag, char *const *envp,
			  const char *what)
{
	struct source s = {0};
	const char *v;

	if (flag_value) {
		s.value = flag_value;
		snprintf(s.name, sizeof(s.name), "%s", flag);
		return s;
	}
	snprintf(s.name, sizeof(s.name), ENV_PREFIX ENV_SIGNAL "%s", what);
	v = env_get(envp, s.name);
	if (!v || !*v) {
		snprintf(s.name, sizeof(s.name), ENV_PREFIX "%s", what);
		v = env_get(envp, s.name);
		s.generic = true;
	}
	if (v && *v) {
		s.value = v;
		s.from_env = true;
	}
	return s;
}

static int resolve_protocol(const struct source *s, enum otlp_protocol *out)
{
	/* gRPC, not the specification's http/protobuf: it is what the collectors and
	 * profiling backends deployed today listen on first (4317), and one connection
	 * carries every export. */
	*out = OTLP_PROTO_GRPC;
	if (!s->value || !strcmp(s->value, "grpc"))
		return 0;
	if (!strcmp(s->value, "http/protobuf")) {
		*out = OTLP_PROTO_HTTP;
		return 0;
	}
	if (!strcmp(s->value, "http/json"))
		pr_err("%s: http/json is not supported; use grpc or http/protobuf", s->name);
	else
		pr_err("%s: '%s' is not a protocol (grpc, http/protobuf)", s->name, s->value);
	return -EINVAL;
}

static int resolve_compression(const struct source *s, bool *gzip)
{
	*gzip = true; /* profiles compress about tenfold; the spec leaves the default to us */
	if (!s->value || !strcmp(s->value, "gzip"))
		return 0;
	if (!strcmp(s->value, "none")) {
		*gzip = false;
		return 0;
	}
	if (s->from_env) {
		pr_warn("%s: '%s' is not gzip or none; using gzip", s->name, s->value);
		return 0;
	}
	pr_err("%s: '%s' is not a compression (gzip, none)", s->name, s->value);
	return -EINVAL;
}

/* Flags take durations like the other verbs ("10", "2.5s"); the environment takes whole
 * milliseconds, and a negative or unreadable one is ignored with a warning. */
static int resolve_timeout(const struct source *s, unsigned *ms)
{
	char *end;
	double secs;
	long v;

	*ms = OTLP_DEFAULT_TIMEOUT_MS;
	if (!s->value)
		return 0;
	if (!s->from_env) {
		if (opt_seconds(s->name, s->value, &secs))
			return -EINVAL;
		if (secs * 1000 > 86400000.0) {
			pr_err("%s: at most a day", s->name);
			return -EINVAL;
		}
		*ms = (unsigned)(secs * 1000 + 0.5);
		return 0;
	}
	errno = 0;
	v = strtol(s->value, &end, 10);
	if (*end || errno || v < 0 || v > 86400000) {
		pr_warn("%s: '%s' is not a number of milliseconds; using %u", s->name, s->value,
			*ms);
		return 0;
	}
	*ms = (unsigned)v;
	return 0;
}

static bool resolve_insecure(int flag, char *const *envp)
{
	struct source s;

	if (flag >= 0)
		return flag;
	s = pick(NULL, NULL, envp, "INSECURE");
	if (!s.value)
		return false;
	if (!strcasecmp(s.value, "true"))
		return true;
	if (strcasecmp(s.value, "false"))
		pr_warn("%s: '%s' is neither true nor false; taking false", s.name, s.value);
	return false;
}

static bool is_token_char(unsigned char c)
{
	return isalnum(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Decodes %XX in place (W3C baggage values are percent-encoded). False on a bad escape. */
static bool percent_decode(char *s)
{
	char *w = s;
	unsigned v;

	for (; *s; s++) {
		if (*s != '%') {
			*w++ = *s;
			continue;
		}
		if (!isxdigit((unsigned char)s[1]) || !isxdigit((unsigned char)s[2]) ||
		    sscanf(s + 1, "%2x", &v) != 1 || v == 0)
			return false;
		*w++ = (char)v;
		s += 2;
	}
	*w = 0;
	return true;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = 0;
	return s;
}

/* Appends "key: value" to the list, replacing an entry with the same name (names are
 * case-insensitive) so a --header wins over the same header from the environment. */
static int header_put(struct otlp_client_opts *o, const char *key, const char *value)
{
	size_t klen = strlen(key), i;
	char *line, **grown;

	if (asprintf(&line, "%s: %s", key, value) < 0)
		return -ENOMEM;
	for (i = 0; i < o->n_headers; i++) {
		if (!strncasecmp(o->headers[i], key, klen) && o->headers[i][klen] == ':') {
			free(o->headers[i]);
			o->headers[i] = line;
			return 0;
		}
	}
	grown = realloc(o->headers, (o->n_headers + 1) * sizeof(*grown));
	if (!grown) {
		free(line);
		return -ENOMEM;
	}
	o->headers = grown;
	o->headers[o->n_headers++] = line;
	return 0;
}

/* Checks and adds one "key=value" (value percent-decoded when it came from the
 * environment). Returns 0, -EINVAL for a malformed pair, -ENOMEM. */
static int header_add_pair(struct otlp_client_opts *o, char *pair, bool decode)
{
	char *eq = strchr(pair, '='), *key, *value, *p;

	if (!eq)
		return -EINVAL;
	*eq = 0;
	key = trim(pair);
	value = trim(eq + 1);
	if (!*key || (decode && !percent_decode(value)))
		return -EINVAL;
	for (p = key; *p; p++) {
		if (!is_token_char(*p))
			return -EINVAL;
	}
	for (p = value; *p; p++) {
		if ((unsigned char)*p < 0x20 && *p != '\t')
			return -EINVAL; /* CR or LF would smuggle a header in */
	}
	return header_put(o, key, value);
}

/* OTEL_EXPORTER_OTLP_[PROFILES_]HEADERS: "k1=v1,k2=v2". A malformed pair is skipped with
 * a warning, as other OpenTelemetry exporters do, rather than refusing to start. */
static int headers_from_env(struct otlp_client_opts *o, char *const *envp)
{
	struct source s = pick(NULL, NULL, envp, "HEADERS");
	char *copy, *save = NULL, *pair, shown[128];
	int err = 0;

	if (!s.value)
		return 0;
	copy = strdup(s.value);
	if (!copy)
		return -ENOMEM;
	for (pair = strtok_r(copy, ",", &save); pair && err != -ENOMEM;
	     pair = strtok_r(NULL, ",", &save)) {
		snprintf(shown, sizeof(shown), "%s", trim(pair));
		err = header_add_pair(o, pair, true);
		if (err == -EINVAL)
			pr_warn("%s: ignoring '%s' (not key=value with a valid name and value)",
				s.name, shown);
	}
	free(copy);
	return err == -ENOMEM ? err : 0;
}

static int headers_from_flags(struct otlp_client_opts *o, const struct otlp_flags *f)
{
	char *copy;
	int i, err;

	for (i = 0; i < f->n_headers; i++) {
		copy = strdup(f->headers[i]);
		if (!copy)
			return -ENOMEM;
		err = header_add_pair(o, copy, false);
		if (err == -EINVAL)
			pr_err("--header: '%s' is not KEY=VALUE with a valid header name",
			       f->headers[i]);
		free(copy);
		if (err)
			return err;
	}
	return 0;
}

static bool has_scheme(const char *s, const char *scheme)
{
	size_t n = strlen(scheme);

	return !strncasecmp(s, scheme, n) && !strncmp(s + n, "://", 3);
}

/* The path the request goes to: gRPC's method, or for HTTP the endpoint's own path (a
 * profiles-specific endpoint, used as is) or the base path with v1development/profiles
 * appended (the generic variable, the default, and --endpoint unless it already ends in
 * /v1development/profiles). */
static char *request_path(const char *path, enum otlp_protocol proto, const struct source *s)
{
	size_t n = strlen(path), tail = strlen(OTLP_HTTP_PATH);
	char *out;

	if (proto == OTLP_PROTO_GRPC)
		return strdup(OTLP_GRPC_PATH);
	if (s->value && s->from_env && !s->generic)
		return strdup(*path ? path : "/");
	if (s->value && !s->from_env && n >= tail && !strcmp(path + n - tail, OTLP_HTTP_PATH))
		return strdup(path);
	while (n && path[n - 1] == '/')
		n--;
	if (asprintf(&out, "%.*s%s", (int)n, path, OTLP_HTTP_PATH) < 0)
		return NULL;
	return out;
}

/* Parses the endpoint with curl's URL parser and sets its path; *tls says whether the
 * resulting URL is https. */
static int build_url(struct otlp_client_opts *o, const struct source *s, const char *endpoint,
		     bool *tls)
{
	const struct curl_lib *c = curl_lib__get();
	char *given = NULL, *path = NULL, *url = NULL;
	int err = -EINVAL;
	CURLU *u;

	if (!c)
		return -ENOENT;
	u = c->url();
	if (!u)
		return -ENOMEM;
	if (c->url_set(u, CURLUPART_URL, endpoint, 0) || c->url_get(u, CURLUPART_PATH, &given, 0)) {
		pr_err("%s: '%s' is not a URL", s->name, endpoint);
		goto cleanup;
	}
	if (o->protocol == OTLP_PROTO_GRPC && strcmp(given, "/"))
		pr_warn("%s: gRPC calls %s; the path '%s' is ignored", s->name, OTLP_GRPC_PATH,
			given);
	path = request_path(given, o->protocol, s);
	if (!path) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (c->url_set(u, CURLUPART_PATH, path, 0) || c->url_set(u, CURLUPART_FRAGMENT, NULL, 0) ||
	    c->url_get(u, CURLUPART_URL, &url, 0)) {
		pr_err("%s: '%s' is not a URL", s->name, endpoint);
		goto cleanup;
	}
	o->url = strdup(url);
	*tls = has_scheme(url, "https");
	err = o->url ? 0 : -ENOMEM;
cleanup:
	c->free(url);
	free(path);
	c->free(given);
	c->url_cleanup(u);
	return err;
}

/* True for localhost and loopback addresses (host:port, IPv6 in brackets): traffic to
 * them never leaves the host. */
static bool is_loopback(const char *hostport)
{
	const char *end = hostport[0] == '[' ? strchr(hostport, ']') : strrchr(hostport, ':');
	const char *host = hostport[0] == '[' ? hostport + 1 : hostport;
	size_t len = end ? (size_t)(end - host) : strlen(host);
	unsigned char addr[16];
	char buf[64];

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, host, len);
	buf[len] = '\0';
	if (!strcmp(buf, "localhost"))
		return true;
	if (inet_pton(AF_INET, buf, addr) == 1)
		return addr[0] == 127;
	return inet_pton(AF_INET6, buf, addr) == 1 && !memcmp(addr, &in6addr_loopback, 16);
}

/* Decides the scheme: an explicit http:// or https:// wins; a gRPC endpoint written as
 * host:port is TLS unless insecure or on the loopback (where TLS protects nothing and
 * a collector's default configuration has none); OTLP/HTTP needs a scheme. */
static int resolve_endpoint(struct otlp_client_opts *o, const struct source *s, bool insecure,
			    bool *tls)
{
	const char *ep = s->value;
	char *with_scheme = NULL;
	int err;

	if (!ep)
		ep = o->protocol == OTLP_PROTO_GRPC ? DEFAULT_GRPC_ENDPOINT : DEFAULT_HTTP_ENDPOINT;
	if (strstr(ep, "://")) {
		if (!has_scheme(ep, "http") && !has_scheme(ep, "https")) {
			pr_err("%s: '%s': the scheme must be http or https", s->name, ep);
			return -EINVAL;
		}
	} else if (o->protocol == OTLP_PROTO_HTTP) {
		pr_err("%s: '%s': an OTLP/HTTP endpoint needs http:// or https://", s->name, ep);
		return -EINVAL;
	} else {
		bool plain = insecure || is_loopback(ep);

		if (asprintf(&with_scheme, "%s://%s", plain ? "http" : "https", ep) < 0)
			return -ENOMEM;
		ep = with_scheme;
	}
	err = build_url(o, s, ep, tls);
	free(with_scheme);
	return err;
}

static int resolve_ca_file(struct otlp_client_opts *o, const struct source *s, bool tls)
{
	char why[SAFE_FILE_WHY];
	int fd;

	if (!s->value)
		return 0;
	if (!tls) {
		pr_warn("%s: ignored, the endpoint %s is plaintext", s->name, o->url);
		return 0;
	}
	/* Checked as every path read is (safe_file.h): a FIFO would block the sender in
	 * libcurl's open for ever. */
	fd = safe_file__open(s->value, SAFE_FILE_FOLLOW, CA_FILE_MAX, NULL, why);
	if (fd < 0) {
		pr_err("%s: %s %s", s->name, s->value, why);
		return -EINVAL;
	}
	close(fd);
	o->ca_file = strdup(s->value);
	return o->ca_file ? 0 : -ENOMEM;
}

static int resolve_max_queue(const struct otlp_flags *f, struct otlp_client_opts *o)
{
	o->max_queue = OTLP_DEFAULT_MAX_QUEUE;
	if (!f->max_queue)
		return 0;
	if (f->max_queue > OTLP_MAX_QUEUE_LIMIT) {
		pr_err("--max-queue: %lu is out of range (1 to %d)", f->max_queue,
		       OTLP_MAX_QUEUE_LIMIT);
		return -EINVAL;
	}
	o->max_queue = f->max_queue;
	return 0;
}

static void resolve_queue_bytes(const struct otlp_flags *f, struct otlp_client_opts *o)
{
	o->max_queue_bytes = f->max_queue_bytes ? f->max_queue_bytes : OTLP_DEFAULT_QUEUE_BYTES;
}

/* --insecure only changes a gRPC endpoint written without a scheme; say so when it is
 * given where it changes nothing, rather than let it look like it did something. */
static void warn_unused_insecure(const struct otlp_flags *f, const struct otlp_client_opts *o,
				 const struct source *ep)
{
	if (f->insecure != 1)
		return;
	if (o->protocol == OTLP_PROTO_GRPC && ep->value && !strstr(ep->value, "://"))
		return;
	pr_warn("--insecure: ignored, the scheme of %s decides", o->url);
}

int otlp_config__resolve(const struct otlp_flags *f, char *const *envp,
			 struct otlp_client_opts *out)
{
	struct source proto = pick(f->protocol, "--protocol", envp, "PROTOCOL");
	struct source ep = pick(f->endpoint, "--endpoint", envp, "ENDPOINT");
	struct source gz = pick(f->compression, "--compression", envp, "COMPRESSION");
	struct source to = pick(f->timeout, "--timeout", envp, "TIMEOUT");
	struct source ca = pick(f->ca_file, "--ca-file", envp, "CERTIFICATE");
	bool tls = false;
	int err;

	memset(out, 0, sizeof(*out));
	err = resolve_protocol(&proto, &out->protocol);
	err = err ?: resolve_compression(&gz, &out->gzip);
	err = err ?: resolve_timeout(&to, &out->timeout_ms);
	err = err ?: resolve_max_queue(f, out);
	resolve_queue_bytes(f, out);
	err = err ?: resolve_endpoint(out, &ep, resolve_insecure(f->insecure, envp), &tls);
	err = err ?: resolve_ca_file(out, &ca, tls);
	err = err ?: headers_from_env(out, envp);
	err = err ?: headers_from_flags(out, f);
	if (err) {
		if (err == -ENOMEM)
			pr_err("OTLP settings: out of memory");
		otlp_client_opts__release(out);
		return -EINVAL;
	}
	warn_unused_insecure(f, out, &ep);
	return 0;
}

void otlp_client_opts__release(struct otlp_client_opts *o)
{
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->n_headers; i++)
		free(o->headers[i]);
	free(o->headers);
	free(o->url);
	free(o->ca_file);
	memset(o, 0, sizeof(*o));
}
