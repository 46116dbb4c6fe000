// SPDX-License-Identifier: Apache-2.0
/* `ebprof record`: parse options, check the host, start sampling (and the command, if
 * any), aggregate until told to stop, then symbolize and write every output. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/host.h"
#include "util/options.h"
#include "cli/record.h"
#include "cli/session.h"
#include "cli/startup.h"
#include "export/flamegraph.h"
#include "export/folded.h"
#include "export/pprof.h"
#include "export/summary.h"
#include "unwind/native.h"
#include "profile/report.h"
#include "profile/report_view.h"
#include "symbol/debuginfod.h"
#include "symbol/ksyms.h"
#include "symbol/symbolizer.h"
#include "util/log.h"

#define DEFAULT_FREQ 99
#define DEFAULT_SECONDS 10.0
#define POLL_MS 100

struct record_opts {
	struct session_opts s;
	double seconds; /* 0: until interrupted (or the command exits) */
	bool seconds_set;
	const char *outdir;
};

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: ebprof record [options] [-- COMMAND [ARGS...]]\n"
	    "\n"
	    "Samples the stacks of everything running on the CPUs (kernel and user space) and\n"
	    "writes, into the output directory:\n"
	    "  profile.pb.gz    pprof profile (go tool pprof -top profile.pb.gz)\n"
	    "  stacks.folded    folded stacks, one line per distinct stack: comm;root;...;leaf N\n"
	    "  flamegraph.html  interactive flame graph, self-contained, opens offline\n"
	    "and the same three for every --probe and for --off-cpu, named after the event:\n"
	    "profile.SLUG.pb.gz, stacks.SLUG.folded, flamegraph.SLUG.html, where SLUG is e.g.\n"
	    "uprobe-SYMBOL, uretprobe-SYMBOL, tracepoint-CATEGORY-NAME, usdt-PROVIDER-NAME or\n"
	    "off-cpu (a clash gets the event's number appended).\n"
	    "\n"
	    "options:\n"
	    "  -F, --freq HZ        samples per second per CPU (default %d)\n"
	    "  -d, --duration TIME  stop after TIME (10, 2.5s, 5m; default %gs, or until the\n"
	    "                       command exits; 0: until Ctrl-C)\n"
	    "  -o, --output DIR     output directory (default ./ebprof-out), created if "
	    "needed\n" SESSION_HELP "  -h, --help           this help\n"
	    "\n"
	    "With -- COMMAND, ebprof starts COMMAND, profiles it and every process it forks,\n"
	    "and stops when COMMAND exits (or -d expires, leaving COMMAND running).\n"
	    "\n"
	    "examples:\n"
	    "  sudo ebprof record                        # whole system, 99 Hz, 10 s\n"
	    "  sudo ebprof record -F 999 -d 30 -o out/   # frequency, duration, output directory\n"
	    "  sudo ebprof record -p 1234,5678           # only these processes\n"
	    "  sudo ebprof record -- ./myprog args       # a command and its children\n"
	    "  sudo ebprof record --probe uprobe:/usr/bin/bash:readline -d 30\n"
	    "  sudo ebprof record --off-cpu -- ./server  # where its threads wait, and how long\n",
	    DEFAULT_FREQ, DEFAULT_SECONDS);
	session__print_runtimes(out);
}

