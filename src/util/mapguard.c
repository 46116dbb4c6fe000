// SPDX-License-Identifier: Apache-2.0
/* The SIGBUS guard of mapped reads (mapguard.h says why). The state is per thread: a
 * SIGBUS of a mapping is synchronous, delivered to the thread that read, so its handler
 * sees that thread's depth and count. */
#include "util/mapguard.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static __thread unsigned int depth;
static __thread unsigned int absorbed;
static uint64_t faults;
static uintptr_t page_size;

bool mapguard__absorb(const siginfo_t *si)
{
	uintptr_t page;
	void *p;

	/* BUS_ADRERR: an access to a page of a file mapping past the file's end. */
	if (!depth || si->si_code != BUS_ADRERR || !page_size)
		return false;
	page = (uintptr_t)si->si_addr & ~(page_size - 1);
	/* mmap is a plain system call, safe in a handler. The zero page stays until the
	 * owner unmaps the whole mapping (elf_end), or the owner drops it first. */
	p = mmap((void *)page, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
		 0);
	if (p == MAP_FAILED)
		return false;
	absorbed++;
	__atomic_add_fetch(&faults, 1, __ATOMIC_RELAXED);
	return true;
}

/* The handler of a process without crash__install's: absorbs, or dies of SIGBUS as if
 * there were no handler (the default action restored, the faulting read retried). */
static void on_sigbus(int sig, siginfo_t *si, void *uctx)
{
	if (!mapguard__absorb(si))
		signal(sig, SIG_DFL);
}

static void install(void)
{
	struct sigaction old, sa = {.sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO};

	page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
	sigemptyset(&sa.sa_mask);
	if (!sigaction(SIGBUS, NULL, &old) && !(old.sa_flags & SA_SIGINFO) &&
	    old.sa_handler == SIG_DFL)
		sigaction(SIGBUS, &sa, NULL);
}

unsigned int mapguard__begin(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, install);
	depth++;
	return absorbed;
}

bool mapguard__end(unsigned int token)
{
	if (depth)
		depth--;
	return absorbed != token;
}

uint64_t mapguard__faults(void)
{
	return __atomic_load_n(&faults, __ATOMIC_RELAXED);
}
