// SPDX-License-Identifier: Apache-2.0
/* `ebprof top`: the session of `record` and `agent`, whose profile is named and counted
 * into a sliding window every refresh (export/top_view.h) and shown: redrawn in place on
 * a terminal, keys changing the order, grouping and filter, or printed whole every
 * interval with --batch, for pipes and logs. The terminal is put back as it was on every
 * way out: the loop's end, a signal that ends it, an error, a crash. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli/host.h"
#include "cli/session.h"
#include "cli/top.h"
#include "export/top_view.h"
#include "profile/report.h"
#include "symbol/symbolizer.h"
#include "util/crash.h"
#include "util/log.h"
#include "util/options.h"

#define DEFAULT_FREQ 99
#define DEFAULT_WINDOW 2.0
#define DEFAULT_INTERVAL 1.0
#define BATCH_ROWS 20
#define POLL_MS 100 /* keys are read between polls: a tenth of a second at most */
#define FILTER_MAX 64
/* Lines above the table on a terminal: the status line and the keys' line. */
#define HEAD_LINES 2

struct top_opts {
	struct session_opts s;
	double window, interval, duration;
	unsigned long iterations; /* 0: until q, a signal or the duration */
	unsigned long rows;	  /* 0: what the terminal fits (BATCH_ROWS in batch mode) */
	bool batch;
	struct top_query q;
	char filter[FILTER_MAX + 1];
};

struct top {
	struct session *s;
	struct top_view *view;
	struct symbolizer sym;
	bool sym_ready;
	struct proc_prune_stats pruned;
	uint64_t refreshes;
	uint64_t slice_start_unix_ns;
	/* The terminal's state (interactive mode only). */
	bool frozen, editing, help;
	char edit[FILTER_MAX + 1];
	size_t edit_len;
};

/* What the terminal was before raw mode, for every way out (the crash handler's too:
 * write and tcsetattr are async-signal-safe). */
static struct termios saved_tio;
static volatile sig_atomic_t term_raw;
#define TERM_ENTER "\033[?1049h\033[?25l" /* the alternate screen, the cursor hidden */
#define TERM_LEAVE "\033[?25h\033[?1049l"

static void term_restore(void)
{
	if (!term_raw)
		return;
	term_raw = 0;
	tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
	if (write(STDOUT_FILENO, TERM_LEAVE, sizeof(TERM_LEAVE) - 1) < 0)
		return;
}

/* Keys one at a time, unechoed; signals (Ctrl-C) still work. Ctrl-Z is ignored: a
 * stopped view would leave the shell in the alternate screen. */
static int term_enter(void)
{
	struct termios raw;

	if (tcgetattr(STDIN_FILENO, &saved_tio))
		return -errno;
	raw = saved_tio;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &raw))
		return -errno;
	term_raw = 1;
	signal(SIGTSTP, SIG_IGN);
	crash__on_fatal(term_restore);
	fputs(TERM_ENTER, stdout);
	fflush(stdout);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: ebprof top [options]\n"
	    "\n"
	    "Shows live the functions taking the CPU on the whole system (or -p PIDS, or\n"
	    "--cgroup/--container), every runtime's as well as native and kernel ones: each\n"
	    "with its share of samples as the innermost frame (self) and anywhere in the\n"
	    "stack (total), its process, its kind and its file, over a sliding window.\n"
	    "\n"
	    "options:\n" SESSION_HELP_FREQ
	    "  -w, --window TIME    the window counted (default %gs)\n"
	    "  -i, --interval TIME  refresh every TIME (default %gs)\n"
	    "  -d, --duration TIME  stop after TIME (default: until q or a signal)\n"
	    "  -n, --iterations N   stop after N refreshes\n"
	    "  -b, --batch          print the table every interval instead of redrawing it\n"
	    "                       (for pipes and logs; also when stdout is no terminal)\n"
	    "      --rows N         rows shown (default: what the terminal fits; %d in\n"
	    "                       batch mode)\n"
	    "      --sort KEY       'self' (default) or 'total'\n"
	    "      --by GROUP       'function' (default: one row per function, whatever\n"
	    "                       process ran it) or 'process' (one per function and\n"
	    "                       process)\n"
	    "      --filter TEXT    only functions whose name holds TEXT (any case)\n" SESSION_HELP
	    "  -h, --help           this help\n"
	    "\n"
	    "keys: s sort by self, t by total; f group by function, p by process; / filter\n"
	    "(Enter applies, Esc cancels), c clears it; space freezes the view (sampling\n"
	    "goes on); ? help; q quits. Ctrl-Z is ignored.\n"
	    "\n"
	    "examples:\n"
	    "  ebprof top\n"
	    "  ebprof top -p 1234 --by process\n"
	    "  ebprof top --batch -n 3 --rows 10 > top.log\n",
	    (unsigned long)DEFAULT_FREQ, DEFAULT_WINDOW, DEFAULT_INTERVAL, BATCH_ROWS);
	session__print_runtimes(out);
}

