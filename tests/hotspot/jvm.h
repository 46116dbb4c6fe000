/* SPDX-License-Identifier: Apache-2.0 */
/* What the HotSpot test drivers (hotspot_inspect, hotspot_walk) share: reading a live
 * JVM's memory, and finding its libjvm.so (symbols and load bias) from /proc/PID/maps. */
#ifndef EBPROF_TESTS_HOTSPOT_JVM_H
#define EBPROF_TESTS_HOTSPOT_JVM_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "interp/hotspot/hotspot_elf.h"
#include "proc/proc.h"

/* An hs_read_fn: ctx is the pid. */
static int jvm_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	pid_t pid = (pid_t)(intptr_t)ctx;
	struct iovec l = {.iov_base = buf, .iov_len = len};
	struct iovec r = {.iov_base = (void *)addr, .iov_len = len};
	ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

/* Finds libjvm.so in pid's maps: opens it, reads it, computes the bias. */
static int jvm_find_libjvm(pid_t pid, struct hs_elf *e, uint64_t *bias, char *path, size_t cap)
{
	char name[64], line[4096];
	int err = -ENOENT;
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", pid);
	f = fopen(name, "r");
	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		uint64_t start, end, pgoff, dev, ino;
		char *p, mf[128];
		int fd;

		line[strcspn(line, "\n")] = 0;
		maps_parse_line(line, &start, &end, &pgoff, &dev, &ino, &p);
		if (!p || !hs_elf__is_libjvm(p))
			continue;
		snprintf(mf, sizeof(mf), "/proc/%d/map_files/%lx-%lx", pid, (unsigned long)start,
			 (unsigned long)end);
		fd = open(mf, O_RDONLY);
		if (fd < 0)
			continue;
		if (!hs_elf__read(fd, e) && hs_elf__bias(e, start, pgoff, bias)) {
			snprintf(path, cap, "%s", p);
			err = 0;
		}
		close(fd);
	}
	fclose(f);
	return err;
}

/* The absolute addresses of libjvm's exported symbols in the process. */
static void jvm_syms(const struct hs_elf *e, uint64_t bias, uint64_t syms[HS_SYM__COUNT])
{
	for (int i = 0; i < HS_SYM__COUNT; i++)
		syms[i] = e->sym[i] ? e->sym[i] + bias : 0;
}

#endif
