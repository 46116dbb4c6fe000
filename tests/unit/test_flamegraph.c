// SPDX-License-Identifier: Apache-2.0
/* Unit tests of the HTML flame graph writer: tree merging and order, escaping of hostile
 * names, atomic writes and their failures. With EBPROF_FLAMEGRAPH_FIXTURE=path it also
 * writes the known demo page there for tests/browser/run.sh. */
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "export/flamegraph.h"
#include "harness.h"
#include "interp/runtime.h"
#include "leftovers.h"

#define HOSTILE                                                                              \
	"</script><script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">" \
	"<b id=\"pwned\">x</b> \"q' \\ \x01\x1f\x7f \xff\xc0\xaf \xe2\x80\xa8 \xc3\xa9 end"
#define FIXTURE_TITLE "ebprof fixture <b>demo</b> & \"quotes\""

static char dir[] = "/tmp/ebprof-test-flamegraph-XXXXXX";

/* The demo profile of the browser test: 100 samples of "demo", main;a;b;leaf 60 (20 of
 * them in the kernel below leaf), main;a;c 30, main;d 10 (all in a Python frame and below
 * it a hostile-named one), so every kind of frame is on the page. */
static const struct report_frame demo_frames[] = {
    {"main", 0x1100, 0, FRAME_NATIVE},
    {"a", 0x1200, 0, FRAME_NATIVE},
    {"b", 0x1300, 0, FRAME_NATIVE},
    {"leaf", 0x1400, 0, FRAME_NATIVE},
    {"c", 0x1500, 0, FRAME_NATIVE},
    {"d", 0x1600, 0, FRAME_NATIVE},
    {"ksys_write", 0xffffffff81001000ULL, -1, FRAME_KERNEL},
    {"do_syscall_64", 0xffffffff81002000ULL, -1, FRAME_KERNEL},
    {"entry_SYSCALL_64", 0xffffffff81003000ULL, -1, FRAME_KERNEL},
    {HOSTILE, 0x20, -1, FRAME_UNKNOWN},
    {"run (app.py:12)", 12, -1, FRAME_PYTHON},
};
static const uint32_t demo_leaf[] = {3, 2, 1, 0};
static const uint32_t demo_sys[] = {6, 7, 8, 3, 2, 1, 0};
static const uint32_t demo_c[] = {4, 1, 0};
static const uint32_t demo_d[] = {9, 10, 5, 0};
static const struct report_stack demo_stacks[] = {
    {100, 100, "demo", "demo", 25, 4, false, demo_leaf},
    {100, 101, "demo", "worker", 15, 4, false, demo_leaf},
    {100, 100, "demo", "demo", 20, 7, false, demo_sys},
    {100, 101, "demo", "worker", 30, 3, false, demo_c},
    {100, 100, "demo", "demo", 10, 4, false, demo_d},
};
static struct report demo = {
    .period_ns = 10000000,
    .start_unix_ns = 1700000000000000000ULL,
    .duration_ns = 1000000000,
    .nframes = sizeof(demo_frames) / sizeof(demo_frames[0]),
    .frames = demo_frames,
    .nstacks = sizeof(demo_stacks) / sizeof(demo_stacks[0]),
    .stacks = demo_stacks,
};

/* The other events' pages, each in its own unit: allocations (bytes, and objects beside
 * them; the period is bytes, not CPU time), off-CPU time (nanoseconds, and samples), a
 * probe's hits (events). The browser test reads their headers and tooltips. */
static const struct report_event alloc_event = {
    .name = "alloc",
    .period_type = {"space", "bytes"},
    .period = 524288,
    .nvalues = 2,
    .values = {{"alloc_objects", "count"}, {"alloc_space", "bytes"}},
};
static const uint64_t alloc_big[] = {10000, 1000000000}, alloc_small[] = {2345, 222218242};
static const struct report_stack alloc_stacks[] = {
    {.pid = 100,
     .tid = 100,
     .comm = "demo",
     .count = 1900,
     .nframes = 4,
     .frames = demo_leaf,
     .values = alloc_big},
    {.pid = 100,
     .tid = 100,
     .comm = "demo",
     .count = 300,
     .nframes = 3,
     .frames = demo_c,
     .values = alloc_small},
};
/* One event's page over the demo's frames. */
#define EVENT_REPORT(event, st)                                                                 \
	{                                                                                       \
		.period_ns = 10000000, .nevents = 1, .events = &(event),                        \
		.duration_ns = 1000000000,                                                      \
		.nframes = sizeof(demo_frames) / sizeof(demo_frames[0]), .frames = demo_frames, \
		.nstacks = sizeof(st) / sizeof((st)[0]), .stacks = (st),                        \
	}
