// SPDX-License-Identifier: Apache-2.0
/* Process churn for bench/agent.sh: RATE short-lived processes a second (each an exec of
 * PROGRAM, /bin/true by default) for SECONDS, paced on CLOCK_MONOTONIC so a slow second
 * is made up, reaped as they exit. What the agent's tracker meets on a busy CI runner or
 * a shell-heavy host. Prints "churn: N execs in S s (R/s), F failed" to stderr.
 *   exec_churn RATE SECONDS [PROGRAM] */
#include <errno.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = {.tv_sec = t / 1000000000ULL, .tv_nsec = t % 1000000000ULL};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Reaps every child that has exited, without waiting. */
static void reap(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

int main(int argc, char **argv)
{
	char *prog = argc > 3 ? argv[3] : "/bin/true";
	char *args[] = {prog, NULL};
	uint64_t start, step, n = 0, failed = 0, total;
	double rate, secs;
	pid_t pid;

	if (argc < 3 || (rate = atof(argv[1])) <= 0 || (secs = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: exec_churn RATE SECONDS [PROGRAM]\n"
				"  e.g. exec_churn 500 60   500 runs of /bin/true a second\n");
		return 2;
	}
	step = (uint64_t)(1e9 / rate);
	total = (uint64_t)(rate * secs);
	start = now_ns();
	for (; n < total; n++) {
		sleep_until(start + n * step);
		if (posix_spawn(&pid, prog, NULL, NULL, args, environ))
			failed++;
		reap();
	}
	while (wait(NULL) > 0)
		;
	secs = (now_ns() - start) / 1e9;
	fprintf(stderr, "churn: %llu execs in %.1f s (%.0f/s), %llu failed\n",
		(unsigned long long)(n - failed), secs, (n - failed) / secs,
		(unsigned long long)failed);
	return failed ? 1 : 0;
}
