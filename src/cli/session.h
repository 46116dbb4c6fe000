/* SPDX-License-Identifier: Apache-2.0 */
/* A profiling session: what `record` and `agent` share between their options and their
 * outputs. It loads and attaches the programs, starts the command if there is one,
 * feeds every record into a profile, and tears everything down on every path. The
 * verbs differ only in what they do with the profile: write it once, or send it every
 * interval. */
#ifndef EBPROF_SESSION_H
#define EBPROF_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <time.h>

#include "alloc/alloc.h"
#include "cli/cgroups.h"
#include "proc/cgroup_names.h"
#include "cli/spawn.h"
#include "loader/loader.h"
#include "profile/frame_source.h"
#include "profile/ingest.h"
#include "proc/files.h"
#include "loader/probes.h"
#include "proc/proc.h"

/* --unwind-memory's defaults: a bound, not an allocation (the row pool takes 1 MiB
 * chunks as tables are built). 128M holds a clang's two 110 MB libraries four times
 * over; an agent meets more programs over days. */
#define SESSION_UNWIND_MEMORY (128u << 20)
#define AGENT_UNWIND_MEMORY (512u << 20)

struct session_opts {
	unsigned long freq;
	uint32_t *pids; /* only these processes (NULL: the whole system); malloc'd */
	size_t npids;
	struct cgroup_arg *cgroups; /* --cgroup / --container: only these groups; malloc'd */
	size_t ncgroups;
	char **cmd;		/* start this command and profile it and its children */
	uint64_t ringbuf;	/* 0: sized from the CPUs, the rate and ringbuf_seconds */
	double ringbuf_seconds; /* of every CPU's samples at 4 KiB each the default holds */
	uint64_t unwind_memory;
	unsigned long load_jobs;
	enum loader_order load_order;
	struct alloc_opts alloc;   /* --alloc / --alloc-kernel */
	bool by_cpu;		   /* split stacks by CPU (OTLP's cpu.logical_number) */
	bool keep_times;	   /* keep every sample's time (OTLP's timestamps_unix_nano) */
	bool continuous;	   /* runs for days: forget what exited processes left behind */
	struct probe_spec *probes; /* --probe, each its own event; malloc'd */
	size_t nprobes;
	uint32_t off_cpu_ppm;	 /* --off-cpu: share of blocks sampled (ppm); 0: off */
	bool stops;		 /* every stop of a thread (tracer, signal) as event "stop" */
	bool no_lines;		 /* --no-lines: names from symbol tables only, no DWARF */
	bool no_inline;		 /* --no-inline: DWARF lines, but no inlined functions */
	const char *debug_cache; /* --debug-cache: directory of inflated debug files; NULL: off */
	const char *runtimes;	 /* --runtimes: runtime_env.only */
};

/* The flags every profiling verb takes, for getopt_long: -F -p -v and the long ones
 * below (their help text is SESSION_HELP). */
#define SESSION_SHORTOPTS "F:p:v"
/* Long-only flags take codes no verb uses as a letter; a verb numbers its own
 * long-only flags from SESSION_OPT__END, so none collides with these. */
enum session_opt {
	SESSION_OPT_PROBE = 0x100,
	SESSION_OPT_OFF_CPU,
	SESSION_OPT_ALLOC,
	SESSION_OPT_ALLOC_KERNEL,
	SESSION_OPT_NO_LINES,
	SESSION_OPT_NO_INLINE,
	SESSION_OPT_DEBUG_CACHE,
	SESSION_OPT_CGROUP,
	SESSION_OPT_CONTAINER,
	SESSION_OPT_RUNTIMES,
	SESSION_OPT__END,
};
/* clang-format off */
#define SESSION_LONGOPTS                                                    \
	{"freq", required_argument, NULL, 'F'},                             \
	{"pid", required_argument, NULL, 'p'},                              \
	{"verbose", no_argument, NULL, 'v'},                                \
	{"ringbuf", required_argument, NULL, 'R'},                          \
	{"unwind-memory", required_argument, NULL, 'U'},                    \
	{"load-jobs", required_argument, NULL, 'J'},                        \
	{"load-order", required_argument, NULL, 'O'},                       \
	{"alloc", optional_argument, NULL, SESSION_OPT_ALLOC},              \
	{"alloc-kernel", optional_argument, NULL, SESSION_OPT_ALLOC_KERNEL}, \
	{"probe", required_argument, NULL, SESSION_OPT_PROBE},              \
	{"off-cpu", optional_argument, NULL, SESSION_OPT_OFF_CPU},          \
	{"no-lines", no_argument, NULL, SESSION_OPT_NO_LINES},              \
	{"no-inline", no_argument, NULL, SESSION_OPT_NO_INLINE},            \
	{"debug-cache", required_argument, NULL, SESSION_OPT_DEBUG_CACHE},   \
	{"cgroup", required_argument, NULL, SESSION_OPT_CGROUP},            \
	{"container", required_argument, NULL, SESSION_OPT_CONTAINER},      \
	{"runtimes", required_argument, NULL, SESSION_OPT_RUNTIMES}
