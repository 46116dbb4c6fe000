// SPDX-License-Identifier: Apache-2.0
/* Concurrent BPF loading. Every program is verified inside its own bpf_object (opened
 * from the owner's ELF image, sharing the owner's maps by fd), so no two threads ever
 * touch the same libbpf object. Shared state changes (attaching, map updates) are the
 * callers' and happen only after loader__run returned success. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "loader/features.h"
#include "loader/loader.h"
#include "loader/load_costs.h"
#include "util/clock.h"
#include "util/crash.h"
#include "util/errstr.h"
#include "util/limits.h"
#include "util/log.h"

#define LOG_BUF_SIZE (1u << 20) /* a verifier log of the full 1 M-instruction walk fits */
#define MSG_BUF_SIZE (16u << 10)

struct load_job {
	struct loader_stat st;
	struct bpf_object *owner;
	const char *btf_custom_path;
	const void *elf;
	size_t elf_sz;
	char prog[64];
	struct bpf_object *obj; /* this job's own object, loaded with one program */
	bool stats_log;		/* ask for the verifier's statistics only (see job_run) */
	bool deferred;		/* verified only when asked (loader__run_pending) */
	char *log;		/* the verifier's log, on failure */
	char *msgs;		/* libbpf's messages while this job ran */
	size_t msgs_len;
};

struct loader {
	struct loader_opts opts;
	struct bpf_object_open_opts open_opts;
	struct load_job *jobs;
	size_t njobs, cap;
	struct bpf_object **owners;
	size_t nowners;
	unsigned int *order; /* job indices in start order */
	unsigned int *run;   /* the entries of order this run verifies */
	size_t nrun;
	atomic_size_t next;	      /* next entry of run to start */
	pthread_mutex_t pending_lock; /* one deferred run at a time */
	uint64_t maps_ns, verify_ns;
	uint64_t pending_ns; /* the deferred runs' verification, together */
	struct load_costs costs;
	char *btf_path; /* opts.btf_custom_path, ours */
	bool ran;
};

static __thread struct load_job *current_job;
static libbpf_print_fn_t outer_print;

/* libbpf's printer is process-wide: while jobs run, each thread's messages go to its
 * job, so logs are printed whole and in job order afterwards, never interleaved. */
static int capture_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	struct load_job *j = current_job;
	int n;

	if (!j)
		return outer_print ? outer_print(level, fmt, ap) : 0;
	if (level == LIBBPF_DEBUG && !log_verbose)
		return 0;
	if (!j->msgs && !(j->msgs = calloc(1, MSG_BUF_SIZE)))
		return 0;
	n = vsnprintf(j->msgs + j->msgs_len, MSG_BUF_SIZE - j->msgs_len, fmt, ap);
	if (n > 0)
		j->msgs_len += (size_t)n < MSG_BUF_SIZE - j->msgs_len ? (size_t)n : 0;
	return n;
}

struct loader *loader__new(const struct loader_opts *opts)
{
	struct loader *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->opts = *opts;
	/* Deferred jobs open their objects long after the caller's string is gone. */
	if (opts->btf_custom_path && !(l->btf_path = strdup(opts->btf_custom_path))) {
		free(l);
		return NULL;
	}
	l->opts.btf_custom_path = l->btf_path;
	l->open_opts.sz = sizeof(l->open_opts);
	l->open_opts.btf_custom_path = l->btf_path;
	pthread_mutex_init(&l->pending_lock, NULL);
	return l;
}

const struct bpf_object_open_opts *loader__open_opts(const struct loader *l)
{
	return &l->open_opts;
}

static void job_close(struct load_job *j)
{
	bpf_object__close(j->obj);
	j->obj = NULL;
}

void loader__free(struct loader *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->njobs; i++) {
		job_close(&l->jobs[i]);
		free(l->jobs[i].log);
		free(l->jobs[i].msgs);
		free((char *)l->jobs[i].st.name);
	}
	free(l->jobs);
	free(l->owners);
	free(l->order);
	free(l->run);
	free(l->btf_path);
	load_costs__free(&l->costs);
	pthread_mutex_destroy(&l->pending_lock);
	free(l);
}

