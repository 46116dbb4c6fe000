// SPDX-License-Identifier: Apache-2.0
/* CPU sampler lifecycle: open the skeleton and set read-only config and map sizes
 * (prepare), let the loader load it, then fill the filter, open a perf event per online
 * CPU and attach the program to each (start), and poll the ring buffer. Every failure
 * path unwinds through sampler__free. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <linux/perf_event.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <bpf/bpf.h>

#include "chain.h"
#include "loader/counters.h"
#include "loader/cpus.h"
#include "loader/features.h"
#include "loader/loader.h"
#include "loader/probes.h"
#include "loader/sampler.h"
#include "loader/walkers.h"
#include "sample.h"
#include "sample.skel.h"
#include "util/clock.h"
#include "util/errstr.h"
#include "util/log.h"
#include "util/mapguard.h"
#include "util/safe_file.h"

struct sampler {
	struct sample_bpf *skel;
	struct ring_buffer *rb;
	int *pfds; /* perf event fds, one per entry of cpus */
	struct bpf_link **links;
	struct bpf_link *fork_link;
	struct bpf_link **uprobe_links; /* sampler__attach_uprobe */
	size_t nuprobe_links;
	struct bpf_link *exec_link;	  /* on_exec: a new image is described at once */
	struct bpf_link *exit_link;	  /* on_exit: a process's description is released */
	struct bpf_link *exit_stack_link; /* on_exit_stack: the stack an exit's samples get */
	/* on_exit_stack and the walkers only it needs (exit_types) are verified after
	 * sampling starts, on this thread, so they cost the start-up nothing. */
	pthread_t exit_thread;
	bool exit_thread_on;
	chain_types exit_types;
	struct loader *loader;
	struct bpf_link *off_cpu_link;
	struct probes *probes;
	sampler_cb cb;
	void *cb_ctx;
	/* The read budget (sampler__consume): records delivered, when to stop, and
	 * whether the last read stopped there. discard: count records, deliver none. */
	uint64_t delivered, discarded;
	uint64_t budget_end_ns;
	uint32_t since_clock;
	bool over_budget, discard;
	unsigned int ncpus_stopped; /* CPUs sampled before sampler__stop */
	struct sampler_opts opts;
	chain_types types;  /* entry program types loaded, and so walker types */
	unsigned int ncpus; /* entries used in pfds and links */
	unsigned int cpu_cap;
};

