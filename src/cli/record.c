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
#include <time.h>
#include <unistd.h>

#include "cli/host.h"
#include "cli/outdir.h"
#include "util/options.h"
#include "cli/record.h"
#include "cli/session.h"
#include "cli/startup.h"
#include "cli/targets.h"
#include "export/flamegraph.h"
#include "export/folded.h"
#include "export/pprof.h"
#include "export/summary.h"
#include "interp/runtime.h"
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
/* On a stop before the command exited: SIGTERM, then this long before SIGKILL. */
#define COMMAND_GRACE_MS 1000

struct record_opts {
	struct session_opts s;
	double seconds; /* 0: until interrupted (or the command exits) */
	bool seconds_set;
	const char *outdir;
	enum report_root root; /* --root */
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
	    "off-cpu (a clash gets the event's number appended). The files an earlier\n"
	    "recording wrote into the directory and this one does not are removed. A summary\n"
	    "goes to stderr: samples and losses, the top functions, why stacks were cut.\n"
	    "\n"
	    "options:\n" SESSION_HELP_FREQ
	    "  -d, --duration TIME  stop after TIME (10, 2.5s, 5m; default %gs, or until the\n"
	    "                       command exits; 0: until Ctrl-C); with -p, the recording\n"
	    "                       also ends once every process has exited\n"
	    "  -o, --output DIR     output directory (default ./ebprof-out), created if "
	    "needed\n"
	    "      --root WHAT      what roots the folded stacks and the flame graph: 'comm'\n"
	    "                       (default: the process's name), 'pid' (comm-PID) or\n"
	    "                       'container' (12 digits of the container id, or 'host',\n"
	    "                       above the process's name)\n" SESSION_HELP
	    "      --alloc[=MEAN]   also profile allocations: COMMAND runs with\n"
	    "                       libebprof-alloc.so preloaded, which samples one allocation\n"
	    "                       per MEAN bytes on average (default 512K); profiles\n"
	    "                       alloc_objects, alloc_space, inuse_objects, inuse_space\n"
	    "" SESSION_HELP_ALLOC_KERNEL "  -h, --help           this help\n"
	    "\n"
	    "With -- COMMAND, ebprof starts COMMAND (a runtime it needs has its walker\n"
	    "verified before it runs), profiles it and every process it forks, and stops\n"
	    "when COMMAND exits. When -d expires or ebprof gets Ctrl-C or SIGTERM first,\n"
	    "COMMAND gets SIGTERM and %g s to exit (sampled meanwhile), then SIGKILL; then the\n"
	    "profile is written. ebprof exits with COMMAND's status (128 + N when signal N\n"
	    "ended it), or 1 when ebprof itself failed.\n"
	    "\n"
	    "Run as root, or with CAP_BPF and CAP_PERFMON (sudo ebprof ... as a user).\n"
	    "examples:\n"
	    "  ebprof record                        # whole system, 99 Hz, 10 s\n"
	    "  ebprof record -F 999 -d 30 -o out/   # frequency, duration, output directory\n"
	    "  ebprof record -p 1234,5678           # only these processes, until they exit\n"
	    "  ebprof record -- ./myprog args       # a command and its children\n"
	    "  ebprof record --probe uprobe:/usr/bin/bash:readline -d 30\n"
	    "  ebprof record --off-cpu -- ./server  # where its threads wait, and how long\n",
	    (unsigned long)DEFAULT_FREQ, DEFAULT_SECONDS, COMMAND_GRACE_MS / 1000.0);
	session__print_runtimes(out);
}

/* record's own long-only flags, numbered after the shared ones. */
enum { OPT_ROOT = SESSION_OPT__END };

static int parse_root(const char *arg, enum report_root *root)
{
	static const char *const names[] = {
	    [REPORT_ROOT_COMM] = "comm",
	    [REPORT_ROOT_PID] = "pid",
	    [REPORT_ROOT_CONTAINER] = "container",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(arg, names[i]) == 0) {
			*root = (enum report_root)i;
			return 0;
		}
	}
	pr_err("--root: '%s' is not comm, pid or container", arg);
	return -EINVAL;
}

