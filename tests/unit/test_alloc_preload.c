// SPDX-License-Identifier: Apache-2.0
/* libebprof-alloc.so's promises, each checked in a child that preloads it with a chosen
 * sampling mean and interposes the two markers to log what ebprof would see: exact
 * reports for realloc, calloc and the aligned allocators, bad arguments refused, sample
 * counts and weighted byte totals within bounds derived from the sampling law, every
 * sampled block's free reported exactly once across threads, and fork in the middle of
 * concurrent allocation (no deadlock, a reseeded child). */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

/* The checks compare addresses after their blocks were freed and ask for impossible
 * sizes on purpose. */
#pragma GCC diagnostic ignored "-Wuse-after-free"
#pragma GCC diagnostic ignored "-Walloc-size-larger-than="

struct event {
	char kind; /* 'a' sample, 'f' free */
	void *ptr;
	size_t size;
	uint64_t weight;
	uint64_t iter; /* the test's loop counter when it happened */
};

#define MAX_EVENTS (1u << 20)
static struct event events[MAX_EVENTS];
static uint64_t nevents;
static int recording; /* markers log only while set: stdio allocates too */
static uint64_t current_iter;
static void *volatile sink; /* keeps the compiler from eliding malloc/free pairs */

static void log_event(char kind, void *ptr, size_t size, uint64_t weight)
{
	uint64_t i;

	if (!__atomic_load_n(&recording, __ATOMIC_RELAXED))
		return;
	i = __atomic_fetch_add(&nevents, 1, __ATOMIC_RELAXED);
	if (i < MAX_EVENTS)
		events[i] = (struct event){kind, ptr, size, weight, current_iter};
}

/* The markers, interposed (the test is linked -rdynamic): the library calls these. */
void ebprof_alloc_sample(void *ptr, size_t size, uint64_t weight_bytes)
{
	log_event('a', ptr, size, weight_bytes);
}

void ebprof_alloc_free(void *ptr)
{
	log_event('f', ptr, 0, 0);
}

struct lib_stats {
	uint64_t samples, frees, untracked;
};

static const struct lib_stats *stats(void)
{
	return dlsym(RTLD_DEFAULT, "ebprof_alloc_stats");
}

static void start_recording(void)
{
	nevents = 0;
	__atomic_store_n(&recording, 1, __ATOMIC_SEQ_CST);
}

static void stop_recording(void)
{
	__atomic_store_n(&recording, 0, __ATOMIC_SEQ_CST);
	CHECK(nevents <= MAX_EVENTS);
	if (nevents > MAX_EVENTS)
		nevents = MAX_EVENTS;
}

static uint64_t count_kind(char kind)
{
	uint64_t n = 0;

	for (uint64_t i = 0; i < nevents; i++)
		n += events[i].kind == kind;
	return n;
}

static bool expect_event(uint64_t i, char kind, void *ptr, size_t size)
{
	if (i >= nevents) {
		fprintf(stderr, "  event %llu missing\n", (unsigned long long)i);
		return false;
	}
	if (events[i].kind == kind && events[i].ptr == ptr &&
	    (kind == 'f' || events[i].size == size))
		return true;
	fprintf(stderr, "  event %llu: %c %p %zu, want %c %p %zu\n", (unsigned long long)i,
		events[i].kind, events[i].ptr, events[i].size, kind, ptr, size);
	return false;
}

/* With a mean of 1 byte every block of 64 bytes or more is sampled (probability
 * 1 - e^-64): realloc reports the old block freed before the new one is sampled, realloc
 * to 0 frees, realloc(NULL) allocates. */
