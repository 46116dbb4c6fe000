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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "cli/host.h"
#include "cli/options.h"
#include "cli/record.h"
#include "cli/spawn.h"
#include "cli/startup.h"
#include "export/flamegraph.h"
#include "export/folded.h"
#include "export/pprof.h"
#include "export/summary.h"
#include "loader/btf_cache.h"
#include "loader/loader.h"
#include "loader/sampler.h"
#include "unwind/native.h"
#include "interp/python.h"
#include "profile/ingest.h"
#include "profile/report.h"
#include "symbol/ksyms.h"
#include "symbol/symbolizer.h"
#include "util/log.h"

#define DEFAULT_FREQ 99
#define DEFAULT_SECONDS 10.0
#define DEFAULT_RINGBUF (8u << 20)
#define DEFAULT_UNWIND_MEMORY (32u << 20)
#define POLL_MS 100
#define LOAD_COST_CACHE "/var/cache/ebprof/load-costs"
#define BTF_CACHE_DIR "/var/cache/ebprof/btf"

struct record_opts {
	unsigned long freq;
	double seconds; /* 0: until interrupted (or the command exits) */
	bool seconds_set;
	const char *outdir;
	uint32_t *pids;
	size_t npids;
	char **cmd;
	uint64_t ringbuf;
	uint64_t unwind_memory;
	unsigned long load_jobs;
	enum loader_order load_order;
};

struct recording {
	struct file_table files;
	struct proc_table procs;
	struct profile profile;
	struct ingest ingest;
	struct sampler *sampler;
	struct loader *loader;
	struct native_unwinder *native;
	struct python *python;
	struct spawn child;
	uint64_t start_unix_ns;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t counters[CTR__COUNT];
	uint64_t bad_records;
	unsigned int ncpus;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

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
	    "\n"
	    "options:\n"
	    "  -F, --freq HZ        samples per second per CPU (default %d)\n"
	    "  -d, --duration TIME  stop after TIME (10, 2.5s, 5m; default %gs, or until the\n"
	    "                       command exits; 0: until Ctrl-C)\n"
	    "  -o, --output DIR     output directory (default ./ebprof-out), created if needed\n"
	    "  -p, --pid PIDS       only these processes (comma-separated), with their threads\n"
	    "      --ringbuf SIZE   BPF ring buffer size, a power of two (default 8M)\n"
	    "      --unwind-memory SIZE\n"
	    "                       kernel memory for unwind tables (default 32M); when full,\n"
	    "                       tables no process uses are evicted\n"
	    "      --load-jobs N    verify BPF programs on N threads (default: the CPUs\n"
	    "                       ebprof may use; 1 loads them one by one)\n"
	    "      --load-order O   'longest' (default: most expensive first, by the costs\n"
	    "                       measured on earlier runs) or 'build' (as declared)\n"
	    "  -v, --verbose        debug output, including libbpf's and the verifier's\n"
	    "  -h, --help           this help\n"
	    "\n"
	    "With -- COMMAND, ebprof starts COMMAND, profiles it and every process it forks,\n"
	    "and stops when COMMAND exits (or -d expires, leaving COMMAND running).\n"
	    "\n"
	    "examples:\n"
	    "  sudo ebprof record                        # whole system, 99 Hz, 10 s\n"
	    "  sudo ebprof record -F 999 -d 30 -o out/   # frequency, duration, output directory\n"
	    "  sudo ebprof record -p 1234,5678           # only these processes\n"
	    "  sudo ebprof record -- ./myprog args       # a command and its children\n",
	    DEFAULT_FREQ, DEFAULT_SECONDS);
}