static int perf_open_cpu_clock(unsigned int freq, int cpu)
{
	struct perf_event_attr attr = {
	    .type = PERF_TYPE_SOFTWARE,
	    .size = sizeof(attr),
	    .config = PERF_COUNT_SW_CPU_CLOCK,
	    .sample_freq = freq,
	    .freq = 1,
	};
	int fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int explain_perf_error(int err, unsigned int freq)
{
	if (err == -EINVAL)
		pr_err("the kernel refused a %u Hz cpu-clock event: the frequency is above "
		       "kernel.perf_event_max_sample_rate (see sysctl); lower -F",
		       freq);
	else if (err == -EACCES || err == -EPERM)
		pr_err("perf events refused (%s): run as root or grant CAP_PERFMON, and check "
		       "kernel.perf_event_paranoid",
		       strerror(-err));
	else
		pr_err("perf_event_open: %s", strerror(-err));
	return err;
}

static int attach_cpus(struct sampler *s, struct loader *l, unsigned int freq)
{
	struct bpf_program *prog = loader__program(l, s->skel->obj, "on_cpu_sample");
	int *cpus = NULL, n, err = 0;

	if (!prog)
		return -ENOENT;
	n = online_cpus(&cpus);
	if (n < 0) {
		pr_err("cannot read the online CPUs: %s", strerror(-n));
		return n;
	}
	s->pfds = calloc(n, sizeof(*s->pfds));
	s->links = calloc(n, sizeof(*s->links));
	if (!s->pfds || !s->links) {
		err = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		int fd = perf_open_cpu_clock(freq, cpus[i]);

		/* A CPU that went offline since we read the list is not an error. */
		if (fd == -ENODEV)
			continue;
		if (fd < 0) {
			err = explain_perf_error(fd, freq);
			goto out;
		}
		s->pfds[s->ncpus] = fd;
		s->links[s->ncpus] = bpf_program__attach_perf_event(prog, fd);
		s->ncpus++;
		if (!s->links[s->ncpus - 1]) {
			err = -errno;
			pr_err("attaching to the perf event of CPU %d: %s", cpus[i], errstr(err));
			goto out;
		}
	}
	if (!s->ncpus) {
		pr_err("no online CPU accepted a perf event");
		err = -ENODEV;
	}
out:
	free(cpus);
	return err;
}

static int add_pid(struct sampler *s, uint32_t pid)
{
	uint8_t one = 1;

	if (bpf_map__update_elem(s->skel->maps.profiled_pids, &pid, sizeof(pid), &one, sizeof(one),
				 BPF_ANY))
		return -errno;
	return 0;
}

int sampler__allow_cgroup(struct sampler *s, uint64_t id)
{
	uint8_t one = 1;

	if (bpf_map__update_elem(s->skel->maps.profiled_cgroups, &id, sizeof(id), &one, sizeof(one),
				 BPF_ANY))
		return -errno;
	return 0;
}

static int fill_filter(struct sampler *s, const struct sampler_opts *o)
{
	for (size_t i = 0; i < o->ncgroups; i++) {
		int err = sampler__allow_cgroup(s, o->cgroups[i]);

		if (err) {
			pr_err("adding cgroup %llu to the filter: %s",
			       (unsigned long long)o->cgroups[i], strerror(-err));
			return err;
		}
	}
	for (size_t i = 0; i < o->npids; i++) {
		int err = add_pid(s, o->pids[i]);

		if (err) {
			pr_err("adding pid %u to the filter: %s", o->pids[i], strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Allocation programs are '?' (not loaded by default): enable the ones asked for, and
 * give the kernel-only sampler its mean and its log2 table (BPF has no floating point). */
static int enable_alloc(struct sampler *s, const struct sampler_opts *o)
{
	struct sample_bpf *k = s->skel;
	int err = 0;

	if (o->alloc_markers) {
		err = bpf_program__set_autoload(k->progs.on_alloc_sample, true);
		if (!err)
			err = bpf_program__set_autoload(k->progs.on_alloc_free, true);
	}
	if (!err && o->alloc_kernel) {
		err = bpf_program__set_autoload(k->progs.on_libc_alloc, true);
		k->rodata->alloc_mean = o->alloc_mean;
		for (int i = 0; i <= ALLOC_LOG2_STEPS; i++)
			k->rodata->alloc_log2_frac[i] =
			    (uint32_t)lround(log2(1.0 + (double)i / ALLOC_LOG2_STEPS) * 65536.0);
	}
	return err;
}

/* Off-CPU time and stops both take stacks at sched_switch. */
static bool switches(const struct sampler_opts *o)
{
	return o->off_cpu_event || o->stop_event;
}

/* The probe and off-CPU programs load only when asked for. */
static int select_programs(struct sampler *s, const struct sampler_opts *o)
{
	int err = probes__select(s->skel->obj, o->probes, o->nprobes);

	if (!err)
		err = bpf_program__set_autoload(s->skel->progs.on_exit_stack, true);
	if (err)
		return err;
	if (switches(o))
		return bpf_program__set_autoload(s->skel->progs.on_sched_switch, true);
	/* Without off-CPU time the map is never written. */
	return bpf_map__set_max_entries(s->skel->maps.off_cpu_pending, 1);
}

/* The row pool is at most UNWIND_MAX_CHUNKS chunks of 64 Ki rows (1 MiB), as many as
 * fit the budget, made as tables need them: an idle host holds a few, a compiler's
 * libraries a few dozen, and the budget bounds them, not their size. Past 512 MiB the
 * chunks grow instead, so their descriptors stay a few hundred; below 1 MiB one chunk
 * is the budget (at least 16 Ki rows). */
#define UNWIND_CHUNK_SHIFT 16
#define UNWIND_MIN_CHUNK_SHIFT 14
#define UNWIND_MAX_CHUNKS 512

static int size_row_pool(struct sampler *s, uint32_t rows)
{
	uint32_t shift = UNWIND_CHUNK_SHIFT;

	while (shift > UNWIND_MIN_CHUNK_SHIFT && rows < 1u << shift)
		shift--;
	while (shift < 31 && (rows >> shift) > UNWIND_MAX_CHUNKS)
		shift++;
	s->skel->rodata->unwind_chunk_shift = shift;
	return bpf_map__set_max_entries(s->skel->maps.unwind_rows,
					rows >> shift ? rows >> shift : 1);
}

/* Which entry program types collect stacks in this session: each needs the walkers
 * of its type (a program array holds one type). */
static chain_types entry_types(const struct sampler_opts *o)
{
	chain_types t = 1u << CHAIN_PERF;

	for (size_t i = 0; i < o->nprobes; i++)
		t |= 1u << (o->probes[i].kind == PROBE_TRACEPOINT ? CHAIN_TP : CHAIN_UPROBE);
	if (o->alloc_markers || o->alloc_kernel)
		t |= 1u << CHAIN_UPROBE;
	if (switches(o))
		t |= 1u << CHAIN_RAWTP;
	return t;
}

/* The native walker and the submitter, of types. on_exit_stack's raw tracepoint chain
 * walks natively only: the runtimes' walkers load for the entries' types alone
 * (sampler__chain_types). */
static int enable_walkers(struct sampler *s, chain_types types)
{
	int err = walkers__enable(s->skel->obj, "native_walk", types);

	return err ? err : walkers__enable(s->skel->obj, "submit_walk", types);
}

static int install_walkers(struct sampler *s, struct loader *l, chain_types types)
{
	int err = walkers__install(l, s->skel->obj, "native_walk", WALKER_NATIVE, types);

	return err ? err : walkers__install(l, s->skel->obj, "submit_walk", WALKER_SUBMIT, types);
}

/* After loader__add: on_exit_stack, and the raw tracepoint chain's walkers unless
 * off-CPU time needs them at once, wait for exit_stacks_main. */
static int defer_exit_stacks(struct sampler *s, struct loader *l)
{
	int err = loader__defer_program(l, s->skel->obj, "on_exit_stack");

	if (!err && s->exit_types)
		err = walkers__defer(l, s->skel->obj, "native_walk", s->exit_types);
	if (!err && s->exit_types)
		err = walkers__defer(l, s->skel->obj, "submit_walk", s->exit_types);
	return err;
}

/* Tells the programs what the kernel has. Without attach cookies each program reads
 * one fixed cookie, so only what one attachment per program can do is allowed. */
static int set_features(struct sampler *s, const struct sampler_opts *o)
{
	const struct kernel_features *f = kernel_features();
	struct sample_bpf *k = s->skel;

	k->rodata->have_task_pt_regs = f->task_pt_regs;
	k->rodata->have_attach_cookie = f->attach_cookie;
	if (f->attach_cookie)
		return 0;
	if (o->alloc_kernel) {
		pr_err("--alloc-kernel needs Linux 5.15 (bpf_get_attach_cookie); use --alloc");
		return -ENOTSUP;
	}
	k->rodata->alloc_cookie = o->alloc_event;
	return probes__fixed_cookies(o->probes, o->nprobes, o->probe_first_event,
				     (uint64_t *)&k->rodata->uprobe_cookie,
				     (uint64_t *)&k->rodata->tracepoint_cookie);
}

/* Opens the skeleton and sets what must be fixed before load: read-only config and
 * the ring buffer's size. The loader loads it. */
static int prepare(struct sampler *s, const struct sampler_opts *o, struct loader *l)
{
	const void *elf;
	size_t sz;
	int err;

	s->skel = sample_bpf__open_opts(loader__open_opts(l));
	if (!s->skel) {
		err = -errno;
		pr_err("opening the BPF object: %s", errstr(err));
		return err;
	}
	s->skel->rodata->filter_pids = o->pids != NULL;
	s->skel->rodata->filter_cgroups = o->filter_cgroups;
	s->skel->rodata->follow_children = o->follow_children;
	s->skel->rodata->wakeup_bytes = o->ringbuf_bytes / 4;
	s->skel->rodata->off_cpu_event = o->off_cpu_event;
	s->skel->rodata->off_cpu_ppm = o->off_cpu_ppm;
	s->skel->rodata->stop_event = o->stop_event;
	err = set_features(s, o);
	if (!err)
		err = bpf_map__set_max_entries(s->skel->maps.samples, o->ringbuf_bytes);
	if (!err)
		err = select_programs(s, o);
	/* Without a filter the map is never read: do not pay 1.25 MiB for it. */
	if (!err && !o->pids)
		err = bpf_map__set_max_entries(s->skel->maps.profiled_pids, 1);
	if (!err && !o->filter_cgroups)
		err = bpf_map__set_max_entries(s->skel->maps.profiled_cgroups, 1);
	if (!err && o->unwind_rows)
		err = size_row_pool(s, o->unwind_rows);
	if (!err)
		err = enable_alloc(s, o);
	s->types = entry_types(o);
	s->exit_types = (1u << CHAIN_RAWTP) & ~s->types;
	if (!err)
		err = enable_walkers(s, s->types | s->exit_types);
	if (err)
		return err;
	elf = sample_bpf__elf_bytes(&sz);
	err = loader__add(l, s->skel->obj, elf, sz);
	return err ? err : defer_exit_stacks(s, l);
}

static int attach_off_cpu(struct sampler *s, struct loader *l)
{
	struct bpf_program *p = loader__program(l, s->skel->obj, "on_sched_switch");
	int err;

	if (!switches(&s->opts))
		return 0;
	if (!p)
		return -ENOENT;
	s->off_cpu_link = bpf_program__attach(p);
	if (!s->off_cpu_link) {
		err = -errno;
		pr_err("attaching the sched_switch tracepoint (off-CPU time, stops): %s",
		       errstr(err));
		return err;
	}
	return 0;
}

static int attach_tracepoint(struct loader *l, struct sampler *s, const char *prog,
			     struct bpf_link **link)
{
	struct bpf_program *p = loader__program(l, s->skel->obj, prog);
	int err;

	if (!p)
		return -ENOENT;
	*link = bpf_program__attach(p);
	if (!*link) {
		err = -errno;
		pr_err("attaching %s: %s", prog, errstr(err));
		return err;
	}
	return 0;
}

/* The stack an exit's samples get (on_exit_stack) is a better stack, not a need. Verified
 * here, after sampling started; sampler__stop joins the thread. */
static void *exit_stacks_main(void *arg)
{
	struct sampler *s = arg;
	struct bpf_object *obj = s->skel->obj;
	struct bpf_program *p;
	uint64_t verify_ns = 0; /* not the runtimes' verify_later */
	int err;

	pthread_setname_np(pthread_self(), "ebprof-exits"); /* for ps and bench/ */
	err = loader__run_pending_apart(s->loader, obj, &verify_ns);
	if (!err)
		err = install_walkers(s, s->loader, s->exit_types);
	p = err ? NULL : loader__program(s->loader, obj, "on_exit_stack");
	s->exit_stack_link = p ? bpf_program__attach(p) : NULL;
	if (!s->exit_stack_link)
		pr_debug("exit stacks: %s: samples of exiting processes lack their user stack",
			 errstr(err ? err : -errno));
	return NULL;
}

static void start_exit_stacks(struct sampler *s, struct loader *l)
{
	int err;

	s->loader = l;
	err = pthread_create(&s->exit_thread, NULL, exit_stacks_main, s);
	if (err)
		pr_debug("no exit stacks: %s", strerror(err));
	s->exit_thread_on = !err;
}

static void stop_exit_stacks(struct sampler *s)
{
	if (s->exit_thread_on)
		pthread_join(s->exit_thread, NULL);
	s->exit_thread_on = false;
	bpf_link__destroy(s->exit_stack_link);
	s->exit_stack_link = NULL;
}

/* Process lifecycle: fork (follows children), exec and exit (notices that keep the
 * descriptions current; without on_exec a command stays undescribed until sampled). */
static int attach_fork(struct sampler *s, struct loader *l)
{
	int err = attach_tracepoint(l, s, "on_fork", &s->fork_link);

	if (!err)
		err = attach_tracepoint(l, s, "on_exec", &s->exec_link);
	if (!err)
		err = attach_tracepoint(l, s, "on_exit", &s->exit_link);
	return err;
}

/* The leak EBPROF_INJECT_FAILURE=leak-map makes: one map's descriptor copied without
 * O_CLOEXEC, so a program started then (sleep, for a minute) keeps the map after ebprof
 * exits, as a forgotten O_CLOEXEC would. The suite's leak check must catch it. */
static int leak_map(struct sampler *s)
{
	char *argv[] = {"sleep", "60", NULL};
	int fd = fcntl(bpf_map__fd(s->skel->maps.profiled_pids), F_DUPFD, 3), err;
	pid_t pid;

	if (fd < 0)
		return -errno;
	err = -posix_spawn(&pid, "/bin/sleep", NULL, NULL, argv, environ);
	close(fd);
	if (!err)
		pr_warn("injected leak: map profiled_pids held by pid %d (EBPROF_INJECT_FAILURE)",
			pid);
	return err;
}

/* Test hook: EBPROF_INJECT_FAILURE=after-attach fails once everything is attached, and
 * =crash-after-attach crashes there, so the suite can prove that a late failure leaves
 * nothing behind and that a crash says where it happened; =leak-map leaks (leak_map). */
static int injected_failure(struct sampler *s)
{
	const char *v = getenv("EBPROF_INJECT_FAILURE");

	if (v && strcmp(v, "crash-after-attach") == 0)
		raise(SIGSEGV);
	if (v && strcmp(v, "leak-map") == 0)
		return leak_map(s);
	if (v && strcmp(v, "after-attach") == 0) {
		pr_err("injected failure after attaching (EBPROF_INJECT_FAILURE)");
		return -ECANCELED;
	}
	return 0;
}

int sampler__prepare(struct sampler **out, const struct sampler_opts *opts, struct loader *l)
{
	struct sampler *s = calloc(1, sizeof(*s));
	int err;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->opts = *opts;
	err = prepare(s, opts, l);
	if (err) {
		sampler__free(s);
		return err;
	}
	*out = s;
	return 0;
}

/* Reading the clock after every record would cost more than a cheap record; a record's
 * ingest is microseconds, so every CLOCK_EVERY records bounds the overshoot well. */
#define CLOCK_EVERY 8

/* libbpf reads the ring until it is empty, which never happens while BPF writes faster
 * than the callback ingests: past the budget this returns -EAGAIN, on which libbpf
 * stops with the record consumed, and sampler__consume returns to its caller. */
static int on_ring_record(void *ctx, void *data, size_t size)
{
	struct sampler *s = ctx;
	int err;

	if (s->discard) {
		s->discarded++;
		return 0;
	}
	err = s->cb(s->cb_ctx, data, size);
	s->delivered++;
	if (err)
		return err < 0 ? err : -ECANCELED;
	if (++s->since_clock < CLOCK_EVERY)
		return 0;
	s->since_clock = 0;
	if (now_ns() < s->budget_end_ns)
		return 0;
	s->over_budget = true;
	return -EAGAIN;
}

int sampler__start(struct sampler *s, struct loader *l, sampler_cb cb, void *ctx)
{
	int err;

	/* Before anything is attached: an entry whose chain is empty loses its events. */
	err = install_walkers(s, l, s->types);
	if (!err)
		err = fill_filter(s, &s->opts);
	if (err)
		return err;
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.samples), on_ring_record, s, NULL);
	if (!s->rb) {
		err = -errno;
		pr_err("opening the ring buffer: %s", errstr(err));
		return err;
	}
	s->cb = cb;
	s->cb_ctx = ctx;
	err = attach_fork(s, l);
	if (!err)
		err = probes__attach(&s->probes, l, s->skel->obj, s->opts.probes, s->opts.nprobes,
				     s->opts.probe_first_event);
	if (!err)
		err = attach_off_cpu(s, l);
	if (!err)
		err = attach_cpus(s, l, s->opts.freq_hz);
	if (!err)
		start_exit_stacks(s, l);
	if (!err)
		err = injected_failure(s);
	return err;
}

int sampler__attach_uprobe(struct sampler *s, struct loader *l, const char *prog, const char *path,
			   const char *func, int pid, uint64_t cookie)
{
	/* Without cookies the program reads its fixed one (set_features). */
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = func,
		    .bpf_cookie = kernel_features()->attach_cookie ? cookie : 0);
	struct bpf_program *p = loader__program(l, s->skel->obj, prog);
	char why[SAFE_FILE_WHY], fd_path[32];
	struct bpf_link **v, *link;
	unsigned int guard;
	int err, fd;

	if (!p)
		return -ENOENT;
	v = realloc(s->uprobe_links, (s->nuprobe_links + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->uprobe_links = v;
	/* The file (a process's libc, through its root) opened once without blocking, and
	 * read by libbpf as that very file; libbpf maps it: guarded (mapguard.h). */
	fd = safe_file__open(path, SAFE_FILE_FOLLOW, 0, NULL, why);
	if (fd < 0) {
		pr_err("attaching a uprobe to %s: %s %s", func, path, why);
		return fd;
	}
	snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fd);
	guard = mapguard__begin();
	link = bpf_program__attach_uprobe_opts(p, pid, fd_path, 0, &uo);
	err = link ? 0 : -errno;
	if (mapguard__end(guard)) {
		bpf_link__destroy(link);
		link = NULL;
		err = -EIO;
	}
	close(fd);
	if (!link) {
		pr_err("attaching a uprobe to %s in %s: %s", func, path, errstr(err));
		return err;
	}
	v[s->nuprobe_links++] = link;
	return 0;
}

/* Same scaling as off_cpu_value() in BPF. */
static uint64_t off_cpu_value(uint64_t delta, uint32_t ppm)
{
	ppm = ppm ? ppm : 1;
	return delta / ppm * 1000000 + delta % ppm * 1000000 / ppm;
}

/* Threads still blocked at the end count up to now: a sleep longer than the recording
 * is not lost. Called once nothing can add to or take from the map any more. */
static void flush_off_cpu(struct sampler *s)
{
	struct bpf_map *m = s->skel->maps.off_cpu_pending;
	struct sample_record *r = malloc(sizeof(*r));
	uint64_t now = 0;
	uint32_t key, next;
	struct timespec ts;
	bool first = true;

	if (!r || !s->cb)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	while (!bpf_map__get_next_key(m, first ? NULL : &key, &next, sizeof(next))) {
		first = false;
		key = next;
		if (bpf_map__lookup_elem(m, &key, sizeof(key), r, sizeof(*r), 0))
			continue;
		r->value = now > r->time_ns ? now - r->time_ns : 0;
		if (!s->opts.stop_event || r->event != s->opts.stop_event)
			r->value = off_cpu_value(r->value, s->opts.off_cpu_ppm);
		s->cb(s->cb_ctx, r, sizeof(*r));
	}
out:
	free(r);
}

void sampler__stop(struct sampler *s)
{
	bool off_cpu = s->off_cpu_link != NULL;

	stop_exit_stacks(s);
	/* Reverse order of creation: CPU links and events, off-CPU, probes. */
	for (unsigned int i = 0; i < s->ncpus; i++) {
		bpf_link__destroy(s->links[i]);
		close(s->pfds[i]);
	}
	if (s->ncpus)
		s->ncpus_stopped = s->ncpus;
	s->ncpus = 0;
	for (size_t i = 0; i < s->nuprobe_links; i++)
		bpf_link__destroy(s->uprobe_links[i]);
	s->nuprobe_links = 0;
	bpf_link__destroy(s->off_cpu_link);
	s->off_cpu_link = NULL;
	probes__free(s->probes);
	s->probes = NULL;
	if (off_cpu)
		flush_off_cpu(s);
}

void sampler__free(struct sampler *s)
{
	if (!s)
		return;
	sampler__stop(s);
	free(s->links);
	free(s->pfds);
	free(s->uprobe_links);
	bpf_link__destroy(s->exit_link);
	bpf_link__destroy(s->exec_link);
	bpf_link__destroy(s->fork_link);
	ring_buffer__free(s->rb);
	sample_bpf__destroy(s->skel);
	free(s);
}

int sampler__consume(struct sampler *s, uint64_t budget_ns)
{
	uint64_t before = s->delivered, n;
	int err;

	s->budget_end_ns = now_ns() + budget_ns;
	s->since_clock = 0;
	s->over_budget = false;
	err = ring_buffer__consume(s->rb);
	if (err < 0 && !s->over_budget)
		return err;
	n = s->delivered - before;
	return n > INT_MAX ? INT_MAX : (int)n;
}

int sampler__poll(struct sampler *s, int timeout_ms)
{
	struct epoll_event ev;

	/* Samples do not wake us one by one (wakeup_bytes): read what waits anyway, after
	 * a wakeup, the timeout or a signal alike. */
	if (epoll_wait(ring_buffer__epoll_fd(s->rb), &ev, 1, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	return sampler__consume(s, SAMPLER_POLL_BUDGET_NS);
}

uint64_t sampler__discard(struct sampler *s)
{
	uint64_t before = s->discarded;

	s->discard = true;
	ring_buffer__consume(s->rb);
	s->discard = false;
	return s->discarded - before;
}

int sampler__counters(struct sampler *s, uint64_t out[CTR__COUNT])
{
	return counters__sum(bpf_map__fd(s->skel->maps.counters), out, CTR__COUNT);
}

void sampler__maps(const struct sampler *s, struct sampler_maps *out)
{
	*out = (struct sampler_maps){
	    .pid_to_mappings = bpf_map__fd(s->skel->maps.pid_to_mappings),
	    .unwind_tables = bpf_map__fd(s->skel->maps.unwind_tables),
	    .unwind_tables_max = bpf_map__max_entries(s->skel->maps.unwind_tables),
	    .unwind_rows = bpf_map__fd(s->skel->maps.unwind_rows),
	    .unwind_chunks_max = bpf_map__max_entries(s->skel->maps.unwind_rows),
	    .unwind_chunk_shift = s->skel->rodata->unwind_chunk_shift,
	    .file_tables = bpf_map__fd(s->skel->maps.file_tables),
	    .table_used = bpf_map__fd(s->skel->maps.table_used),
	};
}

chain_types sampler__chain_types(const struct sampler *s)
{
	return s->types;
}

unsigned int sampler__ncpus(const struct sampler *s)
{
	return s->ncpus ? s->ncpus : s->ncpus_stopped;
}
