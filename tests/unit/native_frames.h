/* SPDX-License-Identifier: Apache-2.0 */
/* Test helpers for reports over real files: where a file's .text lies, and a profile of
 * native frames spread over the code of several files (bench/lines_cost.c uses them too). */
#ifndef EBPROF_TEST_NATIVE_FRAMES_H
#define EBPROF_TEST_NATIVE_FRAMES_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/elf_file.h"
#include "profile/profile.h"

/* The file range of path's .text: frames of native code are file offsets. */
static inline int text_range(const char *path, uint64_t *off, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	struct elf_section text;
	struct elf_file *e;

	if (fd < 0)
		return -errno;
	e = elf_file__open(fd);
	err = e ? elf_file__section(e, ".text", &text) : -errno;
	if (!err) {
		*off = text.offset;
		*size = text.size;
	}
	elf_file__free(e);
	close(fd);
	return err;
}

/* A stack of nframes frames to fill (pid 1, comm "test") for p, whose one event ("cpu")
 * it adds. NULL on ENOMEM; the caller frees it. */
static inline struct stack *native_stack_new(struct profile *p, uint32_t nframes)
{
	const struct report_event ev = {.name = "cpu", .nvalues = 1};
	struct stack *key = calloc(1, sizeof(struct stack) + nframes * sizeof(struct frame));

	if (!key || profile__add_event(p, &ev) < 0) {
		free(key);
		return NULL;
	}
	key->cpu = -1;
	key->pid = 1;
	strcpy(key->comm, "test");
	key->nframes = nframes;
	return key;
}

/* Adds stacks of per_stack frames, addrs frames per file in all, alternating between
 * the nfiles files (file ids 1..nfiles) whose .text is off[i], size[i] long; a prime
 * stride, so frames land at many offsets in many units. 0 or -ENOMEM. */
static inline int fill_native_profile(struct profile *p, uint32_t nfiles, const uint64_t *off,
				      const uint64_t *size, uint32_t addrs, uint32_t per_stack)
{
	struct stack *key = native_stack_new(p, per_stack);
	uint64_t one = 1;
	int err = 0;

	if (!key)
		return -ENOMEM;
	for (uint32_t s = 0; !err && s < nfiles * addrs / per_stack; s++) {
		for (uint32_t i = 0; i < per_stack; i++) {
			uint32_t k = s * per_stack + i, file = k % nfiles;
			uint64_t at = (k / nfiles) * 7919ull % size[file];

			key->frames[i] = (struct frame){off[file] + at, file + 1, FRAME_NATIVE};
		}
		err = profile__add(p, key, &one, 0);
	}
	free(key);
	return err;
}

#endif