enum {
	OPT_ROWS = SESSION_OPT__END,
	OPT_SORT,
	OPT_BY,
	OPT_FILTER,
};

/* Which of two words arg is: 0 or 1, or -EINVAL after saying so. */
static int choose(const char *flag, const char *arg, const char *zero, const char *one)
{
	if (strcmp(arg, zero) && strcmp(arg, one)) {
		pr_err("%s: '%s' or '%s', not '%s'", flag, zero, one, arg);
		return -EINVAL;
	}
	return strcmp(arg, zero) ? 1 : 0;
}

static int parse_own(struct top_opts *o, int c, const char *arg)
{
	int n;

	switch (c) {
	case 'w':
		return opt_seconds("--window", arg, &o->window);
	case 'i':
		return opt_seconds("--interval", arg, &o->interval);
	case 'd':
		return opt_seconds("--duration", arg, &o->duration);
	case 'n':
		return opt_uint("--iterations", arg, 1, ULONG_MAX, &o->iterations);
	case 'b':
		o->batch = true;
		return 0;
	case OPT_ROWS:
		return opt_uint("--rows", arg, 1, 100000, &o->rows);
	case OPT_SORT:
		n = choose("--sort", arg, "self", "total");
		o->q.sort = n == 1 ? TOP_SORT_TOTAL : TOP_SORT_SELF;
		return n < 0 ? n : 0;
	case OPT_BY:
		n = choose("--by", arg, "function", "process");
		o->q.group = n == 1 ? TOP_BY_PROCESS : TOP_BY_FUNCTION;
		return n < 0 ? n : 0;
	case OPT_FILTER:
		if (strlen(arg) > FILTER_MAX) {
			pr_err("--filter: at most %d characters", FILTER_MAX);
			return -EINVAL;
		}
		strcpy(o->filter, arg);
		return 0;
	}
	return 1;
}