static const struct report alloc_demo = EVENT_REPORT(alloc_event, alloc_stacks);

static const struct report_event off_cpu_event = {
    .name = "off-cpu",
    .nvalues = 2,
    .values = {{"samples", "count"}, {"off_cpu", "nanoseconds"}},
};
static const uint64_t off_cpu_values[] = {12, 3200000000};
static const struct report_stack off_cpu_stacks[] = {
    {.pid = 100,
     .tid = 100,
     .comm = "demo",
     .count = 12,
     .nframes = 4,
     .frames = demo_leaf,
     .values = off_cpu_values},
};
static const struct report off_cpu_demo = EVENT_REPORT(off_cpu_event, off_cpu_stacks);

static const struct report_event probe_event = {
    .name = "uprobe:/usr/bin/demo:leaf",
    .nvalues = 1,
    .values = {{"events", "count"}},
};
static const uint64_t probe_values[] = {2001};
static const struct report_stack probe_stacks[] = {
    {.pid = 100,
     .tid = 100,
     .comm = "demo",
     .count = 2001,
     .nframes = 4,
     .frames = demo_leaf,
     .values = probe_values},
};
static const struct report probe_demo = EVENT_REPORT(probe_event, probe_stacks);

/* A stack taller than a screen: 80 frames. */
#define TALL 80
static struct report_frame deep_frames[TALL];
static uint32_t deep_idx[TALL];
static char deep_names[TALL][16];
static struct report_stack deep_stack = {
    .pid = 100, .tid = 100, .comm = "deep", .count = 10, .nframes = TALL, .frames = deep_idx};
static struct report deep_demo = {
    .period_ns = 10000000,
    .nframes = TALL,
    .frames = deep_frames,
    .nstacks = 1,
    .stacks = &deep_stack,
};

static void deep_init(void)
{
	for (uint32_t i = 0; i < TALL; i++) {
		snprintf(deep_names[i], sizeof(deep_names[i]), "depth%u", TALL - i);
		deep_frames[i] = (struct report_frame){
		    .name = deep_names[i], .addr = 0x100 + i, .mapping = -1, .kind = FRAME_NATIVE};
		deep_idx[i] = i;
	}
}

static char *path_in(const char *name)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static bool tmp_exists(const char *path)
{
	return tmp_leftover(path);
}

/* Returns the whole file NUL-terminated (caller frees), or NULL. */
static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "re"), *mem = open_memstream(&buf, &len);
	char chunk[65536];
	size_t n;

	if (f && mem)
		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
			fwrite(chunk, 1, n, mem);
	if (mem)
		fclose(mem);
	if (f)
		fclose(f);
	return buf;
}

/* Writes r with title and returns the page (caller frees), or NULL. */
static char *write_and_read(const struct report *r, const char *name, const char *title)
{
	char *path = path_in(name);
	int err = flamegraph__write(r, path, title);

	CHECK(err == 0);
	CHECK(!tmp_exists(path));
	return err ? NULL : slurp(path);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strcasestr(p, needle)); p++)
		n++;
	return n;
}

/* The embedded JSON: from the data element's opening tag to the next "</script". */
static char *data_of(const char *page)
{
	static const char open[] = "<script type=\"application/json\" id=\"fg-data\">";
	const char *start = strstr(page, open), *end;

	if (!start)
		return NULL;
	start += strlen(open);
	end = strcasestr(start, "</script");
	return end ? strndup(start, end - start) : NULL;
}

