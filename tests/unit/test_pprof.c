/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for the pprof exporter: write hand-built reports, gunzip and decode them with
 * the generated protobuf-c code and check every link; when Go is installed, also read them
 * back with `go tool pprof`, the consumer that matters. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "harness.h"
#include "leftovers.h"
#include "export/pprof.h"
#include "profile/report.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__Sample pb_sample;

#define PERIOD_NS 10000000ULL /* 100 Hz */

static char tmpdir[] = "/tmp/test_pprof.XXXXXX";

/* Designated initializers, so the fixture survives fields added to report.h. */
#define MAPPING(s, l, p, b, k)                                                \
	{                                                                     \
		.start = s, .limit = l, .path = p, .build_id = b, .kernel = k \
	}
#define FRAME(n, a, m, k)                                     \
	{                                                     \
		.name = n, .addr = a, .mapping = m, .kind = k \
	}
#define STACK(p, t, c, th, n, tr, nf, f)                                                  \
	{                                                                                 \
		.pid = p, .tid = t, .comm = c, .thread = th, .count = n, .truncated = tr, \
		.nframes = nf, .frames = f                                                \
	}

static const struct report_mapping mappings[] = {
    MAPPING(0xffffffff81000000ULL, 0xffffffff83000000ULL, "[kernel.kallsyms]", "", true),
    MAPPING(0, 0x5000, "/usr/bin/app", "0123abcd", false),
    MAPPING(0, 0x200000, "/usr/lib/x86_64-linux-gnu/libc.so.6", "feedbeef", false),
};

enum { F_KWRITE, F_ENTRY, F_WRITE, F_COMPUTE_A, F_COMPUTE_B, F_MAIN, F_LIBC_MAIN, F_START, F_ANON };

static const struct report_frame frames[] = {
    [F_KWRITE] = FRAME("ksys_write", 0xffffffff81234560ULL, 0, FRAME_KERNEL),
    [F_ENTRY] = FRAME("entry_SYSCALL_64", 0xffffffff82000000ULL, 0, FRAME_KERNEL),
    [F_WRITE] = FRAME("__GI___libc_write", 0x11a2b0, 2, FRAME_NATIVE),
    /* Two addresses in one function: two locations, one Function. */
    [F_COMPUTE_A] = FRAME("compute", 0x1200, 1, FRAME_NATIVE),
    [F_COMPUTE_B] = FRAME("compute", 0x1234, 1, FRAME_NATIVE),
    /* One name in two files: two Functions. */
    [F_MAIN] = FRAME("main", 0x1400, 1, FRAME_NATIVE),
    [F_LIBC_MAIN] = FRAME("main", 0x2a000, 2, FRAME_NATIVE),
    [F_START] = FRAME("__libc_start_call_main", 0x29d90, 2, FRAME_NATIVE),
    [F_ANON] = FRAME("[unknown]", 0x7f0000001000ULL, -1, FRAME_UNKNOWN),
};
#define NFRAMES (sizeof(frames) / sizeof(frames[0]))
#define NFUNCTIONS 8 /* NFRAMES minus the second compute */

static const uint32_t stack0[] = {F_WRITE, F_COMPUTE_B, F_MAIN, F_START};
static const uint32_t stack1[] = {F_KWRITE, F_ENTRY, F_WRITE, F_COMPUTE_A};
static const uint32_t stack2[] = {F_ANON, F_LIBC_MAIN, F_START};

static const struct report_stack stacks[] = {
    STACK(100, 101, "app", "worker", 5, false, 4, stack0),
    STACK(100, 100, "app", "app", 3, true, 4, stack1),
    STACK(200, 200, "other", "other-thr", 7, false, 3, stack2),
};
#define NSTACKS (sizeof(stacks) / sizeof(stacks[0]))
/* "", 11 fixed, 2 paths, 2 build ids, 7 names, app/worker/other/other-thr */
#define NSTRINGS 27

static const struct report fixture = {
    .period_ns = PERIOD_NS,
    .start_unix_ns = 1700000000123456789ULL,
    .duration_ns = 10000000000ULL,
    .nmappings = 3,
    .mappings = mappings,
    .nframes = NFRAMES,
    .frames = frames,
    .nstacks = NSTACKS,
    .stacks = stacks,
};

