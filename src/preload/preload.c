// SPDX-License-Identifier: Apache-2.0
/* libebprof-alloc.so: preloaded by `ebprof record --alloc`, it wraps glibc's allocator
 * and samples allocations by bytes (a Poisson process over the allocated bytes), so an
 * unsampled call costs a thread-local decrement and a branch. A sampled allocation, and
 * later the free of that block, call marker functions ebprof uprobes (see abi.h). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "preload/abi.h"

/* glibc's allocator under its own exported names: no dlsym(), which may allocate and so
 * re-enter us before we know where the real malloc is. */
extern void *__libc_malloc(size_t size);
extern void __libc_free(void *ptr);
extern void *__libc_calloc(size_t nmemb, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define EXPORT __attribute__((visibility("default")))
/* The library is loaded at start-up (LD_PRELOAD), so its TLS is static: a %fs-relative
 * access, no __tls_get_addr call on the fast path. */
/* Fast paths end in a tail call into glibc (a jump through the GOT, -z now): a
 * malloc(64)/free() pair costs 25 instructions more than glibc's own without that and
 * the hash-free filter below, 15 with them (callgrind, bench/footprint.sh). */
#define TLS_IE __thread __attribute__((tls_model("initial-exec")))

/* Markers, in assembly so their first instruction is a 5-byte nop (spelled in bytes: the
 * assembler would shorten "nopl 0(%rax,%rax)") that the kernel's uprobes emulate instead
 * of single-stepping. Default visibility and calls through the
 * PLT let a test interpose them. */
#if defined(__x86_64__)
#define MARKER(name)                                                                          \
	".globl " name "\n.type " name ", @function\n.p2align 4\n" name ":\n.cfi_startproc\n" \
	".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\nret\n.cfi_endproc\n.size " name ", .-" name "\n"
__asm__(".text\n" MARKER(ALLOC_SAMPLE_SYMBOL) MARKER(ALLOC_FREE_SYMBOL));
EXPORT void ebprof_alloc_sample(void *ptr, size_t size, uint64_t weight_bytes);
EXPORT void ebprof_alloc_free(void *ptr);
#else
/* noipa: the compiler must neither inline the empty body nor drop the calls. */
EXPORT __attribute__((noipa)) void ebprof_alloc_sample(void *ptr, size_t size,
						       uint64_t weight_bytes)
{
	__asm__ volatile("" ::: "memory");
}
EXPORT __attribute__((noipa)) void ebprof_alloc_free(void *ptr)
{
	__asm__ volatile("" ::: "memory");
}
#endif

/* What the library did, for tests and diagnostics; only slow paths touch it. */
struct ebprof_alloc_stats {
	uint64_t samples;   /* ebprof_alloc_sample calls */
	uint64_t frees;	    /* ebprof_alloc_free calls */
	uint64_t untracked; /* samples whose block did not fit the table of live samples */
};
EXPORT struct ebprof_alloc_stats ebprof_alloc_stats;

struct thread_state {
	int64_t left; /* bytes to the next sample point; <= 0 takes the slow path */
	uint64_t rng; /* splitmix64 state */
	bool seeded;
	bool busy; /* in the slow path: a nested call (a signal handler) is not sampled */
};

static TLS_IE struct thread_state ts;

static uint64_t mean_value;
static int mean_ready;

/* Parses EBPROF_ALLOC_MEAN by hand: nothing here may allocate or depend on locale. */
static uint64_t parse_mean(const char *s)
{
	uint64_t v = 0;

	if (!s || !*s)
		return ALLOC_DEFAULT_MEAN;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_C(1) << 50))
			return ALLOC_DEFAULT_MEAN;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	return v;
}

/* The mean sampling distance in bytes; 0 disables sampling. Every thread computes the
 * same value, so racing first calls are harmless. */
static uint64_t mean_bytes(void)
{
	if (likely(__atomic_load_n(&mean_ready, __ATOMIC_ACQUIRE)))
		return mean_value;
	mean_value = parse_mean(getenv(ALLOC_ENV_MEAN));
	__atomic_store_n(&mean_ready, 1, __ATOMIC_RELEASE);
	return mean_value;
}