static int parse_args(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
	    SESSION_LONGOPTS,
	    {"duration", required_argument, NULL, 'd'},
	    {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int c, err = 0;

	*o = (struct record_opts){.seconds = DEFAULT_SECONDS, .outdir = "ebprof-out"};
	session_opts__init(&o->s, DEFAULT_FREQ);
	optind = 1;
	while (!err &&
	       (c = getopt_long(argc, argv, "+" SESSION_SHORTOPTS "d:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			err = opt_seconds("-d", optarg, &o->seconds);
			o->seconds_set = true;
			break;
		case 'o':
			o->outdir = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			err = session_opts__parse(&o->s, c, optarg);
			if (err > 0) {
				usage(stderr);
				return -EINVAL;
			}
		}
	}
	if (err) {
		fprintf(stderr, "Try 'ebprof record --help'.\n");
		return err;
	}
	if (optind < argc)
		o->s.cmd = &argv[optind];
	if (o->s.cmd && o->s.pids) {
		pr_err("-p and a command exclude each other");
		return -EINVAL;
	}
	if (o->s.cmd && !o->seconds_set)
		o->seconds = 0;
	return 0;
}

/* Creates dir (and parents) and proves it writable, before any profiling starts. */
static int prepare_outdir(const char *dir)
{
	char path[4096], *p;
	int fd;

	if (snprintf(path, sizeof(path), "%s/", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			int err = -errno;

			pr_err("cannot create output directory %s: %s", path, strerror(errno));
			return err;
		}
		*p = '/';
	}
	snprintf(path, sizeof(path), "%s/.ebprof-write-test-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		int err = -errno;

		pr_err("cannot write into output directory %s: %s", dir, strerror(errno));
		return err;
	}
	close(fd);
	unlink(path);
	return 0;
}

/* CPU of the main thread by phase, printed with -v (bench/footprint.sh reads it):
 * poll = drain and ingest, report = symbolize, write = encode and write the files. */
static struct {
	uint64_t poll_ns, report_ns, write_ns;
} cpu;

static uint64_t thread_cpu_ns(void)
{
	return session__clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static int run_loop(struct session *s, const struct record_opts *o)
{
	uint64_t deadline = o->seconds > 0 ? s->start_ns + (uint64_t)(o->seconds * 1e9) : 0;
	uint64_t t0;
	int n;

	while (!session_stop_signal) {
		t0 = thread_cpu_ns();
		n = session__poll(s, POLL_MS);
		cpu.poll_ns += thread_cpu_ns() - t0;
		if (n < 0 && n != -EINTR) {
			pr_err("reading samples: %s", strerror(-n));
			return n;
		}
		if (deadline && session__clock_ns(CLOCK_MONOTONIC) >= deadline)
			break;
		if (session__child_exited(s))
			break;
	}
	session__stop(s);
	if (s->child.pid > 0 && !session__child_exited(s))
		pr_info("recording stopped; the command (pid %d) is still running", s->child.pid);
	return 0;
}

static int write_one(int err, const char *dir, const char *name, const char *what)
{
	if (err)
		pr_err("writing %s/%s (%s): %s", dir, name, what, strerror(-err));
	return err;
}

/* The three files of one event: "" names the CPU profile's, ".SLUG" another event's. */
static int write_event(const struct report *r, const char *dir, const char *dot_slug,
		       const char *title)
{
	char path[4096], name[512];
	int err = 0;

	snprintf(name, sizeof(name), "profile%s.pb.gz", dot_slug);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	err |= write_one(pprof__write(r, path), dir, name, "pprof");
	snprintf(name, sizeof(name), "stacks%s.folded", dot_slug);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	err |= write_one(folded__write(r, path), dir, name, "folded stacks");
	snprintf(name, sizeof(name), "flamegraph%s.html", dot_slug);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	err |= write_one(flamegraph__write(r, path, title), dir, name, "flame graph");
	return err;
}

/* Event i's file-name part: probe i - 1's slug, "off-cpu", with the event's number
 * appended when an earlier event took the same one. */
static void event_slug(const struct session_opts *o, const struct report *r, uint32_t i, char *buf,
		       size_t len)
{
	char prev[256];

	if (i >= 1 && i <= o->nprobes)
		probe_spec__slug(&o->probes[i - 1], buf, len);
	else
		snprintf(buf, len, "%s", r->events[i].name);
	for (uint32_t j = 1; j < i; j++) {
		if (j <= o->nprobes)
			probe_spec__slug(&o->probes[j - 1], prev, sizeof(prev));
		else
			snprintf(prev, sizeof(prev), "%s", r->events[j].name);
		if (strcmp(prev, buf) == 0) {
			size_t n = strlen(buf);

			snprintf(buf + n, len - n, "-%u", i);
			return;
		}
	}
}

/* Allocation events carry several values per stack; besides the files of each event
 * (weighed by its last value, the bytes), one folded file per value type:
 * stacks.alloc_objects.folded, stacks.alloc_space.folded, stacks.inuse_*.folded. */
static int write_event_values(const struct report *r, const char *dir)
{
	char path[4096], name[256];
	int err = 0;

	for (uint32_t e = 1; e < r->nevents; e++) {
		if (strcmp(r->events[e].name, "alloc") && strcmp(r->events[e].name, "inuse"))
			continue;
		for (uint32_t v = 0; v < r->events[e].nvalues; v++) {
			snprintf(name, sizeof(name), "stacks.%s.folded",
				 r->events[e].values[v].type);
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			err |= write_one(folded__write_value(r, path, e, (int)v), dir, name,
					 "folded stacks");
		}
	}
	return err;
}

static int write_outputs(const struct report *r, const struct record_opts *o)
{
	struct report_view v;
	char slug[256], dot[260], title[512];
	int err = 0;

	if (r->nevents <= 1)
		return write_event(r, o->outdir, "", "ebprof record") ? -EIO : 0;
	for (uint32_t i = 0; i < r->nevents; i++) {
		if (report_view__init(&v, r, i))
			return -ENOMEM;
		event_slug(&o->s, r, i, slug, sizeof(slug));
		snprintf(dot, sizeof(dot), ".%s", slug);
		snprintf(title, sizeof(title), "ebprof record: %s", r->events[i].name);
		err |= write_event(&v.r, o->outdir, i ? dot : "", i ? title : "ebprof record");
		report_view__free(&v);
	}
	err |= write_event_values(r, o->outdir);
	return err ? -EIO : 0;
}

/* One line per event beyond CPU samples: hits, and time for off-CPU. */
static void print_events(const struct report *r, const struct record_opts *o)
{
	char slug[256];

	for (uint32_t i = 1; i < r->nevents; i++) {
		const struct report_event *e = &r->events[i];
		uint64_t n = 0, v = 0;

		for (size_t k = 0; k < r->nstacks; k++) {
			if (r->stacks[k].event != i)
				continue;
			n += r->stacks[k].count;
			v += e->nvalues > 1 ? r->stacks[k].values[e->nvalues - 1] : 0;
		}
		event_slug(&o->s, r, i, slug, sizeof(slug));
		printf("  %s: %llu %s", e->name, (unsigned long long)n, e->values[0].type);
		if (e->nvalues > 1 && strcmp(e->values[e->nvalues - 1].unit, "nanoseconds") == 0)
			printf(", %.3f s %s", v / 1e9, e->values[e->nvalues - 1].type);
		printf(" (*.%s.*)\n", slug);
	}
}

static uint64_t cpu_samples(const struct report *r)
{
	uint64_t n = 0;

	for (size_t i = 0; i < r->nstacks; i++)
		n += r->stacks[i].event == 0 ? r->stacks[i].count : 0;
	return n;
}

static void print_summary(const struct session *rec, const struct report *r,
			  const struct record_opts *o)
{
	const uint64_t *c = rec->counters;
	struct report_view cpu;
	double secs = (rec->end_ns - rec->start_ns) / 1e9;

	printf("ebprof: recorded %.1f s at %lu Hz on %u CPUs into %s/\n", secs, o->s.freq,
	       rec->ncpus, o->outdir);
	printf("  samples: %llu taken, %llu lost (ring buffer full), %llu kept\n",
	       (unsigned long long)(c[CTR_SAMPLES] - c[CTR_FILTERED]),
	       (unsigned long long)c[CTR_RINGBUF_FULL], (unsigned long long)cpu_samples(r));
	if (c[CTR_EVENTS] || c[CTR_OFF_CPU_FULL])
		printf("  probes: %llu hits, %llu of other processes; off-CPU: %llu blocks lost "
		       "(too many blocked threads)\n",
		       (unsigned long long)c[CTR_EVENTS],
		       (unsigned long long)c[CTR_EVENTS_FILTERED],
		       (unsigned long long)c[CTR_OFF_CPU_FULL]);
	if (c[CTR_KSTACK_ERR] || rec->profile.dropped || rec->bad_records)
		printf("  stack errors: %llu kernel; %llu samples without memory, %llu "
		       "malformed records\n",
		       (unsigned long long)c[CTR_KSTACK_ERR],
		       (unsigned long long)rec->profile.dropped,
		       (unsigned long long)rec->bad_records);
	if (rec->native)
		native__print_stats(rec->native, stdout);
	if (rec->alloc)
		alloc__print_stats(rec->alloc, stdout);
	runtime_set__print_stats(rec->runtimes, stdout);
	if (c[CTR_TAIL_CALL_FAILED] || c[CTR_TAIL_CALLS_OUT] || c[CTR_RUNTIME_CUT])
		printf("  walker chain: %llu hand-overs failed, %llu stacks cut at the hand-over "
		       "budget, %llu with runtime frames that did not fit (kept native)\n",
		       (unsigned long long)c[CTR_TAIL_CALL_FAILED],
		       (unsigned long long)c[CTR_TAIL_CALLS_OUT],
		       (unsigned long long)c[CTR_RUNTIME_CUT]);
	if (c[CTR_UNKNOWN_PID] || c[CTR_NO_TABLE] || c[CTR_NO_ROW] || c[CTR_READ_FAULT] ||
	    c[CTR_BAD_FRAME])
		printf("  unwinding: %llu samples of undescribed processes (frame pointers), %llu "
		       "frames without a table yet, %llu frames outside the CFI (frame pointers "
		       "there); stacks cut: %llu unreadable stack, %llu impossible caller\n",
		       (unsigned long long)c[CTR_UNKNOWN_PID], (unsigned long long)c[CTR_NO_TABLE],
		       (unsigned long long)c[CTR_NO_ROW], (unsigned long long)c[CTR_READ_FAULT],
		       (unsigned long long)c[CTR_BAD_FRAME]);
	printf("  processes: %zu seen, %llu distinct stacks, %u files\n", summary__processes(r),
	       (unsigned long long)rec->profile.stacks.len, rec->files.count);
	print_events(r, o);
	if (r->nevents <= 1) {
		summary__print_top(r, 10, stdout);
		return;
	}
	/* The table counts CPU samples only: other events weigh in other units. */
	if (report_view__init(&cpu, r, 0) == 0)
		summary__print_top(&cpu.r, 10, stdout);
	report_view__free(&cpu);
}

/* Sampling has stopped: wait (bounded) for the debug files debuginfod may have. */
static void fetch_debug_files(struct symbolizer *sym)
{
	struct debuginfod_stats st;

	if (!sym->debuginfod)
		return;
	symbolizer__prefetch(sym);
	debuginfod__stats(sym->debuginfod, &st);
	if (!st.pending)
		return;
	pr_info("fetching %u debug files from debuginfod (up to %d s)", st.pending,
		DEBUGINFOD_TIMEOUT_S);
	debuginfod__wait(sym->debuginfod, DEBUGINFOD_TIMEOUT_S * 1000 + 1000);
}

static void print_debug_info(const struct symbolizer *sym)
{
	struct debuginfod_stats st;

	if (sym->dwarf_opened || sym->dwarf_evictions)
		printf("  debug info: DWARF of %u files (%u from the debug cache), %.1f MiB of "
		       "indexes at most (bound %.0f MiB), %u dropped to stay in it, %u freed once "
		       "named, units dropped %u times\n",
		       sym->dwarf_opened, sym->dwarf_cached, sym->dwarf_peak / 1048576.0,
		       sym->dwarf_budget / 1048576.0, sym->dwarf_evictions, sym->dwarf_released,
		       sym->dwarf_resets);
	symbolizer__print_refused(sym, stdout);
	if (!sym->debuginfod)
		return;
	debuginfod__stats(sym->debuginfod, &st);
	printf("  debuginfod: %u debug files fetched, %u not found, %u still pending\n", st.fetched,
	       st.missing + st.refused, st.pending);
}

static int finish(struct session *rec, const struct record_opts *o)
{
	struct symbolizer sym;
	struct report *r;
	uint64_t t0, t1;
	int err;

	session__symbolizer(rec, &sym, session__ksyms(rec));
	/* One report names every frame: a file's DWARF is done with once its frames are. */
	sym.release_dwarf = true;
	sym.units_keep = SYMBOLIZER_UNITS_KEEP;
	startup__mark(EXIT_KSYMS);
	/* In-use memory is a snapshot: the sampled blocks still live now. */
	if (rec->alloc && alloc__add_inuse(rec->alloc, &rec->profile))
		pr_warn("in-use profile incomplete: out of memory");
	fetch_debug_files(&sym);
	t0 = thread_cpu_ns();
	r = report__build(&rec->profile, &sym, &rec->frames, 1000000000ULL / o->s.freq,
			  rec->start_unix_ns, rec->end_ns - rec->start_ns);
	if (!r) {
		pr_err("building the report: %s", strerror(errno));
		return -ENOMEM;
	}
	startup__mark(EXIT_REPORTED);
	t1 = thread_cpu_ns();
	cpu.report_ns += t1 - t0;
	err = write_outputs(r, o);
	cpu.write_ns += thread_cpu_ns() - t1;
	print_summary(rec, r, o);
	print_debug_info(&sym);
	startup__mark(EXIT_WRITTEN);
	report__free(r);
	return err;
}

int cmd_record(int argc, char **argv)
{
	struct session *s = NULL;
	struct record_opts o;
	bool recorded;
	int err;

	startup__mark(STARTUP_MAIN);
	if (parse_args(argc, argv, &o)) {
		session_opts__free(&o.s);
		return 2;
	}
	err = host__require_recording();
	if (!err)
		err = prepare_outdir(o.outdir);
	if (err)
		goto out;
	startup__mark(STARTUP_CHECKED);
	session__install_signals();
	s = session__start(&o.s);
	if (!s) {
		err = -errno;
		goto out;
	}
	err = run_loop(s, &o);
	if (!err)
		err = finish(s, &o);
out:
	recorded = s != NULL;
	session__free(s);
	session_opts__free(&o.s);
	startup__mark(EXIT_FREED);
	if (log_verbose && recorded) {
		startup__print_exit();
		fprintf(stderr, "ebprof: record_cpu_ms poll=%.1f report=%.1f write=%.1f\n",
			cpu.poll_ns / 1e6, cpu.report_ns / 1e6, cpu.write_ns / 1e6);
	}
	return err ? 1 : 0;
}
