// SPDX-License-Identifier: Apache-2.0
/* BPF object registry: one line per skeleton. A new BPF component adds itself here. */
#include "loader/objects.h"
#include "sample.skel.h"
#include "util/hmap.h"

static const void *images[1];
static size_t image_sizes[1];

static size_t fill(void)
{
	if (!images[0])
		images[0] = sample_bpf__elf_bytes(&image_sizes[0]);
	return sizeof(images) / sizeof(images[0]);
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
