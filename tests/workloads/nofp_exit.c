// SPDX-License-Identifier: Apache-2.0
// cflags: -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls
/* Exits from inside its own code with much memory to give back: main -> leave -> exit.
 * The kernel's teardown of that memory (exit_mmap, after the process has let its memory
 * go) takes a good share of its samples; their user stack is the one the process had at
 * its exit_group call (kernel/unwind's unwind_exit). No frame pointers: the chain can
 * only come from the stack walked at that call.
 * Usage: nofp_exit SECONDS [MIB]: touches MIB MiB (512), works SECONDS, then exits. */
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void leave(void)
{
	exit(0);
}

/* Writes every page of the block until the deadline: its pages stay the process's. */
__attribute__((noinline)) static void touch(volatile char *p, size_t len, double end)
{
	do {
		for (size_t i = 0; i < len; i += 4096)
			p[i]++;
	} while (now() < end);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	size_t len = (size_t)(argc > 2 ? atoi(argv[2]) : 512) << 20;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	touch(p, len, now() + secs);
	leave();
}