static void child_realloc(void)
{
	void *p, *q, *r, *s;

	start_recording();
	p = malloc(100);
	q = realloc(p, 5000);
	r = realloc(q, 0);
	s = realloc(NULL, 300);
	free(s);
	stop_recording();
	CHECK(p && q && s && !r);
	CHECK(nevents == 6);
	CHECK(expect_event(0, 'a', p, 100));
	CHECK(expect_event(1, 'f', p, 0));
	CHECK(expect_event(2, 'a', q, 5000));
	CHECK(expect_event(3, 'f', q, 0));
	CHECK(expect_event(4, 'a', s, 300));
	CHECK(expect_event(5, 'f', s, 0));
}

/* calloc and reallocarray refuse n * size overflows with ENOMEM and report nothing; a
 * refused reallocarray leaves the block allocated and still tracked. */
static void child_calloc_overflow(void)
{
	void *p, *q, *r;
	bool zero = true;

	start_recording();
	errno = 0;
	p = calloc(SIZE_MAX / 2 + 1, 2);
	CHECK(!p && errno == ENOMEM);
	CHECK(nevents == 0);
	p = calloc(10, 10);
	for (int i = 0; p && i < 100; i++)
		zero &= ((unsigned char *)p)[i] == 0;
	q = malloc(64);
	errno = 0;
	r = reallocarray(q, SIZE_MAX / 2 + 1, 2);
	CHECK(!r && errno == ENOMEM);
	free(q);
	free(p);
	stop_recording();
	CHECK(p && zero);
	CHECK(nevents == 4);
	CHECK(expect_event(0, 'a', p, 100));
	CHECK(expect_event(1, 'a', q, 64));
	CHECK(expect_event(2, 'f', q, 0));
	CHECK(expect_event(3, 'f', p, 0));
}

/* posix_memalign refuses alignments that are not a power-of-two multiple of a pointer
 * (leaving *memptr alone); aligned_alloc refuses non powers of two; every aligned block
 * is aligned, sampled with its size and reported freed. */
static void child_memalign(void)
{
	void *const untouched = (void *)0x1234;
	void *p = untouched, *blocks[7];
	size_t sizes[7] = {64, 4096, 1000, 128, 100, 100, 100};
	int bad[3];

	start_recording();
	bad[0] = posix_memalign(&p, 3, 64);
	bad[1] = posix_memalign(&p, 0, 64);
	bad[2] = posix_memalign(&p, 24, 64);
	CHECK(bad[0] == EINVAL && bad[1] == EINVAL && bad[2] == EINVAL && p == untouched);
	CHECK(posix_memalign(&blocks[0], 64, 64) == 0 && (uintptr_t)blocks[0] % 64 == 0);
	CHECK(posix_memalign(&blocks[1], 4096, 4096) == 0 && (uintptr_t)blocks[1] % 4096 == 0);
	CHECK(posix_memalign(&blocks[2], 1 << 16, 1000) == 0 &&
	      (uintptr_t)blocks[2] % (1 << 16) == 0);
	blocks[3] = aligned_alloc(64, 128);
	CHECK(blocks[3] && (uintptr_t)blocks[3] % 64 == 0);
	errno = 0;
	CHECK(aligned_alloc(3, 8) == NULL && errno == EINVAL);
	blocks[4] = memalign(256, 100);
	CHECK(blocks[4] && (uintptr_t)blocks[4] % 256 == 0);
	blocks[5] = valloc(100);
	blocks[6] = pvalloc(100);
	CHECK(blocks[5] && (uintptr_t)blocks[5] % 4096 == 0);
	CHECK(blocks[6] && (uintptr_t)blocks[6] % 4096 == 0);
	for (int i = 0; i < 7; i++)
		free(blocks[i]);
	stop_recording();
	CHECK(nevents == 14);
	for (int i = 0; i < 7; i++) {
		CHECK(expect_event(i, 'a', blocks[i], sizes[i]));
		CHECK(expect_event(7 + i, 'f', blocks[i], 0));
	}
}

/* A mean of 2^40 bytes (and 0, which disables sampling) reports nothing, whatever the
 * mix of calls: unsampled blocks pass through realloc and free unreported. */
