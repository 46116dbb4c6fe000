// SPDX-License-Identifier: Apache-2.0
/* Unit tests for export/otlp_deadline: --timeout until the collector has answered; then
 * room for its usual answer time, more for a larger request; a timeout multiplies the next
 * deadline up to the cap; an answer brings the deadline back to what answers take; no
 * --timeout, no deadline. */
#include "harness.h"
#include "export/otlp_deadline.h"

static void test_first_attempt(void)
{
	struct otlp_deadline d;

	otlp_deadline__init(&d, 1000);
	CHECK(otlp_deadline__for(&d, 100) == 1000);
	CHECK(otlp_deadline__for(&d, 1 << 20) == 1000);
	otlp_deadline__init(&d, 0);
	CHECK(otlp_deadline__for(&d, 100) == 0);
	otlp_deadline__timed_out(&d, 0);
	otlp_deadline__answered(&d, 100, 50000);
	CHECK(otlp_deadline__for(&d, 100) == 0);
}

/* A collector faster than --timeout keeps --timeout; a slower one gets room. */
static void test_answers(void)
{
	struct otlp_deadline d;

	otlp_deadline__init(&d, 1000);
	otlp_deadline__answered(&d, 1000, 20);
	CHECK(otlp_deadline__for(&d, 1000) == 1000);
	otlp_deadline__init(&d, 1000);
	otlp_deadline__answered(&d, 1000, 3000);
	CHECK(otlp_deadline__for(&d, 1000) == 12000);
	/* A request twice the usual size, twice the room; a smaller one, not less. */
	CHECK(otlp_deadline__for(&d, 2000) == 24000);
	CHECK(otlp_deadline__for(&d, 10) == 12000);
	/* Answers getting faster bring it down, a quarter of the way each. */
	otlp_deadline__answered(&d, 1000, 1000);
	CHECK(otlp_deadline__for(&d, 1000) == 10000);
	/* Never over the cap. */
	otlp_deadline__answered(&d, 1000, 100000);
	otlp_deadline__answered(&d, 1000, 100000);
	CHECK(otlp_deadline__for(&d, 1000) == OTLP_DEADLINE_CAP_MS);
}

/* A collector slower than --timeout: each timeout gives the next attempt four times as
 * long, up to the cap, and the first answer takes over. */
static void test_timeouts(void)
{
	struct otlp_deadline d;
	unsigned t;

	otlp_deadline__init(&d, 1000);
	t = otlp_deadline__for(&d, 500);
	otlp_deadline__timed_out(&d, t);
	CHECK(otlp_deadline__for(&d, 500) == 4000);
	otlp_deadline__timed_out(&d, otlp_deadline__for(&d, 500));
	CHECK(otlp_deadline__for(&d, 500) == 16000);
	for (int i = 0; i < 8; i++)
		otlp_deadline__timed_out(&d, otlp_deadline__for(&d, 500));
	CHECK(otlp_deadline__for(&d, 500) == OTLP_DEADLINE_CAP_MS);
	otlp_deadline__answered(&d, 500, 30000);
	CHECK(otlp_deadline__for(&d, 500) == OTLP_DEADLINE_CAP_MS);
	otlp_deadline__init(&d, 1000);
	otlp_deadline__timed_out(&d, 1000);
	otlp_deadline__answered(&d, 500, 100);
	CHECK(otlp_deadline__for(&d, 500) == 1000);
	/* A --timeout over the cap is the cap. */
	otlp_deadline__init(&d, 300000);
	otlp_deadline__timed_out(&d, 300000);
	CHECK(otlp_deadline__for(&d, 500) == 300000);
}

int main(void)
{
	RUN_TEST(test_first_attempt);
	RUN_TEST(test_answers);
	RUN_TEST(test_timeouts);
	HARNESS_EXIT();
}