static int check_times(const struct top_opts *o)
{
	if (o->interval < 0.1) {
		pr_err("--interval: at least 0.1s");
		return -EINVAL;
	}
	if (o->window < o->interval) {
		pr_err("--window (%gs) must hold one interval (%gs) at least", o->window,
		       o->interval);
		return -EINVAL;
	}
	if (o->window / o->interval > 3600) {
		pr_err("--window: at most 3600 intervals");
		return -EINVAL;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct top_opts *o)
{
	static const struct option longopts[] = {
	    SESSION_LONGOPTS,
	    {"window", required_argument, NULL, 'w'},
	    {"interval", required_argument, NULL, 'i'},
	    {"duration", required_argument, NULL, 'd'},
	    {"iterations", required_argument, NULL, 'n'},
	    {"batch", no_argument, NULL, 'b'},
	    {"rows", required_argument, NULL, OPT_ROWS},
	    {"sort", required_argument, NULL, OPT_SORT},
	    {"by", required_argument, NULL, OPT_BY},
	    {"filter", required_argument, NULL, OPT_FILTER},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	int c, err = 0;

	*o = (struct top_opts){.window = DEFAULT_WINDOW, .interval = DEFAULT_INTERVAL};
	session_opts__init(&o->s, DEFAULT_FREQ);
	o->s.continuous = true; /* a view left open for hours forgets exited processes */
	optind = 1;
	opterr = 0;
	while (!err && (c = getopt_long(argc, argv, ":" SESSION_SHORTOPTS "w:i:d:n:bh", longopts,
					NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			exit(0);
		}
		err = parse_own(o, c, optarg);
		if (err > 0)
			err = session_opts__parse(&o->s, c, optarg);
		if (err > 0)
			err = session__bad_option(c, argv);
	}
	if (!err && optind < argc) {
		pr_err("unexpected argument '%s' (top runs no command; use -p PIDS)", argv[optind]);
		err = -EINVAL;
	}
	if (!err)
		err = check_times(o);
	if (err)
		fprintf(stderr, "Try 'ebprof top --help'.\n");
	o->q.filter = o->filter;
	return err;
}

/* Names this interval's samples and adds them to the window as a slice; the profile
 * starts the next interval empty. */
static int refresh(struct top *t, const struct top_opts *o)
{
	uint64_t end = session__clock_ns(CLOCK_REALTIME);
	struct session *s = t->s;
	struct report *r;
	int err = 0;

	if (s->sampler)
		session__consume(s);
	if (!t->sym_ready) {
		session__symbolizer(s, &t->sym, session__ksyms(s));
		t->sym.release_dwarf = true;
		t->sym.dwarf_idle_max = 3; /* as the agent: a file's DWARF kept while in use */
		t->sym_ready = true;
	}
	/* The tracker interns files concurrently: hold it off while names are read. */
	pthread_mutex_lock(&s->procs.lock);
	r = report__build(&s->profile, &t->sym, &s->frames, 1000000000ULL / o->s.freq,
			  t->slice_start_unix_ns, end - t->slice_start_unix_ns);
	pthread_mutex_unlock(&s->procs.lock);
	if (!r)
		err = -ENOMEM;
	else if (!t->frozen)
		err = top_view__add(t->view, r);
	report__free(r);
	profile__clear(&s->profile);
	proc_table__prune(&s->procs, &t->pruned);
	t->slice_start_unix_ns = end;
	t->refreshes++;
	return err;
}

/* The status line: when, how much, in what order. */
static void print_status(const struct top *t, const struct top_opts *o, const struct top_query *q,
			 FILE *out)
{
	struct top_totals tot;
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	double secs, cpu;

	top_view__totals(t->view, &tot);
	secs = tot.duration_ns / 1e9;
	cpu = secs > 0 ? 100.0 * tot.samples / (secs * o->s.freq * session__ncpus(t->s)) : 0;
	strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&now, &tm));
	fprintf(out,
		"ebprof top %s  %.1fs: %llu samples at %lu Hz on %u CPUs (%.1f%% busy), %u "
		"process%s; by %s, %s first%s%s%s%s\n",
		when, secs, (unsigned long long)tot.samples, o->s.freq, session__ncpus(t->s), cpu,
		tot.processes, tot.processes == 1 ? "" : "es",
		q->group == TOP_BY_PROCESS ? "process" : "function",
		q->sort == TOP_SORT_SELF ? "self" : "total", q->filter && q->filter[0] ? ", '" : "",
		q->filter ? q->filter : "", q->filter && q->filter[0] ? "'" : "",
		t->frozen ? "  [frozen]" : "");
}

static void print_batch(struct top *t, const struct top_opts *o)
{
	struct top_query q = o->q;

	q.rows = o->rows ? (unsigned)o->rows : BATCH_ROWS;
	print_status(t, o, &q, stdout);
	if (top_view__print(t->view, &q, stdout) < 0)
		pr_warn("top: out of memory for the table");
	fputc('\n', stdout);
	fflush(stdout);
}

/* One screen, drawn in place: each line clears what the last screen left to its right,
 * and what is below the last line goes. */
static void draw(struct top *t, const struct top_opts *o)
{
	struct winsize ws = {0};
	struct top_query q = o->q;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || !ws.ws_row)
		ws = (struct winsize){.ws_row = 24, .ws_col = 80};
	q.width = ws.ws_col;
	q.rows = ws.ws_row > HEAD_LINES + 2 ? ws.ws_row - HEAD_LINES - 2 : 1;
	if (o->rows && o->rows < q.rows)
		q.rows = (unsigned)o->rows;
	m = open_memstream(&buf, &len);
	if (!m)
		return;
	print_status(t, o, &q, m);
	if (t->editing)
		fprintf(m, "filter: %s_  (Enter applies, Esc cancels)\n", t->edit);
	else if (t->help)
		fprintf(m, "s self  t total  f by function  p by process  / filter  c clear  "
			   "space freeze  q quit\n");
	else
		fprintf(m, "keys: s t f p / c space ? q\n");
	top_view__print(t->view, &q, m);
	fclose(m);
	fputs("\033[H", stdout);
	for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		fprintf(stdout, "%.*s\033[K\n", nl ? (int)(nl - line) : (int)strlen(line), line);
	}
	fputs("\033[J", stdout);
	fflush(stdout);
	free(buf);
}

