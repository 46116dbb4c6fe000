// SPDX-License-Identifier: Apache-2.0
/* The profiling session shared by `record` and `agent`: one loader for every program,
 * the process tracker, the command, and the ring buffer feeding the profile. */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "util/options.h"
#include "cli/session.h"
#include "cli/startup.h"
#include "loader/btf_cache.h"
#include "loader/objects.h"
#include "loader/sampler.h"
#include "interp/runtime.h"
#include "symbol/debugcache.h"
#include "symbol/debuginfod.h"
#include "symbol/symbolizer.h"
#include "symbol/ksyms.h"
#include "unwind/native.h"
#include "util/clock.h"
#include "util/log.h"

#define RINGBUF_MIN (256u << 10)
#define RINGBUF_MAX (64u << 20)
#define RINGBUF_SAMPLE 4096 /* a record is 1.1 KiB plus 16 bytes a user frame */
#define RECORD_RINGBUF_SECONDS 0.25
#define RINGBUF_EVENTS (8u << 20) /* with probes, off-CPU or allocations: record's old size */

#define LOAD_COST_CACHE "/var/cache/ebprof/load-costs"
#define BTF_CACHE_DIR "/var/cache/ebprof/btf"
/* What BPF wrote before the stop is read for at most this long; a ring buffer that
 * takes longer (a rate the ingest could not follow) has the rest counted unread. */
#define STOP_DRAIN_NS (250 * 1000000ULL)

