// SPDX-License-Identifier: Apache-2.0
/* Folded-stack writer: exact lines for a known report (root first, kernel frames with
 * "_[k]", equal lines of different threads merged, truncated stacks marked, separators
 * in names neutralised), the roots of --root, and a clean failure on an unwritable path. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/folded.h"
#include "harness.h"
#include "leftovers.h"

static const struct report_mapping maps[] = {
    {.limit = UINT64_MAX, .path = "/usr/bin/demo", .build_id = "ab"},
    {.limit = UINT64_MAX, .path = "[kernel.kallsyms]", .build_id = "", .kernel = true},
};

static const struct report_frame frames[] = {
    {.name = "main", .addr = 0x10, .mapping = 0, .kind = FRAME_NATIVE},
    {.name = "work", .addr = 0x20, .mapping = 0, .kind = FRAME_NATIVE},
    {.name = "leaf", .addr = 0x30, .mapping = 0, .kind = FRAME_NATIVE},
    {.name = "do_syscall_64", .addr = 0xffff1, .mapping = 1, .kind = FRAME_KERNEL},
    {.name = "odd;name with\nnewline", .addr = 0x40, .mapping = 0, .kind = FRAME_NATIVE},
};

/* Leaf first, as reports keep them. */
static const uint32_t s1[] = {2, 1, 0};
static const uint32_t s2[] = {3, 1, 0};
static const uint32_t s3[] = {4};

static const struct report_stack stacks[] = {
    {.pid = 1, .tid = 1, .comm = "demo", .thread = "demo", .count = 5, .nframes = 3, .frames = s1},
    {.pid = 1,
     .tid = 2,
     .comm = "demo",
     .thread = "worker",
     .count = 2,
     .nframes = 3,
     .frames = s1},
    {.pid = 1, .tid = 1, .comm = "demo", .thread = "demo", .count = 4, .nframes = 3, .frames = s2},
    {.pid = 2,
     .tid = 2,
     .comm = "",
     .thread = "",
     .count = 1,
     .nframes = 1,
     .truncated = true,
     .frames = s3},
};

static const struct report rep = {
    .period_ns = 10101010,
    .nmappings = 2,
    .mappings = maps,
    .nframes = 5,
    .frames = frames,
    .nstacks = 4,
    .stacks = stacks,
};

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = calloc(1, 4096);

	if (f && buf)
		buf[fread(buf, 1, 4095, f)] = '\0';
	if (f)
		fclose(f);
	return buf;
}

static void test_lines(void)
{
	char dir[] = "/tmp/ebprof-folded-XXXXXX", path[64];
	char *text;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/stacks.folded", dir);
	CHECK(folded__write(&rep, path) == 0);
	text = read_all(path);
	CHECK(text != NULL);
	if (text) {
		/* Two threads' identical stacks are one line with the sum. */
		CHECK(strstr(text, "demo;main;work;leaf 7\n") != NULL);
		CHECK(strstr(text, "demo;main;work;do_syscall_64_[k] 4\n") != NULL);
		/* No name may add a separator or a line. */
		CHECK(strstr(text, "[unknown];[truncated];odd:name with newline 1\n") != NULL);
		CHECK(strstr(text, "leaf 5") == NULL && strstr(text, "leaf 2") == NULL);
	}
	CHECK(!tmp_leftover(path));
	free(text);
	unlink(path);
	rmdir(dir);
}

/* --root pid puts each process's pid in its root; --root container puts the container
 * (12 digits of its container.id label, or "host") above the process. */
static void test_roots(void)
{
	static const struct report_label in_container[] = {
	    {"cgroup", "/system.slice/docker-3f4e2d1c0b9a8f7e.scope"},
	    {"container.id", "3f4e2d1c0b9a8f7e6d5c4b3a29181706f5e4d3c2b1a098f7e6d5c4b3a2918170"},
	};
	struct report_stack st[] = {stacks[0], stacks[2]};
	struct report r = rep;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	st[1].pid = 7;
	st[1].nlabels = 2;
	st[1].labels = in_container;
	r.stacks = st;
	r.nstacks = 2;
	r.root = REPORT_ROOT_PID;
	mem = open_memstream(&buf, &len);
	CHECK(mem && folded__fprint(&r, mem) == 0);
	if (mem)
		fclose(mem);
	CHECK(buf && strstr(buf, "demo-1;main;work;leaf 5\n") != NULL);
	CHECK(buf && strstr(buf, "demo-7;main;work;do_syscall_64_[k] 4\n") != NULL);
	free(buf);
	buf = NULL;
	r.root = REPORT_ROOT_CONTAINER;
	mem = open_memstream(&buf, &len);
	CHECK(mem && folded__fprint(&r, mem) == 0);
	if (mem)
		fclose(mem);
	CHECK(buf && strstr(buf, "host;demo;main;work;leaf 5\n") != NULL);
	CHECK(buf && strstr(buf, "3f4e2d1c0b9a;demo;main;work;do_syscall_64_[k] 4\n") != NULL);
	free(buf);
}

/* A native frame with DWARF lines is its inline chain, outermost first, the inlined
 * functions marked; the rest of the stack is unchanged. */
static const struct report_line chain[] = {
    {.function = "inner", .file = "/src/a.h", .line = 1, .label = "inner (a.h:1) [inlined]"},
    {.function = "mid", .file = "/src/a.h", .line = 2, .label = "mid (a.h:2) [inlined]"},
    {.function = "outer", .file = "/src/a.c", .line = 3, .label = "outer (a.c:3)"},
};

static void test_inline_chain(void)
{
	struct report_frame fr[] = {
	    {.name = "main", .addr = 0x10, .mapping = 0, .kind = FRAME_NATIVE},
	    {.name = "outer",
	     .addr = 0x50,
	     .mapping = 0,
	     .kind = FRAME_NATIVE,
	     .nlines = 3,
	     .lines = chain},
	    {.name = "do_syscall_64", .addr = 0xffff1, .mapping = 1, .kind = FRAME_KERNEL},
	};
	static const uint32_t st[] = {2, 1, 0};
	struct report_stack s = {.pid = 1,
				 .tid = 1,
				 .comm = "demo",
				 .thread = "demo",
				 .count = 3,
				 .nframes = 3,
				 .frames = st};
	struct report r = {.nmappings = 2,
			   .mappings = maps,
			   .nframes = 3,
			   .frames = fr,
			   .nstacks = 1,
			   .stacks = &s};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f && folded__fprint(&r, f) == 0);
	if (f)
		fclose(f);
	CHECK(buf && !strcmp(buf, "demo;main;outer (a.c:3);mid (a.h:2) [inlined];"
				  "inner (a.h:1) [inlined];do_syscall_64_[k] 3\n"));
	free(buf);
}

static void test_unwritable(void)
{
	CHECK(folded__write(&rep, "/nonexistent-ebprof-dir/stacks.folded") == -ENOENT);
}

int main(void)
{
	RUN_TEST(test_lines);
	RUN_TEST(test_inline_chain);
	RUN_TEST(test_roots);
	RUN_TEST(test_unwritable);
	HARNESS_EXIT();
}