static char *tmp_path(const char *name)
{
	static char buf[8][PATH_MAX];
	static int next;
	char *p = buf[next++ % 8];

	snprintf(p, PATH_MAX, "%s/%s", tmpdir, name);
	return p;
}

static int file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Reads a gzip file whole; returns a malloc'd buffer and its length in *len, or NULL
 * when the file is missing, corrupt, or not gzip'd at all. */
static uint8_t *gunzip_file(const char *path, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = NULL, *bigger;
	gzFile f;
	int got;

	f = gzopen(path, "rb");
	if (!f || gzdirect(f)) /* gzdirect: the file is not gzip'd */
		goto fail;
	buf = malloc(cap);
	while (buf && (got = gzread(f, buf + n, cap - n)) > 0) {
		n += got;
		if (n < cap)
			continue;
		bigger = realloc(buf, cap *= 2);
		if (!bigger)
			goto fail;
		buf = bigger;
	}
	if (!buf || got < 0)
		goto fail;
	gzclose(f);
	*len = n;
	return buf;
fail:
	if (f)
		gzclose(f);
	free(buf);
	return NULL;
}

/* Decodes a written profile; NULL when it is missing, not gzip'd, or not a Profile. */
static pb_profile *read_profile(const char *path)
{
	pb_profile *p;
	uint8_t *buf;
	size_t len;

	buf = gunzip_file(path, &len);
	if (!buf)
		return NULL;
	p = perftools__profiles__profile__unpack(NULL, len, buf);
	free(buf);
	return p;
}

static const char *str(const pb_profile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] : "<out of range>";
}

/* The Function behind location id (pprof ids are 1-based indices here). */
static const Perftools__Profiles__Function *loc_function(const pb_profile *p, uint64_t id)
{
	const Perftools__Profiles__Location *loc;
	uint64_t fid;

	if (id == 0 || id > p->n_location)
		return NULL;
	loc = p->location[id - 1];
	if (loc->n_line != 1)
		return NULL;
	fid = loc->line[0]->function_id;
	return fid && fid <= p->n_function ? p->function[fid - 1] : NULL;
}

/* The name of the function behind location id, or "<none>". */
static const char *fn_name(const pb_profile *p, uint64_t id)
{
	const Perftools__Profiles__Function *fn = loc_function(p, id);

	return fn ? str(p, fn->name) : "<none>";
}

/* The label named key in s: its string value, or its number in *num. NULL when absent. */
static const char *label(const pb_profile *p, const pb_sample *s, const char *key, int64_t *num)
{
	size_t i;

	for (i = 0; i < s->n_label; i++) {
		if (strcmp(str(p, s->label[i]->key), key))
			continue;
		if (num)
			*num = s->label[i]->num;
		return str(p, s->label[i]->str);
	}
	return NULL;
}

/* Writes r and decodes it back. */
static pb_profile *profile_of(const struct report *r)
{
	const char *path = tmp_path("fixture.pb.gz");
	int err = pprof__write(r, path);

	CHECK(err == 0);
	CHECK(!tmp_leftover(path));
	return err ? NULL : read_profile(path);
}

/* Writes the fixture (each test does, so any can run alone) and decodes it back. */
static pb_profile *fixture_profile(void)
{
	return profile_of(&fixture);
}

