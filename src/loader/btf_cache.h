/* SPDX-License-Identifier: Apache-2.0 */
/* Where the minimal CO-RE BTF for this kernel and this ebprof build lives: generated on
 * the first run (one parse of the kernel's BTF) and reused by every later start. */
#ifndef EBPROF_BTF_CACHE_H
#define EBPROF_BTF_CACHE_H

#include <stddef.h>

struct bpf_images;

/* Fills path with a minimal BTF covering every object of imgs on the running kernel,
 * generating it under dir (created root-only) when missing. Returns 0, or a negative
 * errno after which the caller lets libbpf use the kernel's full BTF. */
int btf_cache__get(const char *dir, const struct bpf_images *imgs, char *path, size_t len);
/* Removes a cached file that failed to serve a load, so the next run regenerates it. */
void btf_cache__discard(const char *path);

#endif