/* clang-format on */
/* The help of the flags every profiling verb takes, in words true of both; each verb
 * adds its own (record's allocation flags speak of its command, the agent's of
 * processes started with the library). */
#define SESSION_HELP                                                                           \
	"  -p, --pid PIDS       only these processes (comma-separated), with their threads\n"  \
	"      --cgroup PATH    only the tasks of this cgroup v2 group and the groups below\n" \
	"                       it, those that join or are made later included (repeatable;\n" \
	"                       a directory, or a path as /proc/PID/cgroup shows it); with\n"  \
	"                       -p, both must hold\n"                                          \
	"      --container ID   only this container's tasks: its group, found by the id (or\n" \
	"                       its first 4+ hex digits) in the group's name, as Docker,\n"    \
	"                       containerd, CRI-O and Podman name them, or by the machine's\n" \
	"                       name for systemd-nspawn (repeatable)\n"                        \
	"      --ringbuf SIZE   BPF ring buffer, a power of two (default: sized from the\n"    \
	"                       CPUs and the rate, from 256K to 64M; 8M at least with\n"       \
	"                       events)\n"                                                     \
	"      --unwind-memory SIZE\n"                                                         \
	"                       at most this much kernel memory for unwind tables, taken\n"    \
	"                       as they are built (default 128M; the agent's 512M); when\n"    \
	"                       full, the tables used longest ago are evicted\n"               \
	"      --load-jobs N    verify BPF programs on N threads (default: the CPUs\n"         \
	"                       ebprof may use; 1 loads them one by one). A runtime's\n"       \
	"                       walker (see 'runtimes' below) is verified only once\n"         \
	"                       a process of it is found\n"                                    \
	"      --load-order O   'longest' (default: most expensive first, by the costs\n"      \
	"                       measured on earlier runs) or 'build' (as declared)\n"          \
	"      --runtimes LIST  walk only these runtimes (comma-separated, as 'runtimes'\n"    \
	"                       below names them, any case: java,python; 'none': native\n"     \
	"                       frames only), their walkers verified at start-up, so a\n"      \
	"                       process started later has its runtime's frames from its\n"     \
	"                       first sample (default: every runtime, each verified once\n"    \
	"                       a process of it is found)\n"                                   \
	"      --probe SPEC     also collect stacks on an event, as a profile of its own\n"    \
	"                       (repeatable): uprobe:PATH:SYMBOL[+OFFSET],\n"                  \
	"                       uretprobe:PATH:SYMBOL, tracepoint:CATEGORY:NAME,\n"            \
	"                       usdt:PATH:PROVIDER:NAME\n"                                     \
	"      --off-cpu[=RATE] also profile the time threads spend blocked, by the stack\n"   \
	"                       where they blocked; RATE (0.001-1 or 0.1%%-100%%, default\n"   \
	"                       1) is the share of blocks sampled, each scaled by 1/RATE\n"    \
	"      --no-lines       name native frames from symbol tables only: no DWARF,\n"       \
	"                       so no source lines and no inlined functions\n"                 \
	"      --no-inline      source lines, but not the functions inlined into others\n"     \
	"      --debug-cache DIR\n"                                                            \
	"                       where debug files with compressed DWARF are kept inflated,\n"  \
	"                       by build id, so no run inflates them again (default\n"         \
	"                       /var/cache/ebprof/debug, at most 512M: the copies used\n"      \
	"                       longest ago go first); 'off': inflate them in memory\n"        \
	"  -v, --verbose        debug output, including libbpf's and the verifier's, and\n"    \
	"                       the cost of every program verified, at start or later\n"
/* -F's text, with the verb's default rate. */
#define SESSION_HELP_FREQ                                                                    \
	"  -F, --freq HZ        samples per second per CPU (default %lu); 'max': the most\n" \
	"                       this host allows (kernel.perf_event_max_sample_rate, at\n"   \
	"                       most 100000), to which a higher rate is lowered\n"
/* --alloc-kernel's text, the same for every verb. */
#define SESSION_HELP_ALLOC_KERNEL                                                             \
	"      --alloc-kernel[=MEAN]\n"                                                       \
	"                       allocations of processes that cannot be restarted: uprobes\n" \
	"                       on libc's malloc & co., sampled in BPF. EXPENSIVE: every\n"   \
	"                       allocation traps into the kernel (microseconds each)\n"

/* -F's bounds: 'max' asks for the most the host allows; a number above it is lowered
 * (session_opts__fit_rate), so the parser takes more than any host gives. */
#define SESSION_FREQ_MAX 0
#define SESSION_FREQ_LIMIT 10000000

/* Defaults for every field, with the verb's own sampling frequency. */
void session_opts__init(struct session_opts *o, unsigned long freq);
/* Handles one getopt_long result of the shared flags: 0 done, -EINVAL after printing
 * why, 1 when c is not a shared flag. */
