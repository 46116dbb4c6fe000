/* SPDX-License-Identifier: Apache-2.0 */
/* CPython support in userspace, one runtime of the registry (python_runtime in
 * python.c): finds the interpreter in a process's mappings (its version, eval loop and
 * _PyRuntime), tells the BPF walker where to look (map pid_to_python) and claims the
 * eval loop's activations, and turns the (code object, instruction) frames BPF sends
 * into functions and lines, reading the process's memory with process_vm_readv. The
 * functions below are the parts its tests and benchmarks use directly. */
#ifndef EBPROF_PYTHON_H
#define EBPROF_PYTHON_H

#include <stdint.h>
#include <stdio.h>

#include "proc/proc.h"

struct python;
struct frame;
struct user_frame;

struct python_stats {
	uint64_t processes;	  /* Python processes described to BPF */
	uint64_t unknown_version; /* processes of an interpreter ebprof has no layout for */
	uint64_t code_reads;	  /* code objects read (cache misses) */
	uint64_t code_reused;	  /* cached code objects replaced: freed, address reused */
	uint64_t read_failures;	  /* reads that failed: freed code (mostly) or exited process */
	uint64_t code_freed;	  /* sampled code objects replaced before they were read */
};

void python__stats(struct python *py, struct python_stats *out);
void python__print_stats(struct python *py, FILE *out);

#endif
