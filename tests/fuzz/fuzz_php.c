// SPDX-License-Identifier: Apache-2.0
/* libFuzzer harness for what ebprof decodes out of a PHP build and process, neither of
 * which it can trust: the version text of the build's read-only data, the dispatch jump
 * in execute_ex's first bytes, and, with the input as the whole "process memory", the
 * readers of a zend_function (its name, class, file, tag and oplines' lines) and of
 * top-level code's file name under each known layout. The first byte picks. */
#include <stdlib.h>
#include <string.h>

#include "fake_mem.h"
#include "interp/php/php_layout.h"
#include "interp/php/php_names.h"

static void version_text(const uint8_t *data, size_t size)
{
	char text[PHP_VERSION_TEXT];
	uint8_t *p = fuzz_copy(data, size);
	uint16_t v;

	if (!p)
		return;
	memset(text, 'x', sizeof(text));
	v = php_layout__version(p, size, text, sizeof(text));
	if (v && !memchr(text, '\0', sizeof(text)))
		abort();
	free(p);
}

static void dispatch(const uint8_t *data, size_t size)
{
	uint8_t *p = fuzz_copy(data, size);
	long at;

	if (!p)
		return;
	at = php_layout__dispatch(p, size);
	if (at != -1 && (at < 0 || (size_t)at + 3 > size || p[at] != 0x41 || p[at + 1] != 0xff ||
			 p[at + 2] != 0x27))
		abort();
	free(p);
}

/* [layout: 1][function's offset in memory: 2][memory...] */
static void function(const uint8_t *data, size_t size)
{
	static const uint16_t versions[] = {0x0704, 0x0802, 0x0804};
	const struct php_layout *l;
	struct fake_mem m;
	struct php_mem mem;
	struct php_func f;
	uint16_t off;

	if (size < 3)
		return;
	l = php_layout__table(versions[data[0] % 3]);
	memcpy(&off, data + 1, 2);
	m = (struct fake_mem){.p = fuzz_copy(data + 3, size - 3), .n = size - 3};
	mem = (struct php_mem){.read = fake_mem__read, .ctx = &m};
	if (!l || !m.p)
		abort();
	if (php_func__read(&mem, l, FAKE_MEM_BASE + off, &f) == 0) {
		uint32_t *lines, n;

		if (php_func__lines(&mem, l, &f, &lines, &n) == 0 && (!lines || n > f.last))
			abort();
		free(lines);
		if (!memchr(f.name, '\0', sizeof(f.name)) || !memchr(f.file, '\0', sizeof(f.file)))
			abort();
		for (unsigned int kind = 0; kind < 8; kind++) {
			const char *name = php_func__frame_name(&f, kind);

			if (!name || (!f.code && !name[0]))
				abort();
		}
	}
	if (php_code__read(&mem, l, FAKE_MEM_BASE + off, &f) == 0 &&
	    (!f.code || !memchr(f.file, '\0', sizeof(f.file)) || !f.file[0]))
		abort();
	free(m.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		version_text(data + 1, size - 1);
		break;
	case 1:
		dispatch(data + 1, size - 1);
		break;
	default:
		function(data + 1, size - 1);
		break;
	}
	return 0;
}