static void test_page_has_title_data_and_no_network(void)
{
	char *page = write_and_read(&demo, "demo.html", FIXTURE_TITLE);

	CHECK(page != NULL);
	if (!page)
		return;
	CHECK(strncmp(page, "<!DOCTYPE html>", 15) == 0);
	CHECK(strstr(page, "<title>ebprof fixture &lt;b&gt;demo&lt;/b&gt; &amp; "
			   "&quot;quotes&quot;</title>") != NULL);
	CHECK(strstr(page, "\"title\":\"ebprof fixture \\u003cb\\u003edemo") != NULL);
	CHECK(strstr(page, "\"leaf\"") != NULL);
	CHECK(strstr(page, "\"demo\"") != NULL);
	CHECK(strstr(page, "\"period_ns\":10000000,") != NULL);
	CHECK(strstr(page, "</html>") != NULL);
	CHECK(!strstr(page, "http:") && !strstr(page, "https:") && !strstr(page, "url("));
	CHECK(!strstr(page, "<script src") && !strstr(page, "<img") &&
	      !strstr(page, "<link rel=\"s"));
	free(page);
}

/* a;b twice (different threads) merge; kernel k below b; y is a second process; a
 * stack of zero samples adds nothing. Names are sorted; children follow that order. */
static void test_merges_stacks_in_name_order(void)
{
	static const struct report_frame frames[] = {
	    {"main", 0x10, 0, FRAME_NATIVE}, {"a", 0x20, 0, FRAME_NATIVE},
	    {"b", 0x30, 0, FRAME_NATIVE},    {"c", 0x40, 0, FRAME_NATIVE},
	    {"k", 0x50, -1, FRAME_KERNEL},
	};
	static const uint32_t ab[] = {2, 1, 0}, ac[] = {3, 1, 0}, a[] = {1, 0};
	static const uint32_t abk[] = {4, 2, 1, 0}, m[] = {0};
	static const struct report_stack stacks[] = {
	    {1, 1, "x", "x", 2, 3, false, ab},	{1, 1, "x", "x", 1, 3, false, ac},
	    {1, 1, "x", "x", 4, 2, false, a},	{1, 2, "x", "t", 3, 3, false, ab},
	    {1, 2, "x", "t", 5, 4, false, abk}, {2, 2, "y", "y", 2, 1, false, m},
	    {3, 3, "z", "z", 0, 1, false, m},
	};
	const struct report r = {.nframes = 5, .frames = frames, .nstacks = 7, .stacks = stacks};
	char *page = write_and_read(&r, "merge.html", "t");

	CHECK(page != NULL);
	if (!page)
		return;
	CHECK(strstr(page, "\"names\":[\"a\",\"all\",\"b\",\"c\",\"k\",\"main\",\"x\",\"y\"],") !=
	      NULL);
	CHECK(strstr(page, "\"nodes\":[1,0,17,2,6,1,15,1,5,3,15,1,0,3,15,2,2,3,10,1,4,2,5,0,"
			   "3,3,1,0,7,1,2,1,5,3,2,0]}") != NULL);
	free(page);
}

/* A frame with an inline chain is one node per line, outermost first. */
static void test_inline_frames(void)
{
	static const struct report_line chain[] = {
	    {"inner", "/src/a.h", 1, "inner (a.h:1) [inlined]"},
	    {"outer", "/src/a.c", 3, "outer (a.c:3)"},
	};
	static const struct report_frame frames[] = {
	    {"main", 0x10, 0, FRAME_NATIVE},
	    {"outer", 0x20, 0, FRAME_NATIVE, 2, chain},
	};
	static const uint32_t st[] = {1, 0};
	static const struct report_stack stacks[] = {{1, 1, "x", "x", 3, 2, false, st}};
	const struct report r = {.nframes = 2, .frames = frames, .nstacks = 1, .stacks = stacks};
	char *page = write_and_read(&r, "inline.html", "t");

	CHECK(page != NULL);
	if (!page)
		return;
	CHECK(strstr(page, "\"names\":[\"all\",\"inner (a.h:1) [inlined]\",\"main\",\"outer "
			   "(a.c:3)\",\"x\"],") != NULL);
	CHECK(strstr(page, "\"nodes\":[0,0,3,1,4,1,3,1,2,3,3,1,3,3,3,1,1,3,3,0]}") != NULL);
	free(page);
}

