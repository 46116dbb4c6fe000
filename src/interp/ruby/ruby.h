/* SPDX-License-Identifier: Apache-2.0 */
/* CRuby support in userspace, one runtime of the registry (ruby_runtime in ruby.c): finds
 * libruby in a process's mappings (ruby_file.h), tells the BPF walker where the execution
 * context, the VM and its code are (map pid_to_ruby) and claims the VM's activations and
 * its JIT code, and names the frames BPF sends (iseqs, method entries) from the process's
 * memory (ruby_mem.h). */
#ifndef EBPROF_RUBY_H
#define EBPROF_RUBY_H

#include <stdint.h>

struct ruby_stats {
	uint64_t processes;    /* Ruby processes described to BPF */
	uint64_t unusable;     /* processes of a libruby ebprof cannot unwind */
	uint64_t iseq_reads;   /* iseqs read (cache misses) */
	uint64_t method_reads; /* method entries read */
	uint64_t unreadable;   /* frames whose object could not be read (freed, process gone) */
	uint64_t replaced;     /* frames whose object was replaced at its address: unnamed */
};

#endif
