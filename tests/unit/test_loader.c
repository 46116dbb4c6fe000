// SPDX-License-Identifier: Apache-2.0
/* Loader tests (root; skipped otherwise): every program verified, one forced failure
 * among several leaves no program, map or descriptor behind and reports every error
 * without interleaving, measured costs put the slowest program first where instruction
 * counts would not, and every ebprof program stays within the verifier budget.
 * The leak checks see only this process's own objects, whatever else the host loads
 * meanwhile: main() runs the tests again with $BUILD/tests/libbpf_log.so preloaded, which
 * logs the id of every BPF object the process creates (tests/leaks/bpf_log.c), and
 * bpf_gone looks exactly those up. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ebprof_shared.h"
#include "chain.h"
#include "harness.h"
#include "shell.h"
#include "interp/runtime.h"
#include "loader/probes.h"
#include "loader/features.h"
#include "loader/loader.h"
#include "loader/sampler.h"
#include "loadtest.skel.h"

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* The tests' BPF log (EBPROF_BPF_LOG, written by the preloaded libbpf_log.so). */
static const char *bpf_log;

/* Where the leak tools are: $BUILD/tests. */
static const char *build_dir(void)
{
	const char *build = getenv("BUILD");

	return build && build[0] ? build : "build";
}

/* From here on, the log holds only the objects created after this call. */
static void objects_track(void)
{
	CHECK(truncate(bpf_log, 0) == 0);
}

/* Did the process create an object of KIND ("prog", "map") since objects_track? */
static bool objects_logged(const char *kind)
{
	return run("grep -q '^%s ' %s", kind, bpf_log) == 0;
}

/* Are the objects created since objects_track all gone within wait_ms? bpf_gone names a
 * survivor and its holder on stderr, unless quiet. */
static bool objects_gone(int wait_ms, bool quiet)
{
	return run("%s/tests/bpf_gone %s %d >%s", build_dir(), bpf_log, wait_ms,
		   quiet ? "/dev/null" : "&2") == 0;
}

static const struct loader_stat *stat_named(struct loader *l, const char *suffix)
{
	for (size_t i = 0; i < loader__njobs(l); i++) {
		const struct loader_stat *s = loader__stat(l, i);
		const char *slash = strrchr(s->name, '/');

		if (slash && strcmp(slash + 1, suffix) == 0)
			return s;
	}
	return NULL;
}

/* Loads the three loadtest programs, long_but_fast made invalid when fail is set;
 * returns loader__run's result. */
static int load_loadtest(struct loadtest_bpf **skel, struct loader **l, const struct loader_opts *o,
			 bool fail)
{
	const void *elf;
	size_t sz;

	*skel = loadtest_bpf__open();
	*l = loader__new(o);
	if (!*skel || !*l)
		return -ENOMEM;
	(*skel)->rodata->fail_index = fail ? 100 : 0;
	elf = loadtest_bpf__elf_bytes(&sz);
	if (loader__add(*l, (*skel)->obj, elf, sz))
		return -ENOMEM;
	return loader__run(*l);
}

/* The calling thread's nice value (verification runs nicer, then puts it back). */
static int thread_nice(void)
{
	return getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
}

static void test_all_programs_load(void)
{
	struct loader_opts o = {.jobs = 2};
	int fds = count_fds(), nice = thread_nice();
	struct loadtest_bpf *skel;
	struct loader *l;

	objects_track();
	CHECK(load_loadtest(&skel, &l, &o, false) == 0);
	CHECK(thread_nice() == nice);
	CHECK(loader__njobs(l) == 3);
	for (size_t i = 0; i < loader__njobs(l); i++) {
		CHECK(loader__stat(l, i)->err == 0);
		CHECK(loader__stat(l, i)->verified_insns > 0);
	}
	CHECK(loader__program(l, skel->obj, "trivial") != NULL);
	/* The check sees the objects: while they are held, it fails. */
	CHECK(objects_logged("prog") && objects_logged("map"));
	CHECK(!objects_gone(0, true));
	loader__free(l);
	loadtest_bpf__destroy(skel);
	CHECK(count_fds() == fds);
	CHECK(objects_gone(10000, false));
}

