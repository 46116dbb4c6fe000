// SPDX-License-Identifier: Apache-2.0
/* `ebprof agent`: continuous profiling to an OpenTelemetry collector. The same session
 * as `record`; every report interval the profile is symbolized, encoded as one OTLP
 * Profiles request and handed to the transport's queue, and the next interval starts
 * empty. Sending happens on the transport's thread, so a slow or dead collector never
 * delays reading the ring buffer. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc/alloc.h"
#include "cli/agent.h"
#include "cli/version.h"
#include "cli/host.h"
#include "util/options.h"
#include "cli/session.h"
#include "export/otlp.h"
#include "export/otlp_client.h"
#include "export/otlp_config.h"
#include "export/otlp_env.h"
#include "loader/sampler.h"
#include "proc/procinfo.h"
#include "profile/report.h"
#include "symbol/symbolizer.h"
#include "unwind/native.h"
#include "util/log.h"
#include "util/resident.h"

#define DEFAULT_FREQ 20
#define DEFAULT_INTERVAL 5.0
#define DEFAULT_FLUSH 5.0
#define POLL_MS 100
/* Reports in a row a file's DWARF is kept while asked about no new frame: libc's debug
 * file (55-75 ms to open, its sections inflated whole) shows a few new frames nearly
 * every interval, and freeing it once named cost 1.7x the report CPU (bench/README.md). */
#define AGENT_DWARF_IDLE 3
#define JITTER 0.1	    /* each interval is 5 s ± 10 %, so many agents do not send in step */
#define DEFAULT_HEALTH 60.0 /* seconds between the agent's lines about itself */

extern char **environ;

struct agent_opts {
	struct session_opts s;
	struct otlp_flags otlp;
	double interval;
	double duration; /* 0: until SIGTERM / SIGINT */
	double flush;	 /* seconds the last interval may take to leave on exit */
	double health;	 /* seconds between lines about the agent itself; 0: none */
};

struct agent {
	struct session *s;
	struct otlp_client *client;
	struct otlp_env env; /* OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME */
	struct otlp_options enc;
	char host_name[256];
	struct proc_info_cache procs;
	struct symbolizer sym; /* kept across intervals for its counters; set up at the first */
	bool sym_ready;
	uint64_t interval_start_unix_ns;
	uint64_t interval_start_ns;
	uint64_t intervals;
	uint64_t empty_intervals;
	uint64_t encode_failures;
	struct proc_prune_stats pruned; /* exited processes and unmapped files let go */
	/* CPU of the main thread by phase, printed with -v (bench/footprint.sh reads it) */
	uint64_t cpu_poll_ns, cpu_report_ns, cpu_encode_ns, cpu_forget_ns;
};