static void test_header(void)
{
	pb_profile *p = fixture_profile();

	CHECK(p);
	if (!p)
		return;
	CHECK(p->n_string_table > 0 && !strcmp(p->string_table[0], ""));
	CHECK(p->n_sample_type == 2);
	if (p->n_sample_type == 2) {
		CHECK(!strcmp(str(p, p->sample_type[0]->type), "samples"));
		CHECK(!strcmp(str(p, p->sample_type[0]->unit), "count"));
		CHECK(!strcmp(str(p, p->sample_type[1]->type), "cpu"));
		CHECK(!strcmp(str(p, p->sample_type[1]->unit), "nanoseconds"));
	}
	CHECK(p->period_type && !strcmp(str(p, p->period_type->type), "cpu"));
	CHECK(p->period_type && !strcmp(str(p, p->period_type->unit), "nanoseconds"));
	CHECK(p->period == (int64_t)PERIOD_NS);
	CHECK(p->time_nanos == (int64_t)fixture.start_unix_ns);
	CHECK(p->duration_nanos == (int64_t)fixture.duration_ns);
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/* The report's mapping that m copies, by path; NULL when none does. */
static const struct report_mapping *mapping_of(const pb_profile *p,
					       const Perftools__Profiles__Mapping *m)
{
	for (size_t i = 0; i < sizeof(mappings) / sizeof(mappings[0]); i++)
		if (!strcmp(str(p, m->filename), mappings[i].path))
			return &mappings[i];
	return NULL;
}

/* Every mapping copied, ids 1..n in order; the first is a program's, never the kernel
 * (pprof calls the first one the main binary). */
static void test_mappings(void)
{
	pb_profile *p = fixture_profile();
	size_t i;

	CHECK(p && p->n_mapping == 3);
	if (!p || p->n_mapping != 3)
		goto out;
	for (i = 0; i < 3; i++) {
		const Perftools__Profiles__Mapping *m = p->mapping[i];
		const struct report_mapping *rm = mapping_of(p, m);

		CHECK(m->id == i + 1);
		CHECK(rm != NULL);
		if (!rm)
			continue;
		CHECK(m->memory_start == rm->start);
		CHECK(m->memory_limit == rm->limit);
		CHECK(m->file_offset == rm->offset);
		CHECK(!strcmp(str(p, m->build_id), rm->build_id));
		CHECK(m->has_functions);
	}
	CHECK(strcmp(str(p, p->mapping[0]->filename), "[kernel.kallsyms]") != 0);
out:
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/* The program's executable comes first: the root of its main thread's complete stacks
 * (_start), though its worker threads' roots in libc weigh more. */
static void test_first_mapping_is_the_executable(void)
{
	static const struct report_frame fr[] = {
	    FRAME("work", 0x1500, 1, FRAME_NATIVE),
	    FRAME("start_thread", 0x9000, 2, FRAME_NATIVE),
	    FRAME("main", 0x1400, 1, FRAME_NATIVE),
	    FRAME("__libc_start_call_main", 0x29d90, 2, FRAME_NATIVE),
	    FRAME("_start", 0x1000, 1, FRAME_NATIVE),
	    FRAME("ksys_read", 0xffffffff81234560ULL, 0, FRAME_KERNEL),
	};
	static const uint32_t worker[] = {0, 1}, main_thread[] = {5, 0, 2, 3, 4}, cut[] = {0, 3};
	static const struct report_stack st[] = {
	    STACK(100, 101, "app", "worker", 50, false, 2, worker),
	    STACK(100, 100, "app", "app", 3, true, 2, cut),
	    STACK(100, 100, "app", "app", 5, false, 5, main_thread),
	};
	struct report r = fixture;
	pb_profile *p;

	r.frames = fr;
	r.nframes = sizeof(fr) / sizeof(fr[0]);
	r.stacks = st;
	r.nstacks = sizeof(st) / sizeof(st[0]);
	p = profile_of(&r);
	CHECK(p && p->n_mapping == 3);
	if (!p)
		return;
	CHECK(!strcmp(str(p, p->mapping[0]->filename), "/usr/bin/app"));
	/* Locations still name their own mappings. */
	for (size_t i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *loc = p->location[i];

		CHECK(loc->mapping_id >= 1 && loc->mapping_id <= p->n_mapping);
		if (loc->mapping_id >= 1 && loc->mapping_id <= p->n_mapping)
			CHECK(!strcmp(str(p, p->mapping[loc->mapping_id - 1]->filename),
				      mappings[fr[i].mapping].path));
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
}

static const char *frame_file(const struct report_frame *f)
{
	return f->mapping >= 0 ? mappings[f->mapping].path : "";
}

static void test_locations_and_functions(void)
{
	pb_profile *p = fixture_profile();
	const Perftools__Profiles__Function *fn;
	size_t i;

	CHECK(p && p->n_location == NFRAMES && p->n_function == NFUNCTIONS);
	if (!p || p->n_location != NFRAMES)
		goto out;
	for (i = 0; i < NFRAMES; i++) {
		const Perftools__Profiles__Location *loc = p->location[i];

		CHECK(loc->id == i + 1);
		CHECK(frames[i].mapping < 0
			  ? loc->mapping_id == 0
			  : loc->mapping_id >= 1 && loc->mapping_id <= p->n_mapping &&
				!strcmp(str(p, p->mapping[loc->mapping_id - 1]->filename),
					mappings[frames[i].mapping].path));
		CHECK(loc->address == frames[i].addr);
		fn = loc_function(p, loc->id);
		CHECK(fn && !strcmp(str(p, fn->name), frames[i].name));
		CHECK(fn && !strcmp(str(p, fn->filename), frame_file(&frames[i])));
	}
	for (i = 0; i < p->n_function; i++)
		CHECK(p->function[i]->id == i + 1);
	CHECK(loc_function(p, F_COMPUTE_A + 1) &&
	      loc_function(p, F_COMPUTE_A + 1) == loc_function(p, F_COMPUTE_B + 1));
	CHECK(loc_function(p, F_MAIN + 1) != loc_function(p, F_LIBC_MAIN + 1));
out:
	perftools__profiles__profile__free_unpacked(p, NULL);
}

static void check_sample(const pb_profile *p, const pb_sample *s, const struct report_stack *rs)
{
	int64_t num = -1;
	uint32_t j;

	CHECK(s->n_value == 2);
	CHECK(s->n_value == 2 && s->value[0] == (int64_t)rs->count);
	CHECK(s->n_value == 2 && s->value[1] == (int64_t)(rs->count * PERIOD_NS));
	CHECK(s->n_location_id == rs->nframes);
	for (j = 0; j < rs->nframes && j < s->n_location_id; j++)
		CHECK(s->location_id[j] == rs->frames[j] + 1);
	CHECK(label(p, s, "pid", &num) && num == rs->pid);
	CHECK(label(p, s, "tid", &num) && num == rs->tid);
	CHECK(!strcmp(label(p, s, "thread", NULL) ?: "<none>", rs->thread));
	CHECK(!strcmp(label(p, s, "comm", NULL) ?: "<none>", rs->comm));
	if (rs->truncated)
		CHECK(!strcmp(label(p, s, "truncated", NULL) ?: "<none>", "true"));
	else
		CHECK(!label(p, s, "truncated", NULL));
	CHECK(s->n_label == 4u + rs->truncated);
}

static void test_samples(void)
{
	pb_profile *p = fixture_profile();
	size_t i;

	CHECK(p && p->n_sample == NSTACKS);
	if (!p || p->n_sample != NSTACKS)
		goto out;
	for (i = 0; i < NSTACKS; i++)
		check_sample(p, p->sample[i], &stacks[i]);
	/* Leaf first: the first location of the truncated stack is the kernel's. */
	CHECK(!strcmp(fn_name(p, p->sample[1]->location_id[0]), "ksys_write"));
out:
	perftools__profiles__profile__free_unpacked(p, NULL);
}

static void test_string_dedup(void)
{
	pb_profile *p = fixture_profile();
	size_t i, j;

	CHECK(p && p->n_string_table == NSTRINGS);
	if (!p)
		return;
	for (i = 0; i < p->n_string_table; i++)
		for (j = i + 1; j < p->n_string_table; j++)
			CHECK(strcmp(p->string_table[i], p->string_table[j]));
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/* Names are bytes to pprof: quotes, newlines, tabs, UTF-8, "" and very long ones must come
 * back exactly. */
static void test_odd_names(void)
{
	static char long_name[10001], long_thread[5001];
	const char *names[] = {
	    "say \"hi\"", "two\nlines", "back\\slash\ttab", "名前→λ", "", long_name,
	};
	struct report_frame fr[6];
	uint32_t ids[6];
	struct report_stack st = STACK(7, 8, "we\"ird\ncomm", long_thread, 1, true, 6, ids);
	struct report r = {.period_ns = PERIOD_NS,
			   .nmappings = 1,
			   .mappings = mappings,
			   .nframes = 6,
			   .frames = fr,
			   .nstacks = 1,
			   .stacks = &st};
	pb_profile *p;
	size_t i;

	memset(long_name, 'x', sizeof(long_name) - 1);
	memset(long_thread, 't', sizeof(long_thread) - 1);
	for (i = 0; i < 6; i++) {
		fr[i] =
		    (struct report_frame)FRAME(names[i], 0x100 + i, i % 2 ? 0 : -1, FRAME_UNKNOWN);
		ids[i] = 5 - i;
	}
	CHECK(pprof__write(&r, tmp_path("odd.pb.gz")) == 0);
	p = read_profile(tmp_path("odd.pb.gz"));
	CHECK(p && p->n_location == 6 && p->n_sample == 1);
	if (!p || p->n_location != 6 || p->n_sample != 1)
		goto out;
	for (i = 0; i < 6; i++)
		CHECK(!strcmp(fn_name(p, i + 1), names[i]));
	CHECK(!strcmp(label(p, p->sample[0], "comm", NULL) ?: "<none>", st.comm));
	CHECK(!strcmp(label(p, p->sample[0], "thread", NULL) ?: "<none>", long_thread));
	CHECK(p->sample[0]->n_location_id == 6 && p->sample[0]->location_id[0] == 6);
out:
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/* 100k distinct names: the hash tables must keep every one, once, and stay fast. */
#define BIG 100000

static void test_many_strings(void)
{
	char *names = malloc(BIG * 16);
	struct report_frame *fr = calloc(BIG, sizeof(*fr));
	struct report_stack *st = calloc(BIG, sizeof(*st));
	uint32_t *ids = calloc(BIG, sizeof(*ids));
	struct report r = {.period_ns = PERIOD_NS,
			   .nmappings = 3,
			   .mappings = mappings,
			   .nframes = BIG,
			   .frames = fr,
			   .nstacks = BIG,
			   .stacks = st};
	pb_profile *p = NULL;
	size_t i;

	CHECK(names && fr && st && ids);
	if (!names || !fr || !st || !ids)
		goto out;
	for (i = 0; i < BIG; i++) {
		snprintf(names + 16 * i, 16, "fn_%zu", i);
		fr[i] = (struct report_frame)FRAME(names + 16 * i, i, 1 + i % 2, FRAME_NATIVE);
		ids[i] = i;
		st[i] =
		    (struct report_stack)STACK(i, i, "comm", names + 16 * i, 1, false, 1, &ids[i]);
	}
	CHECK(pprof__write(&r, tmp_path("big.pb.gz")) == 0);
	p = read_profile(tmp_path("big.pb.gz"));
	CHECK(p && p->n_function == BIG && p->n_sample == BIG);
	/* "", 11 fixed, 2 paths, 2 build ids, the names (also the threads), "comm"'s value */
	CHECK(p && p->n_string_table == 1 + 11 + 4 + BIG);
	CHECK(p && !strcmp(fn_name(p, BIG), "fn_99999"));
out:
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(ids);
	free(st);
	free(fr);
	free(names);
}

/* Runs cmd through the shell; returns its output (stdout and stderr, malloc'd) and its
 * exit status in *status, or NULL when it could not be run. */
static char *run(const char *cmd, int *status)
{
	size_t cap = 1 << 16, n = 0, got;
	char *out = malloc(cap), *bigger;
	FILE *f = popen(cmd, "r");

	if (!f || !out) {
		if (f)
			pclose(f);
		free(out);
		return NULL;
	}
	while ((got = fread(out + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 < cap)
			continue;
		bigger = realloc(out, cap *= 2);
		if (!bigger)
			break;
		out = bigger;
	}
	out[n] = '\0';
	*status = pclose(f);
	return out;
}

/* `go tool pprof` reads only the file: no home, proxy or binaries from outside. Go 1.24
 * and later build the tool on first use into GOCACHE: the machine's when tests/run.sh
 * names one (EBPROF_GOCACHE, filled by scripts/install-go.sh), else the build folder's,
 * which the kernel tests share (tests/kernel/lib.sh), so it is built once, not per test. */
static void go_env(void)
{
	char cache[PATH_MAX], cwd[PATH_MAX / 2];
	const char *build = getenv("BUILD"), *machine = getenv("EBPROF_GOCACHE");

	if (!build || !build[0])
		build = "build";
	/* GOCACHE must be absolute. */
	if (machine && machine[0] == '/')
		snprintf(cache, sizeof(cache), "%s", machine);
	else if (build[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		snprintf(cache, sizeof(cache), "%s/go-tool-cache", build);
	else
		snprintf(cache, sizeof(cache), "%s/%s/go-tool-cache", cwd, build);
	setenv("HOME", tmpdir, 1);
	setenv("GOCACHE", cache, 1);
	setenv("GOPATH", tmp_path("gopath"), 1);
	setenv("PPROF_TMPDIR", tmpdir, 1);
	setenv("PPROF_BINARY_PATH", tmpdir, 1);
	setenv("GOPROXY", "off", 1);
	setenv("GOTOOLCHAIN", "local", 1);
	unsetenv("GOFLAGS");
}

static char *go_pprof(const char *args, const char *file, int *status)
{
	char cmd[PATH_MAX + 256];

	snprintf(cmd, sizeof(cmd), "go tool pprof -symbolize=none %s '%s' 2>&1", args,
		 tmp_path(file));
	return run(cmd, status);
}

/* In `-top` output, the flat and cum columns of the row for name; -1 when absent. */
static void top_row(const char *out, const char *name, long *flat, long *cum)
{
	const char *line;
	char fn[256];
	long f, c;

	*flat = *cum = -1;
	for (line = out; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (sscanf(line, "%ld %*s %*s %ld %*s %255s", &f, &c, fn) == 3 &&
		    !strcmp(fn, name)) {
			*flat = f;
			*cum = c;
		}
	}
}

/* Whether `-raw` output has a sample line "count ns: ..." with these values. */
static int raw_has_sample(const char *out, long count, long ns)
{
	const char *line;
	long c, v;
	char colon;

	for (line = out; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (sscanf(line, "%ld %ld%c", &c, &v, &colon) == 3 && colon == ':' && c == count &&
		    v == ns)
			return 1;
	}
	return 0;
}

static void test_go_pprof_raw(void)
{
	static const char *const want[] = {
	    "comm:[app]", "thread:[worker]",   "truncated:[true]", "pid:[100]", "tid:[101]",
	    "pid:[200]",  "comm:[other]",      "ksys_write",	   "compute",	"main",
	    "[unknown]",  "[kernel.kallsyms]", "/usr/bin/app",	   "feedbeef",
	};
	int status = -1, before = harness_failed_checks;
	char *out;
	size_t i;

	CHECK(pprof__write(&fixture, tmp_path("fixture.pb.gz")) == 0);
	out = go_pprof("-raw", "fixture.pb.gz", &status);
	CHECK(out && status == 0);
	if (!out)
		return;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(strstr(out, want[i]));
	for (i = 0; i < NSTACKS; i++)
		CHECK(raw_has_sample(out, stacks[i].count, stacks[i].count * PERIOD_NS));
	if (harness_failed_checks != before)
		fprintf(stderr, "%s", out);
	free(out);
}

static void test_go_pprof_top(void)
{
	int status = -1;
	long flat, cum;
	char *out;

	CHECK(pprof__write(&fixture, tmp_path("fixture.pb.gz")) == 0);
	out = go_pprof("-top -sample_index=samples", "fixture.pb.gz", &status);
	CHECK(out && status == 0);
	if (!out)
		return;
	CHECK(strstr(out, "Total samples = 15"));
	top_row(out, "[unknown]", &flat, &cum);
	CHECK(flat == 7 && cum == 7);
	top_row(out, "__GI___libc_write", &flat, &cum);
	CHECK(flat == 5 && cum == 8);
	top_row(out, "ksys_write", &flat, &cum);
	CHECK(flat == 3 && cum == 3);
	top_row(out, "compute", &flat, &cum);
	CHECK(flat == 0 && cum == 8);
	top_row(out, "main", &flat, &cum); /* app's and libc's main print as one row */
	CHECK(flat == 0 && cum == 12);
	free(out);
}

/* pprof parses what test_odd_names wrote, and prints the names as they were. */
static void test_go_pprof_odd_names(void)
{
	int status = -1;
	char *out = go_pprof("-raw", "odd.pb.gz", &status);

	CHECK(out && status == 0);
	CHECK(out && strstr(out, "say \"hi\""));
	CHECK(out && strstr(out, "two\nlines"));
	CHECK(out && strstr(out, "back\\slash\ttab"));
	CHECK(out && strstr(out, "名前→λ"));
	CHECK(out && strstr(out, "comm:[we\"ird\ncomm]"));
	free(out);
}

/* A file pprof__write refused must not exist, and neither may its .tmp. */
static void check_refused(const struct report *r, const char *path, int want)
{
	int err = pprof__write(r, path);

	CHECK(err < 0);
	if (want)
		CHECK(err == want);
	CHECK(!tmp_leftover(path));
}

static void test_unwritable_path(void)
{
	const char *dir = tmp_path("adir"), *ro = tmp_path("readonly");
	char path[PATH_MAX];

	check_refused(&fixture, "/nonexistent-ebprof-dir/out.pb.gz", -ENOENT);
	/* The .tmp is written, then rename() onto a directory fails: it must be removed. */
	CHECK(mkdir(dir, 0755) == 0);
	check_refused(&fixture, dir, -EISDIR);
	if (geteuid() != 0) { /* root ignores directory permissions */
		CHECK(mkdir(ro, 0555) == 0);
		snprintf(path, sizeof(path), "%s/out.pb.gz", ro);
		check_refused(&fixture, path, -EACCES);
		CHECK(!file_exists(path));
	}
}

static void test_invalid_report(void)
{
	static const uint32_t bad_frames[] = {0, NFRAMES};
	struct report_stack bad_stack = STACK(1, 1, "c", "t", 1, false, 2, bad_frames);
	struct report_frame bad_frame = FRAME("f", 0x10, 3, FRAME_NATIVE);
	struct report r = fixture;

	r.nstacks = 1;
	r.stacks = &bad_stack;
	check_refused(&r, tmp_path("bad1.pb.gz"), -EINVAL);
	CHECK(!file_exists(tmp_path("bad1.pb.gz")));
	r = fixture;
	r.nframes = 1;
	r.frames = &bad_frame;
	r.nstacks = 0;
	check_refused(&r, tmp_path("bad2.pb.gz"), -EINVAL);
	CHECK(!file_exists(tmp_path("bad2.pb.gz")));
}

/* An empty report is a valid profile; writing it over an old one replaces it. */
static void test_empty_report_replaces(void)
{
	struct report empty = {.period_ns = PERIOD_NS};
	const char *path = tmp_path("replace.pb.gz");
	pb_profile *p;

	CHECK(pprof__write(&fixture, path) == 0);
	CHECK(pprof__write(&empty, path) == 0);
	p = read_profile(path);
	CHECK(p && p->n_sample == 0 && p->n_location == 0 && p->n_mapping == 0);
	CHECK(p && p->n_string_table == 12 && !strcmp(p->string_table[0], ""));
	CHECK(p && p->n_sample_type == 2);
	perftools__profiles__profile__free_unpacked(p, NULL);
	CHECK(pprof__write(NULL, path) == -EINVAL);
	CHECK(pprof__write(&empty, NULL) == -EINVAL);
}

/* A frame with an inline chain: one Location, its Lines innermost first, each with its
 * function, source file and line; go tool pprof -lines prints the inlined ones. */
static const struct report_line chain[] = {
    {.function = "inner", .file = "/src/a.h", .line = 11, .label = "inner (a.h:11) [inlined]"},
    {.function = "mid", .file = "/src/a.h", .line = 22, .label = "mid (a.h:22) [inlined]"},
    {.function = "outer", .file = "/src/a.c", .line = 33, .label = "outer (a.c:33)"},
};
static const struct report_mapping chain_maps[] = {
    {.limit = UINT64_MAX, .path = "/usr/bin/app", .build_id = "ab"},
};
static const struct report_frame chain_frames[] = {
    {.name = "outer",
     .addr = 0x50,
     .mapping = 0,
     .kind = FRAME_NATIVE,
     .nlines = 3,
     .lines = chain},
    {.name = "main", .addr = 0x10, .mapping = 0, .kind = FRAME_NATIVE},
};
static const uint32_t chain_stack[] = {0, 1};
static const struct report_stack chain_stacks[] = {
    {.pid = 1,
     .tid = 1,
     .comm = "app",
     .thread = "app",
     .count = 4,
     .nframes = 2,
     .frames = chain_stack},
};
static const struct report chain_report = {
    .period_ns = PERIOD_NS,
    .nmappings = 1,
    .mappings = chain_maps,
    .nframes = 2,
    .frames = chain_frames,
    .nstacks = 1,
    .stacks = chain_stacks,
};

static void test_inline_lines(void)
{
	const char *path = tmp_path("inline.pb.gz");
	const Perftools__Profiles__Location *loc;
	pb_profile *p;

	CHECK(pprof__write(&chain_report, path) == 0);
	p = read_profile(path);
	CHECK(p && p->n_location == 2);
	if (!p || p->n_location != 2)
		goto out;
	loc = p->location[0];
	CHECK(loc->n_line == 3);
	for (size_t j = 0; j < loc->n_line && j < 3; j++) {
		const Perftools__Profiles__Function *fn = NULL;

		for (size_t k = 0; k < p->n_function; k++)
			if (p->function[k]->id == loc->line[j]->function_id)
				fn = p->function[k];
		CHECK(fn && !strcmp(str(p, fn->name), chain[j].function));
		CHECK(fn && !strcmp(str(p, fn->filename), chain[j].file));
		CHECK(loc->line[j]->line == chain[j].line);
	}
	CHECK(p->location[1]->n_line == 1);
out:
	perftools__profiles__profile__free_unpacked(p, NULL);
}

static void test_go_pprof_lines(void)
{
	int status = -1;
	char *out;

	CHECK(pprof__write(&chain_report, tmp_path("inline.pb.gz")) == 0);
	out = go_pprof("-lines -top", "inline.pb.gz", &status);
	CHECK(out && status == 0);
	CHECK(out && strstr(out, "inner /src/a.h:11 (inline)"));
	CHECK(out && strstr(out, "mid /src/a.h:22 (inline)"));
	CHECK(out && strstr(out, "outer /src/a.c:33\n"));
	free(out);
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(path);
}

int main(void)
{
	int have_go;

	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	have_go = system("command -v go >/dev/null 2>&1") == 0;
	if (have_go)
		go_env();
	RUN_TEST(test_header);
	RUN_TEST(test_mappings);
	RUN_TEST(test_first_mapping_is_the_executable);
	RUN_TEST(test_locations_and_functions);
	RUN_TEST(test_samples);
	RUN_TEST(test_string_dedup);
	RUN_TEST(test_unwritable_path);
	RUN_TEST(test_invalid_report);
	RUN_TEST(test_empty_report_replaces);
	RUN_TEST(test_odd_names);
	RUN_TEST(test_many_strings);
	RUN_TEST(test_inline_lines);
	if (have_go) {
		RUN_TEST(test_go_pprof_lines);
		RUN_TEST(test_go_pprof_raw);
		RUN_TEST(test_go_pprof_top);
		RUN_TEST(test_go_pprof_odd_names);
	} else {
		SKIP_TEST(test_go_pprof_lines, "go is not on PATH");
		SKIP_TEST(test_go_pprof_raw, "go is not on PATH");
		SKIP_TEST(test_go_pprof_top, "go is not on PATH");
		SKIP_TEST(test_go_pprof_odd_names, "go is not on PATH");
	}
	if (harness_failed_tests)
		fprintf(stderr, "  files kept in %s\n", tmpdir);
	else
		nftw(tmpdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	HARNESS_EXIT();
}