static int add_job(struct loader *l, struct bpf_object *owner, const void *elf, size_t sz,
		   const struct bpf_program *p)
{
	struct load_job *j;
	char name[160];

	if (l->njobs == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct load_job *v = realloc(l->jobs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->jobs = v;
		l->cap = cap;
	}
	j = &l->jobs[l->njobs];
	memset(j, 0, sizeof(*j));
	snprintf(name, sizeof(name), "%s/%s", bpf_object__name(owner), bpf_program__name(p));
	snprintf(j->prog, sizeof(j->prog), "%s", bpf_program__name(p));
	j->st.name = strdup(name);
	if (!j->st.name)
		return -ENOMEM;
	j->owner = owner;
	j->btf_custom_path = l->opts.btf_custom_path;
	j->elf = elf;
	j->elf_sz = sz;
	j->st.insns = bpf_program__insn_cnt(p);
	j->st.err = -ECANCELED; /* until it runs */
	j->st.pending = true;
	l->njobs++;
	return 0;
}

int loader__add(struct loader *l, struct bpf_object *owner, const void *elf, size_t elf_sz)
{
	struct bpf_object **v = realloc(l->owners, (l->nowners + 1) * sizeof(*v));
	struct bpf_program *p;
	int err;

	if (!v)
		return -ENOMEM;
	l->owners = v;
	l->owners[l->nowners++] = owner;
	bpf_object__for_each_program(p, owner)
	{
		if (!bpf_program__autoload(p))
			continue;
		err = add_job(l, owner, elf, elf_sz, p);
		if (err)
			return err;
	}
	return 0;
}

static int reuse_maps(struct bpf_object *obj, const struct bpf_object *owner)
{
	struct bpf_map *m;
	int err;

	bpf_object__for_each_map(m, obj)
	{
		const struct bpf_map *om = bpf_object__find_map_by_name(owner, bpf_map__name(m));

		if (!om || bpf_map__fd(om) < 0)
			return -ENOENT;
		err = bpf_map__reuse_fd(m, bpf_map__fd(om));
		if (err)
			return err;
	}
	return 0;
}

/* Test hook: EBPROF_INJECT_FAILURE=load:PROG makes the kernel reject PROG (loaded as a
 * socket filter it may not call its helpers), so the suite can check a real failure. */
static bool inject_failure(const char *prog)
{
	const char *v = getenv("EBPROF_INJECT_FAILURE");

	return v && strncmp(v, "load:", 5) == 0 && strcmp(v + 5, prog) == 0;
}

/* Test hook: EBPROF_INJECT_FAILURE=slow:PROG verifies PROG INJECT_SLOW_S seconds late, as
 * a loaded host does, so the suite can check that nothing else waits for it. */
#define INJECT_SLOW_S 4
static bool inject_slow(const char *prog)
{
	const char *v = getenv("EBPROF_INJECT_FAILURE");

	return v && strncmp(v, "slow:", 5) == 0 && strcmp(v + 5, prog) == 0;
}

/* Enables only this job's program, with the owner's type settings and our log buffer. */
static int job_select(struct load_job *j)
{
	const struct bpf_program *op = bpf_object__find_program_by_name(j->owner, j->prog);
	struct bpf_program *p, *mine = NULL;

	bpf_object__for_each_program(p, j->obj)
	{
		bool is_mine = strcmp(bpf_program__name(p), j->prog) == 0;

		bpf_program__set_autoload(p, is_mine);
		if (is_mine)
			mine = p;
	}
	if (!mine || !op)
		return -ENOENT;
	bpf_program__set_type(mine, bpf_program__type(op));
	bpf_program__set_expected_attach_type(mine, bpf_program__expected_attach_type(op));
	if (inject_failure(j->prog))
		bpf_program__set_type(mine, BPF_PROG_TYPE_SOCKET_FILTER);
	/* Without a level libbpf loads without a log first and fills this only on failure;
	 * the statistics' level gets the count of processed instructions on kernels whose
	 * program info lacks it (before 5.16). */
	if (j->stats_log && bpf_program__set_log_level(mine, 4 /* BPF_LOG_STATS */))
		return -EINVAL;
	return bpf_program__set_log_buf(mine, j->log, LOG_BUF_SIZE);
}

static int job_open(struct load_job *j)
{
	LIBBPF_OPTS(bpf_object_open_opts, o, .object_name = bpf_object__name(j->owner),
		    .btf_custom_path = j->btf_custom_path);
	int err;

	if (!j->log)
		j->log = calloc(1, LOG_BUF_SIZE);
	if (!j->log)
		return -ENOMEM;
	j->log[0] = '\0';
	j->obj = bpf_object__open_mem(j->elf, j->elf_sz, &o);
	if (!j->obj)
		return -errno;
	err = reuse_maps(j->obj, j->owner);
	return err ? err : job_select(j);
}

static void job_run(struct load_job *j)
{
	struct bpf_prog_info info = {0};
	uint32_t len = sizeof(info);
	uint64_t t0 = now_ns();
	struct bpf_program *p;
	const char *line;
	int err;

	current_job = j;
	if (inject_slow(j->prog))
		sleep(INJECT_SLOW_S);
	j->stats_log = true;
	err = job_open(j);
	if (!err)
		err = bpf_object__load(j->obj);
	/* The statistics say nothing of why: load again for the verifier's whole log. */
	if (err && j->obj) {
		job_close(j);
		j->stats_log = false;
		j->msgs_len = 0;
		err = job_open(j);
		if (!err)
			err = bpf_object__load(j->obj);
	}
	j->st.verify_ns = now_ns() - t0;
	current_job = NULL;
	j->st.err = err;
	j->st.pending = false;
	if (err)
		return;
	p = bpf_object__find_program_by_name(j->obj, j->prog);
	if (p && !bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
		j->st.verified_insns = info.verified_insns;
	if (!j->st.verified_insns && (line = strstr(j->log, "processed ")))
		j->st.verified_insns = (uint32_t)strtoul(line + 10, NULL, 10);
	free(j->log);
	j->log = NULL;
}

static void *worker(void *arg)
{
	struct loader *l = arg;
	char name[16] = "";
	bool renamed;
	size_t k;

	/* For ps and bench/. The calling thread works in the pool too: a thread of ours
	 * (the runtimes' verifier, start-up) takes its own name back after. */
	renamed = gettid() != getpid() && !pthread_getname_np(pthread_self(), name, sizeof(name));
	if (renamed)
		pthread_setname_np(pthread_self(), "ebprof-load");
	while ((k = atomic_fetch_add(&l->next, 1)) < l->nrun)
		job_run(&l->jobs[l->run[k]]);
	if (renamed)
		pthread_setname_np(pthread_self(), name);
	return NULL;
}

static int by_cost_desc(const void *a, const void *b, void *ctx)
{
	const struct load_job *jobs = ctx;
	const struct loader_stat *x = &jobs[*(const unsigned int *)a].st;
	const struct loader_stat *y = &jobs[*(const unsigned int *)b].st;

	if (x->cost != y->cost)
		return x->cost < y->cost ? 1 : -1;
	return *(const unsigned int *)a < *(const unsigned int *)b ? -1 : 1;
}

/* Cost: the instructions the verifier processed for this program on an earlier run
 * (bpf_prog_info.verified_insns), which tracks verification time; without one, the
 * program's size, which misranks loops (few instructions, walked many times). */
static int plan(struct loader *l)
{
	load_costs__read(&l->costs, l->opts.cost_cache);
	l->order = calloc(l->njobs + 1, sizeof(*l->order));
	l->run = calloc(l->njobs + 1, sizeof(*l->run));
	if (!l->order || !l->run)
		return -ENOMEM;
	for (size_t i = 0; i < l->njobs; i++) {
		uint64_t seen = load_costs__get(&l->costs, l->jobs[i].st.name);

		l->jobs[i].st.cost = seen ? seen : l->jobs[i].st.insns;
		l->order[i] = i;
	}
	if (l->opts.order == LOADER_LONGEST_FIRST) {
		qsort_r(l->order, l->njobs, sizeof(*l->order), by_cost_desc, l->jobs);
	}
	for (size_t k = 0; k < l->njobs; k++)
		l->jobs[l->order[k]].st.rank = k;
	return 0;
}

/* Default pool: the CPUs this process may run on (taskset, cgroup cpusets), which can
 * be fewer than the online ones. */
static unsigned int pool_size(const struct loader *l)
{
	unsigned int n = l->opts.jobs;
	cpu_set_t set;

	if (!n)
		n = sched_getaffinity(0, sizeof(set), &set) ? 1 : CPU_COUNT(&set);
	if (!n)
		n = 1;
	return n < l->nrun ? n : (unsigned int)l->nrun;
}

static void run_pool(struct loader *l)
{
	unsigned int n = pool_size(l), started = 0;
	pthread_t *t = calloc(n, sizeof(*t));

	/* The calling thread is a worker too, so a failed thread start only slows us. */
	for (unsigned int i = 1; t && i < n; i++) {
		if (crash__thread_create(&t[started], worker, l) == 0)
			started++;
	}
	worker(l);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
}

/* An owner's maps named like a map of an earlier owner are that map: the walker
 * chain's objects share the ring buffer, the scratch records and the program arrays
 * this way. Each object's own .rodata/.bss stay its own. */
static int adopt_maps(struct loader *l, size_t i)
{
	struct bpf_map *m;
	int err;

	bpf_object__for_each_map(m, l->owners[i])
	{
		if (bpf_map__is_internal(m))
			continue;
		for (size_t k = 0; k < i; k++) {
			const struct bpf_map *om =
			    bpf_object__find_map_by_name(l->owners[k], bpf_map__name(m));

			if (!om || bpf_map__fd(om) < 0)
				continue;
			err = bpf_map__reuse_fd(m, bpf_map__fd(om));
			if (err)
				return err;
			break;
		}
	}
	return 0;
}

/* Before 5.13 perf_event programs only take preallocated hash maps: a map declared
 * allocated per element (BPF_F_NO_PREALLOC: per-process descriptions, blocked threads)
 * is preallocated then, for fewer entries (an unw_proc is 6 KiB: 2048 of them, 12 MiB). */
#define PREALLOC_MAX_ENTRIES 2048

static int preallocate(struct bpf_object *obj)
{
	struct bpf_map *m;
	int err = 0;

	if (kernel_features()->perf_alloc_maps)
		return 0;
	bpf_object__for_each_map(m, obj)
	{
		if (!(bpf_map__map_flags(m) & BPF_F_NO_PREALLOC))
			continue;
		err = bpf_map__set_map_flags(m, bpf_map__map_flags(m) & ~BPF_F_NO_PREALLOC);
		if (!err && bpf_map__max_entries(m) > PREALLOC_MAX_ENTRIES)
			err = bpf_map__set_max_entries(m, PREALLOC_MAX_ENTRIES);
		if (err)
			return err;
	}
	return 0;
}

/* Creates the owners' maps: every program disabled, so loading verifies nothing. */
static int load_owners(struct loader *l)
{
	for (size_t i = 0; i < l->nowners; i++) {
		struct bpf_program *p;
		int err;

		bpf_object__for_each_program(p, l->owners[i]) bpf_program__set_autoload(p, false);
		err = adopt_maps(l, i);
		if (!err)
			err = preallocate(l->owners[i]);
		if (err) {
			pr_err("sharing the maps of %s: %s", bpf_object__name(l->owners[i]),
			       errstr(err));
			return err;
		}
		err = bpf_object__load(l->owners[i]);
		if (err) {
			pr_err("creating the maps of %s: %s", bpf_object__name(l->owners[i]),
			       errstr(err));
			return err;
		}
	}
	return 0;
}

/* The line of a verifier log that says why: the last one before the statistics. */
static void log_reason(const char *log, char *out, size_t len)
{
	const char *end = log + strlen(log), *line;

	out[0] = '\0';
	while (end > log) {
		while (end > log && end[-1] == '\n')
			end--;
		line = end;
		while (line > log && line[-1] != '\n')
			line--;
		if (strncmp(line, "processed ", 10) && strncmp(line, "verification time", 17)) {
			snprintf(out, len, "%.*s", (int)(end - line), line);
			return;
		}
		end = line;
	}
}

static bool in_run(const struct loader *l, size_t i)
{
	for (size_t k = 0; k < l->nrun; k++) {
		if (l->run[k] == i)
			return true;
	}
	return false;
}

/* Every failure of this run (l->run), in job order: one line each with the verifier's
 * reason, the first log in full. */
static void report_failures(const struct loader *l)
{
	size_t failed = 0;
	bool full_shown = false;
	char reason[256];

	for (size_t k = 0; k < l->nrun; k++)
		failed += l->jobs[l->run[k]].st.err != 0;
	pr_err("loading BPF programs: %zu of %zu failed", failed, l->nrun);
	for (size_t i = 0; i < l->njobs; i++) {
		const struct load_job *j = &l->jobs[i];
		bool has_log = j->log && j->log[0];

		if (!j->st.err || j->st.pending || !in_run(l, i))
			continue;
		log_reason(has_log ? j->log : "", reason, sizeof(reason));
		pr_err("  %s: %s%s%s", j->st.name, errstr(j->st.err), reason[0] ? ": " : "",
		       reason);
		if (log_verbose && j->msgs)
			fputs(j->msgs, stderr);
		if (has_log && !full_shown) {
			fprintf(stderr, "--- verifier log of %s ---\n%s--- end of log ---\n",
				j->st.name, j->log);
			full_shown = true;
		}
	}
}

/* The first failure of this run, in job order, or 0. */
static int first_error(const struct loader *l)
{
	for (size_t i = 0; i < l->njobs; i++) {
		if (l->jobs[i].st.err && in_run(l, i))
			return l->jobs[i].st.err;
	}
	return 0;
}

/* Remembers what the verifier processed, for the next run's ordering. Wall time would
 * include waiting for a CPU and parsing; the kernel's count is deterministic. */
static void save_costs(struct loader *l)
{
	if (!l->opts.cost_cache)
		return;
	for (size_t i = 0; i < l->njobs; i++) {
		if (l->jobs[i].st.verified_insns)
			load_costs__set(&l->costs, l->jobs[i].st.name,
					l->jobs[i].st.verified_insns);
	}
	if (load_costs__write(&l->costs, l->opts.cost_cache))
		pr_debug("cannot save load costs to %s", l->opts.cost_cache);
}

/* Picks this run's jobs, in start order: the pending ones of owner (NULL: of every
 * owner) that are deferred, or, when deferred is false, that are not. */
static void select_run(struct loader *l, const struct bpf_object *owner, bool deferred)
{
	l->nrun = 0;
	for (size_t k = 0; k < l->njobs; k++) {
		const struct load_job *j = &l->jobs[l->order[k]];

		if (j->st.pending && j->deferred == deferred && (!owner || j->owner == owner))
			l->run[l->nrun++] = l->order[k];
	}
	atomic_store(&l->next, 0);
}

/* Verifies the selected jobs on the pool; on any failure reports every one of them and
 * closes their objects. Returns 0 or the first failure's errno. */
/* Verification is one burst of CPU (at start, and when a runtime is first met), and until
 * it ends a runtime's stacks stay native: on a busy host, where every CPU runs the
 * workloads, it ran at their priority and took ten times as long (a Go walker: 0.36 s
 * alone, 5 s beside seven Go processes in the 5.10 guest). So the calling thread, and the
 * pool's threads, which inherit its nice value, run it VERIFY_NICE_BOOST nicer than the
 * workloads for its duration; the CPU it takes is the same. Without the right to (no
 * CAP_SYS_NICE, RLIMIT_NICE) it runs as before. Returns the thread's nice value to go
 * back to, or INT_MIN when unchanged. */
#define VERIFY_NICE_BOOST 10
static int boost_thread(void)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	int was;

	errno = 0;
	was = getpriority(PRIO_PROCESS, (id_t)tid);
	if (errno || setpriority(PRIO_PROCESS, (id_t)tid, was - VERIFY_NICE_BOOST))
		return INT_MIN;
	return was;
}

static void unboost_thread(int was)
{
	if (was != INT_MIN)
		setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), was);
}