static uint64_t thread_cpu_ns(void)
{
	return session__clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: ebprof agent [options]\n"
	    "\n"
	    "Profiles the whole system (or -p PIDS) continuously and sends the stacks to an\n"
	    "OpenTelemetry collector as OTLP Profiles (v1development), one request per\n"
	    "report interval, over gRPC or HTTP. Runs until SIGTERM or SIGINT, then sends\n"
	    "the last interval and exits.\n"
	    "\n"
	    "options:\n" SESSION_HELP_FREQ
	    "      --endpoint URL   collector: http(s)://host:port, or host:port for gRPC\n"
	    "                       (TLS, but plaintext on localhost/127.x/[::1]); default\n"
	    "                       localhost:4317 (grpc), http://localhost:4318 (http)\n"
	    "      --protocol P     'grpc' (default) or 'http/protobuf'\n"
	    "      --insecure       plaintext (h2c) to a gRPC host:port endpoint\n"
	    "      --ca-file FILE   trust these CAs (PEM) instead of the system's\n"
	    "      --header K=V     add a header to every export (repeatable)\n"
	    "      --compression C  'gzip' (default) or 'none'\n"
	    "      --timeout TIME   an export attempt's deadline (default 10s; 0: none), which\n"
	    "                       grows to fit a slower collector's answers (up to 2 min)\n"
	    "      --max-queue N    exports waiting for the collector; past it the oldest\n"
	    "                       is dropped and counted (default %d)\n"
	    "      --queue-memory SIZE\n"
	    "                       and their bytes at most (default 64M: minutes of a\n"
	    "                       busy host); what is dropped is counted in samples and\n"
	    "                       seconds of profile, and said when the collector is back\n"
	    "      --report-interval TIME\n"
	    "                       one export per TIME (default %gs, ±10%% jitter)\n"
	    "  -d, --duration TIME  stop after TIME (default: run until signalled)\n"
	    "      --flush-timeout TIME\n"
	    "                       on exit, time the last export may take (default "
	    "%gs)\n"
	    "      --health-interval TIME\n"
	    "                       one line on stderr about the agent itself every TIME\n"
	    "                       (samples taken and lost, exports sent, failed, dropped,\n"
	    "                       the queue), for a fleet to alert on (default %gs; 0: none)\n"
	    "" SESSION_HELP
	    "      --alloc[=MEAN]   also profile the allocations of processes started with\n"
	    "                       LD_PRELOAD=libebprof-alloc.so (one sampled per MEAN bytes\n"
	    "                       on average, default 512K)\n"
	    "" SESSION_HELP_ALLOC_KERNEL "  -h, --help           this help\n"
	    "\n"
	    "The standard variables work where no flag says otherwise:\n"
	    "OTEL_EXPORTER_OTLP_[PROFILES_]{ENDPOINT,PROTOCOL,HEADERS,INSECURE,CERTIFICATE,\n"
	    "COMPRESSION,TIMEOUT}, OTEL_RESOURCE_ATTRIBUTES (added to every process's\n"
	    "resource) and OTEL_SERVICE_NAME. A process's service.name is its own\n"
	    "OTEL_SERVICE_NAME, else the agent's, else its executable's name.\n"
	    "\n"
	    "Exits 1 when it had samples to send and no export reached the collector.\n"
	    "\n"
	    "Run as root, or with the capabilities of deploy/ebprof-agent.service.\n"
	    "examples:\n"
	    "  ebprof agent --endpoint 127.0.0.1:4317 --insecure\n"
	    "  ebprof agent --endpoint https://otel.example:4318 --protocol http/protobuf\n"
	    "  OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 ebprof agent \\\n"
	    "       --protocol http/protobuf\n",
	    (unsigned long)DEFAULT_FREQ, OTLP_DEFAULT_MAX_QUEUE, DEFAULT_INTERVAL, DEFAULT_FLUSH,
	    DEFAULT_HEALTH);
	session__print_runtimes(out);
}

enum {
	OPT_ENDPOINT = SESSION_OPT__END,
	OPT_PROTOCOL,
	OPT_INSECURE,
	OPT_CA_FILE,
	OPT_HEADER,
	OPT_COMPRESSION,
	OPT_TIMEOUT,
	OPT_MAX_QUEUE,
	OPT_QUEUE_MEMORY,
	OPT_INTERVAL,
	OPT_FLUSH,
	OPT_HEALTH,
};

static int parse_otlp(struct agent_opts *o, int c, const char *arg)
{
	switch (c) {
	case OPT_ENDPOINT:
		o->otlp.endpoint = arg;
		return 0;
	case OPT_PROTOCOL:
		o->otlp.protocol = arg;
		return 0;
	case OPT_INSECURE:
		o->otlp.insecure = 1;
		return 0;
	case OPT_CA_FILE:
		o->otlp.ca_file = arg;
		return 0;
	case OPT_HEADER:
		return otlp_flags__add_header(&o->otlp, arg);
	case OPT_COMPRESSION:
		o->otlp.compression = arg;
		return 0;
	case OPT_TIMEOUT:
		o->otlp.timeout = arg;
		return 0;
	case OPT_MAX_QUEUE:
		return opt_uint("--max-queue", arg, 1, OTLP_MAX_QUEUE_LIMIT, &o->otlp.max_queue);
	case OPT_QUEUE_MEMORY:
		return opt_size("--queue-memory", arg, &o->otlp.max_queue_bytes);
	}
	return 1;
}