static void test_truncated_and_nameless(void)
{
	static const struct report_frame frames[] = {{"f", 0, -1, FRAME_UNKNOWN}};
	static const uint32_t f[] = {0};
	static const struct report_stack stacks[] = {{1, 1, "", "", 3, 1, true, f}};
	const struct report r = {.nframes = 1, .frames = frames, .nstacks = 1, .stacks = stacks};
	char *page = write_and_read(&r, "trunc.html", NULL);

	CHECK(page != NULL);
	if (!page)
		return;
	CHECK(strstr(page, "<title>ebprof flame graph</title>") != NULL);
	CHECK(strstr(page, "\"names\":[\"[truncated]\",\"[unknown]\",\"all\",\"f\"]") != NULL);
	CHECK(strstr(page, "\"nodes\":[2,0,3,1,1,1,3,1,0,4,3,1,3,4,3,0]") != NULL);
	free(page);
}

static void test_empty_report(void)
{
	const struct report r = {0};
	char *page = write_and_read(&r, "empty.html", "nothing");

	CHECK(page != NULL);
	if (page)
		CHECK(strstr(page, "\"names\":[\"all\"],\"nodes\":[0,0,0,0]}") != NULL);
	free(page);
}

/* The data may hold no '<', '>', '&', control byte or invalid UTF-8, whatever the names. */
static void check_data_is_inert(const char *data)
{
	for (const unsigned char *p = (const unsigned char *)data; *p; p++) {
		CHECK(*p >= 0x20 && *p != 0x7f && *p != '<' && *p != '>' && *p != '&');
		CHECK(*p != 0xff && *p != 0xc0 && *p != 0xaf);
	}
}

static void test_hostile_names_are_escaped(void)
{
	static const struct report_frame frames[] = {{HOSTILE, 0x10, 0, FRAME_NATIVE}};
	static const uint32_t f[] = {0};
	static const struct report_stack stacks[] = {{1, 1, HOSTILE, "", 1, 1, false, f}};
	const struct report r = {.nframes = 1, .frames = frames, .nstacks = 1, .stacks = stacks};
	char *page = write_and_read(&r, "hostile.html", HOSTILE), *data;

	CHECK(page != NULL);
	if (!page)
		return;
	data = data_of(page);
	CHECK(data != NULL);
	if (data) {
		check_data_is_inert(data);
		CHECK(strstr(data, "\"\\u003c/script\\u003e\\u003cscript\\u003ewindow.__pwned=1"));
		CHECK(strstr(data, "onerror=\\\"window.__pwned=2\\\""));
		CHECK(strstr(data, " \\\"q' \\\\ \\u0001\\u001f\\u007f \\ufffd\\ufffd\\ufffd "
				   "\\u2028 \xc3\xa9 end\""));
	}
	CHECK(count(page, "</script") == 2); /* the data's and the viewer's own */
	CHECK(count(page, "<img") == 0 && count(page, "id=\"pwned\"") == 0);
	CHECK(strstr(page, "<title>&lt;/script&gt;&lt;script&gt;") != NULL);
	free(data);
	free(page);
}

/* Overlong forms, surrogates, code points past U+10FFFF and cut sequences become one
 * U+FFFD per byte; valid four-byte characters pass through. */
static void test_invalid_utf8_is_replaced(void)
{
	static const struct report_frame frames[] = {
	    {"A\xe0\x80\x80"
	     "B\xed\xa0\x80"
	     "C\xf4\x90\x80\x80"
	     "D\xf0\x9f\x94\xa5"
	     "E\xe2\x82",
	     0x10, 0, FRAME_NATIVE},
	};
	static const uint32_t f[] = {0};
	static const struct report_stack stacks[] = {{1, 1, "p", "", 1, 1, false, f}};
	const struct report r = {.nframes = 1, .frames = frames, .nstacks = 1, .stacks = stacks};
	char *page = write_and_read(&r, "utf8.html", "u"), *data;

	data = page ? data_of(page) : NULL;
	CHECK(data != NULL);
	if (data) {
		check_data_is_inert(data);
		CHECK(strstr(data, "\"A\\ufffd\\ufffd\\ufffdB\\ufffd\\ufffd\\ufffdC\\ufffd\\ufffd"
				   "\\ufffd\\ufffdD\xf0\x9f\x94\xa5"
				   "E\\ufffd\\ufffd\""));
	}
	free(data);
	free(page);
}