static int verify_run(struct loader *l, uint64_t *ns)
{
	uint64_t t0 = now_ns();
	int err, nice_was = boost_thread();

	outer_print = libbpf_set_print(capture_print);
	run_pool(l);
	libbpf_set_print(outer_print);
	unboost_thread(nice_was);
	*ns += now_ns() - t0;
	err = first_error(l);
	if (err) {
		report_failures(l);
		for (size_t k = 0; k < l->nrun; k++)
			job_close(&l->jobs[l->run[k]]);
		return err;
	}
	save_costs(l);
	return 0;
}

int loader__run(struct loader *l)
{
	uint64_t t0;
	int err;

	if (l->ran)
		return -EALREADY;
	l->ran = true;
	/* Locked memory (before 5.11) and an fd per program, map and BTF object. */
	limits__raise();
	outer_print = libbpf_set_print(capture_print);
	t0 = now_ns();
	err = load_owners(l);
	l->maps_ns = now_ns() - t0;
	libbpf_set_print(outer_print);
	if (!err)
		err = plan(l);
	if (err)
		return err;
	select_run(l, NULL, false);
	return verify_run(l, &l->verify_ns);
}

void loader__defer(struct loader *l, const struct bpf_object *owner)
{
	for (size_t i = 0; i < l->njobs; i++) {
		if (l->jobs[i].owner == owner)
			l->jobs[i].deferred = true;
	}
}

