// SPDX-License-Identifier: Apache-2.0
/* What each runtime's detect() costs on a file, as the tracker thread pays it: the file
 * opened once as an ELF view (the cost "open"), then every runtime of the registry asked
 * in registry order on that one view, as runtime.c's detect_fd does (a symbol index the
 * first asker builds is the later ones' too). Each runtime is started on its walker
 * object opened, not loaded: detect reads files only, no map, so no root is needed.
 * Usage: detect_cost [-r REPEAT] FILE...  prints, per file, the median wall time of each
 * step over REPEAT rounds (fresh view each round) and what each runtime said. Under
 * callgrind (bench/detect.sh), the inclusive instructions of NAME_detect are the
 * deterministic count. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "elf/elf_file.h"
#include "interp/runtime.h"

#define MAX_RUNTIMES 16
#define MAX_REPEAT 50

struct started {
	const struct runtime_ops *ops;
	struct bpf_object *obj;
	void *priv;
};

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/* Opens every runtime's walker object (not loaded) and runs its init on it. Returns how
 * many started. */
static size_t start_all(struct started *s, const struct runtime_env *env)
{
	const struct runtime_ops *r;
	size_t n = 0;

	for (size_t i = 0; (r = runtime_registry__get(i)) && n < MAX_RUNTIMES; i++) {
		LIBBPF_OPTS(bpf_object_open_opts, o, .object_name = r->name);
		const void *elf;
		size_t sz;

		elf = r->bpf_elf(&sz);
		s[n].obj = bpf_object__open_mem(elf, sz, &o);
		if (!s[n].obj || r->init(env, s[n].obj, &s[n].priv)) {
			fprintf(stderr, "detect_cost: %s did not start: left out\n", r->name);
			bpf_object__close(s[n].obj);
			continue;
		}
		s[n++].ops = r;
	}
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* One round on path: the times (µs) of the open and of every runtime into t[0..n], what
 * each said into yes. file_id is fresh each round: detect keeps what it accepted. */
static int round_once(const char *path, uint32_t file_id, struct started *s, size_t n,
		      double *t, bool *yes)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct elf_file *elf;
	double t0;

	if (fd < 0)
		return -errno;
	t0 = now_us();
	elf = elf_file__open(fd);
	t[0] = now_us() - t0;
	for (size_t i = 0; i < n; i++) {
		struct runtime_file rf = {.file_id = file_id, .path = path, .fd = fd, .elf = elf};

		t0 = now_us();
		yes[i] = s[i].ops->detect(s[i].priv, &rf);
		t[i + 1] = now_us() - t0;
	}
	elf_file__free(elf);
	close(fd);
	return 0;
}

static void measure(const char *path, int repeat, struct started *s, size_t n, uint32_t *id)
{
	static double t[MAX_RUNTIMES + 1][MAX_REPEAT];
	double one[MAX_RUNTIMES + 1], total = 0;
	bool yes[MAX_RUNTIMES];

	for (int r = 0; r < repeat; r++) {
		if (round_once(path, (*id)++, s, n, one, yes)) {
			printf("%s: cannot open: %s\n", path, strerror(errno));
			return;
		}
		for (size_t i = 0; i <= n; i++)
			t[i][r] = one[i];
	}
	printf("%s\n  %-8s %10.1f us\n", path, "open", median(t[0], repeat));
	for (size_t i = 0; i < n; i++) {
		double m = median(t[i + 1], repeat);

		total += m;
		printf("  %-8s %10.1f us%s\n", s[i].ops->name, m, yes[i] ? "  (its file)" : "");
	}
	printf("  %-8s %10.1f us (medians of %d rounds)\n", "detect", total, repeat);
}

int main(int argc, char **argv)
{
	struct started s[MAX_RUNTIMES];
	struct runtime_env env = {0};
	uint32_t id = 1;
	int repeat = 5, i = 1;
	size_t n;

	if (argc > 2 && !strcmp(argv[1], "-r")) {
		repeat = atoi(argv[2]);
		i = 3;
	}
	if (i >= argc || repeat < 1 || repeat > MAX_REPEAT) {
		fprintf(stderr, "usage: detect_cost [-r REPEAT (1-%d)] FILE...\n"
				"  e.g. detect_cost -r 9 /usr/bin/node /lib/x86_64-linux-gnu/libc.so.6\n",
			MAX_REPEAT);
		return 2;
	}
	libbpf_set_print(quiet);
	n = start_all(s, &env);
	for (; i < argc; i++)
		measure(argv[i], repeat, s, n, &id);
	for (size_t k = 0; k < n; k++) {
		if (s[k].ops->free)
			s[k].ops->free(s[k].priv);
		bpf_object__close(s[k].obj);
	}
	return 0;
}
