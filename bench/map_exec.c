// SPDX-License-Identifier: Apache-2.0
/* A process that maps the files it is given executable and waits to be killed, for
 * bench/stop.sh: the tracker describes it as it would a program using those libraries,
 * building their unwind tables (libLLVM's take 100-200 ms) without it running them. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Maps path whole, readable and executable; returns 0 or -1 having said why. */
static int map_exec(const char *path)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st)) {
		perror(path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	p = mmap(NULL, st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		perror(path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: map_exec FILE...   (maps each, then waits)\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		if (map_exec(argv[i]))
			return 1;
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
