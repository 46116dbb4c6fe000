// SPDX-License-Identifier: Apache-2.0
/* Probe specs: every kind parsed into its parts (paths with ':' in them, offsets in hex
 * and decimal), malformed specs and kprobes refused with a message that says why, file
 * slugs, and where an entry uprobe goes (past endbr64 and nops to an emulated push). */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "arch/arch.h"
#include "loader/probes.h"

static char err[512];

static int parse(const char *text, struct probe_spec *s)
{
	err[0] = '\0';
	return probe_spec__parse(text, s, err, sizeof(err));
}

static void test_uprobe(void)
{
	struct probe_spec s;

	CHECK(parse("uprobe:/usr/bin/x:main", &s) == 0);
	CHECK(s.kind == PROBE_UPROBE);
	CHECK(strcmp(s.path, "/usr/bin/x") == 0 && strcmp(s.target, "main") == 0);
	CHECK(!s.has_offset && strcmp(s.text, "uprobe:/usr/bin/x:main") == 0);
	probe_spec__free(&s);
	CHECK(parse("uprobe:/odd:dir/lib.so:work+0x1c", &s) == 0);
	CHECK(strcmp(s.path, "/odd:dir/lib.so") == 0 && strcmp(s.target, "work") == 0);
	CHECK(s.has_offset && s.offset == 0x1c);
	probe_spec__free(&s);
	CHECK(parse("uprobe:libc.so.6:malloc+12", &s) == 0);
	CHECK(s.offset == 12 && strcmp(s.target, "malloc") == 0);
	probe_spec__free(&s);
	/* Not a number after '+': part of the name (C++ operator+). */
	CHECK(parse("uprobe:/x:operator+", &s) == 0);
	CHECK(strcmp(s.target, "operator+") == 0 && !s.has_offset);
	probe_spec__free(&s);
}

static void test_other_kinds(void)
{
	struct probe_spec s;

	CHECK(parse("uretprobe:/bin/bash:readline", &s) == 0);
	CHECK(s.kind == PROBE_URETPROBE && strcmp(s.target, "readline") == 0);
	probe_spec__free(&s);
	CHECK(parse("tracepoint:sched:sched_switch", &s) == 0);
	CHECK(s.kind == PROBE_TRACEPOINT && !s.path);
	CHECK(strcmp(s.target, "sched") == 0 && strcmp(s.name, "sched_switch") == 0);
	probe_spec__free(&s);
	CHECK(parse("usdt:/usr/lib/libpython3.11.so:python:function__entry", &s) == 0);
	CHECK(s.kind == PROBE_USDT && strcmp(s.path, "/usr/lib/libpython3.11.so") == 0);
	CHECK(strcmp(s.target, "python") == 0 && strcmp(s.name, "function__entry") == 0);
	probe_spec__free(&s);
}

static void test_malformed(void)
{
	static const char *const bad[] = {
	    "uprobe:/x",
	    "uprobe::main",
	    "uprobe:/x:",
	    "uretprobe:/x:f+4",
	    "tracepoint:sched",
	    "tracepoint:sched:../../x",
	    "tracepoint::x",
	    "usdt:/x:provider",
	    "usdt:/x::name",
	    "uprobes:/x:main",
	    "",
	    "fentry:do_sys_open",
	};
	struct probe_spec s;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = parse(bad[i], &s);

		CHECK(ret == -EINVAL);
		CHECK(err[0] != '\0');
		if (ret != -EINVAL)
			fprintf(stderr, "  accepted: '%s'\n", bad[i]);
	}
}

static void test_kprobe_refused(void)
{
	struct probe_spec s;

	CHECK(parse("kprobe:do_sys_openat2", &s) == -EOPNOTSUPP);
	CHECK(strstr(err, "kprobe") && strstr(err, "tracepoint:CATEGORY:NAME"));
	CHECK(parse("kretprobe:do_sys_openat2", &s) == -EOPNOTSUPP);
	CHECK(strstr(err, "tracepoint"));
}

static void test_slug(void)
{
	struct probe_spec s;
	char buf[64];

	CHECK(parse("uprobe:/usr/bin/x:memcpy@GLIBC_2.14+4", &s) == 0);
	probe_spec__slug(&s, buf, sizeof(buf));
	CHECK(strcmp(buf, "uprobe-memcpy_GLIBC_2.14") == 0);
	probe_spec__free(&s);
	CHECK(parse("tracepoint:sched:sched_process_fork", &s) == 0);
	probe_spec__slug(&s, buf, sizeof(buf));
	CHECK(strcmp(buf, "tracepoint-sched-sched_process_fork") == 0);
	probe_spec__slug(&s, buf, 8);
	CHECK(strcmp(buf, "tracepo") == 0);
	probe_spec__free(&s);
}

#if defined(__x86_64__)
static void test_entry_skip(void)
{
	static const uint8_t endbr_push[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5};
	static const uint8_t endbr_push_r12[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x41, 0x54, 0x90};
	static const uint8_t endbr_sub[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x83, 0xec, 0x08};
	static const uint8_t nops_push[] = {0x66, 0x90, 0x90, 0x53, 0x00};
	static const uint8_t push[] = {0x55, 0x48, 0x89, 0xe5};
	static const uint8_t short_endbr[] = {0xf3, 0x0f, 0x1e};

	CHECK(arch__uprobe_entry_skip(endbr_push, sizeof(endbr_push)) == 4);
	CHECK(arch__uprobe_entry_skip(endbr_push_r12, sizeof(endbr_push_r12)) == 4);
	/* Nothing emulated follows: stay on the entry. */
	CHECK(arch__uprobe_entry_skip(endbr_sub, sizeof(endbr_sub)) == 0);
	CHECK(arch__uprobe_entry_skip(nops_push, sizeof(nops_push)) == 3);
	/* Already on an emulated instruction. */
	CHECK(arch__uprobe_entry_skip(push, sizeof(push)) == 0);
	CHECK(arch__uprobe_entry_skip(short_endbr, sizeof(short_endbr)) == 0);
}
#elif defined(__aarch64__)
static void test_entry_skip(void)
{
	/* bti c; paciasp; stp x29, x30, [sp, #-16]!: the probe stays on the entry. */
	static const uint8_t prologue[] = {0x5f, 0x24, 0x03, 0xd5, 0x3f, 0x23,
					   0x03, 0xd5, 0xfd, 0x7b, 0xbf, 0xa9};

	CHECK(arch__uprobe_entry_skip(prologue, sizeof(prologue)) == 0);
}
#endif

int main(void)
{
	RUN_TEST(test_uprobe);
	RUN_TEST(test_other_kinds);
	RUN_TEST(test_malformed);
	RUN_TEST(test_kprobe_refused);
	RUN_TEST(test_slug);
	RUN_TEST(test_entry_skip);
	HARNESS_EXIT();
}
