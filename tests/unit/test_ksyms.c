// SPDX-License-Identifier: Apache-2.0
/* The kallsyms reader on files written here: every line form /proc/kallsyms has (kernel,
 * module, padding "__pfx_" symbols whose names share storage), malformed lines skipped,
 * the real /proc/kallsyms read on a thread with the same answers as without one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "symbol/ksyms.h"

static char path[] = "/tmp/ebprof-test-ksyms-XXXXXX";

static const char sample[] = "ffffffff81000000 T _stext\n"
			     "ffffffff81000100 t __pfx_do_one\n"
			     "ffffffff81000110 t do_one\n"
			     "ffffffff81000200 D some_data\n"
			     "ffffffff81000300 T __pfx_do_two\n"
			     "garbage line\n"
			     "ffffffff81000310 T do_two\n"
			     "ffffffff81000400 W weak_one\n"
			     "ffffffff81000500 t __pfx_lone\n"
			     "ffffffff81000510 t not_lone\n"
			     "ffffffffc0000000 t __pfx_mod_fn\t[ext4]\n"
			     "ffffffffc0000010 t mod_fn\t[ext4]\n"
			     "ffffffffc0001000 t other_fn\t[xfs]\n"
			     "ffffffff81000050 T unsorted_one\n";

static struct ksyms *load_sample(void)
{
	int fd = mkstemp(path);
	struct ksyms *k;

	if (fd < 0 || write(fd, sample, sizeof(sample) - 1) != (ssize_t)sizeof(sample) - 1) {
		perror("test_ksyms setup");
		exit(1);
	}
	close(fd);
	k = ksyms__load(path);
	unlink(path);
	return k;
}

static int named(const struct ksyms *k, uint64_t addr, const char *want, const char *mod)
{
	const char *m = NULL, *n = ksyms__lookup(k, addr, &m);

	if (!n || strcmp(n, want) || !m || strcmp(m, mod)) {
		fprintf(stderr, "  %#llx: got %s [%s], want %s [%s]\n", (unsigned long long)addr,
			n ? n : "(null)", m ? m : "(null)", want, mod);
		return 0;
	}
	return 1;
}

static void test_names(void)
{
	struct ksyms *k = load_sample();

	CHECK(k != NULL);
	if (!k)
		return;
	CHECK(ksyms__lookup(k, 0xffffffff80000000, NULL) == NULL);
	CHECK(named(k, 0xffffffff81000000, "_stext", ""));
	CHECK(named(k, 0xffffffff81000060, "unsorted_one", ""));
	CHECK(named(k, 0xffffffff81000104, "__pfx_do_one", ""));
	CHECK(named(k, 0xffffffff81000110, "do_one", ""));
	/* Data symbols are not functions: the text symbol before covers the address. */
	CHECK(named(k, 0xffffffff81000250, "do_one", ""));
	CHECK(named(k, 0xffffffff8100030f, "__pfx_do_two", ""));
	CHECK(named(k, 0xffffffff81000320, "do_two", ""));
	CHECK(named(k, 0xffffffff81000400, "weak_one", ""));
	/* A padding entry shares the function's: the boundary is the function's address. */
	CHECK(named(k, 0xffffffff8100010f, "__pfx_do_one", ""));
	CHECK(named(k, 0xffffffff81000300, "__pfx_do_two", ""));
	CHECK(named(k, 0xffffffff81000310, "do_two", ""));
	/* Padding followed by another function than its own keeps both entries. */
	CHECK(named(k, 0xffffffff8100050f, "__pfx_lone", ""));
	CHECK(named(k, 0xffffffff81000510, "not_lone", ""));
	CHECK(named(k, 0xffffffffc000000f, "__pfx_mod_fn", "ext4"));
	CHECK(named(k, 0xffffffffc0000010, "mod_fn", "ext4"));
	CHECK(named(k, 0xffffffffc0000001, "__pfx_mod_fn", "ext4"));
	CHECK(named(k, 0xffffffffc0000020, "mod_fn", "ext4"));
	CHECK(named(k, 0xffffffffc0001001, "other_fn", "xfs"));
	ksyms__free(k);
}

static void test_threaded_load(void)
{
	struct ksyms *a = ksyms__load("/proc/kallsyms"), *b;
	const char *na, *nb;

	b = ksyms__load_finish(ksyms__load_start("/proc/kallsyms"));
	if (!a && errno == EPERM) {
		ksyms__free(b);
		return; /* addresses hidden (not root): nothing to compare */
	}
	CHECK(a && b);
	if (a && b) {
		na = ksyms__lookup(a, (uint64_t)(uintptr_t)0xffffffff81000000ULL, NULL);
		nb = ksyms__lookup(b, (uint64_t)(uintptr_t)0xffffffff81000000ULL, NULL);
		CHECK((!na && !nb) || (na && nb && !strcmp(na, nb)));
	}
	ksyms__free(a);
	ksyms__free(b);
}

int main(void)
{
	RUN_TEST(test_names);
	RUN_TEST(test_threaded_load);
	HARNESS_EXIT();
}
