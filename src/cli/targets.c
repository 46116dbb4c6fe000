// SPDX-License-Identifier: Apache-2.0
/* Watching -p's processes end: a pidfd per process polls readable once it has exited,
 * whoever its parent is and even if it was reaped and its pid reused since. Where
 * pidfds are refused, kill(pid, 0) says whether the pid is still there. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli/targets.h"

struct targets {
	size_t n;
	uint32_t *pids;
	struct pollfd *fds; /* fd -1: no pidfd, ask kill() */
	bool *gone;
};

static int pidfd_open(uint32_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

struct targets *targets__new(const uint32_t *pids, size_t n)
{
	struct targets *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->pids = calloc(n ? n : 1, sizeof(*t->pids));
	t->fds = calloc(n ? n : 1, sizeof(*t->fds));
	t->gone = calloc(n ? n : 1, sizeof(*t->gone));
	if (!t->pids || !t->fds || !t->gone) {
		targets__free(t);
		errno = ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		t->pids[i] = pids[i];
		t->fds[i] = (struct pollfd){.fd = pidfd_open(pids[i]), .events = POLLIN};
		/* ESRCH: it exited between -p's check and now. */
		t->gone[i] = t->fds[i].fd < 0 && errno == ESRCH;
		t->n++;
	}
	return t;
}

bool targets__all_exited(struct targets *t)
{
	bool all = true;

	if (poll(t->fds, t->n, 0) < 0 && errno != EINTR)
		return false;
	for (size_t i = 0; i < t->n; i++) {
		if (t->gone[i])
			continue;
		if (t->fds[i].fd >= 0)
			t->gone[i] = t->fds[i].revents & (POLLIN | POLLHUP | POLLERR);
		else
			t->gone[i] = kill((pid_t)t->pids[i], 0) < 0 && errno == ESRCH;
		all = all && t->gone[i];
	}
	return all;
}

void targets__free(struct targets *t)
{
	if (!t)
		return;
	for (size_t i = 0; t->fds && i < t->n; i++)
		if (t->fds[i].fd >= 0)
			close(t->fds[i].fd);
	free(t->gone);
	free(t->fds);
	free(t->pids);
	free(t);
}
