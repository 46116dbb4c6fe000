// SPDX-License-Identifier: Apache-2.0
/* Puts CLOCK_MONOTONIC in nanoseconds in the environment (EBPROF_EXEC_MONO_NS), then
 * execs its arguments: the start-up benchmark's "exec" instant, on the clock ebprof stamps,
 * from which `ebprof -v` prints exec= (ms from the exec to its main). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec ts;
	char stamp[32];

	if (argc < 2) {
		fprintf(stderr, "usage: exec_clock COMMAND [ARGS...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(stamp, sizeof(stamp), "%llu",
		 (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec);
	if (setenv("EBPROF_EXEC_MONO_NS", stamp, 1)) {
		perror("setenv");
		return 1;
	}
	execvp(argv[1], &argv[1]);
	perror("exec");
	return 127;
}
