// SPDX-License-Identifier: Apache-2.0
/* Unit tests for util/json: quotes, backslashes and control characters escaped; valid
 * UTF-8 kept as it is; every invalid sequence (a stray continuation byte, an overlong
 * form, a surrogate, past U+10FFFF, a sequence cut by the end) one U+FFFD per bad byte;
 * in a script, no '<', '>', '&' or line separator left. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "util/json.h"

/* s written with flags, as a malloc'd string. */
static char *put(const char *s, unsigned int flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	json_put_string(f, s, flags);
	fclose(f);
	return buf;
}

static void expect(const char *s, unsigned int flags, const char *want)
{
	char *got = put(s, flags);

	CHECK(got && strcmp(got, want) == 0);
	if (got && strcmp(got, want))
		printf("  %s: got %s, want %s\n", s, got, want);
	free(got);
}

static void test_escapes(void)
{
	expect("plain", 0, "\"plain\"");
	expect("a\"b\\c", 0, "\"a\\\"b\\\\c\"");
	expect("tab\there\nnl\x7f", 0, "\"tab\\u0009here\\u000anl\\u007f\"");
	expect("</script>&", 0, "\"</script>&\"");
	expect("</script>&", JSON_IN_SCRIPT, "\"\\u003c/script\\u003e\\u0026\"");
	expect("\xe2\x80\xa8", JSON_IN_SCRIPT, "\"\\u2028\"");
	expect("\xe2\x80\xa8", 0, "\"\xe2\x80\xa8\"");
}

static void test_utf8(void)
{
	expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", 0,
	       "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5\"");
	expect("\x80", 0, "\"\\ufffd\"");				   /* stray continuation */
	expect("\xc0\xaf", 0, "\"\\ufffd\\ufffd\"");			   /* overlong '/' */
	expect("\xed\xa0\x80", 0, "\"\\ufffd\\ufffd\\ufffd\"");		   /* a surrogate */
	expect("\xf4\x90\x80\x80", 0, "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* past U+10FFFF */
	expect("ab\xe2\x82", 0, "\"ab\\ufffd\\ufffd\"");		   /* cut by the end */
}

int main(void)
{
	RUN_TEST(test_escapes);
	RUN_TEST(test_utf8);
	HARNESS_EXIT();
}
