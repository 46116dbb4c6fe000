/* SPDX-License-Identifier: Apache-2.0 */
/* A minimal unit-test harness: each CHECK prints on failure, each TEST one result line
 * ("PASS name" / "FAIL name"), which tests/run.sh counts into the suite's closing line. */
#ifndef EBPROF_TEST_HARNESS_H
#define EBPROF_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>

static int harness_failed_checks;
static int harness_failed_tests;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			harness_failed_checks++;                                                   \
		}                                                                                  \
	} while (0)

#define RUN_TEST(fn)                                   \
	do {                                           \
		int before = harness_failed_checks;    \
		fn();                                  \
		if (harness_failed_checks == before) { \
			printf("PASS %s\n", #fn);      \
		} else {                               \
			printf("FAIL %s\n", #fn);      \
			harness_failed_tests++;        \
		}                                      \
		fflush(stdout);                        \
	} while (0)

#define SKIP_TEST(fn, why) printf("SKIP %s: %s\n", #fn, why)

#define HARNESS_EXIT() return harness_failed_tests ? 1 : 0

#endif
