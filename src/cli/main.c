// SPDX-License-Identifier: Apache-2.0
/* ebprof's entry point: dispatches the verb (record, agent, check, help) in the style of
 * perf. */
#include <getopt.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/agent.h"
#include "cli/host.h"
#include "cli/record.h"
#include "cli/session.h"
#include "cli/dump.h"
#include "cli/top.h"
#include "cli/version.h"
#include "util/crash.h"

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: ebprof <command> [options]\n"
	    "\n"
	    "Whole-system, cross-language CPU profiler built on eBPF.\n"
	    "\n"
	    "commands:\n"
	    "  record    sample stacks for a while; write pprof, folded stacks, flame graph\n"
	    "  agent     profile continuously; send OTLP profiles to an OpenTelemetry collector\n"
	    "  top       show live the functions taking the CPU, every language's\n"
	    "  dump      print the stack of every thread of a process, once\n"
	    "  check     print what this host supports (privileges, BTF, BPF, perf events)\n"
	    "  version   print the version\n"
	    "  help      this help; 'ebprof help COMMAND' is 'ebprof COMMAND --help'\n"
	    "\n"
	    "Run 'ebprof <command> --help' for a command's options.\n"
	    "example: ebprof record -d 10 -o ebprof-out   (as root, or with sudo)\n");
}

static void check_usage(FILE *out)
{
	fprintf(out,
		"usage: ebprof check [--json]\n\nPrints one line per host feature ebprof uses: "
		"its name, its status and what\nwas found and, when missing, what needs it. "
		"Features are probed (a helper tried in a\nprogram, a field looked up in the "
		"kernel's BTF); only the floor, Linux 5.10, is read\nfrom the version. Without "
		"CAP_BPF and CAP_PERFMON the kernel refuses the probes that\nload programs, "
		"whatever it supports: those say 'untested', and why.\n\n"
		"  --json      one JSON object instead, for scripts: {\"can_record\": bool,\n"
		"              \"checks\": [{\"name\", \"status\" (ok, fail, warn, yes, no,\n"
		"              untested), \"required\", \"detail\", \"hint\"}]}\n"
		"  -h, --help  this help\n\n"
		"Exits 1 when a feature recording needs is missing (or untested).\n");
}

static int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	bool json = false;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (c == 'h') {
			check_usage(stdout);
			return 0;
		}
		if (c == 'j') {
			json = true;
			continue;
		}
		session__bad_option(c, argv);
		fprintf(stderr, "Try 'ebprof check --help'.\n");
		return 2;
	}
	if (optind < argc) {
		fprintf(stderr, "ebprof: error: check takes no arguments\n"
				"Try 'ebprof check --help'.\n");
		return 2;
	}
	return host__report(stdout, json) ? 1 : 0;
}

/* The verbs, each with its entry point: `ebprof help VERB` runs VERB --help. */
static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} verbs[] = {
    {"record", cmd_record}, {"agent", cmd_agent}, {"top", cmd_top},
    {"dump", cmd_dump},	    {"check", cmd_check},
};

static int run_verb(const char *verb, int argc, char **argv)
{
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(verb, verbs[i].name))
			return verbs[i].run(argc, argv);
	fprintf(stderr, "ebprof: error: unknown command '%s'\nTry 'ebprof --help'.\n", verb);
	return 2;
}

static int cmd_help(int argc, char **argv)
{
	char *help[] = {argc > 1 ? argv[1] : NULL, "--help", NULL};

	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	return run_verb(argv[1], 2, help);
}

int main(int argc, char **argv)
{
	const char *verb = argc > 1 ? argv[1] : NULL;

	/* glibc raises its mmap threshold to the size of each large block freed, so after
	 * one big unwind table every later buffer below that size stays in a thread's
	 * arena when freed: 9 of a recording's 15 MiB of heap here. A fixed threshold
	 * keeps large buffers mapped only while they live. */
	mallopt(M_MMAP_THRESHOLD, 128 << 10);
	crash__install();
	if (!verb) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(verb, "-h") || !strcmp(verb, "--help"))
		return cmd_help(1, argv + 1);
	if (!strcmp(verb, "help"))
		return cmd_help(argc - 1, argv + 1);
	if (!strcmp(verb, "version") || !strcmp(verb, "--version")) {
		printf("ebprof %s\n", EBPROF_VERSION);
		return 0;
	}
	return run_verb(verb, argc - 1, argv + 1);
}
