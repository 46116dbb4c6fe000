// SPDX-License-Identifier: Apache-2.0
// cflags: -O1 -g -fno-omit-frame-pointer -fno-inline
/* Workload that spends most of its time in the kernel: reads from /dev/zero in a loop,
 * so its samples carry kernel frames under sys_read. Usage: syscall_loop SECONDS */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 16];

__attribute__((noinline)) void read_zeroes(int fd, double end)
{
	struct timespec ts;

	do {
		for (int i = 0; i < 100; i++) {
			if (read(fd, buf, sizeof(buf)) < 0)
				exit(1);
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < end);
}

int main(int argc, char **argv)
{
	struct timespec ts;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	read_zeroes(fd, ts.tv_sec + ts.tv_nsec / 1e9 + (argc > 1 ? atof(argv[1]) : 2));
	return 0;
}
