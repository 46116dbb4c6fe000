// SPDX-License-Identifier: Apache-2.0
/* ebprof's own resource limits raised, the ones it found kept for the command it runs
 * (limits.h). Async-signal-safe where it matters: limits__restore runs in a forked child. */
#include <stdbool.h>
#include <sys/resource.h>

#include "util/limits.h"

static struct rlimit found_memlock, found_nofile;
static bool raised;

void limits__raise(void)
{
	struct rlimit r = {RLIM_INFINITY, RLIM_INFINITY};

	if (raised)
		return;
	if (getrlimit(RLIMIT_MEMLOCK, &found_memlock) || getrlimit(RLIMIT_NOFILE, &found_nofile))
		return;
	raised = true;
	/* Where memory is charged to the cgroup instead, failing costs nothing. */
	if (setrlimit(RLIMIT_MEMLOCK, &r)) {
		r = (struct rlimit){found_memlock.rlim_max, found_memlock.rlim_max};
		setrlimit(RLIMIT_MEMLOCK, &r);
	}
	r = (struct rlimit){found_nofile.rlim_max, found_nofile.rlim_max};
	setrlimit(RLIMIT_NOFILE, &r);
}

void limits__restore(void)
{
	if (!raised)
		return;
	setrlimit(RLIMIT_NOFILE, &found_nofile);
	setrlimit(RLIMIT_MEMLOCK, &found_memlock);
}
