// SPDX-License-Identifier: Apache-2.0
/* What indexing ELF symbols costs: opens the symbol reader on each file named (all kept
 * open, as a report keeps them), names every 4 KiB of each file's offsets, and prints the
 * CPU time, a hash of the names given (two builds must agree) and the heap the indexes
 * hold. Run under valgrind's massif or heaptrack for the heap's peak (a load's transient
 * buffers included), e.g.
 *   gcc -O2 -g -D_GNU_SOURCE -Isrc bench/elfsym_cost.c src/symbol/elfsym.c \
 *       src/elf/elf_file.c src/util/hmap.c src/util/inflate_limit.c -lelf -liberty -lz \
 *       -o /tmp/elfsym_cost
 *   valgrind --tool=massif --massif-out-file=/tmp/ms /tmp/elfsym_cost FILE...
 * Usage: elfsym_cost FILE... */
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cost.h"
#include "symbol/elfsym.h"

#define MAX_FILES 64

static uint64_t names_hash = 1469598103934665603ull; /* FNV-1a of every name given */

static void hash_name(const char *name)
{
	for (; *name; name++)
		names_hash = (names_hash ^ (unsigned char)*name) * 1099511628211ull;
}

/* Names every 4 KiB of the file's first size bytes; returns how many were named. */
static size_t name_all(struct elf_syms *s, uint64_t size)
{
	const char *name;
	size_t named = 0;

	for (uint64_t off = 0; off < size; off += 4096) {
		name = elf_syms__lookup(s, off, NULL);
		if (name) {
			hash_name(name);
			named++;
		}
	}
	return named;
}

int main(int argc, char **argv)
{
	struct elf_syms *syms[MAX_FILES] = {};
	double t0 = cpu_s(), t1;
	size_t named = 0;
	int i, n = argc - 1 < MAX_FILES ? argc - 1 : MAX_FILES;
	struct stat st;

	for (i = 0; i < n; i++) {
		int fd = open(argv[i + 1], O_RDONLY | O_CLOEXEC);

		if (fd < 0 || fstat(fd, &st)) {
			perror(argv[i + 1]);
			return 1;
		}
		syms[i] = elf_syms__open(fd);
		if (syms[i])
			named += name_all(syms[i], (uint64_t)st.st_size);
		close(fd);
	}
	t1 = cpu_s();
	printf("files %d named %zu names_hash %016llx cpu_ms %.1f heap_held_kib %zu\n", n, named,
	       (unsigned long long)names_hash, (t1 - t0) * 1e3, heap() / 1024);
	for (i = 0; i < n; i++)
		elf_syms__free(syms[i]);
	return 0;
}
