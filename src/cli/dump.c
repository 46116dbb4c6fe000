// SPDX-License-Identifier: Apache-2.0
/* `ebprof dump -p PID`: the stack of every thread of one process, once, every runtime's
 * frames named among the native and kernel ones, whether the thread runs, sleeps or
 * hangs. The walkers read a process's memory only from inside it, so each thread is made
 * to pass through the scheduler for an instant: a ptrace interrupt (no signal; the
 * syscall it slept in is restarted) stops it, its stack is taken at that switch by the
 * programs `record --off-cpu` uses (as the event "stop"), and it is let go at once. What
 * it slept on comes from /proc before: its state, its system call, its kernel stack. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/dump.h"
#include "cli/host.h"
#include "cli/session.h"
#include "proc/threads.h"
#include "profile/report.h"
#include "symbol/symbolizer.h"
#include "util/clock.h"
#include "util/json.h"
#include "util/log.h"
#include "util/options.h"
#include "util/safe_file.h"

#define DEFAULT_WAIT 30.0
#define STOP_WAIT_NS (1000ULL * 1000000ULL) /* for every thread to stop */
#define STACK_WAIT_NS (500ULL * 1000000ULL) /* for their stacks, once let go */
#define POLL_MS 20

struct dump_opts {
	struct session_opts s;
	bool json;
	double wait;
};

/* What became of one thread. */
enum outcome {
	OUT_PENDING,
	OUT_SEIZED,
	OUT_STOPPED, /* stopped and let go: its stack was taken */
	OUT_GONE,    /* it exited */
	OUT_EXITED,  /* a zombie already */
	OUT_KERNEL,  /* a kernel thread: no user stack */
	OUT_REFUSED, /* ptrace refused (err) */
	OUT_STUCK,   /* did not stop in time: uninterruptible, or stopped already */
};

struct dumped {
	struct thread_info info;
	enum outcome out;
	int err;
	const struct report_stack *stack;
};

struct dump {
	uint32_t pid;
	char comm[17];
	struct dumped *t;
	size_t n;
	struct session *s;
	struct report *r;
	struct symbolizer sym;
	uint64_t at_unix_ns;
	bool kernel;   /* a kernel thread's "process" */
	uint64_t lost; /* records BPF could not send (a full ring buffer or pending map) */
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ebprof dump -p PID [options]\n"
		"\n"
		"Prints the stack of every thread of process PID once, and exits: kernel and\n"
		"user frames, every runtime's among them (the list below), for threads\n"
		"running, sleeping or hung alike, with each one's state and the system call\n"
		"it waits in.\n"
		"\n"
		"Each thread is stopped for an instant with ptrace (PTRACE_INTERRUPT: no signal\n"
		"is sent) so that its stack is read from inside it, and let go at once; the\n"
		"system call it slept in is restarted. As after a SIGSTOP and SIGCONT, a few\n"
		"waits (epoll_wait, sigtimedwait, semop) return EINTR instead. A thread in\n"
		"uninterruptible sleep cannot stop: its kernel stack is shown, not its user one.\n"
		"A process under a debugger cannot be dumped.\n"
		"\n"
		"options:\n"
		"  -p, --pid PID        the process (a thread's id names its process)\n"
		"      --json           one JSON object instead of text\n"
		"      --wait TIME      wait at most TIME for ebprof to read the process's files\n"
		"                       before stopping it (default %gs; stacks may be cut after)\n"
		"      --no-lines       name native frames from symbol tables only: no DWARF\n"
		"      --no-inline      source lines, but not the functions inlined into others\n"
		"  -v, --verbose        debug output\n"
		"  -h, --help           this help\n"
		"\n"
		"examples:\n"
		"  ebprof dump -p 1234\n"
		"  ebprof dump -p \"$(pidof java)\" --json > stacks.json\n",
		DEFAULT_WAIT);
	session__print_runtimes(out);
}

enum {
	OPT_JSON = SESSION_OPT__END,
	OPT_WAIT,
};