static void test_replaces_existing_file(void)
{
	char *page;

	CHECK(flamegraph__write(&demo, path_in("again.html"), "first") == 0);
	CHECK(flamegraph__write(&demo, path_in("again.html"), "second") == 0);
	page = slurp(path_in("again.html"));
	CHECK(page && strstr(page, "<title>second</title>") && !strstr(page, "first"));
	free(page);
}

static void test_missing_dir_fails(void)
{
	const char *path = "/nonexistent-ebprof-dir/fg.html";

	CHECK(flamegraph__write(&demo, path, "x") == -ENOENT);
	CHECK(!exists(path) && !tmp_exists(path));
}

/* As root, permissions do not stop writes; the caller skips this test then. */
static void test_readonly_dir_fails(void)
{
	char *path;

	CHECK(mkdir(path_in("ro"), 0555) == 0);
	path = path_in("ro/fg.html");
	CHECK(flamegraph__write(&demo, path, "x") == -EACCES);
	CHECK(!exists(path) && !tmp_exists(path));
}

/* The page is written, but renaming it over a directory fails: the .tmp must go. */
static void test_failed_rename_leaves_no_tmp(void)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s", path_in("isdir"));
	CHECK(mkdir(path, 0755) == 0);
	CHECK(flamegraph__write(&demo, path, "x") < 0);
	CHECK(!tmp_exists(path));
	CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

static void test_bad_frame_index_fails(void)
{
	static const uint32_t f[] = {0, 7};
	static const struct report_stack stacks[] = {{1, 1, "p", "", 1, 2, false, f}};
	const struct report r = {
	    .nframes = 1, .frames = demo_frames, .nstacks = 1, .stacks = stacks};
	char *path = path_in("bad.html");

	CHECK(flamegraph__write(&r, path, "x") == -EINVAL);
	CHECK(!exists(path) && !tmp_exists(path));
}

#define WIDE 200000
#define DEEP 20000

/* 200k distinct children of one frame and one stack 20k frames deep: a generator that
 * scans siblings (4e10 compares) or recurses would take hours or crash; this takes about
 * a second of CPU. The bound is CPU time, not wall-clock, and 30x that: a loaded machine
 * does not fail it, a quadratic generator does. */