static void child_unsampled(void)
{
	void *p, *q;

	start_recording();
	for (int i = 0; i < 20000; i++) {
		p = malloc(64 + i);
		p = realloc(p, 10000);
		q = calloc(10, 10);
		sink = p;
		free(q);
		free(p);
	}
	stop_recording();
	CHECK(nevents == 0);
	CHECK(stats() && stats()->samples == 0 && stats()->frees == 0);
}

/* n blocks of one size: the number of samples is Poisson-binomial with p = 1 -
 * exp(-size / mean) per block, so it lies within 6 standard deviations of n p unless
 * something is wrong (a false failure has probability below 1e-8). Every weight is
 * size / p, and each block's free follows its sample. Zero-byte blocks are never
 * sampled (no byte of them can hold a sample point). */
static void child_poisson(void)
{
	const uint64_t mean = 4096, n = 200000, size = 64;
	double p = -expm1(-(double)size / mean), lambda = n * p;
	uint64_t k, bad_weight = 0, unpaired = 0, want = (uint64_t)(size / p + 0.5);

	start_recording();
	for (current_iter = 0; current_iter < n; current_iter++) {
		sink = malloc(size);
		free(sink);
	}
	for (int i = 0; i < 10000; i++) {
		sink = malloc(0);
		free(sink);
	}
	stop_recording();
	k = count_kind('a');
	fprintf(stderr, "  %llu samples of %llu blocks, expected %.1f +- %.1f\n",
		(unsigned long long)k, (unsigned long long)n, lambda, 6 * sqrt(lambda * (1 - p)));
	CHECK(fabs((double)k - lambda) <= 6 * sqrt(lambda * (1 - p)));
	for (uint64_t i = 0; i < nevents; i++) {
		if (events[i].kind != 'a')
			continue;
		bad_weight += events[i].weight != want || events[i].size != size;
		unpaired += i + 1 >= nevents || events[i + 1].kind != 'f' ||
			    events[i + 1].ptr != events[i].ptr;
	}
	CHECK(bad_weight == 0);
	CHECK(unpaired == 0);
	CHECK(count_kind('f') == k);
}

/* Weighted totals are unbiased for mixed sizes: the estimate sum(weights) has variance
 * sum(size^2 (1 - p) / p) over the blocks; it must land within 6 standard deviations of
 * the bytes really allocated. */
static void child_unbiased(void)
{
	static const size_t sizes[] = {16, 200, 3000, 50000, 700000};
	const double mean = 65536;
	double truth = 0, var = 0, est = 0;

	start_recording();
	for (current_iter = 0; current_iter < 100000; current_iter++) {
		size_t s = sizes[current_iter % 5];
		double p = -expm1(-(double)s / mean);

		truth += s;
		var += (double)s * s * (1 - p) / p;
		sink = malloc(s);
		free(sink);
	}
	stop_recording();
	for (uint64_t i = 0; i < nevents; i++)
		est += events[i].kind == 'a' ? (double)events[i].weight : 0;
	fprintf(stderr, "  estimated %.0f bytes of %.0f (sd %.0f)\n", est, truth, sqrt(var));
	CHECK(fabs(est - truth) <= 6 * sqrt(var));
}

#define NTHREADS 4
#define RING 32
static void *exchange[64];
static int start_flag, release_flag, running;

/* Each thread keeps a ring of live blocks and swaps blocks with the others through a
 * shared array, so blocks are freed by threads that did not allocate them. */
static void *thread_body(void *arg)
{
	uint64_t x = (uintptr_t)arg * 2654435761u + 1;
	void *ring[RING] = {0};

	while (!__atomic_load_n(&start_flag, __ATOMIC_ACQUIRE))
		;
	for (int i = 0; i < 50000; i++) {
		void *b;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		b = malloc(1 + (x >> 33) % 2048);
		if (i % 7 == 0)
			b = __atomic_exchange_n(&exchange[(x >> 20) % 64], b, __ATOMIC_ACQ_REL);
		if (i % 11 == 0)
			b = realloc(b, 1 + (x >> 40) % 4096);
		free(ring[i % RING]);
		ring[i % RING] = b;
	}
	for (int i = 0; i < RING; i++)
		free(ring[i]);
	__atomic_fetch_sub(&running, 1, __ATOMIC_ACQ_REL);
	while (!__atomic_load_n(&release_flag, __ATOMIC_ACQUIRE))
		;
	return NULL;
}

