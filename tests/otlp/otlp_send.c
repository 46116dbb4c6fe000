// SPDX-License-Identifier: Apache-2.0
/* Test driver for the OTLP transport: sends the bytes of a file, as an
 * ExportProfilesServiceRequest, COUNT times through otlp_client, with the agent's
 * flags and environment variables, and prints the client's counters as it goes, so shell
 * tests can run it against real receivers (and kill them mid-run). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/options.h"
#include "export/otlp_client.h"
#include "export/otlp_config.h"
#include "util/log.h"

extern char **environ;

struct send_opts {
	const char *file;
	unsigned long count;
	unsigned long interval_ms;
	unsigned long stats_ms;
	unsigned long close_ms;
	unsigned long backoff_initial_ms, backoff_max_ms, retry_max_ms;
};

static const char usage[] =
    "usage: otlp_send [options] REQUEST_FILE\n"
    "  --endpoint URL --protocol grpc|http/protobuf --insecure --ca-file PEM\n"
    "  --header K=V --compression gzip|none --timeout DURATION --max-queue N\n"
    "      as `ebprof agent` takes them (OTEL_EXPORTER_OTLP_* apply too)\n"
    "  --count N          submit the file N times (1)\n"
    "  --interval-ms MS   between submissions (0)\n"
    "  --stats-ms MS      print the counters every MS while submitting (0: only at the end)\n"
    "  --close-ms MS      close deadline (10000)\n"
    "  --backoff MS,MS    initial and maximum retry backoff\n"
    "  --retry-max-ms MS  give a request up after retrying this long\n"
    "  --verbose          libcurl's trace of every exchange\n"
    "example: otlp_send --protocol grpc --endpoint http://127.0.0.1:4317 --count 5 req.bin\n";

static void print_stats(const char *tag, const struct otlp_client_stats *s)
{
	printf("%s submitted=%llu sent=%llu failed_attempts=%llu dropped=%llu queue_full=%llu "
	       "rejected=%llu expired=%llu at_close=%llu partial=%llu rejected_profiles=%llu "
	       "queued=%u queued_max=%u bytes_raw=%llu bytes_sent=%llu\n",
	       tag, (unsigned long long)s->submitted, (unsigned long long)s->sent,
	       (unsigned long long)s->failed_attempts, (unsigned long long)s->dropped,
	       (unsigned long long)s->dropped_queue_full, (unsigned long long)s->dropped_rejected,
	       (unsigned long long)s->dropped_expired, (unsigned long long)s->dropped_at_close,
	       (unsigned long long)s->partial_success, (unsigned long long)s->rejected_profiles,
	       s->queued, s->queued_max, (unsigned long long)s->bytes_raw,
	       (unsigned long long)s->bytes_sent);
	fflush(stdout);
}

static int read_file(const char *path, void **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		pr_err("%s: %s", path, strerror(errno));
		if (f)
			fclose(f);
		return -errno;
	}
	*buf = malloc(n ? n : 1);
	*len = n;
	if (!*buf || fread(*buf, 1, n, f) != (size_t)n) {
		pr_err("%s: short read", path);
		free(*buf);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	return 0;
}

static void sleep_ms(unsigned long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int parse_backoff(const char *s, struct send_opts *o)
{
	if (sscanf(s, "%lu,%lu", &o->backoff_initial_ms, &o->backoff_max_ms) != 2) {
		pr_err("--backoff: '%s' is not INITIAL_MS,MAX_MS", s);
		return -EINVAL;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct otlp_flags *f, struct send_opts *o)
{
	static const struct option longopts[] = {
	    {"endpoint", required_argument, NULL, 'e'},
	    {"protocol", required_argument, NULL, 'p'},
	    {"insecure", no_argument, NULL, 'k'},
	    {"ca-file", required_argument, NULL, 'C'},
	    {"header", required_argument, NULL, 'H'},
	    {"compression", required_argument, NULL, 'z'},
	    {"timeout", required_argument, NULL, 't'},
	    {"max-queue", required_argument, NULL, 'q'},
	    {"count", required_argument, NULL, 'n'},
	    {"interval-ms", required_argument, NULL, 'i'},
	    {"stats-ms", required_argument, NULL, 's'},
	    {"close-ms", required_argument, NULL, 'c'},
	    {"backoff", required_argument, NULL, 'b'},
	    {"retry-max-ms", required_argument, NULL, 'r'},
	    {"verbose", no_argument, NULL, 'v'},
	    {NULL, 0, NULL, 0},
	};
	int c, err = 0;

	while (!err && (c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			f->endpoint = optarg;
			break;
		case 'p':
			f->protocol = optarg;
			break;
		case 'k':
			f->insecure = 1;
			break;
		case 'C':
			f->ca_file = optarg;
			break;
		case 'H':
			err = otlp_flags__add_header(f, optarg);
			break;
		case 'z':
			f->compression = optarg;
			break;
		case 't':
			f->timeout = optarg;
			break;
		case 'q':
			err = opt_uint("--max-queue", optarg, 1, 65536, &f->max_queue);
			break;
		case 'n':
			err = opt_uint("--count", optarg, 1, 1000000, &o->count);
			break;
		case 'i':
			err = opt_uint("--interval-ms", optarg, 0, 60000, &o->interval_ms);
			break;
		case 's':
			err = opt_uint("--stats-ms", optarg, 0, 60000, &o->stats_ms);
			break;
		case 'c':
			err = opt_uint("--close-ms", optarg, 0, 600000, &o->close_ms);
			break;
		case 'b':
			err = parse_backoff(optarg, o);
			break;
		case 'r':
			err = opt_uint("--retry-max-ms", optarg, 1, 3600000, &o->retry_max_ms);
			break;
		case 'v':
			log_verbose = true;
			break;
		default:
			err = -EINVAL;
		}
	}
	if (!err && optind != argc - 1)
		err = -EINVAL;
	if (err)
		fputs(usage, stderr);
	o->file = err ? NULL : argv[optind];
	return err;
}

/* Submits the file count times, printing the counters every stats_ms. */
static void submit_all(struct otlp_client *c, const struct send_opts *o, const void *msg,
		       size_t len)
{
	struct otlp_client_stats st;
	unsigned long i, since_stats = 0;
	void *copy;

	for (i = 0; i < o->count; i++) {
		copy = malloc(len ? len : 1);
		if (!copy)
			return;
		memcpy(copy, msg, len);
		otlp_client__submit(c, copy, len);
		sleep_ms(o->interval_ms);
		since_stats += o->interval_ms;
		if (o->stats_ms && since_stats >= o->stats_ms) {
			otlp_client__stats(c, &st);
			print_stats("stats", &st);
			since_stats = 0;
		}
	}
}

int main(int argc, char **argv)
{
	struct send_opts o = {.count = 1, .close_ms = 10000};
	struct otlp_client_opts co = {0};
	struct otlp_client_stats st;
	struct otlp_client *c = NULL;
	struct otlp_flags f;
	void *msg = NULL;
	size_t len = 0;
	int err;

	otlp_flags__init(&f);
	if (parse_args(argc, argv, &f, &o))
		return 2;
	err = read_file(o.file, &msg, &len);
	err = err ?: otlp_config__resolve(&f, environ, &co);
	if (err)
		goto cleanup;
	co.backoff_initial_ms = o.backoff_initial_ms;
	co.backoff_max_ms = o.backoff_max_ms;
	co.retry_max_ms = o.retry_max_ms;
	printf("url %s\n", co.url);
	c = otlp_client__new(&co);
	if (!c) {
		err = -EINVAL;
		goto cleanup;
	}
	submit_all(c, &o, msg, len);
	err = otlp_client__close(c, o.close_ms, &st);
	print_stats("final", &st);
cleanup:
	otlp_client_opts__release(&co);
	free(msg);
	return err ? 1 : 0;
}
