/* SPDX-License-Identifier: Apache-2.0 */
/* A minimal unit-test harness: each CHECK prints on failure, each TEST one result line
 * ("PASS name" / "FAIL name" / "SKIP name: why"), which tests/run.sh counts into the
 * suite's closing line. */
#ifndef EBPROF_TEST_HARNESS_H
#define EBPROF_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>

static int harness_failed_checks;
static int harness_failed_tests;
static const char *harness_skipped __attribute__((unused)); /* why the running test is skipped */

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			harness_failed_checks++;                                                   \
		}                                                                                  \
	} while (0)

#define RUN_TEST(fn)                                                   \
	do {                                                           \
		int before = harness_failed_checks;                    \
		harness_skipped = NULL;                                \
		fn();                                                  \
		if (harness_failed_checks != before) {                 \
			printf("FAIL %s\n", #fn);                      \
			harness_failed_tests++;                        \
		} else if (harness_skipped) {                          \
			printf("SKIP %s: %s\n", #fn, harness_skipped); \
		} else {                                               \
			printf("PASS %s\n", #fn);                      \
		}                                                      \
		fflush(stdout);                                        \
	} while (0)

/* A test that cannot run here: SKIP_TEST before it runs, SKIP(why) from inside it (it
 * returns; RUN_TEST prints the SKIP, never a PASS). */
#define SKIP_TEST(fn, why) printf("SKIP %s: %s\n", #fn, why)
#define SKIP(why)                        \
	do {                             \
		harness_skipped = (why); \
		return;                  \
	} while (0)

#define HARNESS_EXIT() return harness_failed_tests ? 1 : 0

#endif