static int parse_args(int argc, char **argv, struct agent_opts *o)
{
	static const struct option longopts[] = {
	    SESSION_LONGOPTS,
	    {"endpoint", required_argument, NULL, OPT_ENDPOINT},
	    {"protocol", required_argument, NULL, OPT_PROTOCOL},
	    {"insecure", no_argument, NULL, OPT_INSECURE},
	    {"ca-file", required_argument, NULL, OPT_CA_FILE},
	    {"header", required_argument, NULL, OPT_HEADER},
	    {"compression", required_argument, NULL, OPT_COMPRESSION},
	    {"timeout", required_argument, NULL, OPT_TIMEOUT},
	    {"max-queue", required_argument, NULL, OPT_MAX_QUEUE},
	    {"queue-memory", required_argument, NULL, OPT_QUEUE_MEMORY},
	    {"report-interval", required_argument, NULL, OPT_INTERVAL},
	    {"flush-timeout", required_argument, NULL, OPT_FLUSH},
	    {"health-interval", required_argument, NULL, OPT_HEALTH},
	    {"duration", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int c, err = 0;

	*o = (struct agent_opts){
	    .interval = DEFAULT_INTERVAL, .flush = DEFAULT_FLUSH, .health = DEFAULT_HEALTH};
	session_opts__init(&o->s, DEFAULT_FREQ);
	o->s.by_cpu = true;
	o->s.keep_times = true;
	o->s.continuous = true;
	o->s.unwind_memory = AGENT_UNWIND_MEMORY;
	/* An export that stalls the main thread for a whole interval loses nothing: at the
	 * agent's 20 Hz that is still far below a megabyte on small hosts. */
	o->s.ringbuf_seconds = DEFAULT_INTERVAL;
	otlp_flags__init(&o->otlp);
	optind = 1;
	opterr = 0; /* session__bad_option says it in ebprof's words */
	while (!err &&
	       (c = getopt_long(argc, argv, ":" SESSION_SHORTOPTS "d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			err = opt_seconds("-d", optarg, &o->duration);
			break;
		case OPT_INTERVAL:
			err = opt_seconds("--report-interval", optarg, &o->interval);
			if (!err && o->interval < 0.1) {
				pr_err("--report-interval: at least 0.1s");
				err = -EINVAL;
			}
			break;
		case OPT_FLUSH:
			err = opt_seconds("--flush-timeout", optarg, &o->flush);
			break;
		case OPT_HEALTH:
			err = opt_seconds("--health-interval", optarg, &o->health);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			err = parse_otlp(o, c, optarg);
			if (err > 0)
				err = session_opts__parse(&o->s, c, optarg);
			if (err > 0)
				err = session__bad_option(c, argv);
		}
	}
	if (!err && optind < argc) {
		pr_err("unexpected argument '%s' (the agent runs no command; use -p PIDS)",
		       argv[optind]);
		err = -EINVAL;
	}
	if (err)
		fprintf(stderr, "Try 'ebprof agent --help'.\n");
	return err;
}

/* The encoder's view of a process (it falls back to the process name itself). */
static int lookup_process(void *ctx, uint32_t pid, struct otlp_process *out)
{
	struct agent *a = ctx;
	const struct proc_info *p = proc_info__get(&a->procs, pid, NULL);

	if (!p)
		return -ENOMEM;
	*out = (struct otlp_process){
	    .exe_name = p->exe_name,
	    .exe_path = p->exe_path,
	    .container_id = p->container_id,
	    .pod_uid = p->pod_uid,
	    .service_name = p->service_name,
	};
	return 0;
}

/* Widens [*start, *end) to hold every sample's time: a sample taken just before the
 * previous export but read after it lands in this interval, and OTLP wants a profile's
 * timestamps inside its time range. */
static void cover_times(const struct profile *p, uint64_t *start, uint64_t *end)
{
	hmap_for_each(&p->stacks, i)
	{
		const struct stack *st = p->stacks.slots[i].entry;

		for (uint32_t t = 0; t < st->ntimes; t++) {
			if (st->times[t] < *start)
				*start = st->times[t];
			if (st->times[t] >= *end)
				*end = st->times[t] + 1;
		}
	}
}

/* The symbolizer every interval's report uses: the frames named stay in each file's
 * line cache (symbolizer.h), so a file's DWARF is asked only about frames not seen
 * before. A file read from its mapping or the debug cache's copy is freed once its
 * frames are named and its units bounded as record's (indexes at most 8-9 MiB where
 * keeping them held 25-27 MiB, a peak RSS 15 MiB lower, for 3-4 ms of CPU a second
 * more: bench/README.md); one libdw inflated in memory is kept until AGENT_DWARF_IDLE
 * reports in a row asked it nothing new, as inflating it again costs more. Kept across
 * intervals for its counters. */
static struct symbolizer *agent_symbolizer(struct agent *a)
{
	if (a->sym_ready)
		return &a->sym;
	session__symbolizer(a->s, &a->sym, session__ksyms(a->s));
	a->sym.release_dwarf = true;
	a->sym.dwarf_idle_max = AGENT_DWARF_IDLE;
	a->sym.dwarf_keep_inflated = true;
	a->sym.units_keep = SYMBOLIZER_UNITS_KEEP;
	a->sym_ready = true;
	return &a->sym;
}

static struct report *build_report(struct agent *a, uint64_t end_ns)
{
	uint64_t start = a->interval_start_unix_ns;
	uint64_t end = end_ns + a->s->ingest.mono_to_unix_ns;
	struct session *s = a->s;
	struct symbolizer *sym;
	struct report *r;

	cover_times(&s->profile, &start, &end);
	sym = agent_symbolizer(a);
	/* The tracker interns files concurrently: hold it off while names are read. */
	pthread_mutex_lock(&s->procs.lock);
	/* Debug files debuginfod has not delivered yet name later intervals' frames. */
	symbolizer__prefetch(sym);
	r = report__build(&s->profile, sym, &s->frames, 1000000000ULL / s->freq, start,
			  end - start);
	if (log_verbose) {
		uint32_t nfiles;
		uint64_t nframes, mem = symbolizer__lines_memory(sym, &nfiles, &nframes);

		pr_debug("interval %llu: %llu frames named in %u files' line caches, %.2f MiB; "
			 "%llu hits, %llu from DWARF so far",
			 (unsigned long long)a->intervals, (unsigned long long)nframes, nfiles,
			 mem / 1048576.0, (unsigned long long)sym->lines_hits,
			 (unsigned long long)sym->lines_misses);
	}
	pthread_mutex_unlock(&s->procs.lock);
	return r;
}

/* Start-up's pages of files: the BPF objects in the binary's .rodata, loaded; libcurl's 30
 * libraries relocated and OpenSSL initialised; libbpf's and libelf's code that ran once.
 * They stay resident though nothing reads them again until the kernel needs memory. Given
 * back (a few ms) once sampling runs and again after the first interval, whose report
 * named every file's frames at once; what the agent keeps using faults back in. */
static void page_out_start(void)
{
	long n = resident__page_out_files();

	if (n < 0)
		pr_debug("start-up pages not given back: %s", strerror((int)-n));
	else
		pr_debug("start-up pages given back: %ld KiB", n * (sysconf(_SC_PAGESIZE) / 1024));
}

/* Ends the interval: sends what it holds and starts the next one empty. */
static void export_interval(struct agent *a)
{
	uint64_t end_ns, t0, t1;
	struct report *r = NULL;
	uint8_t *buf = NULL;
	size_t len = 0;
	int err;

	/* What BPF sampled before the end belongs to this interval: read it first. */
	if (a->s->sampler)
		session__consume(a->s);
	end_ns = session__clock_ns(CLOCK_MONOTONIC);
	a->intervals++;
	/* In-use memory is a snapshot of the sampled blocks still live at the interval's
	 * end, sent with each interval. */
	if (a->s->alloc && alloc__add_inuse(a->s->alloc, &a->s->profile))
		pr_warn("interval %llu: in-use profile incomplete: out of memory",
			(unsigned long long)a->intervals + 1);
	if (!a->s->profile.samples) {
		a->empty_intervals++;
		goto next;
	}
	t0 = thread_cpu_ns();
	r = build_report(a, end_ns);
	t1 = thread_cpu_ns();
	a->cpu_report_ns += t1 - t0;
	if (!r) {
		a->encode_failures++;
		pr_warn("interval %llu lost: building the report: %s",
			(unsigned long long)a->intervals, strerror(errno));
		goto next;
	}
	err = otlp__encode(r, &a->enc, &buf, &len);
	a->cpu_encode_ns += thread_cpu_ns() - t1;
	if (err) {
		a->encode_failures++;
		pr_warn("interval %llu lost: encoding: %s", (unsigned long long)a->intervals,
			strerror(-err));
		goto next;
	}
	pr_debug("interval %llu: %llu samples, %zu stacks, %zu bytes",
		 (unsigned long long)a->intervals, (unsigned long long)a->s->profile.samples,
		 r->nstacks, len);
	err = otlp_client__submit_meta(
	    a->client, buf, len,
	    &(struct otlp_item_meta){a->s->profile.samples, end_ns - a->interval_start_ns});
	if (err)
		pr_warn("interval %llu not sent: %s", (unsigned long long)a->intervals,
			strerror(-err));
next:
	t0 = thread_cpu_ns();
	report__free(r);
	profile__clear(&a->s->profile);
	proc_info_cache__age(&a->procs);
	/* What exited processes left is exported now: let their entries and files go. */
	proc_table__prune(&a->s->procs, &a->pruned);
	/* An interval's report, DWARF freed, a table built and freed on the tracker's
	 * threads: glibc keeps what was freed for the next malloc, in the middle of each
	 * arena, and the resident set only grows. Given back once an interval (about 1 ms). */
	malloc_trim(0);
	if (a->intervals == 1)
		page_out_start();
	a->cpu_forget_ns += thread_cpu_ns() - t0;
	a->interval_start_ns = end_ns;
	a->interval_start_unix_ns = end_ns + a->s->ingest.mono_to_unix_ns;
}

/* The agent's counters in one line, totals since it started, for a fleet to alert on a
 * sick agent from its log (samples lost, exports failing or dropped, a queue growing). */
static void log_health(struct agent *a)
{
	uint64_t c[CTR__COUNT] = {0};
	struct otlp_client_stats st;

	if (a->s->sampler)
		sampler__counters(a->s->sampler, c);
	otlp_client__stats(a->client, &st);
	pr_info("agent health: %llu samples taken, %llu lost in the ring buffer; %llu intervals; "
		"exports %llu sent, %llu failed attempts, %llu dropped (%llu samples), %llu "
		"possibly stored twice; queue %u requests, %llu KiB",
		(unsigned long long)(c[CTR_SAMPLES] - c[CTR_FILTERED]),
		(unsigned long long)c[CTR_RINGBUF_FULL], (unsigned long long)a->intervals,
		(unsigned long long)st.sent, (unsigned long long)st.failed_attempts,
		(unsigned long long)st.dropped, (unsigned long long)st.dropped_samples,
		(unsigned long long)st.duplicates, st.queued,
		(unsigned long long)(st.queued_bytes >> 10));
}

static uint64_t next_deadline(uint64_t now, double interval)
{
	double j = 1.0 + JITTER * (2.0 * rand() / RAND_MAX - 1.0);

	return now + (uint64_t)(interval * j * 1e9);
}

static int run(struct agent *a, const struct agent_opts *o)
{
	uint64_t stop_at = o->duration > 0 ? a->s->start_ns + (uint64_t)(o->duration * 1e9) : 0;
	uint64_t deadline = next_deadline(a->s->start_ns, o->interval), now;
	uint64_t health_ns = (uint64_t)(o->health * 1e9), health_at = a->s->start_ns + health_ns;
	int n;

	while (!session_stop_signal) {
		uint64_t t0 = thread_cpu_ns();

		n = session__poll(a->s, POLL_MS);
		a->cpu_poll_ns += thread_cpu_ns() - t0;
		if (n < 0 && n != -EINTR) {
			pr_err("reading samples: %s", strerror(-n));
			return n;
		}
		now = session__clock_ns(CLOCK_MONOTONIC);
		if (stop_at && now >= stop_at)
			break;
		if (now >= deadline) {
			export_interval(a);
			deadline = next_deadline(now, o->interval);
		}
		if (health_ns && now >= health_at) {
			log_health(a);
			health_at = now + health_ns;
		}
	}
	/* The last interval: what BPF sampled before the stop, drained, then sent. */
	session__stop(a->s);
	export_interval(a);
	return 0;
}

static void print_summary(const struct agent *a, const struct otlp_client_stats *st)
{
	const uint64_t *c = a->s->counters;

	printf("ebprof agent: %llu intervals (%llu empty, %llu lost to encoding), %llu samples "
	       "taken, %llu lost in the ring buffer\n",
	       (unsigned long long)a->intervals, (unsigned long long)a->empty_intervals,
	       (unsigned long long)a->encode_failures,
	       (unsigned long long)(c[CTR_SAMPLES] - c[CTR_FILTERED]),
	       (unsigned long long)c[CTR_RINGBUF_FULL]);
	printf("  exports: %llu sent, %llu dropped (%llu queue full, %llu rejected, %llu "
	       "expired, %llu timed out twice, %llu at exit: %llu samples, %.1f s of profile), "
	       "%llu failed attempts, %llu possibly stored twice, %llu partial successes; %llu "
	       "bytes encoded, %llu on the wire\n",
	       (unsigned long long)st->sent, (unsigned long long)st->dropped,
	       (unsigned long long)st->dropped_queue_full, (unsigned long long)st->dropped_rejected,
	       (unsigned long long)st->dropped_expired, (unsigned long long)st->dropped_timeout,
	       (unsigned long long)st->dropped_at_close, (unsigned long long)st->dropped_samples,
	       st->dropped_span_ns / 1e9, (unsigned long long)st->failed_attempts,
	       (unsigned long long)st->duplicates, (unsigned long long)st->partial_success,
	       (unsigned long long)st->bytes_raw, (unsigned long long)st->bytes_sent);
	printf("  processes: %llu exited ones forgotten, %llu files closed that no process "
	       "mapped any more\n",
	       (unsigned long long)a->pruned.procs, (unsigned long long)a->pruned.files);
	if (a->sym_ready && (a->sym.lines_hits || a->sym.lines_misses))
		printf("  debug info: DWARF opened %u times (%u from the debug cache; kept for the "
		       "next interval %u times), %.1f MiB of indexes at most; %llu frames named "
		       "from DWARF, %llu from the line caches (bound %.0f MiB, %u dropped to stay "
		       "in it)\n",
		       a->sym.dwarf_opened, a->sym.dwarf_cached, a->sym.dwarf_kept,
		       a->sym.dwarf_peak / 1048576.0, (unsigned long long)a->sym.lines_misses,
		       (unsigned long long)a->sym.lines_hits, a->sym.lines_budget / 1048576.0,
		       a->sym.lines_dropped);
	if (a->sym_ready)
		symbolizer__print_refused(&a->sym, stdout);
	/* What the tracker did (processes looked at, tables built), as record says it. */
	if (log_verbose && a->s->native)
		native__print_stats(a->s->native, stdout);
}

/* Whether the agent failed at its one job: it had samples to send and no export
 * reached the collector (said once, for the exit status to mean something). */
static bool undelivered(const struct agent *a, const struct otlp_client_stats *st)
{
	uint64_t had = a->intervals - a->empty_intervals;

	if (!had || st->sent)
		return false;
	pr_err("no export reached the collector: %llu intervals of samples, %llu exports "
	       "dropped, %llu lost to encoding",
	       (unsigned long long)had, (unsigned long long)st->dropped,
	       (unsigned long long)a->encode_failures);
	return true;
}

/* Settings from flags and environment: an invalid one is a usage error, found before
 * anything touches the kernel. */
static int configure(struct agent *a, const struct agent_opts *o, struct otlp_client_opts *co)
{
	char msg[256];
	int err;

	err = otlp_config__resolve(&o->otlp, environ, co);
	if (err)
		return err;
	co->user_agent = "ebprof/" EBPROF_VERSION;
	err = otlp_env__parse(&a->env, getenv("OTEL_RESOURCE_ATTRIBUTES"),
			      getenv("OTEL_SERVICE_NAME"), msg, sizeof(msg));
	if (err)
		pr_err("%s", err == -EINVAL ? msg : strerror(-err));
	return err;
}

static int start(struct agent *a, const struct agent_opts *o, const struct otlp_client_opts *co)
{
	if (gethostname(a->host_name, sizeof(a->host_name) - 1))
		a->host_name[0] = '\0';
	a->enc = (struct otlp_options){
	    .scope_version = EBPROF_VERSION,
	    .host_name = a->host_name,
	    .service_name = a->env.service_name,
	    .attrs = a->env.attrs,
	    .nattrs = a->env.nattrs,
	    .lookup = lookup_process,
	    .lookup_ctx = a,
	};
	a->client = otlp_client__new(co);
	if (!a->client)
		return -EINVAL;
	a->s = session__start(&o->s);
	if (!a->s)
		return -errno;
	a->interval_start_ns = a->s->start_ns;
	a->interval_start_unix_ns = a->s->start_unix_ns;
	pr_info("agent: sampling at %lu Hz, exporting every %gs to %s", o->s.freq, o->interval,
		co->url);
	page_out_start();
	return 0;
}

int cmd_agent(int argc, char **argv)
{
	struct otlp_client_stats st = {0};
	struct otlp_client_opts co = {0};
	struct agent a = {0};
	struct agent_opts o;
	bool usage_err = false;
	int err, cerr;

	if (parse_args(argc, argv, &o)) {
		session_opts__free(&o.s);
		return 2;
	}
	proc_info_cache__init(&a.procs);
	if (configure(&a, &o, &co)) {
		usage_err = true;
		err = -EINVAL;
		goto out;
	}
	err = host__require_recording();
	if (err)
		goto out;
	srand(getpid() ^ (unsigned)session__clock_ns(CLOCK_MONOTONIC));
	session_opts__fit_rate(&o.s);
	session__install_signals();
	err = start(&a, &o, &co);
	if (!err)
		err = run(&a, &o);
out:
	/* Stop sampling before the flush, which may take the whole flush timeout. */
	if (a.s)
		session__stop(a.s);
	cerr = otlp_client__close(a.client, (unsigned)(o.flush * 1000), &st);
	if (a.s && !err)
		print_summary(&a, &st);
	if (a.s && log_verbose)
		fprintf(stderr,
			"ebprof: agent_cpu_ms poll=%.1f report=%.1f encode=%.1f forget=%.1f\n",
			a.cpu_poll_ns / 1e6, a.cpu_report_ns / 1e6, a.cpu_encode_ns / 1e6,
			a.cpu_forget_ns / 1e6);
	if (cerr == -ETIMEDOUT)
		pr_warn("the collector did not take the last export(s) within %gs", o.flush);
	if (a.s && !err && undelivered(&a, &st))
		err = -ECOMM;
	session__free(a.s);
	proc_info_cache__free(&a.procs);
	otlp_env__free(&a.env);
	otlp_client_opts__release(&co);
	session_opts__free(&o.s);
	return usage_err ? 2 : err ? session__failure_status(err) : 0;
}
