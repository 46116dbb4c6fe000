// SPDX-License-Identifier: Apache-2.0
/* Another BPF user on the host, for the leak checks' tests: loads and unloads a program
 * and a map in a loop, as an agent or systemd does beside ebprof. Each round also keeps
 * one pair loaded until the next, so the kernel's lists both grow and shrink meanwhile.
 * Usage: bpf_churn SECONDS [INTERVAL_MS]   prints the rounds it made */
#include <bpf/bpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A socket filter that accepts nothing: r0 = 0; exit. */
static const struct bpf_insn nothing[] = {
    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
    {.code = BPF_JMP | BPF_EXIT},
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* One program and one map; both descriptors in fds (-1 on failure). */
static void load_pair(int fds[2])
{
	fds[0] = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "churn", "GPL", nothing, 2, NULL);
	fds[1] = bpf_map_create(BPF_MAP_TYPE_ARRAY, "churn", 4, 8, 16, NULL);
}

static void close_pair(int fds[2])
{
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0, end;
	struct timespec nap = {0, (argc > 2 ? atol(argv[2]) : 10) * 1000 * 1000};
	int kept[2] = {-1, -1}, fresh[2];
	unsigned long rounds = 0, failed = 0;

	if (secs <= 0) {
		fprintf(stderr, "usage: bpf_churn SECONDS [INTERVAL_MS]\n");
		return 2;
	}
	for (end = now() + secs; now() < end; rounds++) {
		load_pair(fresh);
		failed += fresh[0] < 0 || fresh[1] < 0;
		close_pair(kept);
		memcpy(kept, fresh, sizeof(kept));
		nanosleep(&nap, NULL);
	}
	close_pair(kept);
	printf("bpf_churn: %lu rounds of a program and a map loaded and unloaded, %lu failed\n",
	       rounds, failed);
	return failed == rounds ? 1 : 0;
}