int session_opts__parse(struct session_opts *o, int c, const char *arg);
/* Lowers o->freq to what the host allows (kernel.perf_event_max_sample_rate, and the
 * cpu-clock's 100 kHz), saying so in one line, as perf does; 'max' becomes that rate. */
void session_opts__fit_rate(struct session_opts *o);
/* Says in one line what getopt_long (with opterr 0 and ':' leading the short options)
 * refused, c being its '?' or ':'; the verb adds "Try 'ebprof VERB --help'.".
 * Returns -EINVAL. */
int session__bad_option(int c, char **argv);
/* The help's closing lines: the runtimes whose frames ebprof names, from the registry. */
void session__print_runtimes(FILE *out);
/* Frees what parsing allocated (pids, probes, groups). */
void session_opts__free(struct session_opts *o);

struct sampler;
struct native_unwinder;
struct ksyms;
struct ksyms_loading;

struct session {
	struct file_table files;
	struct proc_table procs; /* procs.lock also guards files against the tracker */
	struct profile profile;
	struct ingest ingest;
	struct sampler *sampler;
	struct loader *loader;
	struct native_unwinder *native;
	struct runtime_set *runtimes;	  /* language runtimes: processes described, frames named */
	struct cgroup_filter cgroups;	  /* --cgroup / --container */
	struct cgroup_names cgroup_names; /* samples' groups named, for record's labels */
	struct frame_source frames;    /* the runtimes' frames, as ingest and reports take them */
	struct debuginfod *debuginfod; /* NULL unless DEBUGINFOD_URLS is set */
	struct spawn child;
	struct alloc *alloc; /* NULL unless --alloc or --alloc-kernel */
	char alloc_lib[4096];
	unsigned long freq;
	bool continuous;
	bool no_lines, no_inline; /* from the options, for the symbolizer */
	const char *debug_cache;
	uint64_t start_unix_ns;
	uint64_t start_ns; /* CLOCK_MONOTONIC */
	uint64_t end_ns;
	uint64_t counters[CTR__COUNT];
	uint64_t bad_records;
	uint64_t unread; /* records left in the ring buffer at the stop, dropped unread */
	unsigned int ncpus;
	uint32_t off_cpu_event;		     /* its index in profile.events; 0 when off */
	uint32_t stop_event;		     /* the same for stops */
	struct ksyms_loading *ksyms_loading; /* /proc/kallsyms, read while sampling starts */
	struct ksyms *ksyms;
	bool ksyms_done;
};

/* Allocates a session and starts sampling. o (its probes name the events) must outlive
 * the session. Returns NULL with errno set, having logged
 * why; nothing stays attached then. */
struct session *session__start(const struct session_opts *o);
/* Waits up to timeout_ms for records and adds them to the profile, spending at most
 * SAMPLER_POLL_BUDGET_NS on them whatever the rate. Returns the number consumed or a
 * negative errno. */
int session__poll(struct session *s, int timeout_ms);
/* Adds the records waiting to the profile without waiting for more, for as long as one
 * poll may take at most. Returns the number consumed or a negative errno. */
int session__consume(struct session *s);
/* True once the command (if any) has exited and was reaped (its status in
 * child.status); says once when a signal ended it. */
bool session__child_exited(struct session *s);
/* True once the process tracker has described, and built the tables of, everything it
 * knows of (its start-up scan included): what a one-shot verb waits for. */
bool session__settled(struct session *s);
/* The CPUs sampled (a perf event each). */
unsigned int session__ncpus(const struct session *s);
/* The exit status of a verb whose session failed with err: 128 + the signal when a stop
 * signal ended its start (-EINTR: nothing was recorded), as a shell reports a command a
 * signal ended; 1 otherwise. */
int session__failure_status(int err);
/* Stops sampling, reads what BPF already sent (for a bounded time: the rest is counted
 * in unread), stops the tracker, and releases every program, link and event. The
 * profile and the counters stay readable. */
void session__stop(struct session *s);
void session__free(struct session *s);
/* The kernel's symbols, read on a thread since the session started: waits for them the
 * first time (warning once when they are unavailable). NULL when unavailable. Owned by
 * the session. */
const struct ksyms *session__ksyms(struct session *s);
uint64_t session__clock_ns(clockid_t id);
struct symbolizer;
struct ksyms;
/* Sets sym up over the session's files as the options ask (lines, inlines, debuginfod). */
void session__symbolizer(struct session *s, struct symbolizer *sym, const struct ksyms *k);
/* SIGINT, SIGTERM and SIGHUP set session_stop_signal (the verbs' loops end and clean up);
 * SIGPIPE is ignored, so a collector closing a connection is an error, not death. */
extern volatile sig_atomic_t session_stop_signal;
extern volatile sig_atomic_t session_signals; /* how many arrived: a second one hurries */
void session__install_signals(void);

#endif