static uint64_t next_random(void)
{
	uint64_t z = (ts.rng += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Seeds from time, pid and the thread's TLS address: distinct per thread and, after a
 * fork, per process (the atfork handler unseeds the child). */
static void seed(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	ts.rng = (uint64_t)t.tv_nsec ^ ((uint64_t)t.tv_sec << 30) ^ ((uint64_t)getpid() << 40) ^
		 (uint64_t)(uintptr_t)&ts * UINT64_C(0x9e3779b97f4a7c15);
	ts.seeded = true;
}

/* Distance to the next sample point: exponential with the given mean, rounded up so
 * that "the point lies within the next s bytes" is exactly "distance <= s". */
static int64_t draw_distance(uint64_t mean)
{
	double u, d;

	if (!mean)
		return INT64_MAX;
	u = (double)(next_random() >> 11) * 0x1p-53; /* [0, 1) */
	d = ceil(-log1p(-u) * (double)mean);
	if (d < 1)
		return 1;
	if (d > 0x1p62)
		return INT64_C(1) << 62;
	return (int64_t)d;
}

/* Called when an allocation of size bytes drove ts.left to <= 0: says whether a sample
 * point fell inside it and draws the next one. A block of s bytes is thus sampled with
 * probability 1 - exp(-s / mean), independently of every other block. */
static bool due(size_t size, uint64_t mean)
{
	bool hit;

	if (!ts.seeded) {
		seed();
		ts.left = draw_distance(mean) - (int64_t)size;
	}
	hit = ts.left <= 0;
	if (hit)
		ts.left = draw_distance(mean); /* memoryless: measured from the block's end */
	return hit && mean;
}

/* The live sampled blocks: a counting filter that a free consults first (one byte load,
 * 32 KiB, mostly zero), and a lock-free open-addressing table of the pointers. Fixed
 * size, no allocation, no lock a fork could leave held. A filter counter that reaches
 * 255 sticks there: it may then answer "maybe" wrongly, never "no" wrongly. */
#define FILTER_BITS 15
#define LIVE_BITS 16
#define LIVE_PROBES 32
#define TOMBSTONE ((uintptr_t)1)

static uint8_t live_filter[1u << FILTER_BITS];
static uintptr_t live_table[1u << LIVE_BITS];

static inline uint64_t ptr_hash(const void *p)
{
	return ((uintptr_t)p >> 4) * UINT64_C(0x9e3779b97f4a7c15);
}

/* The filter is indexed by the pointer's own bits, no hash (every free pays for it):
 * blocks are 16-byte aligned, so 32 Ki counters cover a 512 KiB window of the heap, and
 * a few live samples leave almost every counter zero. Page-aligned blocks all share one
 * counter, which may stick at "maybe": their frees then search the table, after glibc
 * has done far more work to free them. */
static inline uint8_t *filter_slot(const void *p)
{
	return &live_filter[((uintptr_t)p >> 4) & ((1u << FILTER_BITS) - 1)];
}

static inline bool maybe_live(const void *p)
{
	return __atomic_load_n(filter_slot(p), __ATOMIC_RELAXED);
}

static void filter_add(const void *p, int delta)
{
	uint8_t *c = filter_slot(p);
	uint8_t v = __atomic_load_n(c, __ATOMIC_RELAXED);

	do {
		if (v == UINT8_MAX || (delta < 0 && v == 0))
			return;
	} while (!__atomic_compare_exchange_n(c, &v, (uint8_t)(v + delta), true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
}

static bool live_insert(void *p)
{
	uint32_t start = (uint32_t)(ptr_hash(p) >> (64 - LIVE_BITS));

	for (uint32_t i = 0; i < LIVE_PROBES; i++) {
		uintptr_t *slot = &live_table[(start + i) & ((1u << LIVE_BITS) - 1)];
		uintptr_t v = __atomic_load_n(slot, __ATOMIC_RELAXED);

		if (v != 0 && v != TOMBSTONE)
			continue;
		if (__atomic_compare_exchange_n(slot, &v, (uintptr_t)p, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			filter_add(p, 1);
			return true;
		}
	}
	return false;
}

/* Removes p if it is a live sample; true when it was. */
static bool live_remove(void *p)
{
	uint32_t start = (uint32_t)(ptr_hash(p) >> (64 - LIVE_BITS));

	for (uint32_t i = 0; i < LIVE_PROBES; i++) {
		uintptr_t *slot = &live_table[(start + i) & ((1u << LIVE_BITS) - 1)];
		uintptr_t v = __atomic_load_n(slot, __ATOMIC_RELAXED);

		if (v == 0)
			return false;
		if (v != (uintptr_t)p)
			continue;
		if (__atomic_compare_exchange_n(slot, &v, TOMBSTONE, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			filter_add(p, -1);
			return true;
		}
	}
	return false;
}

/* Unbiased weight of a sample of size bytes: size / P(sampled). */
static uint64_t weight_of(size_t size, uint64_t mean)
{
	double s = (double)size;

	return (uint64_t)(s / -expm1(-s / (double)mean) + 0.5);
}

/* The slow path of an allocation that reached a sample boundary: decides, records the
 * block as live, and calls the marker ebprof probes. Returns p. */
static __attribute__((noinline, cold)) void *sample_slow(void *p, size_t size)
{
	uint64_t mean;

	if (ts.busy)
		return p;
	ts.busy = true;
	mean = mean_bytes();
	if (due(size, mean)) {
		bool tracked = live_insert(p);

		if (!tracked)
			__atomic_fetch_add(&ebprof_alloc_stats.untracked, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&ebprof_alloc_stats.samples, 1, __ATOMIC_RELAXED);
		ebprof_alloc_sample(tracked ? p : NULL, size, weight_of(size, mean));
	}
	ts.busy = false;
	return p;
}

/* Every successful allocation passes here: the fast path is this decrement and test. */
static inline void *account(void *p, size_t size)
{
	ts.left -= (int64_t)size;
	if (likely(ts.left > 0))
		return p;
	return sample_slow(p, size);
}

/* A malloc that reached a sample boundary. The bytes were counted before the block
 * existed; a failed allocation holds no sample, and the point that fell in it is drawn
 * again from its end, which memorylessness makes exact. */
static __attribute__((noinline, cold)) void *malloc_slow(size_t size)
{
	void *p = __libc_malloc(size);

	if (likely(p))
		return sample_slow(p, size);
	if (!ts.busy)
		due(size, mean_bytes());
	return NULL;
}

static __attribute__((noinline, cold)) void forget_slow(void *p)
{
	if (!p || !live_remove(p))
		return;
	__atomic_fetch_add(&ebprof_alloc_stats.frees, 1, __ATOMIC_RELAXED);
	ebprof_alloc_free(p);
}

/* Before the real free: once the block is back in the allocator, another thread may be
 * handed the same address and sample it, and ebprof must see this free first. */
static inline void forget(void *p)
{
	/* NULL reads counter 0 like any pointer: the slow path tells it apart. */
	if (unlikely(maybe_live(p)))
		forget_slow(p);
}

/* Counts first, so that the common case leaves by a tail call into glibc. */
EXPORT void *malloc(size_t size)
{
	ts.left -= (int64_t)size;
	if (likely(ts.left > 0))
		return __libc_malloc(size);
	return malloc_slow(size);
}

EXPORT void free(void *ptr)
{
	forget(ptr);
	__libc_free(ptr);
}

EXPORT void *calloc(size_t nmemb, size_t size)
{
	void *p = __libc_calloc(nmemb, size); /* checks nmemb * size for overflow */

	return likely(p) ? account(p, nmemb * size) : p;
}

/* A realloc counts as freeing the old block and allocating size bytes. If it fails the
 * old block stays allocated but is no longer tracked: its bytes leave the in-use total
 * early, which is rarer and cheaper than undoing the report. */
EXPORT void *realloc(void *ptr, size_t size)
{
	void *p;

	if (!ptr)
		return malloc(size);
	forget(ptr);
	p = __libc_realloc(ptr, size);
	return p ? account(p, size) : p;
}

EXPORT void *reallocarray(void *ptr, size_t nmemb, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(nmemb, size, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(ptr, bytes);
}

EXPORT void *memalign(size_t alignment, size_t size)
{
	void *p = __libc_memalign(alignment, size);

	return p ? account(p, size) : p;
}

/* C11: the alignment must be a power of two (glibc 2.38 checks it too). */
EXPORT void *aligned_alloc(size_t alignment, size_t size)
{
	if (!alignment || (alignment & (alignment - 1))) {
		errno = EINVAL;
		return NULL;
	}
	return memalign(alignment, size);
}

/* POSIX: a power of two multiple of sizeof(void *); *memptr untouched on failure. */
EXPORT int posix_memalign(void **memptr, size_t alignment, size_t size)
{
	size_t words = alignment / sizeof(void *);
	void *p;

	if (alignment % sizeof(void *) || !words || (words & (words - 1)))
		return EINVAL;
	p = __libc_memalign(alignment, size);
	if (!p)
		return ENOMEM;
	*memptr = account(p, size);
	return 0;
}

EXPORT void *valloc(size_t size)
{
	void *p = __libc_valloc(size);

	return p ? account(p, size) : p;
}

EXPORT void *pvalloc(size_t size)
{
	void *p = __libc_pvalloc(size);

	return p ? account(p, size) : p;
}

/* C23 (glibc 2.39+): a program built against a newer glibc may free through these. */
EXPORT void free_sized(void *ptr, size_t size)
{
	free(ptr);
}

EXPORT void free_aligned_sized(void *ptr, size_t alignment, size_t size)
{
	free(ptr);
}

/* The child of fork() has a copy of the forking thread's random state: reseed, or
 * parent and child would sample the same allocations. */
static void on_fork_child(void)
{
	ts.seeded = false;
	ts.left = 0;
}

__attribute__((constructor)) static void init(void)
{
	mean_bytes();
	pthread_atfork(NULL, NULL, on_fork_child);
}