static int parse_args(int argc, char **argv, struct dump_opts *o)
{
	static const struct option longopts[] = {
	    {"pid", required_argument, NULL, 'p'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"no-lines", no_argument, NULL, SESSION_OPT_NO_LINES},
	    {"no-inline", no_argument, NULL, SESSION_OPT_NO_INLINE},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"wait", required_argument, NULL, OPT_WAIT},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int c, err = 0;

	*o = (struct dump_opts){.wait = DEFAULT_WAIT};
	/* One sample a second on a CPU: the stacks come from the stops, not from samples. */
	session_opts__init(&o->s, 1);
	o->s.stops = true;
	optind = 1;
	opterr = 0;
	while (!err && (c = getopt_long(argc, argv, ":p:vh", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			exit(0);
		}
		if (c == OPT_JSON)
			o->json = true;
		else if (c == OPT_WAIT)
			err = opt_seconds("--wait", optarg, &o->wait);
		else if (c == '?' || c == ':')
			err = session__bad_option(c, argv);
		else
			err = session_opts__parse(&o->s, c, optarg);
	}
	if (!err && optind < argc) {
		pr_err("unexpected argument '%s' (give the process with -p PID)", argv[optind]);
		err = -EINVAL;
	}
	if (!err && o->s.npids != 1) {
		pr_err(o->s.npids ? "-p: one process, not %zu" : "-p PID: which process to dump",
		       o->s.npids);
		err = -EINVAL;
	}
	if (!err && o->s.pids[0] == (uint32_t)getpid()) {
		pr_err("-p %u: that is this ebprof", o->s.pids[0]);
		err = -EINVAL;
	}
	if (err)
		fprintf(stderr, "Try 'ebprof dump --help'.\n");
	return err;
}

/* What /proc says of every thread, before any stops. -ESRCH: the process is gone. */
static int read_threads(struct dump *d)
{
	uint32_t *tids;
	char path[64], *comm = NULL;
	size_t len;
	int n = threads__list(d->pid, &tids);

	if (n < 0)
		return n;
	d->t = calloc((size_t)n, sizeof(*d->t));
	if (!d->t) {
		free(tids);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		struct dumped *t = &d->t[d->n];

		if (thread_info__read(d->pid, tids[i], &t->info))
			continue; /* gone already: it was not there to dump */
		d->n++;
	}
	free(tids);
	/* Only a kernel thread has no executable. */
	snprintf(path, sizeof(path), "/proc/%u/exe", d->pid);
	d->kernel = readlink(path, (char[8]){0}, 8) < 0 && errno == ENOENT;
	for (size_t i = 0; d->kernel && i < d->n; i++)
		d->t[i].info.syscall = THREAD_SYSCALL_NONE; /* /proc says 0: no user registers */
	snprintf(path, sizeof(path), "/proc/%u/comm", d->pid);
	if (!safe_file__read(path, 0, 4096, &comm, &len, NULL)) {
		snprintf(d->comm, sizeof(d->comm), "%.*s", (int)strcspn(comm, "\n"), comm);
		free(comm);
	}
	return d->n ? 0 : -ESRCH;
}

/* Seizes and interrupts every thread. A zombie has nothing left to stop. */
static void interrupt_all(struct dump *d)
{
	for (size_t i = 0; i < d->n; i++) {
		struct dumped *t = &d->t[i];

		if (t->info.state == 'Z' || t->info.state == 'X' || d->kernel) {
			t->out = d->kernel ? OUT_KERNEL : OUT_EXITED;
			continue;
		}
		if (ptrace(PTRACE_SEIZE, t->info.tid, 0, 0)) {
			t->err = errno;
			t->out = errno == ESRCH ? OUT_GONE : OUT_REFUSED;
			continue;
		}
		t->out = OUT_SEIZED;
		if (ptrace(PTRACE_INTERRUPT, t->info.tid, 0, 0) && errno == ESRCH)
			t->out = OUT_GONE;
	}
}

/* Lets a stopped thread go at once, with the signal it was stopping for if one was
 * being delivered (a PTRACE_EVENT_STOP is ours, or a group stop: no signal). */
static void release(struct dumped *t, int status)
{
	int sig = (status >> 16) == 0 ? WSTOPSIG(status) : 0;

	ptrace(PTRACE_DETACH, t->info.tid, 0, (void *)(long)sig);
	t->out = OUT_STOPPED;
}

static int cmp_tid(const void *key, const void *elem)
{
	uint32_t tid = *(const uint32_t *)key, other = ((const struct dumped *)elem)->info.tid;

	return tid < other ? -1 : tid > other;
}

/* Waits for each interrupted thread's stop and lets it go, for STOP_WAIT_NS at most. The
 * threads are ebprof's only children: any stop reported is one of theirs (sorted by tid,
 * as threads__list gives them), so a process of thousands costs no scan per report. */
static void release_all(struct dump *d)
{
	uint64_t until = clock_ns(CLOCK_MONOTONIC) + STOP_WAIT_NS;
	size_t waiting = 0;

	for (size_t i = 0; i < d->n; i++)
		waiting += d->t[i].out == OUT_SEIZED;
	while (waiting && clock_ns(CLOCK_MONOTONIC) < until) {
		int status;
		pid_t got = waitpid(-1, &status, __WALL | WNOHANG);
		uint32_t tid = (uint32_t)got;
		struct dumped *t;

		if (got < 0) /* ECHILD: no tracee left, every one gone */
			break;
		if (!got) {
			nanosleep(&(struct timespec){0, 200000}, NULL);
			continue;
		}
		t = bsearch(&tid, d->t, d->n, sizeof(*d->t), cmp_tid);
		if (!t || t->out != OUT_SEIZED)
			continue;
		waiting--;
		if (WIFSTOPPED(status))
			release(t, status);
		else
			t->out = OUT_GONE;
	}
	/* The ones left are let go when ebprof exits (the kernel detaches them), but for
	 * those that exited unseen. */
	for (size_t i = 0; i < d->n; i++) {
		struct dumped *t = &d->t[i];
		char path[64];

		if (t->out != OUT_SEIZED)
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task/%u", d->pid, t->info.tid);
		t->out = access(path, F_OK) ? OUT_GONE : OUT_STUCK;
	}
}

/* Stacks of the stop event, by thread. */
static size_t stops_seen(const struct session *s)
{
	size_t n = 0;

	hmap_for_each(&s->profile.stacks, i)
	{
		const struct stack *st = s->profile.stacks.slots[i].entry;

		n += st->event == s->stop_event;
	}
	return n;
}

/* A let-go thread's stack is sent when it runs again: wait for every one, for
 * STACK_WAIT_NS at most (the stop sends the rest, still waiting in BPF). */
static void collect_stacks(struct dump *d)
{
	uint64_t until = clock_ns(CLOCK_MONOTONIC) + STACK_WAIT_NS;
	size_t want = 0;

	for (size_t i = 0; i < d->n; i++)
		want += d->t[i].out == OUT_STOPPED;
	while (stops_seen(d->s) < want && clock_ns(CLOCK_MONOTONIC) < until && !session_stop_signal)
		if (session__poll(d->s, POLL_MS) < 0)
			break;
}

/* Waits until ebprof has read the process's files (its runtimes' walkers verified, its
 * libraries' tables built). False when the process went meanwhile. */
static bool settle(struct dump *d, double wait)
{
	uint64_t start = clock_ns(CLOCK_MONOTONIC), until = start + (uint64_t)(wait * 1e9);
	char path[32];

	snprintf(path, sizeof(path), "/proc/%u", d->pid);
	while (!session__settled(d->s) && !session_stop_signal) {
		if (access(path, F_OK))
			return false;
		if (clock_ns(CLOCK_MONOTONIC) >= until) {
			pr_warn(
			    "ebprof is still reading process %u's files after %gs (--wait): its "
			    "stacks may be cut",
			    d->pid, wait);
			break;
		}
		if (session__poll(d->s, POLL_MS) < 0)
			break;
	}
	pr_debug("process %u's files read in %.3fs", d->pid,
		 (clock_ns(CLOCK_MONOTONIC) - start) / 1e9);
	return true;
}

/* Matches each stopped thread with its stack in the report. */
static int build_report(struct dump *d)
{
	struct session *s = d->s;

	d->lost = s->counters[CTR_RINGBUF_FULL] + s->counters[CTR_OFF_CPU_FULL];
	session__symbolizer(s, &d->sym, session__ksyms(s));
	pthread_mutex_lock(&s->procs.lock);
	d->r = report__build(&s->profile, &d->sym, &s->frames, 0, s->start_unix_ns,
			     s->end_ns - s->start_ns);
	pthread_mutex_unlock(&s->procs.lock);
	if (!d->r)
		return -ENOMEM;
	for (size_t i = 0; i < d->r->nstacks; i++) {
		const struct report_stack *st = &d->r->stacks[i];

		if (st->event != s->stop_event)
			continue;
		for (size_t j = 0; j < d->n; j++)
			if (d->t[j].info.tid == st->tid && !d->t[j].stack)
				d->t[j].stack = st;
	}
	return 0;
}

/* "sleeping in read(3)", "running", "disk sleep". */
static void describe_state(const struct thread_info *ti, char *buf, size_t size)
{
	const char *sys = syscall_name(ti->syscall);
	int n = snprintf(buf, size, "%s", thread_state_name(ti->state));

	if (ti->state == 'R' || ti->syscall < 0 || n < 0 || (size_t)n >= size)
		return;
	/* The first argument: a small one is most often a descriptor, a large one an
	 * address (a futex's). */
	if (sys && ti->arg0 < 4096)
		snprintf(buf + n, size - (size_t)n, " in %s(%llu)", sys,
			 (unsigned long long)ti->arg0);
	else if (sys)
		snprintf(buf + n, size - (size_t)n, " in %s(0x%llx)", sys,
			 (unsigned long long)ti->arg0);
	else
		snprintf(buf + n, size - (size_t)n, " in system call %ld", ti->syscall);
}

/* Why a thread has no user stack, or NULL when it has one. */
static const char *missing(const struct dump *d, const struct dumped *t, char *buf, size_t size)
{
	switch (t->out) {
	case OUT_GONE:
		return "it exited during the dump";
	case OUT_EXITED:
		return "it has exited";
	case OUT_KERNEL:
		return "a kernel thread has none";
	case OUT_REFUSED:
		snprintf(buf, size,
			 "ptrace refused (%s): is it under a debugger, or does "
			 "kernel.yama.ptrace_scope forbid it?",
			 strerror(t->err));
		return buf;
	case OUT_STUCK:
		return t->info.state == 'D' ? "it did not stop within 1s (uninterruptible sleep)"
					    : "it did not stop within 1s";
	default:
		break;
	}
	if (t->stack)
		return NULL;
	return d->lost ? "BPF could not send it (its ring buffer was full)"
		       : "no stack came from BPF (see -v)";
}

static const char *frame_file(const struct report *r, const struct report_frame *fr)
{
	if (fr->kind != FRAME_NATIVE || fr->mapping < 0)
		return NULL;
	return r->mappings[fr->mapping].path;
}

static void print_frame_text(const struct report *r, const struct report_frame *fr, FILE *out)
{
	const char *kind = report_kind(r, fr->kind)->name, *file = frame_file(r, fr);

	for (uint32_t j = 0; j < report_frame_depth(fr); j++) {
		fprintf(out, "    %s  [%s", report_frame_label(fr, j), kind);
		if (file)
			fprintf(out, " %s", basename(file));
		fputs("]\n", out);
	}
}

static void print_text(const struct dump *d, FILE *out)
{
	char when[64], state[96], why[160];
	time_t secs = (time_t)(d->at_unix_ns / 1000000000ULL);
	struct tm tm;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", localtime_r(&secs, &tm));
	fprintf(out, "process %u (%s), %zu thread%s, %s\n", d->pid, d->comm, d->n,
		d->n == 1 ? "" : "s", when);
	for (size_t i = 0; i < d->n; i++) {
		const struct dumped *t = &d->t[i];
		const char *no = missing(d, t, why, sizeof(why));

		describe_state(&t->info, state, sizeof(state));
		fprintf(out, "\nthread %u \"%s\": %s\n", t->info.tid, t->info.name, state);
		/* A running thread's is not one it sleeps on, and /proc reads it racily. */
		for (size_t k = 0; t->info.state != 'R' && k < t->info.nkstack; k++)
			fprintf(out, "    %s  [kernel]\n", t->info.kstack[k]);
		if (t->info.kstack_err && t->info.state != 'R')
			fprintf(out, "    (kernel stack unreadable: %s)\n",
				strerror(t->info.kstack_err));
		if (no) {
			fprintf(out, "    (user stack not read: %s)\n", no);
			continue;
		}
		for (uint32_t k = 0; k < t->stack->nframes; k++) {
			const struct report_frame *fr = &d->r->frames[t->stack->frames[k]];

			if (fr->kind != FRAME_KERNEL) /* the stop's own path, not the sleep's */
				print_frame_text(d->r, fr, out);
		}
		if (t->stack->truncated)
			fprintf(out, "    (the stack goes on: more frames than ebprof keeps)\n");
	}
}

static void json_frame(const struct report *r, const struct report_frame *fr, bool *first,
		       FILE *out)
{
	const char *kind = report_kind(r, fr->kind)->name, *file = frame_file(r, fr);

	for (uint32_t j = 0; j < report_frame_depth(fr); j++) {
		const struct report_line *l = fr->nlines ? &fr->lines[j] : NULL;

		fputs(*first ? "\n      {" : ",\n      {", out);
		*first = false;
		fputs("\"name\": ", out);
		json_put_string(out, l ? l->function : fr->name, 0);
		fputs(", \"kind\": ", out);
		json_put_string(out, kind, 0);
		if (l && l->file[0]) {
			fputs(", \"file\": ", out);
			json_put_string(out, l->file, 0);
		}
		if (l && l->line)
			fprintf(out, ", \"line\": %u", l->line);
		if (l && l->column)
			fprintf(out, ", \"column\": %u", l->column);
		if (file) {
			fputs(", \"mapping\": ", out);
			json_put_string(out, file, 0);
		}
		if (j + 1 < report_frame_depth(fr))
			fputs(", \"inlined\": true", out);
		fputc('}', out);
	}
}

static void json_thread(const struct dump *d, const struct dumped *t, FILE *out)
{
	const char *sys = syscall_name(t->info.syscall), *no;
	char why[160];
	bool first = true;

	fprintf(out, "    {\"tid\": %u, \"name\": ", t->info.tid);
	json_put_string(out, t->info.name, 0);
	fputs(", \"state\": ", out);
	json_put_string(out, thread_state_name(t->info.state), 0);
	if (t->info.syscall >= 0 && t->info.state != 'R') {
		fputs(", \"syscall\": ", out);
		if (sys)
			json_put_string(out, sys, 0);
		else
			fprintf(out, "%ld", t->info.syscall);
	}
	fputs(", \"kernel\": [", out);
	for (size_t k = 0; t->info.state != 'R' && k < t->info.nkstack; k++) {
		fputs(k ? ", " : "", out);
		json_put_string(out, t->info.kstack[k], 0);
	}
	fputs("],\n     \"frames\": [", out);
	no = missing(d, t, why, sizeof(why));
	for (uint32_t k = 0; !no && k < t->stack->nframes; k++) {
		const struct report_frame *fr = &d->r->frames[t->stack->frames[k]];

		if (fr->kind != FRAME_KERNEL)
			json_frame(d->r, fr, &first, out);
	}
	fputs("]", out);
	if (no) {
		fputs(", \"error\": ", out);
		json_put_string(out, no, 0);
	} else if (t->stack->truncated) {
		fputs(", \"truncated\": true", out);
	}
	fputc('}', out);
}

static void print_json(const struct dump *d, FILE *out)
{
	fprintf(out, "{\"pid\": %u, \"name\": ", d->pid);
	json_put_string(out, d->comm, 0);
	fprintf(out, ", \"time_unix_ns\": %llu, \"threads\": [\n",
		(unsigned long long)d->at_unix_ns);
	for (size_t i = 0; i < d->n; i++) {
		json_thread(d, &d->t[i], out);
		fputs(i + 1 < d->n ? ",\n" : "\n", out);
	}
	fputs("]}\n", out);
}

/* The dump itself, once the session runs. Returns 0, or -ESRCH when the process went. */
static int dump_threads(struct dump *d, const struct dump_opts *o)
{
	size_t gone = 0;
	int err;

	if (!settle(d, o->wait))
		return -ESRCH;
	err = read_threads(d);
	if (err)
		return err;
	d->at_unix_ns = clock_ns(CLOCK_REALTIME);
	interrupt_all(d);
	release_all(d);
	for (size_t i = 0; i < d->n; i++)
		gone += d->t[i].out == OUT_GONE;
	if (gone && gone == d->n)
		return -ESRCH;
	collect_stacks(d);
	session__stop(d->s);
	return build_report(d);
}

int cmd_dump(int argc, char **argv)
{
	struct dump_opts o;
	struct dump d = {0};
	int err;

	if (parse_args(argc, argv, &o)) {
		session_opts__free(&o.s);
		return 2;
	}
	d.pid = o.s.pids[0];
	err = host__require_recording();
	if (err)
		goto out;
	session__install_signals();
	d.s = session__start(&o.s);
	if (!d.s) {
		err = -errno;
		goto out;
	}
	err = dump_threads(&d, &o);
	if (err == -ESRCH)
		pr_err("process %u exited during the dump", d.pid);
	else if (err)
		pr_err("dump: %s", strerror(-err));
	else if (o.json)
		print_json(&d, stdout);
	else
		print_text(&d, stdout);
out:
	if (d.s)
		session__stop(d.s);
	session__free(d.s);
	report__free(d.r);
	for (size_t i = 0; i < d.n; i++)
		thread_info__free(&d.t[i].info);
	free(d.t);
	session_opts__free(&o.s);
	return err ? session__failure_status(err) : 0;
}
