// SPDX-License-Identifier: Apache-2.0
/* Fatal signal reporter. The handler writes with write(2) only and then lets the signal
 * kill the process as it would have: the kernel closes every BPF program, link, map and
 * perf event with the file descriptors, so a crash leaves nothing behind either; what
 * it loses is the report, and that is why this says where it happened. */
#include <errno.h>
#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/crash.h"
#include "util/mapguard.h"

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

/* A stack overflow leaves no stack to report it on, and then the kernel kills the
 * process without running the handler: each thread's handler runs on a stack of its own. */
#define ALT_STACK_SIZE (64 << 10)
static char main_alt_stack[ALT_STACK_SIZE];

static void put(const char *s)
{
	if (write(STDERR_FILENO, s, strlen(s)) < 0)
		return;
}

static void put_hex(uintptr_t v)
{
	char buf[2 + 2 * sizeof(v) + 1], *p = buf + sizeof(buf) - 1;

	*p = '\0';
	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	put(p);
}

static void (*volatile last_words)(void);

void crash__on_fatal(void (*fn)(void))
{
	last_words = fn;
}

static void on_fatal(int sig, siginfo_t *si, void *uctx)
{
	void *frames[48];
	const char *name = sigabbrev_np(sig);
	int n;

	/* A file shrunk under a guarded read of its mapping: not a crash (mapguard.h). */
	if (sig == SIGBUS && mapguard__absorb(si))
		return;
	/* The default action again, for the signal raised below and any fault after it. */
	signal(sig, SIG_DFL);
	if (last_words)
		last_words();
	put("ebprof: crashed: SIG");
	put(name ? name : "?");
	/* A fault the kernel raised has an address; a signal sent by kill() has none. */
	if (si->si_code > 0 && sig != SIGABRT) {
		put(" at address ");
		put_hex((uintptr_t)si->si_addr);
	}
	put(" (a bug in ebprof: please report it with this backtrace)\n");
	n = backtrace(frames, sizeof(frames) / sizeof(frames[0]));
	backtrace_symbols_fd(frames, n, STDERR_FILENO);
	/* The default action is back: the signal now ends the process. */
	raise(sig);
}

void crash__install(void)
{
	/* Not SA_RESETHAND: a SIGBUS mapguard absorbs leaves the handler in place. */
	struct sigaction sa = {.sa_sigaction = on_fatal, .sa_flags = SA_SIGINFO | SA_ONSTACK};
	stack_t ss = {.ss_sp = main_alt_stack, .ss_size = sizeof(main_alt_stack)};
	void *warm;

	/* backtrace() loads libgcc_s on first use, which a signal handler must not do. */
	backtrace(&warm, 1);
	sigaltstack(&ss, NULL);
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaction(fatal_signals[i], &sa, NULL);
}

struct thread_start {
	void *(*fn)(void *);
	void *arg;
};

static void *run_with_alt_stack(void *p)
{
	struct thread_start ts = *(struct thread_start *)p;
	stack_t ss = {.ss_size = ALT_STACK_SIZE}, off = {.ss_flags = SS_DISABLE};
	sigset_t fatal;
	void *ret;

	free(p);
	/* A fault under a blocked signal kills at once: a thread started with every signal
	 * blocked (the OTLP sender) still gets these. */
	sigemptyset(&fatal);
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaddset(&fatal, fatal_signals[i]);
	pthread_sigmask(SIG_UNBLOCK, &fatal, NULL);
	ss.ss_sp = malloc(ALT_STACK_SIZE);
	if (ss.ss_sp && sigaltstack(&ss, NULL)) {
		free(ss.ss_sp);
		ss.ss_sp = NULL;
	}
	ret = ts.fn(ts.arg);
	if (ss.ss_sp) {
		sigaltstack(&off, NULL);
		free(ss.ss_sp);
	}
	return ret;
}

int crash__thread_create(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	struct thread_start *ts = malloc(sizeof(*ts));
	int err;

	if (!ts)
		return ENOMEM;
	*ts = (struct thread_start){.fn = fn, .arg = arg};
	err = pthread_create(thread, NULL, run_with_alt_stack, ts);
	if (err)
		free(ts);
	return err;
}
