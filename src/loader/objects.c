// SPDX-License-Identifier: Apache-2.0
/* BPF object registry: the sampler's object, then every runtime's walker object (from
 * the runtime registry, so a runtime is listed once, in src/interp/runtime.c). */
#include "interp/runtime.h"
#include "loader/objects.h"
#include "sample.skel.h"
#include "util/hmap.h"

#define MAX_OBJECTS 32

static const void *images[MAX_OBJECTS];
static size_t image_sizes[MAX_OBJECTS];
static size_t nimages;

static size_t fill(void)
{
	if (nimages)
		return nimages;
	images[0] = sample_bpf__elf_bytes(&image_sizes[0]);
	nimages = 1;
	while (nimages < MAX_OBJECTS &&
	       (images[nimages] = runtime_registry__bpf(nimages - 1, &image_sizes[nimages])))
		nimages++;
	return nimages;
}

size_t bpf_objects__list(const void *const **elfs, const size_t **sizes)
{
	size_t n = fill();

	*elfs = images;
	*sizes = image_sizes;
	return n;
}

uint64_t bpf_objects__hash(void)
{
	uint64_t h = 0;
	size_t n = fill();

	for (size_t i = 0; i < n; i++)
		h = hash_bytes(images[i], image_sizes[i], h);
	return h;
}
