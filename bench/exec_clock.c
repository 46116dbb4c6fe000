// SPDX-License-Identifier: Apache-2.0
/* Prints CLOCK_MONOTONIC in nanoseconds to stderr ("exec_mono_ns=N"), then execs its
 * arguments: the start-up benchmark's "exec" instant, on the same clock ebprof stamps. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec ts;

	if (argc < 2) {
		fprintf(stderr, "usage: exec_clock COMMAND [ARGS...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	fprintf(stderr, "exec_mono_ns=%llu\n",
		(unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec);
	execvp(argv[1], &argv[1]);
	perror("exec");
	return 127;
}