static int parse_args(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
	    SESSION_LONGOPTS,
	    {"duration", required_argument, NULL, 'd'},
	    {"output", required_argument, NULL, 'o'},
	    {"root", required_argument, NULL, OPT_ROOT},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int c, err = 0;

	*o = (struct record_opts){.seconds = DEFAULT_SECONDS, .outdir = "ebprof-out"};
	session_opts__init(&o->s, DEFAULT_FREQ);
	optind = 1;
	opterr = 0; /* session__bad_option says it in ebprof's words */
	while (!err && (c = getopt_long(argc, argv, "+:" SESSION_SHORTOPTS "d:o:h", longopts,
					NULL)) != -1) {
		switch (c) {
		case 'd':
			err = opt_seconds("-d", optarg, &o->seconds);
			o->seconds_set = true;
			break;
		case 'o':
			o->outdir = optarg;
			break;
		case OPT_ROOT:
			err = parse_root(optarg, &o->root);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			err = session_opts__parse(&o->s, c, optarg);
			if (err > 0)
				err = session__bad_option(c, argv);
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

/* CPU of the main thread by phase, printed with -v (bench/footprint.sh reads it):
 * poll = drain and ingest, report = symbolize, write = encode and write the files. */
static struct {
	uint64_t poll_ns, report_ns, write_ns;
} cpu;

static uint64_t thread_cpu_ns(void)
{
	return session__clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

struct grace {
	struct session *s;
	int signals; /* session_signals when the grace began */
};

/* While the command shuts down, sampling goes on; another signal cuts the grace short. */
static int grace_idle(void *ctx)
{
	struct grace *g = ctx;

	session__poll(g->s, 20);
	return session_signals > g->signals;
}

/* Whether the recording should end now: its time is up, the command or every -p process
 * has exited. */
static bool run_over(struct session *s, const struct record_opts *o, uint64_t deadline,
		     struct targets *targets)
{
	if (deadline && session__clock_ns(CLOCK_MONOTONIC) >= deadline)
		return true;
	if (o->s.cmd && session__child_exited(s))
		return true;
	return targets && targets__all_exited(targets);
}

static int run_loop(struct session *s, const struct record_opts *o)
{
	uint64_t deadline = o->seconds > 0 ? s->start_ns + (uint64_t)(o->seconds * 1e9) : 0;
	struct targets *targets = NULL;
	uint64_t t0;
	int n, err = 0;

	if (o->s.pids && !(targets = targets__new(o->s.pids, o->s.npids)))
		pr_warn("cannot watch the -p processes (%s): the recording ends with -d or Ctrl-C",
			strerror(errno));
	while (!session_stop_signal) {
		t0 = thread_cpu_ns();
		n = session__poll(s, POLL_MS);
		cpu.poll_ns += thread_cpu_ns() - t0;
		if (n < 0) {
			pr_err("reading samples: %s", strerror(-n));
			err = n;
			break;
		}
		if (run_over(s, o, deadline, targets))
			break;
	}
	targets__free(targets);
	/* A command still running gets what a wrapper gives it (README, --help). */
	if (o->s.cmd && !session__child_exited(s)) {
		struct grace g = {.s = s, .signals = session_signals};

		spawn__stop(&s->child, COMMAND_GRACE_MS, grace_idle, &g);
	}
	session__stop(s);
	return err;
}

static int write_one(struct outdir *od, int err, const char *name, const char *what)
{
	if (err)
		pr_err("writing %s/%s (%s): %s", od->dir, name, what, strerror(-err));
	else if (outdir__wrote(od, name))
		err = -ENOMEM;
	return err;
}

/* The three files of one event: "" names the CPU profile's, ".SLUG" another event's. */
static int write_event(const struct report *r, struct outdir *od, const char *dot_slug,
		       const char *title)
{
	char path[4096], name[512];
	int err = 0;

	snprintf(name, sizeof(name), "profile%s.pb.gz", dot_slug);
	snprintf(path, sizeof(path), "%s/%s", od->dir, name);
	err |= write_one(od, pprof__write(r, path), name, "pprof");
	snprintf(name, sizeof(name), "stacks%s.folded", dot_slug);
	snprintf(path, sizeof(path), "%s/%s", od->dir, name);
	err |= write_one(od, folded__write(r, path), name, "folded stacks");
	snprintf(name, sizeof(name), "flamegraph%s.html", dot_slug);
	snprintf(path, sizeof(path), "%s/%s", od->dir, name);
	err |= write_one(od, flamegraph__write(r, path, title), name, "flame graph");
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
static int write_event_values(const struct report *r, struct outdir *od)
{
	char path[4096], name[256];
	int err = 0;

	for (uint32_t e = 1; e < r->nevents; e++) {
		if (strcmp(r->events[e].name, "alloc") && strcmp(r->events[e].name, "inuse"))
			continue;
		for (uint32_t v = 0; v < r->events[e].nvalues; v++) {
			snprintf(name, sizeof(name), "stacks.%s.folded",
				 r->events[e].values[v].type);
			snprintf(path, sizeof(path), "%s/%s", od->dir, name);
			err |= write_one(od, folded__write_value(r, path, e, (int)v), name,
					 "folded stacks");
		}
	}
	return err;
}

static int write_events(const struct report *r, const struct record_opts *o, struct outdir *od)
{
	struct report_view v;
	char slug[256], dot[260], title[512];
	int err = 0;

	if (r->nevents <= 1)
		return write_event(r, od, "", "ebprof record") ? -EIO : 0;
	for (uint32_t i = 0; i < r->nevents; i++) {
		if (report_view__init(&v, r, i))
			return -ENOMEM;
		event_slug(&o->s, r, i, slug, sizeof(slug));
		snprintf(dot, sizeof(dot), ".%s", slug);
		snprintf(title, sizeof(title), "ebprof record: %s", r->events[i].name);
		err |= write_event(&v.r, od, i ? dot : "", i ? title : "ebprof record");
		report_view__free(&v);
	}
	err |= write_event_values(r, od);
	return err ? -EIO : 0;
}

/* Writes every file into the output directory, then removes what an earlier recording
 * left there that this one did not write again. */
static int write_outputs(const struct report *r, const struct record_opts *o, struct outdir *od)
{
	int err = write_events(r, o, od);

	outdir__finish(od);
	return err;
}

/* Whether an event's first value only counts its records (a probe's events, off-CPU's
 * samples), so the record count need not be said beside it. */
static bool first_value_counts(const struct report_event *e)
{
	return e->nvalues && strcmp(e->values[0].unit, "count") == 0 &&
	       (strcmp(e->values[0].type, "samples") == 0 ||
		strcmp(e->values[0].type, "events") == 0);
}

/* One line per event beyond CPU samples: its values, each in its unit ("off-cpu: 12
 * samples, 3.200 s off_cpu", "alloc: 40 samples, 1,234 alloc_objects, 1.14 GiB
 * alloc_space"), and the files it went to. */
static void print_events(const struct report *r, const struct record_opts *o, FILE *out)
{
	char slug[256], num[48];

	for (uint32_t i = 1; i < r->nevents; i++) {
		const struct report_event *e = &r->events[i];
		uint64_t n = 0, v[REPORT_MAX_VALUES] = {0};
		uint32_t nv = e->nvalues <= REPORT_MAX_VALUES ? e->nvalues : 0;
		const char *sep = " ";

		for (size_t k = 0; k < r->nstacks; k++) {
			if (r->stacks[k].event != i)
				continue;
			n += r->stacks[k].count;
			for (uint32_t j = 0; j < nv && r->stacks[k].values; j++)
				v[j] += r->stacks[k].values[j];
		}
		event_slug(&o->s, r, i, slug, sizeof(slug));
		fprintf(out, "  %s:", e->name);
		if (!first_value_counts(e)) {
			fprintf(out, " %s samples", summary__format(num, sizeof(num), n, "count"));
			sep = ", ";
		}
		for (uint32_t j = 0; j < nv; j++, sep = ", ")
			fprintf(out, "%s%s %s", sep,
				summary__format(num, sizeof(num), v[j], e->values[j].unit),
				e->values[j].type);
		fprintf(out, " (*.%s.*)\n", slug);
	}
}

static uint64_t cpu_samples(const struct report *r)
{
	uint64_t n = 0;

	for (size_t i = 0; i < r->nstacks; i++)
		n += r->stacks[i].event == 0 ? r->stacks[i].count : 0;
	return n;
}

/* Appends ", N what" to a line being built when n is not 0. */
static void add_loss(char *buf, size_t len, uint64_t n, const char *what)
{
	size_t at = strlen(buf);

	if (n && at < len)
		snprintf(buf + at, len - at, "%s%llu %s", at ? "; " : "", (unsigned long long)n,
			 what);
}

/* Every way data was lost, in one line, with what to do about the likeliest. */
static void print_losses(const struct session *rec, const struct record_opts *o, FILE *out)
{
	const uint64_t *c = rec->counters;
	char line[1024] = "", why[256];

	snprintf(why, sizeof(why),
		 "samples lost, the ring buffer full: ebprof could not keep up at %lu Hz "
		 "(lower -F, or a larger --ringbuf for bursts)",
		 o->s.freq);
	add_loss(line, sizeof(line), c[CTR_RINGBUF_FULL], why);
	add_loss(line, sizeof(line), rec->unread, "records left unread at the stop");
	add_loss(line, sizeof(line), c[CTR_OFF_CPU_FULL],
		 "off-CPU blocks lost (too many threads blocked at once)");
	add_loss(line, sizeof(line), c[CTR_NOTICES_LOST], "process notices lost");
	add_loss(line, sizeof(line), rec->profile.dropped, "samples dropped, out of memory");
	add_loss(line, sizeof(line), rec->bad_records, "malformed records");
	if (line[0])
		fprintf(out, "  lost: %s\n", line);
}

/* What only -v shows: the counters of every part, for whoever tunes or debugs them. */
static void print_details(struct session *rec, const struct report *r, FILE *out)
{
	const uint64_t *c = rec->counters;

	if (c[CTR_EVENTS])
		fprintf(out, "  probes: %llu hits, %llu of other processes\n",
			(unsigned long long)c[CTR_EVENTS],
			(unsigned long long)c[CTR_EVENTS_FILTERED]);
	if (c[CTR_KSTACK_ERR])
		fprintf(out, "  stack errors: %llu kernel\n",
			(unsigned long long)c[CTR_KSTACK_ERR]);
	if (rec->native)
		native__print_stats(rec->native, out);
	if (rec->alloc)
		alloc__print_stats(rec->alloc, out);
	runtime_set__print_stats(rec->runtimes, out);
	if (c[CTR_TAIL_CALL_FAILED] || c[CTR_TAIL_CALLS_OUT] || c[CTR_RUNTIME_CUT])
		fprintf(out,
			"  walker chain: %llu hand-overs failed, %llu stacks cut at the hand-over "
			"budget, %llu with runtime frames that did not fit (kept native)\n",
			(unsigned long long)c[CTR_TAIL_CALL_FAILED],
			(unsigned long long)c[CTR_TAIL_CALLS_OUT],
			(unsigned long long)c[CTR_RUNTIME_CUT]);
	fprintf(out,
		"  unwinding: %llu samples of processes without a description, %llu pcs placed "
		"through the kernel's VMAs (%llu in none, %llu in files without a table yet), "
		"%llu frames without a table (frame pointers), %llu outside the CFI (frame "
		"pointers there), %llu of exits given the stack they began with (%llu exits traced "
		"without their memory); stacks cut: %llu "
		"unreadable stack, %llu impossible caller\n",
		(unsigned long long)c[CTR_UNKNOWN_PID], (unsigned long long)c[CTR_VMA_WALKS],
		(unsigned long long)c[CTR_VMA_MISSED], (unsigned long long)c[CTR_FILE_UNKNOWN],
		(unsigned long long)c[CTR_NO_TABLE], (unsigned long long)c[CTR_NO_ROW],
		(unsigned long long)c[CTR_EXIT_STACKS], (unsigned long long)c[CTR_EXIT_NO_MM],
		(unsigned long long)c[CTR_READ_FAULT], (unsigned long long)c[CTR_BAD_FRAME]);
	fprintf(out, "  processes: %zu seen, %llu distinct stacks, %u files\n",
		summary__processes(r), (unsigned long long)rec->profile.stacks.len,
		rec->files.count);
}

/* The end of a recording, on stderr (stdout is the command's): where it went, samples
 * and losses, the other events, the top functions and why stacks were cut; with -v the
 * counters of every part. */
static void print_summary(struct session *rec, const struct report *r, const struct record_opts *o)
{
	const uint64_t *c = rec->counters;
	uint64_t taken = c[CTR_SAMPLES] - c[CTR_FILTERED];
	double secs = (rec->end_ns - rec->start_ns) / 1e9;
	struct report_view cpu;
	FILE *out = stderr;

	fprintf(out, "ebprof: recorded %.1f s at %lu Hz on %u CPUs into %s/\n", secs, o->s.freq,
		rec->ncpus, o->outdir);
	fprintf(out, "  samples: %llu taken, %llu kept\n", (unsigned long long)taken,
		(unsigned long long)cpu_samples(r));
	print_losses(rec, o, out);
	print_events(r, o, out);
	if (log_verbose)
		print_details(rec, r, out);
	if (r->nevents <= 1) {
		summary__print_top(r, 10, out);
		summary__print_cut(r, c, log_verbose, out);
		return;
	}
	/* The table counts CPU samples only: other events weigh in other units. */
	if (report_view__init(&cpu, r, 0))
		return;
	summary__print_top(&cpu.r, 10, out);
	summary__print_cut(&cpu.r, c, log_verbose, out);
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

static void print_debug_info(const struct symbolizer *sym, FILE *out)
{
	struct debuginfod_stats st;

	if (sym->dwarf_opened || sym->dwarf_evictions)
		fprintf(out,
			"  debug info: DWARF of %u files (%u from the debug cache), %.1f MiB of "
			"indexes at most (bound %.0f MiB), %u dropped to stay in it, %u freed once "
			"named, units dropped %u times\n",
			sym->dwarf_opened, sym->dwarf_cached, sym->dwarf_peak / 1048576.0,
			sym->dwarf_budget / 1048576.0, sym->dwarf_evictions, sym->dwarf_released,
			sym->dwarf_resets);
	if (!sym->debuginfod)
		return;
	debuginfod__stats(sym->debuginfod, &st);
	fprintf(out, "  debuginfod: %u debug files fetched, %u not found, %u still pending\n",
		st.fetched, st.missing + st.refused, st.pending);
}

static int finish(struct session *rec, const struct record_opts *o, struct outdir *od)
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
	r->root = o->root;
	startup__mark(EXIT_REPORTED);
	t1 = thread_cpu_ns();
	cpu.report_ns += t1 - t0;
	err = write_outputs(r, o, od);
	cpu.write_ns += thread_cpu_ns() - t1;
	print_summary(rec, r, o);
	if (log_verbose)
		print_debug_info(&sym, stderr);
	/* What hostile files cost (nothing printed when they cost nothing): without -v, as
	 * losses are, since each is something another user did to this run. */
	symbolizer__print_refused(&sym, stderr);
	startup__mark(EXIT_WRITTEN);
	report__free(r);
	return err;
}

/* Once sampling has begun: what is sampled, until when, and how to stop it. */
static void say_started(struct session *s, const struct record_opts *o)
{
	char until[64] = "";

	if (o->seconds > 0)
		snprintf(until, sizeof(until), " for %g s", o->seconds);
	else if (o->s.cmd)
		snprintf(until, sizeof(until), " until the command exits");
	else if (o->s.pids)
		snprintf(until, sizeof(until), " until %s",
			 o->s.npids > 1 ? "they exit" : "it exits");
	pr_info("sampling %u CPUs at %lu Hz%s; Ctrl-C to stop", session__ncpus(s), o->s.freq,
		until);
}

int cmd_record(int argc, char **argv)
{
	struct session *s = NULL;
	struct outdir od = {0};
	struct record_opts o;
	int err, ferr, status = -1;
	bool recorded;

	startup__mark(STARTUP_MAIN);
	if (parse_args(argc, argv, &o)) {
		session_opts__free(&o.s);
		return 2;
	}
	err = host__require_recording();
	if (!err)
		err = outdir__prepare(&od, o.outdir);
	if (err)
		goto out;
	startup__mark(STARTUP_CHECKED);
	session_opts__fit_rate(&o.s);
	session__install_signals();
	s = session__start(&o.s);
	if (!s) {
		err = -errno;
		goto out;
	}
	say_started(s, &o);
	err = run_loop(s, &o);
	ferr = finish(s, &o, &od);
	err = err ? err : ferr;
	status = spawn__exit_code(&s->child);
out:
	recorded = s != NULL;
	session__free(s);
	session_opts__free(&o.s);
	outdir__free(&od);
	startup__mark(EXIT_FREED);
	if (log_verbose && recorded) {
		startup__print_exit();
		fprintf(stderr, "ebprof: record_cpu_ms poll=%.1f report=%.1f write=%.1f\n",
			cpu.poll_ns / 1e6, cpu.report_ns / 1e6, cpu.write_ns / 1e6);
	}
	/* A wrapper's status is its command's, as perf's is (128 + N: signal N). */
	return err ? session__failure_status(err) : status >= 0 ? status : 0;
}