#define LIVE_SLOTS (1u << 18)
#define GONE ((void *)1)

/* Replays the log: every free must match a live sample, and nothing stays live. An
 * open-addressing set whose removed entries become GONE, so probes walk past them. */
static void check_balanced(void)
{
	static void *live[LIVE_SLOTS];
	uint64_t bad = 0, left = 0;

	for (uint64_t i = 0; i < nevents; i++) {
		void *p = events[i].ptr;
		size_t h = ((uintptr_t)p >> 4) % LIVE_SLOTS;

		if (events[i].kind == 'a') {
			while (live[h] && live[h] != GONE)
				h = (h + 1) % LIVE_SLOTS;
			live[h] = p;
			continue;
		}
		while (live[h] && live[h] != p)
			h = (h + 1) % LIVE_SLOTS;
		if (live[h] == p)
			live[h] = GONE;
		else
			bad++;
	}
	for (size_t i = 0; i < LIVE_SLOTS; i++)
		left += live[i] && live[i] != GONE;
	fprintf(stderr, "  %llu events, %llu frees of unknown blocks, %llu left live\n",
		(unsigned long long)nevents, (unsigned long long)bad, (unsigned long long)left);
	CHECK(bad == 0 && left == 0);
}

static void child_threads(void)
{
	pthread_t t[NTHREADS];
	struct lib_stats before, after;

	running = NTHREADS;
	for (long i = 0; i < NTHREADS; i++)
		CHECK(pthread_create(&t[i], NULL, thread_body, (void *)i) == 0);
	/* From here until the release only the workers allocate. */
	start_recording();
	before = *stats();
	__atomic_store_n(&start_flag, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&running, __ATOMIC_ACQUIRE))
		;
	for (int i = 0; i < 64; i++)
		free(exchange[i]);
	stop_recording();
	after = *stats();
	__atomic_store_n(&release_flag, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	CHECK(count_kind('a') > 1000);
	CHECK(count_kind('a') == after.samples - before.samples);
	CHECK(count_kind('f') == after.frees - before.frees);
	CHECK(after.untracked == 0);
	check_balanced();
}

/* The first sampled iterations of 20000 malloc(64)/free pairs. */
static int sampled_iterations(uint64_t *out, int max)
{
	int n = 0;

	start_recording();
	for (current_iter = 0; current_iter < 20000; current_iter++) {
		sink = malloc(64);
		free(sink);
	}
	stop_recording();
	for (uint64_t i = 0; i < nevents && n < max; i++)
		if (events[i].kind == 'a')
			out[n++] = events[i].iter;
	return n;
}

static void *hammer(void *arg)
{
	while (!__atomic_load_n(&release_flag, __ATOMIC_ACQUIRE)) {
		void *b = malloc(64);

		sink = b;
		free(b);
	}
	return NULL;
}

/* Children forked while two threads allocate and sample nonstop (mean 256 bytes: the
 * slow path runs every few calls) must run the allocator and exit; an alarm kills a
 * deadlocked one. A sampled block inherited from the parent is reported freed. */
static void fork_under_load(void)
{
	pthread_t t[2];
	int ok = 0;

	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&t[i], NULL, hammer, NULL) == 0);
	for (int i = 0; i < 50; i++) {
		void *inherited = malloc(1 << 20); /* sampled: p = 1 - e^-4096 */
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			alarm(10);
			start_recording();
			for (int j = 0; j < 10000; j++) {
				sink = malloc(64 + j % 512);
				free(sink);
			}
			free(inherited);
			stop_recording();
			_exit(nevents && events[nevents - 1].kind == 'f' &&
				      events[nevents - 1].ptr == inherited
				  ? 0
				  : 1);
		}
		free(inherited);
		ok += pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0;
	}
	__atomic_store_n(&release_flag, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	fprintf(stderr, "  %d of 50 children forked under load exited cleanly\n", ok);
	CHECK(ok == 50);
}

