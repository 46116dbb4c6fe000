/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel symbols from /proc/kallsyms: text symbols of the kernel and its modules, sorted
 * for binary search. */
#ifndef EBPROF_KSYMS_H
#define EBPROF_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksyms;

/* Loads the symbols of path (normally /proc/kallsyms). Returns NULL with errno set;
 * EPERM when every address reads as zero (kptr_restrict hides them from us). */
struct ksyms *ksyms__load(const char *path);
void ksyms__free(struct ksyms *k);

/* Reading /proc/kallsyms takes the kernel 50 ms of CPU here and hundreds of ms of
 * wall time on a busy host: start it on a thread of its own while something else
 * runs (BPF verification, the recording itself), and take the result when needed. */
struct ksyms_loading;
/* Returns NULL with errno set when the thread cannot start. */
struct ksyms_loading *ksyms__load_start(const char *path);
/* Waits for the load and frees l (NULL: returns NULL, ENOMEM); as ksyms__load. */
struct ksyms *ksyms__load_finish(struct ksyms_loading *l);
/* Returns the name of the function containing addr, or NULL. *module gets the module
 * name ("" for the kernel image). Pointers stay valid until ksyms__free. */
const char *ksyms__lookup(const struct ksyms *k, uint64_t addr, const char **module);
/* Bytes k holds (its table and names), 0 for NULL. */
size_t ksyms__memory(const struct ksyms *k);

#endif
