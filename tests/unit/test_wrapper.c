// SPDX-License-Identifier: Apache-2.0
/* `record -- CMD` and `record -p` as a wrapper should behave, without the kernel: the
 * command's status comes back as a shell reports it (128 + N for signal N); a stop
 * sends SIGTERM, waits a bounded grace while the caller keeps working, then SIGKILLs;
 * a second signal cuts the grace; the -p watch ends once every process has exited. */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/spawn.h"
#include "cli/targets.h"
#include "harness.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Starts sh -c script; returns 0 or -errno. */
static int run_sh(struct spawn *sp, const char *script)
{
	char *argv[] = {"sh", "-c", (char *)script, NULL};
	int err = spawn__prepare(sp, argv);

	return err ? err : spawn__start(sp);
}

/* The shell scripts say "ready" on this pipe once their trap is set: on a loaded host
 * a fixed sleep is not enough. */
static int ready_pipe[2];

static void wait_ready(void)
{
	char c;

	CHECK(read(ready_pipe[0], &c, 1) == 1);
}

/* Waits (bounded) until done(arg): true when it came in time. */
static bool within(double secs, bool (*done)(void *), void *arg)
{
	double end = now_s() + secs;

	while (!done(arg)) {
		if (now_s() > end)
			return false;
		usleep(5000);
	}
	return true;
}

static bool command_exited(void *sp)
{
	return spawn__exited(sp);
}

static bool targets_exited(void *t)
{
	return targets__all_exited(t);
}

static void test_exit_status_is_the_commands(void)
{
	struct spawn sp = {0};

	CHECK(run_sh(&sp, "exit 3") == 0);
	CHECK(spawn__exit_code(&sp) == -1); /* not reaped yet */
	CHECK(within(10, command_exited, &sp));
	CHECK(spawn__exit_code(&sp) == 3);
	CHECK(sp.pid == 0);

	memset(&sp, 0, sizeof(sp));
	CHECK(run_sh(&sp, "kill -SEGV $$") == 0);
	CHECK(within(10, command_exited, &sp));
	CHECK(spawn__exit_code(&sp) == 128 + SIGSEGV);
}

static int idle_calls;

static int idle_sleep(void *ctx)
{
	idle_calls++;
	usleep(10000);
	return 0;
}

static int idle_hurry(void *ctx)
{
	idle_calls++;
	usleep(10000);
	return idle_calls >= 3; /* a second Ctrl-C after three rounds */
}

/* A command that exits on SIGTERM ends with its own status, at once. */
static void test_stop_sends_sigterm(void)
{
	struct spawn sp = {0};
	double t0;

	CHECK(run_sh(&sp, "trap 'exit 7' TERM; echo >&9; while :; do sleep 0.01; done") == 0);
	wait_ready();
	t0 = now_s();
	idle_calls = 0;
	spawn__stop(&sp, 5000, idle_sleep, NULL);
	CHECK(sp.reaped);
	CHECK(spawn__exit_code(&sp) == 7);
	CHECK(now_s() - t0 < 4);
}

/* One that ignores it is killed once the grace is over, and the caller kept working. */
static void test_stop_kills_after_grace(void)
{
	struct spawn sp = {0};
	double t0, took;

	CHECK(run_sh(&sp, "trap '' TERM; echo >&9; while :; do sleep 0.01; done") == 0);
	wait_ready();
	t0 = now_s();
	idle_calls = 0;
	spawn__stop(&sp, 300, idle_sleep, NULL);
	took = now_s() - t0;
	CHECK(spawn__exit_code(&sp) == 128 + SIGKILL);
	CHECK(took >= 0.29);
	CHECK(idle_calls >= 5);
}

static void test_second_signal_cuts_the_grace(void)
{
	struct spawn sp = {0};

	CHECK(run_sh(&sp, "trap '' TERM; echo >&9; while :; do sleep 0.01; done") == 0);
	wait_ready();
	idle_calls = 0;
	spawn__stop(&sp, 60000, idle_hurry, NULL);
	CHECK(spawn__exit_code(&sp) == 128 + SIGKILL);
	CHECK(idle_calls == 3);
}

static pid_t child_sleeping(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

static void test_targets_end_when_all_exited(void)
{
	pid_t a = child_sleeping(), b = child_sleeping();
	uint32_t pids[] = {(uint32_t)a, (uint32_t)b};
	struct targets *t;

	CHECK(a > 0 && b > 0);
	t = targets__new(pids, 2);
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK(!targets__all_exited(t));
	kill(a, SIGKILL);
	CHECK(!within(0.3, targets_exited, t)); /* a is a zombie now; b still runs */
	kill(b, SIGKILL);
	CHECK(within(10, targets_exited, t)); /* zombies count as exited */
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	CHECK(targets__all_exited(t));
	targets__free(t);
}

int main(void)
{
	/* fd 9 in the scripts: the write end, inherited across exec. */
	if (pipe(ready_pipe) || dup2(ready_pipe[1], 9) < 0)
		return 1;
	RUN_TEST(test_exit_status_is_the_commands);
	RUN_TEST(test_stop_sends_sigterm);
	RUN_TEST(test_stop_kills_after_grace);
	RUN_TEST(test_second_signal_cuts_the_grace);
	RUN_TEST(test_targets_end_when_all_exited);
	HARNESS_EXIT();
}