static int parse_load_order(const char *s, enum loader_order *out)
{
	if (strcmp(s, "longest") == 0)
		*out = LOADER_LONGEST_FIRST;
	else if (strcmp(s, "build") == 0)
		*out = LOADER_BUILD_ORDER;
	else {
		pr_err("--load-order: '%s' is neither 'longest' nor 'build'", s);
		return -EINVAL;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
	    {"freq", required_argument, NULL, 'F'},
	    {"duration", required_argument, NULL, 'd'},
	    {"output", required_argument, NULL, 'o'},
	    {"pid", required_argument, NULL, 'p'},
	    {"ringbuf", required_argument, NULL, 'R'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {"load-jobs", required_argument, NULL, 'J'},
	    {"load-order", required_argument, NULL, 'O'},
	    {"unwind-memory", required_argument, NULL, 'U'},
	    {0},
	};
	int c, err = 0;

	*o = (struct record_opts){.freq = DEFAULT_FREQ,
				  .seconds = DEFAULT_SECONDS,
				  .outdir = "ebprof-out",
				  .ringbuf = DEFAULT_RINGBUF,
				  .unwind_memory = DEFAULT_UNWIND_MEMORY};
	optind = 1;
	while (!err && (c = getopt_long(argc, argv, "+F:d:o:p:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			err = opt_uint("-F", optarg, 1, 100000, &o->freq);
			break;
		case 'd':
			err = opt_seconds("-d", optarg, &o->seconds);
			o->seconds_set = true;
			break;
		case 'o':
			o->outdir = optarg;
			break;
		case 'p':
			free(o->pids);
			err = opt_pids("-p", optarg, &o->pids, &o->npids);
			break;
		case 'R':
			err = opt_size("--ringbuf", optarg, &o->ringbuf);
			if (!err && (o->ringbuf < 4096 || (o->ringbuf & (o->ringbuf - 1)) ||
				     o->ringbuf > (1ULL << 30))) {
				pr_err("--ringbuf: must be a power of two from 4K to 1G");
				err = -EINVAL;
			}
			break;
		case 'J':
			err = opt_uint("--load-jobs", optarg, 1, 1024, &o->load_jobs);
			break;
		case 'U':
			err = opt_size("--unwind-memory", optarg, &o->unwind_memory);
			if (!err &&
			    (o->unwind_memory < (1 << 20) || o->unwind_memory > (4ULL << 30))) {
				pr_err("--unwind-memory: must be between 1M and 4G");
				err = -EINVAL;
			}
			break;
		case 'O':
			err = parse_load_order(optarg, &o->load_order);
			break;
		case 'v':
			log_verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (err) {
		fprintf(stderr, "Try 'ebprof record --help'.\n");
		return err;
	}
	if (optind < argc)
		o->cmd = &argv[optind];
	if (o->cmd && o->pids) {
		pr_err("-p and a command exclude each other");
		return -EINVAL;
	}
	if (o->cmd && !o->seconds_set)
		o->seconds = 0;
	return 0;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
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

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !log_verbose)
		return 0;
	if (level != LIBBPF_WARN && !log_verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int on_record(void *ctx, const void *data, size_t size)
{
	const size_t head = offsetof(struct sample_record, ustack);
	const struct sample_record *r = data;
	struct recording *rec = ctx;

	if (size >= sizeof(struct notice_record) && r->type != RECORD_SAMPLE) {
		const struct notice_record *n = data;

		if (rec->native)
			native__notice(rec->native, n->type, n->pid);
		return 0;
	}
	/* The record carries only the user frames it uses. */
	if (size < head || size < head + (size_t)r->ustack_len * sizeof(struct user_frame)) {
		rec->bad_records++;
		return 0;
	}
	startup__first_sample(r->time_ns);
	ingest__sample(&rec->ingest, r, clock_ns(CLOCK_MONOTONIC));
	return 0;
}

static void install_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Every program goes through one loader: verification runs concurrently, and nothing
 * is attached unless every program loaded. */
static int load_programs(struct recording *rec, const struct record_opts *o,
			 const struct sampler_opts *so)
{
	struct loader_opts lo = {
	    .jobs = o->load_jobs,
	    .order = o->load_order,
	    .cost_cache = LOAD_COST_CACHE,
	};
	struct sampler_maps maps;
	char btf[4096];
	int err;

	/* A minimal BTF spares every object a parse of the kernel's megabytes of BTF. */
	if (btf_cache__get(BTF_CACHE_DIR, btf, sizeof(btf)) == 0)
		lo.btf_custom_path = btf;
	rec->loader = loader__new(&lo);
	if (!rec->loader)
		return -ENOMEM;
	err = sampler__prepare(&rec->sampler, so, rec->loader);
	if (err)
		return err;
	startup__mark(STARTUP_PREPARED);
	err = loader__run(rec->loader);
	if (err && lo.btf_custom_path)
		btf_cache__discard(lo.btf_custom_path);
	if (err)
		return err;
	startup__mark(STARTUP_LOADED);
	sampler__maps(rec->sampler, &maps);
	/* A command is described when it execs (the notice from on_exec), not before:
	 * until then it is a copy of ebprof, whose libraries it would cost time to read. */
	rec->python = python__new(&rec->procs, maps.pid_to_python);
	if (!rec->python)
		return -ENOMEM;
	rec->ingest.python = rec->python;
	rec->native =
	    native__start(&maps, &rec->procs, rec->python, so->pids, o->cmd ? 0 : so->npids);
	if (!rec->native)
		return -errno;
	err = sampler__start(rec->sampler, rec->loader, on_record, rec);
	startup__mark(STARTUP_ATTACHED);
	return err;
}

static int start(struct recording *rec, const struct record_opts *o)
{
	struct sampler_opts so = {
	    .freq_hz = o->freq,
	    .pids = o->pids,
	    .npids = o->npids,
	    .follow_children = o->cmd != NULL,
	    .ringbuf_bytes = o->ringbuf,
	    .unwind_rows = o->unwind_memory / sizeof(struct unwind_row),
	};
	uint32_t pid;
	int err;

	if (o->cmd) {
		err = spawn__prepare(&rec->child, o->cmd);
		if (err) {
			pr_err("cannot start %s: %s", o->cmd[0], strerror(-err));
			return err;
		}
		pid = rec->child.pid;
		so.pids = &pid;
		so.npids = 1;
	}
	err = load_programs(rec, o, &so);
	if (err)
		return err;
	rec->start_unix_ns = clock_ns(CLOCK_REALTIME);
	rec->start_ns = clock_ns(CLOCK_MONOTONIC);
	if (o->cmd) {
		err = spawn__start(&rec->child);
		if (err) {
			pr_err("cannot run %s: %s", o->cmd[0], strerror(-err));
			rec->child.pid = 0;
		}
	}
	return err;
}

/* True when the command (if any) has exited. */
static bool child_exited(struct recording *rec)
{
	int status;

	if (rec->child.pid <= 0 || waitpid(rec->child.pid, &status, WNOHANG) != rec->child.pid)
		return false;
	if (WIFEXITED(status) && WEXITSTATUS(status))
		pr_info("command exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		pr_info("command killed by signal %d", WTERMSIG(status));
	rec->child.pid = 0;
	return true;
}

static int run_loop(struct recording *rec, const struct record_opts *o)
{
	uint64_t deadline = o->seconds > 0 ? rec->start_ns + (uint64_t)(o->seconds * 1e9) : 0;
	int n;

	while (!stop_signal) {
		n = sampler__poll(rec->sampler, POLL_MS);
		if (n < 0 && n != -EINTR) {
			pr_err("reading samples: %s", strerror(-n));
			return n;
		}
		if (deadline && clock_ns(CLOCK_MONOTONIC) >= deadline)
			break;
		if (child_exited(rec))
			break;
	}
	rec->end_ns = clock_ns(CLOCK_MONOTONIC);
	/* Stop first, so every sample counted in BPF is in the ring buffer when we drain
	 * it; what is there was sampled inside the window: keep it. */
	sampler__stop(rec->sampler);
	while (sampler__poll(rec->sampler, 0) > 0)
		;
	if (log_verbose)
		startup__print(rec->loader);
	native__stop(rec->native);
	sampler__counters(rec->sampler, rec->counters);
	rec->ncpus = sampler__ncpus(rec->sampler);
	sampler__free(rec->sampler);
	rec->sampler = NULL;
	loader__free(rec->loader);
	rec->loader = NULL;
	if (rec->child.pid > 0 && !child_exited(rec))
		pr_info("recording stopped; the command (pid %d) is still running", rec->child.pid);
	return 0;
}

static int write_one(int err, const char *dir, const char *name, const char *what)
{
	if (err)
		pr_err("writing %s/%s (%s): %s", dir, name, what, strerror(-err));
	return err;
}

static int write_outputs(const struct report *r, const char *dir)
{
	char path[4096];
	int err = 0;

	snprintf(path, sizeof(path), "%s/profile.pb.gz", dir);
	err |= write_one(pprof__write(r, path), dir, "profile.pb.gz", "pprof");
	snprintf(path, sizeof(path), "%s/stacks.folded", dir);
	err |= write_one(folded__write(r, path), dir, "stacks.folded", "folded stacks");
	snprintf(path, sizeof(path), "%s/flamegraph.html", dir);
	err |= write_one(flamegraph__write(r, path, "ebprof record"), dir, "flamegraph.html",
			 "flame graph");
	return err ? -EIO : 0;
}

static void print_summary(const struct recording *rec, const struct report *r,
			  const struct record_opts *o)
{
	const uint64_t *c = rec->counters;
	double secs = (rec->end_ns - rec->start_ns) / 1e9;

	printf("ebprof: recorded %.1f s at %lu Hz on %u CPUs into %s/\n", secs, o->freq, rec->ncpus,
	       o->outdir);
	printf("  samples: %llu taken, %llu lost (ring buffer full), %llu kept\n",
	       (unsigned long long)(c[CTR_SAMPLES] - c[CTR_FILTERED]),
	       (unsigned long long)c[CTR_RINGBUF_FULL], (unsigned long long)rec->profile.samples);
	if (c[CTR_KSTACK_ERR] || rec->profile.dropped || rec->bad_records)
		printf("  stack errors: %llu kernel; %llu samples without memory, %llu "
		       "malformed records\n",
		       (unsigned long long)c[CTR_KSTACK_ERR],
		       (unsigned long long)rec->profile.dropped,
		       (unsigned long long)rec->bad_records);
	if (rec->native)
		native__print_stats(rec->native, stdout);
	if (rec->python)
		python__print_stats(rec->python, stdout);
	if (c[CTR_PY_NO_THREAD] || c[CTR_PY_READ_FAULT])
		printf("  python unwinding: %llu eval loops without a thread state (kept native), "
		       "%llu Python frames unreadable (Python stack cut there)\n",
		       (unsigned long long)c[CTR_PY_NO_THREAD],
		       (unsigned long long)c[CTR_PY_READ_FAULT]);
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
	summary__print_top(r, 10, stdout);
}

static int finish(struct recording *rec, const struct record_opts *o)
{
	struct symbolizer sym;
	struct ksyms *ksyms;
	struct report *r;
	int err;

	ksyms = ksyms__load("/proc/kallsyms");
	if (!ksyms)
		pr_warn("kernel symbols unavailable (%s): kernel frames stay unnamed",
			strerror(errno));
	symbolizer__init(&sym, &rec->files, ksyms);
	sym.python = rec->python;
	r = report__build(&rec->profile, &sym, 1000000000ULL / o->freq, rec->start_unix_ns,
			  rec->end_ns - rec->start_ns);
	if (!r) {
		pr_err("building the report: %s", strerror(errno));
		ksyms__free(ksyms);
		return -ENOMEM;
	}
	err = write_outputs(r, o->outdir);
	print_summary(rec, r, o);
	report__free(r);
	ksyms__free(ksyms);
	return err;
}

static void recording__free(struct recording *rec)
{
	native__free(rec->native);
	python__free(rec->python); /* after the tracker's thread, which calls it, stopped */
	sampler__free(rec->sampler);
	loader__free(rec->loader);
	spawn__abort(&rec->child);
	profile__free(&rec->profile);
	proc_table__free(&rec->procs);
	file_table__free(&rec->files);
}

int cmd_record(int argc, char **argv)
{
	struct recording *rec = NULL;
	struct record_opts o;
	int err;

	startup__mark(STARTUP_MAIN);
	if (parse_args(argc, argv, &o))
		return 2;
	libbpf_set_print(libbpf_log);
	err = host__require_recording();
	if (!err)
		err = prepare_outdir(o.outdir);
	if (err)
		goto out;
	startup__mark(STARTUP_CHECKED);
	rec = calloc(1, sizeof(*rec));
	if (!rec) {
		err = -ENOMEM;
		goto out;
	}
	file_table__init(&rec->files);
	proc_table__init(&rec->procs, &rec->files);
	profile__init(&rec->profile);
	ingest__init(&rec->ingest, &rec->procs, &rec->profile);
	install_signals();
	err = start(rec, &o);
	if (!err)
		err = run_loop(rec, &o);
	if (!err)
		err = finish(rec, &o);
out:
	if (rec)
		recording__free(rec);
	free(rec);
	free(o.pids);
	return err ? 1 : 0;
}
