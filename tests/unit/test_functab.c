// SPDX-License-Identifier: Apache-2.0
/* Unit test of the (function, file) name table: the same pair always gets the same id,
 * pairs that differ only in the file do not share one, id 0 and unknown ids name
 * nothing, and a bounded table stops handing out ids at its bound. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "util/functab.h"

#define N 3000 /* past the first allocation (64), so the id array grows */

static void test_intern(void)
{
	struct functab t;
	char func[32];
	uint32_t a, b;

	CHECK(functab__init(&t, 0) == 0);
	a = functab__intern(&t, "main", "app.py");
	b = functab__intern(&t, "main", "lib.py");
	CHECK(a && b && a != b);
	CHECK(functab__intern(&t, "main", "app.py") == a);
	for (int i = 0; i < N; i++) {
		snprintf(func, sizeof(func), "f%d", i);
		CHECK(functab__intern(&t, func, "x.js") == (uint32_t)i + 3);
	}
	CHECK(!strcmp(functab__get(&t, b)->file, "lib.py"));
	CHECK(!strcmp(functab__get(&t, N + 2)->func, "f2999"));
	CHECK(functab__get(&t, 0) == NULL && functab__get(&t, N + 3) == NULL);
	functab__free(&t);
}

static void test_bound(void)
{
	struct functab t;

	CHECK(functab__init(&t, 3) == 0); /* ids 1 and 2 */
	CHECK(functab__intern(&t, "a", "") == 1);
	CHECK(functab__intern(&t, "b", "") == 2);
	CHECK(functab__intern(&t, "c", "") == 0);
	CHECK(functab__intern(&t, "a", "") == 1); /* known names still resolve */
	functab__free(&t);
}

int main(void)
{
	RUN_TEST(test_intern);
	RUN_TEST(test_bound);
	HARNESS_EXIT();
}
