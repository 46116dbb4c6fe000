/* SPDX-License-Identifier: Apache-2.0 */
/* The ELF images of every BPF object a session may load, so start-up can prepare what all
 * of them need at once (the minimal CO-RE BTF) before any is opened. The loader knows only
 * the sampler's object; the session adds the runtimes' walkers (the registry sits above
 * the loader and hands its images down). */
#ifndef EBPROF_OBJECTS_H
#define EBPROF_OBJECTS_H

#include <stddef.h>
#include <stdint.h>

#define BPF_IMAGES_MAX 32

struct bpf_images {
	size_t n;
	const void *elf[BPF_IMAGES_MAX]; /* embedded by the skeletons: static, never freed */
	size_t size[BPF_IMAGES_MAX];
};

/* Starts imgs with the sampler's object. */
void bpf_images__init(struct bpf_images *imgs);
/* Adds one image. Returns 0, or -ENOSPC when imgs is full. */
int bpf_images__add(struct bpf_images *imgs, const void *elf, size_t size);
/* A hash of every image, so a cache made for one ebprof build is not used by another. */
uint64_t bpf_images__hash(const struct bpf_images *imgs);

#endif
