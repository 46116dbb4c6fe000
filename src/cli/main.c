// SPDX-License-Identifier: Apache-2.0
/* ebprof's entry point: dispatches the verb (record, check) in the style of perf. */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "cli/agent.h"
#include "cli/host.h"
#include "cli/record.h"
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
	    "  check     print what this host supports (privileges, BTF, BPF, perf events)\n"
	    "  version   print the version\n"
	    "\n"
	    "Run 'ebprof <command> --help' for a command's options.\n"
	    "example: sudo ebprof record -d 10 -o ebprof-out\n");
}

static int cmd_check(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf(
		    "usage: ebprof check\n\nPrints one line per host feature ebprof uses: "
		    "its name, yes or no, what\nwas found and, when missing, what needs it. "
		    "Features are probed (a helper tried in a\nprogram, a field looked up in the "
		    "kernel's BTF); only the floor, Linux 5.10, is read\nfrom the version. "
		    "Exits 1 when a feature recording needs is missing.\n");
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "ebprof: error: check takes no arguments\n");
		return 2;
	}
	return host__report(stdout) ? 1 : 0;
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
	if (!strcmp(verb, "-h") || !strcmp(verb, "--help") || !strcmp(verb, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(verb, "version") || !strcmp(verb, "--version")) {
		printf("ebprof %s\n", EBPROF_VERSION);
		return 0;
	}
	if (!strcmp(verb, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(verb, "agent"))
		return cmd_agent(argc - 1, argv + 1);
	if (!strcmp(verb, "check"))
		return cmd_check(argc - 1, argv + 1);
	fprintf(stderr, "ebprof: error: unknown command '%s'\n", verb);
	usage(stderr);
	return 2;
}
