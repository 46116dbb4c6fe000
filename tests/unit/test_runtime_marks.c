// SPDX-License-Identifier: Apache-2.0
/* Unit test of runtime_marks__apply, how a runtime's claims reach the native walker:
 * mappings are split at the claimed range so the walker's binary search finds the
 * marker, every part keeps the mapping's file, biases and table, the list stays sorted,
 * and a description without room is refused, never overrun. */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "interp/runtime.h"
#include "unwind.h"

static struct unw_proc desc;

static void one_mapping(uint64_t start, uint64_t end)
{
	memset(&desc, 0, sizeof(desc));
	desc.n = 1;
	desc.m[0] = (struct unw_mapping){
	    .start = start, .end = end, .off_bias = 7, .vaddr_bias = 9, .file_id = 3, .table = 5};
}

static int same_file(const struct unw_mapping *m)
{
	return m->off_bias == 7 && m->vaddr_bias == 9 && m->file_id == 3 && m->table == 5;
}

static void test_claim_inside_splits_in_three(void)
{
	one_mapping(0x1000, 0x9000);
	CHECK(runtime_marks__apply(&desc, 0x2000, 0x3000, 2, UNW_MARK_ACTIVATION) == 0);
	CHECK(desc.n == 3);
	CHECK(desc.m[0].start == 0x1000 && desc.m[0].end == 0x2000 && desc.m[0].mark == 0);
	CHECK(desc.m[1].start == 0x2000 && desc.m[1].end == 0x3000);
	CHECK(desc.m[1].runtime == 2 && desc.m[1].mark == UNW_MARK_ACTIVATION);
	CHECK(desc.m[2].start == 0x3000 && desc.m[2].end == 0x9000 && desc.m[2].mark == 0);
	for (int i = 0; i < 3; i++)
		CHECK(same_file(&desc.m[i]));
}

static void test_claim_of_whole_mapping(void)
{
	one_mapping(0x1000, 0x9000);
	CHECK(runtime_marks__apply(&desc, 0x1000, 0x9000, 4, UNW_MARK_WALK) == 0);
	CHECK(desc.n == 1 && desc.m[0].runtime == 4 && desc.m[0].mark == UNW_MARK_WALK);
}

static void test_claim_across_two_mappings(void)
{
	one_mapping(0x1000, 0x2000);
	desc.m[1] = (struct unw_mapping){.start = 0x2000, .end = 0x4000};
	desc.m[2] = (struct unw_mapping){.start = 0x8000, .end = 0x9000};
	desc.n = 3;
	CHECK(runtime_marks__apply(&desc, 0x1800, 0x3000, 2, UNW_MARK_WALK) == 0);
	CHECK(desc.n == 5);
	CHECK(desc.m[0].end == 0x1800 && desc.m[0].mark == 0);
	CHECK(desc.m[1].start == 0x1800 && desc.m[1].end == 0x2000 && desc.m[1].mark);
	CHECK(desc.m[2].start == 0x2000 && desc.m[2].end == 0x3000 && desc.m[2].mark);
	CHECK(desc.m[3].start == 0x3000 && desc.m[3].end == 0x4000 && !desc.m[3].mark);
	CHECK(desc.m[4].start == 0x8000 && !desc.m[4].mark);
	for (uint32_t i = 1; i < desc.n; i++)
		CHECK(desc.m[i - 1].end <= desc.m[i].start);
}

static void test_claim_outside_every_mapping(void)
{
	one_mapping(0x1000, 0x2000);
	CHECK(runtime_marks__apply(&desc, 0x5000, 0x6000, 2, UNW_MARK_WALK) == 0);
	CHECK(desc.n == 1 && !desc.m[0].mark);
}

static void test_full_description_is_refused(void)
{
	memset(&desc, 0, sizeof(desc));
	desc.n = UNW_MAX_MAPPINGS;
	for (uint32_t i = 0; i < UNW_MAX_MAPPINGS; i++)
		desc.m[i] =
		    (struct unw_mapping){.start = 0x1000 * (i + 1), .end = 0x1000 * (i + 2)};
	CHECK(runtime_marks__apply(&desc, 0x1800, 0x1900, 2, UNW_MARK_WALK) == -ENOSPC);
	CHECK(desc.n == UNW_MAX_MAPPINGS);
	/* A claim on whole mappings needs no room. */
	CHECK(runtime_marks__apply(&desc, 0x3000, 0x4000, 2, UNW_MARK_WALK) == 0);
	CHECK(desc.m[2].mark == UNW_MARK_WALK);
}

int main(void)
{
	RUN_TEST(test_claim_inside_splits_in_three);
	RUN_TEST(test_claim_of_whole_mapping);
	RUN_TEST(test_claim_across_two_mappings);
	RUN_TEST(test_claim_outside_every_mapping);
	RUN_TEST(test_full_description_is_refused);
	HARNESS_EXIT();
}
