// SPDX-License-Identifier: Apache-2.0
/* Loader tests (root; skipped otherwise): every program verified, one forced failure
 * among several leaves no program, map or descriptor behind and reports every error
 * without interleaving, measured costs put the slowest program first where instruction
 * counts would not, and every ebprof program stays within the verifier budget. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ebprof_shared.h"
#include "chain.h"
#include "harness.h"
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

/* Number of BPF programs plus maps in the kernel. */
static int kernel_bpf_objects(void)
{
	__u32 id = 0;
	int n = 0;

	while (!bpf_prog_get_next_id(id, &id))
		n++;
	id = 0;
	while (!bpf_map_get_next_id(id, &id))
		n++;
	return n;
}

/* Programs and maps leave the id tables after an RCU grace period, not at close:
 * wait up to two seconds for the count to come back. */
static bool settles_to(int want)
{
	for (int i = 0; i < 200; i++) {
		if (kernel_bpf_objects() == want)
			return true;
		usleep(10000);
	}
	return false;
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

static void test_all_programs_load(void)
{
	struct loader_opts o = {.jobs = 2};
	int fds = count_fds(), objs = kernel_bpf_objects();
	struct loadtest_bpf *skel;
	struct loader *l;

	CHECK(load_loadtest(&skel, &l, &o, false) == 0);
	CHECK(loader__njobs(l) == 3);
	for (size_t i = 0; i < loader__njobs(l); i++) {
		CHECK(loader__stat(l, i)->err == 0);
		CHECK(loader__stat(l, i)->verified_insns > 0);
	}
	CHECK(loader__program(l, skel->obj, "trivial") != NULL);
	CHECK(kernel_bpf_objects() > objs);
	loader__free(l);
	loadtest_bpf__destroy(skel);
	CHECK(count_fds() == fds);
	CHECK(settles_to(objs));
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
	int fds = count_fds(), objs = kernel_bpf_objects();
	static char out[1 << 20];
	struct fail_run r = {0};
	const struct loader_stat *bad, *good;

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
	CHECK(settles_to(objs));
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

int main(void)
{
	if (geteuid() != 0) {
		SKIP_TEST(test_loader, "needs root to load BPF programs");
		return 0;
	}
	libbpf_set_print(NULL);
	RUN_TEST(test_all_programs_load);
	RUN_TEST(test_one_failure_cleans_up);
	RUN_TEST(test_measured_cost_ranks_first);
	RUN_TEST(test_build_order);
	RUN_TEST(test_verifier_budget);
	HARNESS_EXIT();
}