/* Runs fn with stderr captured into buf. */
static int with_stderr(char *buf, size_t len, int (*fn)(void *), void *arg)
{
	char path[] = "/tmp/ebprof-loader-XXXXXX";
	int fd = mkstemp(path), saved = dup(2), ret;
	ssize_t n;

	dup2(fd, 2);
	ret = fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, buf, len - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
	return ret;
}

struct fail_run {
	struct loadtest_bpf *skel;
	struct loader *l;
};

static int run_failing(void *arg)
{
	struct fail_run *r = arg;
	struct loader_opts o = {.jobs = 1};

	return load_loadtest(&r->skel, &r->l, &o, true);
}

/* The verifier log is one block: no other message inside it. */
static bool log_is_one_block(const char *out)
{
	const char *start = strstr(out, "--- verifier log of"), *end, *p;

	if (!start || !(end = strstr(start, "--- end of log ---")))
		return false;
	if (strstr(end + 1, "--- verifier log of"))
		return false; /* only the first log is printed in full */
	for (p = strchr(start, '\n'); p && p < end; p = strchr(p + 1, '\n')) {
		if (strncmp(p + 1, "ebprof:", 7) == 0)
			return false;
	}
	return true;
}

static void test_one_failure_cleans_up(void)
{
	int fds = count_fds();
	static char out[1 << 20];
	struct fail_run r = {0};
	const struct loader_stat *bad, *good;

	objects_track();
	CHECK(with_stderr(out, sizeof(out), run_failing, &r) < 0);
	if (getenv("TEST_LOADER_SHOW"))
		fputs(out, stderr);
	bad = stat_named(r.l, "long_but_fast");
	good = stat_named(r.l, "short_but_slow");
	CHECK(bad && bad->err < 0);
	CHECK(good && good->err == 0); /* it ran, and was closed because of the other */
	CHECK(loader__program(r.l, r.skel->obj, "short_but_slow") == NULL);
	CHECK(strstr(out, "1 of 3 failed") != NULL);
	CHECK(strstr(out, "loadtest_bpf/long_but_fast") != NULL);
	CHECK(log_is_one_block(out));
	loader__free(r.l);
	loadtest_bpf__destroy(r.skel);
	CHECK(count_fds() == fds);
	CHECK(objects_logged("prog"));
	CHECK(objects_gone(10000, false));
}

/* Instruction count puts the long straight-line program first; the verifier's own count
 * from a previous run puts the short loop first, and it is the one that costs more. */
static void test_measured_cost_ranks_first(void)
{
	/* A private directory: the cache is read back only from one nobody else may write. */
	char dir[] = "/tmp/ebprof-costs-XXXXXX", cache[64];
	struct loader_opts o = {.jobs = 1, .cost_cache = cache};
	const struct loader_stat *slow, *longp;
	struct loadtest_bpf *skel;
	struct loader *l;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(cache, sizeof(cache), "%s/load-costs", dir);
	CHECK(load_loadtest(&skel, &l, &o, false) == 0);
	slow = stat_named(l, "short_but_slow");
	longp = stat_named(l, "long_but_fast");
	CHECK(slow && longp);
	if (slow && longp) {
		CHECK(longp->insns > slow->insns);
		CHECK(longp->rank == 0); /* no history: ranked by size */
		CHECK(slow->verified_insns > 10 * longp->verified_insns);
	}
	loader__free(l);
	loadtest_bpf__destroy(skel);

	CHECK(load_loadtest(&skel, &l, &o, false) == 0);
	slow = stat_named(l, "short_but_slow");
	CHECK(slow && slow->rank == 0); /* history: the expensive one first */
	CHECK(stat_named(l, "trivial")->rank == 2);
	loader__free(l);
	loadtest_bpf__destroy(skel);
	unlink(cache);
	rmdir(dir);
}

static void test_build_order(void)
{
	struct loader_opts o = {.jobs = 2, .order = LOADER_BUILD_ORDER};
	struct loadtest_bpf *skel;
	struct loader *l;

	CHECK(load_loadtest(&skel, &l, &o, false) == 0);
	for (size_t i = 0; i < loader__njobs(l); i++)
		CHECK(loader__stat(l, i)->rank == i);
	loader__free(l);
	loadtest_bpf__destroy(skel);
}

