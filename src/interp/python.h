/* SPDX-License-Identifier: Apache-2.0 */
/* CPython support in userspace: finds the interpreter in a process's mappings (its
 * version, eval loop and _PyRuntime), tells the BPF unwinder where to look (map
 * pid_to_python), and turns the (code object, instruction) frames BPF sends into
 * functions and lines, reading the process's memory with process_vm_readv. */
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

/* pid_to_python_fd: the BPF map of described processes. Returns NULL on ENOMEM. */
struct python *python__new(struct proc_table *procs, int pid_to_python_fd);
void python__free(struct python *py);

/* Called by the process tracker's thread with pid's executable mappings: describes the
 * interpreter to BPF when one is mapped, else removes any old description. */
void python__describe(struct python *py, uint32_t pid, const struct proc_mapping *maps, uint32_t n);
/* pid exited: drops its description and its code object cache. */
void python__forget(struct python *py, uint32_t pid);

/* Turns a Python frame of pid's sample into a profile frame (kind FRAME_PYTHON: file_id
 * names the function, addr is the line). Reads the process on a cache miss. */
void python__frame(struct python *py, uint32_t pid, const struct user_frame *uf, struct frame *out);

/* The qualified name and file of function id (from python__frame); "?" when unknown. */
void python__function(const struct python *py, uint32_t id, const char **qualname,
		      const char **file);

void python__stats(struct python *py, struct python_stats *out);
void python__print_stats(struct python *py, FILE *out);

#endif
