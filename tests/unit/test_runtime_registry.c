// SPDX-License-Identifier: Apache-2.0
/* Unit test of what each runtime of the registry says of itself (src/interp/runtime.h):
 * its name and title, a walker slot and a frame kind of its own, the row of its kind, a
 * fuzz driver for its decoders, and its kernel floor, which must match its walker object:
 * a runtime that says it needs bpf_loop has no unrolled variant, and one that says it does
 * not has one (ebprof check and the record warning read the word); and --runtimes's
 * names. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "harness.h"
#include "ebprof_shared.h"
#include "interp/runtime.h"

static bool filled(const char *s)
{
	return s && s[0];
}

static void test_every_runtime_says_what_it_is(void)
{
	const struct runtime_ops *r;

	for (size_t i = 0; (r = runtime_registry__get(i)); i++) {
		CHECK(filled(r->name) && filled(r->title) && filled(r->bpf_walker));
		CHECK(filled(r->floor.without));
		CHECK(r->walker != WALKER_NATIVE && r->walker != WALKER_SUBMIT &&
		      r->walker < WALKER__COUNT);
		CHECK(r->frame_kind == FRAME_NATIVE || frame_kind_is_runtime(r->frame_kind));
		CHECK(r->frame_kind < FRAME_KIND__COUNT);
		for (size_t j = 0; j < i; j++) {
			const struct runtime_ops *o = runtime_registry__get(j);

			CHECK(strcmp(o->name, r->name) != 0);
			CHECK(o->walker != r->walker);
			/* Native frames are everybody's; a kind of its own is one runtime's. */
			CHECK(!frame_kind_is_runtime(r->frame_kind) ||
			      o->frame_kind != r->frame_kind);
		}
	}
	CHECK(runtime_registry__get(0) != NULL);
}

/* A runtime that names frames of its own has its kind's row filled (the table every
 * exporter reads), and a frame_symbol to name them; one of native frames has neither. */
static void test_every_runtime_has_its_row(void)
{
	const struct runtime_ops *r;

	for (size_t i = 0; (r = runtime_registry__get(i)); i++) {
		if (!frame_kind_is_runtime(r->frame_kind)) {
			CHECK(!r->kind.name && !r->frame_symbol);
			continue;
		}
		CHECK(filled(r->kind.name) && filled(r->kind.otlp_type) && filled(r->kind.about));
		CHECK(r->kind.folded_suffix != NULL && r->kind.colour.sat && r->kind.colour.light);
		CHECK(r->frame_symbol != NULL && r->ingest != NULL);
	}
}

/* Every runtime reads another process's memory or files: its decoders have a fuzz driver,
 * tests/fuzz/run_NAME.sh, which tests/run.sh runs with the others. */
static void test_every_runtime_is_fuzzed(void)
{
	const struct runtime_ops *r;
	char path[256];

	if (access("tests/fuzz", F_OK))
		SKIP("run from the source tree's root");
	for (size_t i = 0; (r = runtime_registry__get(i)); i++) {
		snprintf(path, sizeof(path), "tests/fuzz/run_%s.sh", r->name);
		if (access(path, X_OK))
			fprintf(stderr, "  %s: no fuzz driver %s\n", r->name, path);
		CHECK(access(path, X_OK) == 0);
	}
}

/* Every kind past the native ones is one runtime's, with its row; native is nobody's. */
static void test_every_runtime_kind_has_its_row(void)
{
	for (uint32_t k = FRAME_UNKNOWN + 1; k < FRAME_KIND__COUNT; k++) {
		const struct frame_kind_info *i = runtime_registry__kind(k);

		CHECK(i != NULL && filled(i->name) && filled(i->otlp_type));
	}
	CHECK(runtime_registry__kind(FRAME_NATIVE) == NULL);
	CHECK(runtime_registry__kind(FRAME_KIND__COUNT) == NULL);
}

/* The word against the object: "<walker>_unrolled_perf" exists unless bpf_loop is needed. */
static void test_floor_matches_the_walker(void)
{
	const struct runtime_ops *r;
	char name[128];

	for (size_t i = 0; (r = runtime_registry__get(i)); i++) {
		LIBBPF_OPTS(bpf_object_open_opts, o, .object_name = r->name);
		struct bpf_object *obj;
		const void *elf;
		size_t sz;

		elf = r->bpf_elf(&sz);
		obj = bpf_object__open_mem(elf, sz, &o);
		CHECK(obj != NULL);
		if (!obj)
			continue;
		snprintf(name, sizeof(name), "%s_perf", r->bpf_walker);
		CHECK(bpf_object__find_program_by_name(obj, name) != NULL);
		snprintf(name, sizeof(name), "%s_unrolled_perf", r->bpf_walker);
		if (r->floor.bpf_loop)
			CHECK(bpf_object__find_program_by_name(obj, name) == NULL);
		else
			CHECK(bpf_object__find_program_by_name(obj, name) != NULL);
		bpf_object__close(obj);
	}
}

/* --runtimes: each runtime by its name or its title, in any case, selects it alone (so
 * no name or title is another runtime's); "none" selects none; an unknown or empty word
 * is refused. */
static void test_runtime_list(void)
{
	const struct runtime_ops *r;
	char upper[64];
	uint32_t mask, all = 0;

	for (size_t i = 0; (r = runtime_registry__get(i)); i++) {
		CHECK(runtime_list__mask(r->name, &mask) == 0 && mask == 1u << i);
		snprintf(upper, sizeof(upper), "%s", r->title);
		for (char *c = upper; *c; c++)
			*c = (char)toupper((unsigned char)*c);
		CHECK(runtime_list__mask(upper, &mask) == 0 && mask == 1u << i);
		all |= 1u << i;
	}
	CHECK(runtime_list__mask("none", &mask) == 0 && mask == 0);
	CHECK(runtime_list__mask("java,PYTHON,go", &mask) == 0 && __builtin_popcount(mask) == 3);
	CHECK(runtime_list__mask("python,python", &mask) == 0 && __builtin_popcount(mask) == 1);
	CHECK(runtime_list__mask("cobol", &mask) == -EINVAL);
	CHECK(runtime_list__mask("python,,go", &mask) == -EINVAL);
	CHECK(runtime_list__mask("python,", &mask) == 0 && __builtin_popcount(mask) == 1);
	CHECK(runtime_list__mask("", &mask) == -EINVAL);
	CHECK(runtime_list__mask("pythonx", &mask) == -EINVAL);
	CHECK(all != 0);
}

int main(void)
{
	RUN_TEST(test_every_runtime_says_what_it_is);
	RUN_TEST(test_every_runtime_kind_has_its_row);
	RUN_TEST(test_every_runtime_has_its_row);
	RUN_TEST(test_every_runtime_is_fuzzed);
	RUN_TEST(test_floor_matches_the_walker);
	RUN_TEST(test_runtime_list);
	HARNESS_EXIT();
}