void session_opts__init(struct session_opts *o, unsigned long freq)
{
	*o = (struct session_opts){
	    .freq = freq,
	    .ringbuf_seconds = RECORD_RINGBUF_SECONDS,
	    .unwind_memory = SESSION_UNWIND_MEMORY,
	    .debug_cache = DEBUG_CACHE_DIR,
	};
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

static int parse_ringbuf(const char *arg, uint64_t *out)
{
	int err = opt_size("--ringbuf", arg, out);

	if (!err && (*out < 4096 || (*out & (*out - 1)) || *out > (1ULL << 30))) {
		pr_err("--ringbuf: must be a power of two from 4K to 1G");
		err = -EINVAL;
	}
	return err;
}

static int parse_unwind_memory(const char *arg, uint64_t *out)
{
	int err = opt_size("--unwind-memory", arg, out);

	if (!err && (*out < (256 << 10) || *out > (4ULL << 30))) {
		pr_err("--unwind-memory: must be between 256K and 4G");
		err = -EINVAL;
	}
	return err;
}

static int add_probe(struct session_opts *o, const char *arg)
{
	struct probe_spec *v = realloc(o->probes, (o->nprobes + 1) * sizeof(*v));
	char why[512];
	int err;

	if (!v)
		return -ENOMEM;
	o->probes = v;
	err = probe_spec__parse(arg, &v[o->nprobes], why, sizeof(why));
	if (err) {
		pr_err("--probe %s", why);
		return err;
	}
	o->nprobes++;
	return 0;
}

/* "--off-cpu" alone samples every block; "=0.1" or "=10%" one in ten. */
static int parse_off_cpu(const char *arg, uint32_t *ppm)
{
	double rate = 1;
	char *end = NULL;

	if (arg) {
		errno = 0;
		rate = strtod(arg, &end);
		if (end && *end == '%' && end != arg) {
			rate /= 100;
			end++;
		}
		if (errno || end == arg || *end || !(rate >= 1e-6 && rate <= 1)) {
			pr_err("--off-cpu: '%s' is not a share of blocks to sample: a number "
			       "from 0.000001 to 1, or a percentage (10%%)",
			       arg);
			return -EINVAL;
		}
	}
	*ppm = (uint32_t)(rate * 1e6 + 0.5);
	return 0;
}

void session_opts__free(struct session_opts *o)
{
	for (size_t i = 0; i < o->nprobes; i++)
		probe_spec__free(&o->probes[i]);
	free(o->probes);
	o->probes = NULL;
	o->nprobes = 0;
	free(o->pids);
	o->pids = NULL;
	free(o->cgroups);
	o->cgroups = NULL;
	o->ncgroups = 0;
}

static int add_cgroup(struct session_opts *o, bool container, const char *arg)
{
	struct cgroup_arg *a;

	if (!arg[0]) {
		pr_err("%s: give a %s", container ? "--container" : "--cgroup",
		       container ? "container id" : "cgroup path");
		return -EINVAL;
	}
	a = realloc(o->cgroups, (o->ncgroups + 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	a[o->ncgroups++] = (struct cgroup_arg){.container = container, .text = arg};
	o->cgroups = a;
	return 0;
}

int session_opts__parse(struct session_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'F':
		if (strcmp(arg, "max") == 0) {
			o->freq = SESSION_FREQ_MAX;
			return 0;
		}
		return opt_uint("-F", arg, 1, SESSION_FREQ_LIMIT, &o->freq);
	case 'p':
		free(o->pids);
		o->pids = NULL;
		return opt_pids("-p", arg, &o->pids, &o->npids);
	case 'R':
		return parse_ringbuf(arg, &o->ringbuf);
	case 'U':
		return parse_unwind_memory(arg, &o->unwind_memory);
	case 'J':
		return opt_uint("--load-jobs", arg, 1, 1024, &o->load_jobs);
	case 'O':
		return parse_load_order(arg, &o->load_order);
	case 'v':
		log_verbose = true;
		return 0;
	case SESSION_OPT_ALLOC:
		return alloc_opts__parse(&o->alloc, ALLOC_PRELOAD, arg);
	case SESSION_OPT_ALLOC_KERNEL:
		return alloc_opts__parse(&o->alloc, ALLOC_KERNEL, arg);
	case SESSION_OPT_PROBE:
		return add_probe(o, arg);
	case SESSION_OPT_OFF_CPU:
		return parse_off_cpu(arg, &o->off_cpu_ppm);
	case SESSION_OPT_NO_LINES:
		o->no_lines = true;
		return 0;
	case SESSION_OPT_NO_INLINE:
		o->no_inline = true;
		return 0;
	case SESSION_OPT_CGROUP:
		return add_cgroup(o, false, arg);
	case SESSION_OPT_CONTAINER:
		return add_cgroup(o, true, arg);
	case SESSION_OPT_RUNTIMES: {
		uint32_t mask;
		int err = runtime_list__mask(arg, &mask);

		o->runtimes = err ? NULL : arg;
		return err;
	}
	case SESSION_OPT_DEBUG_CACHE:
		if (!arg[0]) {
			pr_err("--debug-cache: give a directory, or 'off'");
			return -EINVAL;
		}
		o->debug_cache = strcmp(arg, "off") ? arg : NULL;
		return 0;
	}
	return 1;
}

/* The kernel's bound on a perf event's frequency; it lowers the bound itself when
 * sampling interrupts take too long on this host. */
#define MAX_SAMPLE_RATE "/proc/sys/kernel/perf_event_max_sample_rate"
/* cpu-clock's shortest period is 10 us: no host samples faster. */
#define CPU_CLOCK_MAX_HZ 100000

static unsigned long read_max_sample_rate(void)
{
	unsigned long v = 0;
	FILE *f = fopen(MAX_SAMPLE_RATE, "re");

	if (f && fscanf(f, "%lu", &v) != 1)
		v = 0;
	if (f)
		fclose(f);
	return v;
}

void session_opts__fit_rate(struct session_opts *o)
{
	unsigned long max = read_max_sample_rate();

	if (!max || max > CPU_CLOCK_MAX_HZ)
		max = CPU_CLOCK_MAX_HZ;
	if (o->freq == SESSION_FREQ_MAX) {
		o->freq = max;
		return;
	}
	if (o->freq <= max)
		return;
	pr_warn("-F %lu is above what this host allows (kernel.perf_event_max_sample_rate): "
		"sampling at %lu Hz",
		o->freq, max);
	o->freq = max;
}

int session__bad_option(int c, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "?";

	if (c == ':')
		pr_err("option '%s' needs a value", arg);
	else if (optopt)
		pr_err("unknown option '-%c'", optopt);
	else
		pr_err("unknown option '%s'", arg);
	return -EINVAL;
}

volatile sig_atomic_t session_stop_signal;
volatile sig_atomic_t session_signals;

static void on_signal(int sig)
{
	session_stop_signal = sig;
	session_signals++;
}

void session__install_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

uint64_t session__clock_ns(clockid_t id)
{
	return clock_ns(id);
}

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBBPF_WARN && !log_verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* A stop signal during start-up: -EINTR, and the session is torn down unstarted. */
static int interrupted(void)
{
	return session_stop_signal ? -EINTR : 0;
}

static int on_record(void *ctx, const void *data, size_t size)
{
	const size_t head = offsetof(struct sample_record, ustack);
	const struct sample_record *r = data;
	struct session *s = ctx;

	if (size >= sizeof(struct notice_record) && r->type != RECORD_SAMPLE) {
		const struct notice_record *n = data;

		if (n->type == RECORD_ALLOC_FREE) {
			if (s->alloc)
				alloc__freed(s->alloc, n->pid, n->addr);
			return 0;
		}
		/* A long-running agent must not report an exited process's blocks as in use
		 * forever; record keeps them, its in-use profile is of the whole run. */
		if (n->type == RECORD_PROCESS_EXIT && s->alloc && s->continuous)
			alloc__forget_pid(s->alloc, n->pid);
		if (s->native)
			native__notice(s->native, n);
		return 0;
	}
	/* The record carries only the user frames it uses. */
	if (size < head || size < head + (size_t)r->ustack_len * sizeof(struct user_frame)) {
		s->bad_records++;
		return 0;
	}
	startup__first_sample(r->time_ns);
	if (s->alloc && r->event == alloc__event(s->alloc))
		alloc__sample(s->alloc, &s->ingest, r, session__clock_ns(CLOCK_MONOTONIC));
	else
		ingest__sample(&s->ingest, r, session__clock_ns(CLOCK_MONOTONIC));
	return 0;
}

/* The processes the tracker describes first: the listed ones, none for a command (it
 * is described when it execs), those in the --cgroup groups, else all (NULL). *pids
 * is so->pids or malloc'd. */
static int first_scan(struct session *s, const struct session_opts *o,
		      const struct sampler_opts *so, uint32_t **pids, size_t *n)
{
	*pids = (uint32_t *)so->pids;
	*n = o->cmd ? 0 : so->npids;
	if (so->pids || !o->ncgroups)
		return 0;
	if (cgroup_filter__pids(&s->cgroups, pids, n))
		return -ENOMEM;
	/* An empty group: nothing to describe now, not everything. */
	if (!*pids && !(*pids = malloc(sizeof(**pids))))
		return -ENOMEM;
	return 0;
}

/* Every program goes through one loader: verification runs concurrently, and nothing
 * is attached unless every program loaded. */
static int load_programs(struct session *s, const struct session_opts *o,
			 const struct sampler_opts *so)
{
	struct loader_opts lo = {
	    .jobs = o->load_jobs,
	    .order = o->load_order,
	    .cost_cache = LOAD_COST_CACHE,
	};
	struct warm_list warm = {0};
	struct sampler_maps maps;
	uint32_t *scan;
	size_t nscan;
	struct bpf_images imgs;
	char btf[4096];
	int err;

	/* A minimal BTF spares every object a parse of the kernel's megabytes of BTF. */
	bpf_images__init(&imgs);
	if (!runtime_registry__images(&imgs) &&
	    btf_cache__get(BTF_CACHE_DIR, &imgs, btf, sizeof(btf)) == 0)
		lo.btf_custom_path = btf;
	s->loader = loader__new(&lo);
	if (!s->loader)
		return -ENOMEM;
	err = sampler__prepare(&s->sampler, so, s->loader);
	if (err)
		return err;
	/* After the sampler's object, whose maps the runtimes' walkers share. */
	s->runtimes =
	    runtime_set__new(&(struct runtime_env){.procs = &s->procs, .only = o->runtimes});
	if (!s->runtimes)
		return -errno;
	err = runtime_set__prepare(s->runtimes, s->loader, sampler__chain_types(s->sampler));
	if (err)
		return err;
	startup__mark(STARTUP_PREPARED);
	err = interrupted(); /* before the long part: a verification cannot be stopped */
	if (err)
		return err;
	err = loader__run(s->loader);
	if (err && lo.btf_custom_path)
		btf_cache__discard(lo.btf_custom_path);
	if (err)
		return err;
	startup__mark(STARTUP_LOADED);
	sampler__maps(s->sampler, &maps);
	/* A command is described when it execs (the notice from on_exec), not before:
	 * until then it is a copy of ebprof, whose libraries it would cost time to read. */
	err = runtime_set__start(s->runtimes, s->loader);
	if (err)
		return err;
	runtime_set__verify_named(s->runtimes);
	runtime_set__frame_source(s->runtimes, &s->frames);
	s->ingest.frames = &s->frames;
	/* Its libc's and ld.so's tables are built before it runs (warm.h): cheap to find. */
	if (o->cmd && warm__find(o->cmd[0], &warm))
		return -ENOMEM;
	/* A runtime the command loads by dlopen has its walker verified before it runs. */
	if (warm.n)
		runtime_set__expect_command(s->runtimes, warm.f[0].path);
	err = first_scan(s, o, so, &scan, &nscan);
	if (err)
		return err;
	s->native = native__start(&maps, &s->procs, s->runtimes, scan, nscan, &warm);
	if (scan != so->pids)
		free(scan);
	warm__free(&warm);
	if (!s->native)
		return -errno;
	err = sampler__start(s->sampler, s->loader, on_record, s);
	if (!err && s->alloc)
		err = alloc__attach(s->alloc, s->sampler, s->loader, s->alloc_lib, so->pids,
				    so->npids);
	startup__mark(STARTUP_ATTACHED);
	return err;
}

/* Declares the allocation events and finds the library the markers live in. */
static int start_alloc(struct session *s, const struct session_opts *o)
{
	int err;

	if (o->alloc.mode == ALLOC_OFF)
		return 0;
	if (o->alloc.mode == ALLOC_PRELOAD) {
		err = alloc__find_lib(s->alloc_lib, sizeof(s->alloc_lib));
		if (err)
			return err;
		if (!o->cmd)
			pr_info("--alloc without a command: profiling the allocations of processes "
				"started with LD_PRELOAD=%s",
				s->alloc_lib);
	} else if (!o->cmd && !o->pids) {
		pr_warn("--alloc-kernel on the whole system traps every allocation of every "
			"process into the kernel");
	}
	s->alloc = alloc__new(&o->alloc, &s->profile, 1000000000ULL / o->freq);
	return s->alloc ? 0 : -errno;
}

/* Forks the command held before exec; under --alloc with the library preloaded. */
static int spawn_command(struct session *s, const struct session_opts *o)
{
	struct alloc_env env = {0};
	int err = 0;

	if (o->alloc.mode == ALLOC_PRELOAD)
		err = alloc_env__apply(&env, s->alloc_lib, o->alloc.mean);
	if (!err)
		err = spawn__prepare(&s->child, o->cmd);
	alloc_env__restore(&env);
	return err;
}

/* With probes, off-CPU time or stops, every event is declared, CPU samples first (event
 * 0, EVENT_CPU in BPF); then probe i is event 1 + i, then off-CPU time, then stops. */
static int declare_events(struct session *s, const struct session_opts *o)
{
	struct report_event cpu = {
	    .name = "cpu",
	    .period_type = {"cpu", "nanoseconds"},
	    .period = 1000000000ULL / o->freq,
	    .nvalues = 1,
	    .values = {{"samples", "count"}},
	};
	struct report_event off_cpu = {
	    .name = "off-cpu",
	    .nvalues = 2,
	    .values = {{"samples", "count"}, {"off_cpu", "nanoseconds"}},
	};

	struct report_event stop = {
	    .name = "stop",
	    .nvalues = 2,
	    .values = {{"samples", "count"}, {"stopped", "nanoseconds"}},
	};
	int idx;

	if (!o->nprobes && !o->off_cpu_ppm && !o->stops)
		return 0;
	if (profile__add_event(&s->profile, &cpu) < 0)
		return -ENOSPC;
	for (size_t i = 0; i < o->nprobes; i++) {
		struct report_event e = {
		    .name = o->probes[i].text,
		    .nvalues = 1,
		    .values = {{"events", "count"}},
		};

		if (profile__add_event(&s->profile, &e) < 0) {
			pr_err("too many probes: at most %d events", PROFILE_MAX_EVENTS - 2);
			return -ENOSPC;
		}
	}
	if (o->off_cpu_ppm) {
		idx = profile__add_event(&s->profile, &off_cpu);
		if (idx < 0)
			goto full;
		s->off_cpu_event = (uint32_t)idx;
	}
	if (o->stops) {
		idx = profile__add_event(&s->profile, &stop);
		if (idx < 0)
			goto full;
		s->stop_event = (uint32_t)idx;
	}
	return 0;
full:
	pr_err("too many probes: at most %d events", PROFILE_MAX_EVENTS - 2);
	return -ENOSPC;
}

/* The ring buffer is mapped into ebprof twice (the kernel maps its data pages two times
 * so that records can wrap), so its size counts double in the resident set: hold what
 * every CPU samples in `seconds` at a generous RINGBUF_SAMPLE bytes each, no more. The
 * reader drains it at least every poll (100 ms) and when a quarter is full. */
static uint64_t ringbuf_bytes(unsigned long freq, double seconds)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	double want = (double)(cpus > 0 ? cpus : 1) * freq * RINGBUF_SAMPLE * seconds;
	uint64_t size = RINGBUF_MIN;

	while (size < want && size < RINGBUF_MAX)
		size <<= 1;
	return size;
}

/* Events come at their own rate, in bursts the sampling rate says nothing about (2,000
 * probe hits within milliseconds, a context switch storm for off-CPU): with any, the
 * ring buffer is at least RINGBUF_EVENTS. */
static uint64_t ringbuf_size(const struct session_opts *o)
{
	uint64_t size;

	if (o->ringbuf)
		return o->ringbuf;
	size = ringbuf_bytes(o->freq, o->ringbuf_seconds);
	if ((o->nprobes || o->off_cpu_ppm || o->stops || o->alloc.mode != ALLOC_OFF) &&
	    size < RINGBUF_EVENTS)
		size = RINGBUF_EVENTS;
	return size;
}

static int start(struct session *s, const struct session_opts *o)
{
	struct sampler_opts so = {
	    .freq_hz = o->freq,
	    .pids = o->pids,
	    .npids = o->npids,
	    .follow_children = o->cmd != NULL,
	    .ringbuf_bytes = ringbuf_size(o),
	    .unwind_rows = o->unwind_memory / sizeof(struct unwind_row),
	    .alloc_markers = o->alloc.mode == ALLOC_PRELOAD,
	    .alloc_kernel = o->alloc.mode == ALLOC_KERNEL,
	    .alloc_mean = o->alloc.mean,
	    .probes = o->probes,
	    .nprobes = o->nprobes,
	    .probe_first_event = 1,
	    .off_cpu_ppm = o->off_cpu_ppm,
	};
	uint32_t pid;
	int err;

	err = declare_events(s, o);
	if (err)
		return err;
	so.off_cpu_event = s->off_cpu_event;
	so.stop_event = s->stop_event;
	err = cgroup_filter__init(&s->cgroups, o->cgroups, o->ncgroups);
	if (err)
		return err;
	so.filter_cgroups = o->ncgroups > 0;
	so.cgroups = s->cgroups.ids;
	so.ncgroups = s->cgroups.nids;

	err = start_alloc(s, o);
	if (err)
		return err;
	if (s->alloc)
		so.alloc_event = alloc__event(s->alloc);
	err = interrupted();
	if (err)
		return err;
	if (o->cmd) {
		err = spawn_command(s, o);
		if (err) {
			pr_err("cannot start %s: %s", o->cmd[0], strerror(-err));
			return err;
		}
		pid = s->child.pid;
		so.pids = &pid;
		so.npids = 1;
	}
	err = load_programs(s, o, &so);
	if (!err)
		err = interrupted();
	if (err)
		return err;
	s->start_unix_ns = session__clock_ns(CLOCK_REALTIME);
	s->start_ns = session__clock_ns(CLOCK_MONOTONIC);
	s->ingest.mono_to_unix_ns = s->start_unix_ns - s->start_ns;
	if (o->cmd) {
		err = spawn__start(&s->child);
		if (err) {
			pr_err("cannot run %s: %s", o->cmd[0], strerror(-err));
			s->child.pid = 0;
		}
	}
	return err;
}

struct session *session__start(const struct session_opts *o)
{
	struct session *s = calloc(1, sizeof(*s));
	unsigned int errors;
	int err;

	if (!s) {
		pr_err("starting the recording: %s", strerror(errno));
		return NULL;
	}
	libbpf_set_print(libbpf_log);
	s->freq = o->freq;
	s->continuous = o->continuous;
	s->no_lines = o->no_lines;
	s->no_inline = o->no_inline;
	s->debug_cache = o->debug_cache;
	/* Off unless DEBUGINFOD_URLS is set; nothing is loaded before the first fetch. */
	s->debuginfod = debuginfod__new(0);
	file_table__init(&s->files);
	proc_table__init(&s->procs, &s->files);
	profile__init(&s->profile);
	s->profile.by_cpu = o->by_cpu;
	s->profile.keep_times = o->keep_times;
	ingest__init(&s->ingest, &s->procs, &s->profile);
	/* A recording's samples say their group and container (pprof labels); the agent's
	 * resource already says the container. */
	cgroup_names__init(&s->cgroup_names, NULL);
	if (!o->continuous)
		s->ingest.cgroups = &s->cgroup_names;
	/* Read while the programs are verified: it costs the end of a short recording
	 * hundreds of milliseconds otherwise. Failing to start the thread is not fatal. */
	s->ksyms_loading = ksyms__load_start("/proc/kallsyms");
	errors = log_errors();
	err = start(s, o);
	if (err == -EINTR && session_stop_signal) {
		pr_info("stopped by %s before sampling began: nothing was recorded",
			session_stop_signal == SIGINT	 ? "SIGINT"
			: session_stop_signal == SIGTERM ? "SIGTERM"
							 : "SIGHUP");
	} else if (err) {
		/* Every failure below should say what failed; if one did not, say this much. */
		if (log_errors() == errors)
			pr_err("starting the recording: %s", strerror(-err));
	}
	if (err) {
		session__free(s);
		errno = -err;
		return NULL;
	}
	return s;
}

static int allow_cgroup(void *ctx, uint64_t id)
{
	return sampler__allow_cgroup(ctx, id);
}

int session__poll(struct session *s, int timeout_ms)
{
	cgroup_filter__refresh(&s->cgroups, session__clock_ns(CLOCK_MONOTONIC), allow_cgroup,
			       s->sampler);
	return sampler__poll(s->sampler, timeout_ms);
}

int session__consume(struct session *s)
{
	return sampler__consume(s->sampler, SAMPLER_POLL_BUDGET_NS);
}

bool session__child_exited(struct session *s)
{
	int status;

	if (s->child.reaped)
		return true;
	if (!spawn__exited(&s->child))
		return false;
	status = s->child.status;
	if (WIFEXITED(status) && WEXITSTATUS(status))
		pr_debug("command exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		pr_info("command killed by signal %d (%s)", WTERMSIG(status),
			strsignal(WTERMSIG(status)));
	return true;
}

int session__failure_status(int err)
{
	return err == -EINTR && session_stop_signal ? 128 + session_stop_signal : 1;
}

bool session__settled(struct session *s)
{
	return !s->native || native__idle(s->native);
}

unsigned int session__ncpus(const struct session *s)
{
	return s->sampler ? sampler__ncpus(s->sampler) : s->ncpus;
}

void session__stop(struct session *s)
{
	if (!s->sampler)
		return;
	s->end_ns = session__clock_ns(CLOCK_MONOTONIC);
	startup__mark(EXIT_BEGIN);
	/* Stop first, so every sample counted in BPF is in the ring buffer when we drain
	 * it; what is there was sampled inside the window: keep it. */
	sampler__stop(s->sampler);
	if (sampler__consume(s->sampler, STOP_DRAIN_NS) >= 0)
		s->unread = sampler__discard(s->sampler);
	startup__mark(EXIT_DRAINED);
	native__stop(s->native);
	startup__mark(EXIT_TRACKER);
	/* After the tracker, which may have verified a runtime's walker meanwhile. */
	if (log_verbose)
		startup__print(s->loader);
	sampler__counters(s->sampler, s->counters);
	s->ncpus = sampler__ncpus(s->sampler);
	sampler__free(s->sampler);
	s->sampler = NULL;
	loader__free(s->loader);
	s->loader = NULL;
	startup__mark(EXIT_RELEASED);
}

const struct ksyms *session__ksyms(struct session *s)
{
	if (s->ksyms_done)
		return s->ksyms;
	s->ksyms_done = true;
	s->ksyms =
	    s->ksyms_loading ? ksyms__load_finish(s->ksyms_loading) : ksyms__load("/proc/kallsyms");
	s->ksyms_loading = NULL;
	if (!s->ksyms)
		pr_warn("kernel symbols unavailable (%s): kernel frames stay unnamed",
			strerror(errno));
	return s->ksyms;
}

void session__free(struct session *s)
{
	if (!s)
		return;
	if (s->ksyms_loading)
		ksyms__free(ksyms__load_finish(s->ksyms_loading));
	ksyms__free(s->ksyms);
	native__free(s->native);
	runtime_set__free(s->runtimes); /* after the tracker's thread, which calls it, stopped */
	sampler__free(s->sampler);
	alloc__free(s->alloc);
	loader__free(s->loader);
	cgroup_filter__free(&s->cgroups);
	cgroup_names__free(&s->cgroup_names);
	spawn__abort(&s->child);
	profile__free(&s->profile);
	proc_table__free(&s->procs);
	file_table__free(&s->files);
	debuginfod__free(s->debuginfod);
	free(s);
}

void session__print_runtimes(FILE *out)
{
	const struct runtime_ops *r;

	fputs("\nruntimes: frames of ", out);
	for (size_t i = 0; (r = runtime_registry__get(i)); i++)
		fprintf(out, "%s%s", i ? ", " : "", r->title);
	fputs(" are named and placed among the native ones,\nwith no flag and no agent in the "
	      "process (`ebprof check` says which this kernel runs)\n",
	      out);
}

void session__symbolizer(struct session *s, struct symbolizer *sym, const struct ksyms *k)
{
	symbolizer__init(sym, &s->files, k);
	sym->lines = !s->no_lines;
	sym->inlines = !s->no_inline;
	sym->debuginfod = s->debuginfod;
	sym->debug_cache = s->debug_cache;
	sym->debug_cache_bytes = DEBUG_CACHE_BYTES;
}