/* Every program ebprof ships, loaded the way ebprof loads it, within the budget. */
/* Every program of every chain: all entry types (a tracepoint probe, uprobe-type
 * allocation programs, off-CPU time) with every runtime's walker for each type. The
 * kernel-only allocator probes need attach cookies (5.15); without them ebprof refuses
 * --alloc-kernel, so they are never loaded there. */
static void test_verifier_budget(void)
{
	struct probe_spec probe = {0};
	char why[128];
	struct sampler_opts so = {.freq_hz = 99,
				  .ringbuf_bytes = 1 << 20,
				  .alloc_markers = true,
				  .alloc_kernel = kernel_features()->attach_cookie,
				  .alloc_mean = 4096,
				  .off_cpu_event = 2,
				  .off_cpu_ppm = 1000000,
				  .probes = &probe,
				  .nprobes = 1,
				  .probe_first_event = 1};
	struct proc_table procs = {0};
	struct runtime_set *rs = runtime_set__new(&(struct runtime_env){.procs = &procs});
	struct loader_opts o = {0};
	struct sampler *s = NULL;
	struct loader *l = loader__new(&o);

	CHECK(probe_spec__parse("tracepoint:sched:sched_process_fork", &probe, why, sizeof(why)) ==
	      0);
	CHECK(l && rs && sampler__prepare(&s, &so, l) == 0);
	CHECK(sampler__chain_types(s) == (1u << CHAIN__COUNT) - 1);
	CHECK(runtime_set__prepare(rs, l, sampler__chain_types(s)) == 0);
	CHECK(loader__run(l) == 0);
	/* The runtimes' walkers are deferred (verified when a runtime is found): now. */
	CHECK(loader__run_pending(l, NULL) == 0);
	CHECK(loader__njobs(l) >= 4 * CHAIN__COUNT);
	for (size_t i = 0; i < loader__njobs(l); i++) {
		const struct loader_stat *st = loader__stat(l, i);

		printf("  %s: %u verified instructions (budget %d)\n", st->name, st->verified_insns,
		       LOADER_VERIFIER_BUDGET);
		CHECK(st->verified_insns > 0);
		CHECK(st->verified_insns <= LOADER_VERIFIER_BUDGET);
	}
	sampler__free(s);
	loader__free(l);
}

/* Runs this program again with the BPF log preloaded into it, logging to a new file;
 * returns only when that fails. */
static int exec_tracked(char **argv)
{
	const char *preload = getenv("LD_PRELOAD");
	char lib[PATH_MAX], env[2 * PATH_MAX], self[PATH_MAX],
	    path[] = "/tmp/test_loader-bpf.XXXXXX";
	ssize_t n;
	int fd;

	snprintf(lib, sizeof(lib), "%s/tests/libbpf_log.so", build_dir());
	if (access(lib, R_OK) != 0) {
		printf("FAIL test_loader: %s missing (make unit-bins)\n", lib);
		return 1;
	}
	fd = mkstemp(path);
	if (fd < 0) {
		printf("FAIL test_loader: cannot create the BPF log: %s\n", strerror(errno));
		return 1;
	}
	close(fd);
	snprintf(env, sizeof(env), "%s%s%s", lib, preload ? ":" : "", preload ? preload : "");
	setenv("LD_PRELOAD", env, 1);
	setenv("EBPROF_BPF_LOG", path, 1);
	setenv("TEST_LOADER_TRACKED", "1", 1);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		execv(self, argv); /* by its name: a survivor's holder is named test_loader */
	}
	printf("FAIL test_loader: cannot run again with the BPF log: %s\n", strerror(errno));
	unlink(path);
	return 1;
}

int main(int argc, char **argv)
{
	(void)argc;
	if (geteuid() != 0) {
		SKIP_TEST(test_loader, "needs root to load BPF programs");
		return 0;
	}
	if (!getenv("TEST_LOADER_TRACKED"))
		return exec_tracked(argv);
	bpf_log = getenv("EBPROF_BPF_LOG");
	libbpf_set_print(NULL);
	RUN_TEST(test_all_programs_load);
	RUN_TEST(test_one_failure_cleans_up);
	RUN_TEST(test_measured_cost_ranks_first);
	RUN_TEST(test_build_order);
	RUN_TEST(test_verifier_budget);
	unlink(bpf_log);
	HARNESS_EXIT();
}
