// cflags: -O2 -g
// SPDX-License-Identifier: Apache-2.0
/* Allocation profiling workload with known sites: site_small allocates 64 MiB in 256-byte
 * blocks, site_medium 64 MiB in 16 KiB blocks (both freed at once), and site_kept 32 MiB
 * in 1 MiB blocks of which it frees every other one, so 16 MiB are in use at exit. The
 * kernel test compares ebprof's estimates with these figures. It starts with one 4 MiB
 * block (sampled for certain at the test's mean) and a second's sleep: ebprof describes
 * the process when its first event arrives, and until then stacks are cut short (frame
 * pointers only), which would hide the sites; a second argument waits longer, for a
 * describer busy elsewhere (a whole-system agent meeting other runtimes first). With a first
 * argument it then stays alive that many seconds holding site_kept's blocks, for an agent's
 * in-use snapshots. Usage: alloc_sites [HOLD_SECONDS [WAIT_SECONDS]] */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SMALL_SIZE 256
#define SMALL_COUNT (64u << 20) / SMALL_SIZE
#define MEDIUM_SIZE (16u << 10)
#define MEDIUM_COUNT (64u << 20) / MEDIUM_SIZE
#define KEPT_SIZE (1u << 20)
#define KEPT_COUNT 32

static void *volatile sink;

__attribute__((noinline)) static void site_small(void)
{
	for (unsigned int i = 0; i < SMALL_COUNT; i++) {
		char *p = malloc(SMALL_SIZE);

		p[0] = (char)i;
		sink = p;
		free(p);
	}
}

__attribute__((noinline)) static void site_medium(void)
{
	for (unsigned int i = 0; i < MEDIUM_COUNT; i++) {
		char *p = malloc(MEDIUM_SIZE);

		p[0] = (char)i;
		sink = p;
		free(p);
	}
}

/* Keeps the blocks it does not free until the process exits. */
__attribute__((noinline)) static void site_kept(void **kept)
{
	for (unsigned int i = 0; i < KEPT_COUNT; i++) {
		kept[i] = malloc(KEPT_SIZE);
		memset(kept[i], 1, 64);
	}
	for (unsigned int i = 0; i < KEPT_COUNT; i += 2) {
		free(kept[i]);
		kept[i] = NULL;
	}
}

__attribute__((noinline)) static void warm_up(void)
{
	sink = malloc(4u << 20);
	free(sink);
}

int main(int argc, char **argv)
{
	static void *kept[KEPT_COUNT];

	warm_up();
	usleep((useconds_t)((argc > 2 ? atof(argv[2]) : 1.0) * 1e6));
	site_small();
	site_medium();
	site_kept(kept);
	sink = kept;
	if (argc > 1)
		usleep((useconds_t)(atof(argv[1]) * 1e6));
	return 0;
}
