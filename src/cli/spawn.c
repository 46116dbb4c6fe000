// SPDX-License-Identifier: Apache-2.0
/* Fork, hold, exec: the child blocks on a pipe until the profiler is ready, and reports
 * a failed exec through a close-on-exec pipe (EOF there means exec succeeded). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/spawn.h"
#include "util/limits.h"
#include "util/clock.h"

static void child(int go_rd, int err_wr, char *const argv[])
{
	char c;
	int e;

	/* EOF on go_rd means "exec now"; a parent that died also gives EOF, and then
	 * exec'ing unprofiled is what the user asked for anyway. */
	while (read(go_rd, &c, 1) < 0 && errno == EINTR)
		;
	close(go_rd);
	limits__restore(); /* the command's limits are the ones ebprof was started with */
	execvp(argv[0], argv);
	e = errno;
	if (write(err_wr, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int spawn__prepare(struct spawn *sp, char *const argv[])
{
	int go[2], er[2];

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(er, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	sp->pid = fork();
	if (sp->pid == 0) {
		close(go[1]);
		close(er[0]);
		child(go[0], er[1], argv);
	}
	close(go[0]);
	close(er[1]);
	if (sp->pid < 0) {
		int err = -errno;

		close(go[1]);
		close(er[0]);
		return err;
	}
	sp->go_fd = go[1];
	sp->err_fd = er[0];
	return 0;
}

int spawn__start(struct spawn *sp)
{
	ssize_t n;
	int e = 0;

	close(sp->go_fd);
	sp->go_fd = -1;
	do {
		n = read(sp->err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(sp->err_fd);
	sp->err_fd = -1;
	if (n == sizeof(e)) {
		waitpid(sp->pid, NULL, 0);
		return -e;
	}
	return 0;
}

void spawn__abort(struct spawn *sp)
{
	if (sp->pid <= 0)
		return;
	kill(sp->pid, SIGKILL);
	if (sp->go_fd >= 0)
		close(sp->go_fd);
	if (sp->err_fd >= 0)
		close(sp->err_fd);
	waitpid(sp->pid, NULL, 0);
	sp->pid = 0;
}

static void reaped(struct spawn *sp, int status)
{
	sp->status = status;
	sp->reaped = true;
	sp->pid = 0;
}

bool spawn__exited(struct spawn *sp)
{
	int status;

	if (sp->reaped)
		return true;
	if (sp->pid <= 0 || waitpid(sp->pid, &status, WNOHANG) != sp->pid)
		return false;
	reaped(sp, status);
	return true;
}

void spawn__stop(struct spawn *sp, int grace_ms, int (*idle)(void *ctx), void *ctx)
{
	uint64_t end = now_ns() + (uint64_t)(grace_ms > 0 ? grace_ms : 0) * 1000000;
	int status = 0;

	if (spawn__exited(sp) || sp->pid <= 0)
		return;
	kill(sp->pid, SIGTERM);
	while (!spawn__exited(sp)) {
		if (now_ns() >= end || idle(ctx))
			break;
	}
	if (sp->reaped)
		return;
	kill(sp->pid, SIGKILL);
	while (waitpid(sp->pid, &status, 0) < 0 && errno == EINTR)
		;
	reaped(sp, status);
}

int spawn__exit_code(const struct spawn *sp)
{
	if (!sp->reaped)
		return -1;
	if (WIFEXITED(sp->status))
		return WEXITSTATUS(sp->status);
	return WIFSIGNALED(sp->status) ? 128 + WTERMSIG(sp->status) : -1;
}