static void test_wide_and_deep_is_fast(void)
{
	struct report_frame *frames = calloc(WIDE + 1, sizeof(*frames));
	struct report_stack *stacks = calloc(WIDE + 1, sizeof(*stacks));
	uint32_t *idx = calloc(2 * WIDE + DEEP, sizeof(*idx));
	char *names = calloc(WIDE, 16), *page = NULL;
	struct report r = {.nframes = WIDE + 1, .frames = frames, .nstacks = WIDE + 1};
	struct timespec t0, t1;

	CHECK(frames && stacks && idx && names);
	if (!frames || !stacks || !idx || !names)
		goto cleanup;
	frames[WIDE] = (struct report_frame){"main", 0x10, 0, FRAME_NATIVE};
	for (uint32_t i = 0; i < WIDE; i++) {
		snprintf(names + 16 * i, 16, "leaf%u", i);
		frames[i] = (struct report_frame){names + 16 * i, 0x20 + i, 0, FRAME_NATIVE};
		idx[2 * i] = i;
		idx[2 * i + 1] = WIDE;
		stacks[i] = (struct report_stack){1, 1, "wide", "", 1, 2, false, idx + 2 * i};
	}
	for (uint32_t i = 0; i < DEEP; i++)
		idx[2 * WIDE + i] = i; /* leaf0 called by leaf1 ... by leaf19999 */
	stacks[WIDE] = (struct report_stack){2, 2, "deep", "", 7, DEEP, false, idx + 2 * WIDE};
	r.stacks = stacks;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	CHECK(flamegraph__write(&r, path_in("big.html"), "big") == 0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	CHECK((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9 < 30.0);
	page = slurp(path_in("big.html"));
	CHECK(page && strstr(page, "\"leaf199999\"") && strstr(page, "\"all\""));
cleanup:
	free(page);
	free(names);
	free(idx);
	free(stacks);
	free(frames);
}

/* The units of every event's page, in the data the script reads: bytes with objects
 * beside them and no CPU period for allocations, nanoseconds with samples for off-CPU
 * time, events for a probe; CPU samples keep their period. */
static void test_units_of_each_event(void)
{
	char *page = write_and_read(&alloc_demo, "alloc.html", "alloc");

	CHECK(page && strstr(page, "\"unit\":\"bytes\",\"period_ns\":0,"));
	CHECK(page && strstr(page, "\"count_unit\":\"objects\",\"counts\":[12345,"));
	free(page);
	page = write_and_read(&off_cpu_demo, "off.html", "off-cpu");
	CHECK(page && strstr(page, "\"unit\":\"nanoseconds\",\"period_ns\":0,"));
	CHECK(page && strstr(page, "\"count_unit\":\"samples\",\"counts\":[12,"));
	free(page);
	page = write_and_read(&probe_demo, "probe.html", "probe");
	CHECK(page && strstr(page, "\"unit\":\"events\",\"period_ns\":0,"));
	CHECK(page && !strstr(page, "\"counts\""));
	free(page);
	page = write_and_read(&demo, "cpu.html", "cpu");
	CHECK(page && strstr(page, "\"unit\":\"samples\",\"period_ns\":10000000,"));
	free(page);
}

static const char *fixture_path;

/* FIXTURE.html is the demo; FIXTURE.NAME.html each other page the browser test opens. */
static int write_sibling(const char *name, const struct report *r, const char *title)
{
	char path[4096];
	size_t n = strlen(fixture_path);

	if (n > 5 && strcmp(fixture_path + n - 5, ".html") == 0)
		n -= 5;
	snprintf(path, sizeof(path), "%.*s.%s.html", (int)n, fixture_path, name);
	return flamegraph__write(r, path, title);
}

static void test_write_fixture(void)
{
	CHECK(flamegraph__write(&demo, fixture_path, FIXTURE_TITLE) == 0);
	CHECK(write_sibling("alloc", &alloc_demo, "ebprof record: alloc") == 0);
	CHECK(write_sibling("off-cpu", &off_cpu_demo, "ebprof record: off-cpu") == 0);
	CHECK(write_sibling("probe", &probe_demo, "ebprof record: uprobe") == 0);
	CHECK(write_sibling("deep", &deep_demo, "ebprof record: deep") == 0);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	deep_init();
	/* A Python frame's kind comes with the report, from the registry, as
	 * report__fill_kinds gives a recording's. */
	demo.kinds[FRAME_PYTHON] = runtime_registry__kind(FRAME_PYTHON);
	RUN_TEST(test_page_has_title_data_and_no_network);
	RUN_TEST(test_units_of_each_event);
	RUN_TEST(test_merges_stacks_in_name_order);
	RUN_TEST(test_inline_frames);
	RUN_TEST(test_truncated_and_nameless);
	RUN_TEST(test_empty_report);
	RUN_TEST(test_hostile_names_are_escaped);
	RUN_TEST(test_invalid_utf8_is_replaced);
	RUN_TEST(test_replaces_existing_file);
	RUN_TEST(test_missing_dir_fails);
	if (geteuid() == 0)
		SKIP_TEST(test_readonly_dir_fails, "root ignores directory permissions");
	else
		RUN_TEST(test_readonly_dir_fails);
	RUN_TEST(test_failed_rename_leaves_no_tmp);
	RUN_TEST(test_bad_frame_index_fails);
	RUN_TEST(test_wide_and_deep_is_fast);
	fixture_path = getenv("EBPROF_FLAMEGRAPH_FIXTURE");
	if (fixture_path && *fixture_path)
		RUN_TEST(test_write_fixture);
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	HARNESS_EXIT();
}