/* A key of the filter's line editor. */
static void edit_key(struct top *t, struct top_opts *o, unsigned char c)
{
	if (c == '\r' || c == '\n') {
		strcpy(o->filter, t->edit);
		t->editing = false;
	} else if (c == 27) {
		t->editing = false;
	} else if ((c == 127 || c == 8) && t->edit_len) {
		t->edit[--t->edit_len] = '\0';
	} else if (c >= 32 && c < 127 && t->edit_len < FILTER_MAX) {
		t->edit[t->edit_len++] = (char)c;
		t->edit[t->edit_len] = '\0';
	}
}

/* Reads the keys waiting; false when one says quit. */
static bool read_keys(struct top *t, struct top_opts *o, bool *redraw)
{
	unsigned char c;

	while (read(STDIN_FILENO, &c, 1) == 1) {
		*redraw = true;
		if (t->editing) {
			edit_key(t, o, c);
			continue;
		}
		switch (c) {
		case 'q':
		case 'Q':
			return false;
		case 's':
			o->q.sort = TOP_SORT_SELF;
			break;
		case 't':
			o->q.sort = TOP_SORT_TOTAL;
			break;
		case 'f':
			o->q.group = TOP_BY_FUNCTION;
			break;
		case 'p':
			o->q.group = TOP_BY_PROCESS;
			break;
		case 'c':
			o->filter[0] = '\0';
			break;
		case '/':
			t->editing = true;
			strcpy(t->edit, o->filter);
			t->edit_len = strlen(t->edit);
			break;
		case ' ':
			t->frozen = !t->frozen;
			break;
		case '?':
		case 'h':
			t->help = !t->help;
			break;
		}
	}
	return true;
}

static int run(struct top *t, struct top_opts *o, bool interactive)
{
	uint64_t start = session__clock_ns(CLOCK_MONOTONIC), now;
	uint64_t next = start + (uint64_t)(o->interval * 1e9);
	uint64_t stop_at = o->duration > 0 ? start + (uint64_t)(o->duration * 1e9) : 0;
	bool redraw = interactive;
	int n, err = 0;

	while (!session_stop_signal) {
		if (redraw)
			draw(t, o);
		redraw = false;
		n = session__poll(t->s, POLL_MS);
		if (n < 0 && n != -EINTR) {
			err = n;
			break;
		}
		if (interactive && !read_keys(t, o, &redraw))
			break;
		now = session__clock_ns(CLOCK_MONOTONIC);
		if (now < next && !(stop_at && now >= stop_at))
			continue;
		err = refresh(t, o);
		if (err)
			break;
		next = now + (uint64_t)(o->interval * 1e9);
		if (interactive)
			redraw = true;
		else
			print_batch(t, o);
		if ((o->iterations && t->refreshes >= o->iterations) || (stop_at && now >= stop_at))
			break;
	}
	if (err)
		pr_err("top: %s", strerror(-err));
	return err;
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o;
	struct top t = {0};
	bool interactive;
	int err;

	if (parse_args(argc, argv, &o)) {
		session_opts__free(&o.s);
		return 2;
	}
	interactive = !o.batch && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	err = host__require_recording();
	if (err)
		goto out;
	session_opts__fit_rate(&o.s);
	session__install_signals();
	t.view = top_view__new((unsigned)ceil(o.window / o.interval - 1e-9));
	if (!t.view) {
		err = -ENOMEM;
		goto out;
	}
	t.s = session__start(&o.s);
	if (!t.s) {
		err = -errno;
		goto out;
	}
	t.slice_start_unix_ns = t.s->start_unix_ns;
	if (interactive && term_enter())
		interactive = false; /* a terminal that refuses raw mode: print as --batch */
	err = run(&t, &o, interactive);
out:
	term_restore();
	if (t.s)
		session__stop(t.s);
	session__free(t.s);
	top_view__free(t.view);
	session_opts__free(&o.s);
	return err ? session__failure_status(err) : 0;
}