int loader__defer_program(struct loader *l, const struct bpf_object *owner, const char *name)
{
	for (size_t i = 0; i < l->njobs; i++) {
		struct load_job *j = &l->jobs[i];

		if (j->owner == owner && strcmp(j->prog, name) == 0) {
			j->deferred = true;
			return 0;
		}
	}
	return -ENOENT;
}

int loader__run_pending_apart(struct loader *l, const struct bpf_object *owner, uint64_t *ns)
{
	int err = 0;

	if (!l->ran)
		return -EINVAL;
	pthread_mutex_lock(&l->pending_lock);
	select_run(l, owner, true);
	if (l->nrun)
		err = verify_run(l, ns);
	pthread_mutex_unlock(&l->pending_lock);
	return err;
}

int loader__run_pending(struct loader *l, const struct bpf_object *owner)
{
	return loader__run_pending_apart(l, owner, &l->pending_ns);
}

struct bpf_program *loader__program(struct loader *l, const struct bpf_object *owner,
				    const char *name)
{
	for (size_t i = 0; i < l->njobs; i++) {
		struct load_job *j = &l->jobs[i];

		if (j->owner == owner && j->obj && !j->st.err && strcmp(j->prog, name) == 0)
			return bpf_object__find_program_by_name(j->obj, name);
	}
	return NULL;
}

size_t loader__njobs(const struct loader *l)
{
	return l->njobs;
}

const struct loader_stat *loader__stat(const struct loader *l, size_t i)
{
	return i < l->njobs ? &l->jobs[i].st : NULL;
}

void loader__phase_ns(const struct loader *l, uint64_t *maps_ns, uint64_t *verify_ns)
{
	*maps_ns = l->maps_ns;
	*verify_ns = l->verify_ns;
}

uint64_t loader__pending_ns(const struct loader *l)
{
	return l->pending_ns;
}
