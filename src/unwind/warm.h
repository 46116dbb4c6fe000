/* SPDX-License-Identifier: Apache-2.0 */
/* The files a command is about to map, found before it execs so that their unwind tables
 * are built before it runs: its executable, its ELF interpreter and the libraries it
 * needs (DT_NEEDED, transitively, up to WARM_MAX files). Otherwise the first tens of
 * milliseconds of a command (seconds under emulation) are sampled while the tracker
 * still builds libc's table, and come out cut. A guess, not a promise: a file guessed
 * wrong costs its build; one missed is built when the command maps it, as without this. */
#ifndef EBPROF_WARM_H
#define EBPROF_WARM_H

#include <stddef.h>
#include <stdint.h>

#define WARM_MAX 16

struct warm_file {
	uint64_t dev, ino; /* as /proc/PID/maps will name the file */
	char *path;
};

struct warm_list {
	size_t n;
	struct warm_file f[WARM_MAX];
};

/* Fills out for the command execvp would run for file (searched in PATH when it has no
 * slash). Not an ELF file (a script), or not found: out stays empty, and that is no
 * error. Returns 0 or -ENOMEM. */
int warm__find(const char *file, struct warm_list *out);
/* Fills out with the files nearly every process of the host maps: the dynamic loader
 * (ebprof's own), libc, libm, libstdc++ and libgcc_s, as ld.so would find them; those
 * missing are left out. Returns 0 or -ENOMEM. */
int warm__common(struct warm_list *out);
void warm__free(struct warm_list *l);

/* Exposed for tests: the executable execvp would run for file with PATH path (NULL: the
 * default), written to out. Returns 0 or -errno (ENOENT, ENAMETOOLONG). */
int warm__resolve(const char *file, const char *path, char *out, size_t size);

#endif