/* A child must not replay its parent's sampling decisions. */
static void child_fork(void)
{
	uint64_t mine[32], theirs[32] = {0};
	int fds[2], n, m = 0;
	pid_t pid;

	/* Seeded before the fork: the child starts from a copy of this state. */
	CHECK(sampled_iterations(mine, 32) >= 10);
	CHECK(pipe(fds) == 0);
	pid = fork();
	if (pid == 0) {
		n = sampled_iterations(mine, 32);
		_exit(write(fds[1], mine, n * sizeof(mine[0])) < 0);
	}
	close(fds[1]);
	n = sampled_iterations(mine, 32);
	m = read(fds[0], theirs, sizeof(theirs)) / (int)sizeof(theirs[0]);
	close(fds[0]);
	waitpid(pid, NULL, 0);
	CHECK(n >= 10 && m >= 10);
	CHECK(n != m || memcmp(mine, theirs, n * sizeof(mine[0])) != 0);
	fork_under_load();
}

struct subtest {
	const char *name;
	const char *mean;
	void (*fn)(void);
};

static const struct subtest subtests[] = {
    {"test_alloc_realloc", "1", child_realloc},
    {"test_alloc_calloc_overflow", "1", child_calloc_overflow},
    {"test_alloc_memalign", "1", child_memalign},
    {"test_alloc_unsampled", "1099511627776", child_unsampled},
    {"test_alloc_disabled", "0", child_unsampled},
    {"test_alloc_poisson_count_and_weights", "4096", child_poisson},
    {"test_alloc_unbiased_bytes", "65536", child_unbiased},
    {"test_alloc_threads_frees_balanced", "4096", child_threads},
    {"test_alloc_fork", "256", child_fork},
};

static int run_child(const struct subtest *t)
{
	alarm(120);
	if (!stats()) {
		fprintf(stderr, "  libebprof-alloc.so is not preloaded\n");
		return 1;
	}
	t->fn();
	return harness_failed_checks ? 1 : 0;
}

/* Runs one subtest in a fresh process with the library preloaded; true on success. */
static bool spawn(const struct subtest *t, const char *lib)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		setenv("LD_PRELOAD", lib, 1);
		setenv("EBPROF_ALLOC_MEAN", t->mean, 1);
		execl("/proc/self/exe", "test_alloc_preload", "--child", t->name, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return false;
	if (WIFSIGNALED(status))
		fprintf(stderr, "  %s: killed by signal %d\n", t->name, WTERMSIG(status));
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
	char exe[PATH_MAX], lib[PATH_MAX + 32];
	ssize_t n;

	for (size_t i = 0; argc == 3 && i < sizeof(subtests) / sizeof(subtests[0]); i++)
		if (!strcmp(argv[1], "--child") && !strcmp(argv[2], subtests[i].name))
			return run_child(&subtests[i]);
	/* build/tests/test_alloc_preload -> build/libebprof-alloc.so */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 1;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(lib, sizeof(lib), "%s/../libebprof-alloc.so", exe);
	if (access(lib, R_OK)) {
		printf("FAIL test_alloc_preload: %s missing (make all)\n", lib);
		return 1;
	}
	for (size_t i = 0; i < sizeof(subtests) / sizeof(subtests[0]); i++) {
		bool ok = spawn(&subtests[i], lib);

		printf("%s %s\n", ok ? "PASS" : "FAIL", subtests[i].name);
		fflush(stdout);
		harness_failed_tests += !ok;
	}
	HARNESS_EXIT();
}
