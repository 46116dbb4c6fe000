/* SPDX-License-Identifier: Apache-2.0 */
/* PHP support in userspace, one runtime of the registry (php_runtime in php.c): finds
 * the Zend engine in a process's mappings (its version, execute_ex, executor_globals,
 * opcache's JIT code), tells the BPF walker where to look (map pid_to_php), claims
 * execute_ex's activations and the JIT's code, and names the (zend_function, line)
 * frames BPF sends, reading the process's memory with process_vm_readv. */
#ifndef EBPROF_PHP_H
#define EBPROF_PHP_H

#include <stdint.h>

struct php;

struct php_stats {
	uint64_t processes;	  /* PHP processes described to BPF */
	uint64_t unknown_version; /* processes of a build ebprof has no layout for */
	uint64_t fn_reads;	  /* functions read (cache misses) */
	uint64_t fn_reused;	  /* cached functions replaced: freed, address reused */
	uint64_t read_failures;	  /* reads that failed: freed function or exited process */
	uint64_t fn_freed;	  /* sampled functions replaced before they were read */
	uint64_t lines_unread;	  /* functions whose oplines' lines could not be read */
};

void php__stats(struct php *php, struct php_stats *out);

#endif
