// SPDX-License-Identifier: Apache-2.0
// cflags: -O1 -g -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls
/* Workload with a known call chain main -> chain_a -> chain_b -> chain_c -> chain_leaf,
 * built with frame pointers. Usage: fp_chain SECONDS [--fork]; with --fork a child
 * process runs the same chain, to test that `record -- CMD` follows children. */
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void chain_leaf(double end)
{
	while (now() < end) {
		for (int i = 0; i < 100000; i++)
			sink += i * 7;
	}
}

__attribute__((noinline)) void chain_c(double end)
{
	chain_leaf(end);
	sink++;
}

__attribute__((noinline)) void chain_b(double end)
{
	chain_c(end);
	sink++;
}

__attribute__((noinline)) void chain_a(double end)
{
	chain_b(end);
	sink++;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2;
	pid_t child = -1;

	if (argc > 2 && strcmp(argv[2], "--fork") == 0)
		child = fork();
	/* The child names itself so the tests can tell its samples from the parent's. */
	if (child == 0)
		prctl(PR_SET_NAME, "fp_child");
	chain_a(now() + secs);
	if (child > 0)
		waitpid(child, NULL, 0);
	return 0;
}
