// SPDX-License-Identifier: Apache-2.0
/* The list of BPF object images a session may load: the sampler's first, then what the
 * session adds (see objects.h). */
#include <errno.h>

#include "loader/objects.h"
#include "sample.skel.h"
#include "util/hmap.h"

void bpf_images__init(struct bpf_images *imgs)
{
	imgs->n = 1;
	imgs->elf[0] = sample_bpf__elf_bytes(&imgs->size[0]);
}

int bpf_images__add(struct bpf_images *imgs, const void *elf, size_t size)
{
	if (imgs->n >= BPF_IMAGES_MAX)
		return -ENOSPC;
	imgs->elf[imgs->n] = elf;
	imgs->size[imgs->n++] = size;
	return 0;
}

uint64_t bpf_images__hash(const struct bpf_images *imgs)
{
	uint64_t h = 0;

	for (size_t i = 0; i < imgs->n; i++)
		h = hash_bytes(imgs->elf[i], imgs->size[i], h);
	return h;
}
